"""The version spread: the agent releases bullpen supports, kept as data (spread.toml).

Users run the release they installed months ago as often as the newest, so bullpen
lists, per agent, the release its tests pin, the registry's newest when last checked, and
the older ones users commonly have, each with what is known not to work on it. The
adapters' tested versions come from here, doctor warns of a release outside the list
(naming the nearest listed ones and their gaps), the tests' lanes read their pins here,
and docs/agents.md's compatibility table is made from it. Read once per process, when
first asked (an agent's hook process never asks). Stdlib only.
"""

from __future__ import annotations

import functools
from pathlib import Path

from board.records import record

DATA = Path(__file__).with_name("spread.toml")


@record(frozen=True)
class Release:
    """One listed release: what is known not to work on it, the real-agent tests that do
    not pass on it (name -> why), and what `./dev spread` found when it last ran it."""

    version: str
    gaps: tuple[str, ...]
    failing: dict[str, str]
    spread: str


@record(frozen=True)
class AgentSpread:
    """One agent's listed releases (oldest first), its package and the two lanes' pins."""

    kind: str
    package: str
    registry: str
    pinned: str
    newest: str
    releases: tuple[Release, ...]

    def versions(self) -> tuple[str, ...]:
        return tuple(release.version for release in self.releases)


class SpreadError(ValueError):
    """spread.toml says something this reader cannot take (a test checks it never does)."""


def version_key(version: str) -> tuple[int, ...]:
    """`2.1.300` as (2, 1, 300), for ordering releases (a `-rc1` suffix is dropped)."""
    numbers = []
    for part in version.split("-")[0].split("+")[0].split("."):
        if not part.isdigit():
            break
        numbers.append(int(part))
    return tuple(numbers)


def load(path: Path = DATA) -> dict[str, AgentSpread]:
    """Every agent's spread in `path`, by kind; raises SpreadError naming what is wrong."""
    import tomllib  # here, not at the top: an agent's hook process imports this module

    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SpreadError(f"{path}: {error}") from error
    return {kind: _agent(kind, table) for kind, table in data.items()}


@functools.cache
def listed() -> dict[str, AgentSpread]:
    """The shipped spread (spread.toml beside this module), read once."""
    return load()


def versions(kind: str) -> tuple[str, ...]:
    """The releases of `kind` bullpen supports, oldest first; () for a kind not listed."""
    agent = listed().get(kind)
    return agent.versions() if agent else ()


def release(kind: str, version: str) -> Release | None:
    """The listed release `version` of `kind`, None when it is not listed."""
    agent = listed().get(kind)
    return next((r for r in agent.releases if r.version == version), None) if agent else None


def nearest(kind: str, version: str) -> tuple[Release, ...]:
    """The listed releases either side of `version` (the newest below it, the oldest
    above it): one when `version` is older or newer than every listed one."""
    agent = listed().get(kind)
    if agent is None:
        return ()
    key = version_key(version)
    below = [r for r in agent.releases if version_key(r.version) < key]
    above = [r for r in agent.releases if version_key(r.version) > key]
    return tuple(([below[-1]] if below else []) + ([above[0]] if above else []))


class TestedVersions:
    """`Adapter.tested_versions`: the listed releases of the adapter's kind, on the
    class and on its instances alike."""

    def __get__(self, instance: object, owner: type) -> tuple[str, ...]:
        return versions(str(getattr(owner, "kind", "")))


def _agent(kind: str, table: object) -> AgentSpread:
    if not isinstance(table, dict):
        raise SpreadError(f"spread: [{kind}] is not a table")
    try:
        releases = tuple(Release(str(row["version"]), tuple(map(str, row.get("gaps", ()))),
                                 {str(k): str(v) for k, v in row.get("failing", {}).items()},
                                 str(row.get("spread", "")))
                         for row in table.get("releases", ()))
        agent = AgentSpread(kind, str(table["package"]), str(table["registry"]),
                            str(table["pinned"]), str(table["newest"]), releases)
    except (KeyError, TypeError, AttributeError) as error:
        raise SpreadError(f"spread: [{kind}] lacks or mistypes {error}") from error
    ordered = sorted(releases, key=lambda r: version_key(r.version))
    if list(releases) != ordered or len({r.version for r in releases}) != len(releases):
        raise SpreadError(f"spread: [{kind}]'s releases are not listed oldest first, once")
    for lane in (agent.pinned, agent.newest):
        if lane not in agent.versions():
            raise SpreadError(f"spread: [{kind}] lane release {lane} is not listed")
    return agent
