"""docs/agents.md's compatibility table, made from the version spread (spread.toml).

`./dev spread` writes it after a run; tests/unit/test_spread.py checks the table in the
docs is the one the data makes, so neither can drift from the other.
"""

from __future__ import annotations

import re
from pathlib import Path

from workers.agents.spread import AgentSpread

DOC = Path(__file__).resolve().parents[1] / "docs" / "agents.md"
BEGIN = "<!-- the compatibility table: made by ./dev spread from workers/agents/spread.toml -->"
END = "<!-- end of the compatibility table -->"
NAMES = {"claude": "Claude Code", "codex": "Codex CLI", "hermes": "Hermes Agent"}


def table(agents: dict[str, AgentSpread]) -> str:
    """The markdown table, one row per listed release, between its two markers."""
    rows = [BEGIN, "| Agent | Release | Lane | Smoke tests (`./dev spread`) | Known not to work |",
            "|---|---|---|---|---|"]
    for kind, agent in agents.items():
        for release in agent.releases:
            lanes = [lane for lane, version in (("pinned", agent.pinned),
                                                ("newest", agent.newest))
                     if version == release.version]
            known = [*release.gaps, *(f"test {name}: {why}"
                                      for name, why in release.failing.items())]
            rows.append(f"| {NAMES.get(kind, kind)} | {release.version} | "
                        f"{', '.join(lanes) or 'older'} | {release.spread or 'not run yet'} | "
                        f"{'; '.join(known) or '—'} |")
    return "\n".join([*rows, END])


def table_in(text: str) -> str | None:
    """The table as docs/agents.md holds it, markers included; None when absent."""
    found = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, re.DOTALL)
    return found.group(0) if found else None


def write_table(agents: dict[str, AgentSpread], doc: Path = DOC) -> None:
    """Replace the table in `doc` with the one `agents` makes."""
    text = doc.read_text()
    old = table_in(text)
    if old is None:
        raise ValueError(f"{doc} has no compatibility table markers")
    doc.write_text(text.replace(old, table(agents)))
