"""Doctor's word on the release a session's agent runs, against the version spread.

A release bullpen lists (workers/agents/spread.toml) with nothing known broken is ok; a
listed one with known gaps, or one outside the list, is a warning (not ok) that names
what is known not to work, and for an unlisted one the nearest listed releases, so the
human can judge which side of them theirs is.
"""

from __future__ import annotations

from workers.agents import spread
from workers.room.findings import Finding


def spread_finding(running: str, kind: str, version: str) -> Finding:
    """The `agents` finding for `running` ("coder: claude 2.1.300") at `version`."""
    listed = spread.release(kind, version)
    agent = spread.listed().get(kind)
    upgrade = f"run the pinned release {agent.pinned}" if agent else "run a tested release"
    if listed is not None and not listed.gaps:
        return Finding("agents", True, f"{running} (a tested release)")
    if listed is not None:
        return Finding("agents", False, f"{running} (a tested release; known not to work:"
                       f" {'; '.join(listed.gaps)})", upgrade)
    near = spread.nearest(kind, version)
    if not near:
        return Finding("agents", False, f"{running}: bullpen lists no tested release of"
                       f" {kind}", "report how it goes")
    said = ", ".join(f"{r.version} ({'; '.join(r.gaps) or 'no known gaps'})" for r in near)
    return Finding("agents", False, f"{running} is not a tested release; nearest tested:"
                   f" {said}", f"{upgrade}, or report how {version} goes")
