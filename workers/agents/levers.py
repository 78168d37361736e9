"""Which of bullpen's levers a session's agent release cannot hold, in a row's words.

A row (`ls`, the dashboard), the needs-you strip and doctor all ask this, from the
version the agent said of itself at launch: a lever that does not hold never reads ok.
"""

from __future__ import annotations

from workers.agents.kinds import adapter_for


def lost_levers(agent: str | None, version: str | None,
                deliver: str | None = None) -> tuple[str, ...]:
    """What release `version` of the agent command `agent` cannot hold that the tested
    releases of its kind do (`deny not enforced`); () when nothing, or not known yet."""
    if not agent or version is None:
        return ()
    return adapter_for(agent, deliver).lost_levers(agent, version)
