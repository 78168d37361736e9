"""What this machine lets the operators of other machines do to its sessions.

Kept in this machine's own `.bullpen/local.yaml` (`machines_may: {bob: [stop]}`), never
on the shared board: every machine of a room may write the board, so a grant stored
there could be given by the very machine it empowers. The machine that runs a session
reads only its own file when another machine asks it to act (board.remote_asks).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from board import store
from board.authority import ON_ITS_MACHINE, Power, parse_powers
from board.errors import BadInput

KEY = "machines_may"


def granted_to(home: Path, machine: str) -> frozenset[Power]:
    """The powers over this machine's sessions that `machine`'s operator holds."""
    grants = store.read_local(home).get(KEY) or {}
    if not isinstance(grants, dict):
        raise BadInput(f"{home / store.LOCAL_CONFIG}: {KEY}: expected machine names with"
                       " lists of powers")
    return frozenset(parse_powers(grants.get(machine) or (), where=f"{KEY}.{machine}"))


def all_grants(home: Path) -> dict[str, list[str]]:
    grants = store.read_local(home).get(KEY) or {}
    return {name: list(powers) for name, powers in grants.items()} \
        if isinstance(grants, dict) else {}


def set_grant(home: Path, machine: str, powers: Iterable[str]) -> tuple[Power, ...]:
    """Grant `machine`'s operator exactly `powers` over this machine's sessions (none:
    take every grant back); returns them."""
    wanted = parse_powers(powers, where="machines grant")
    beyond = [power.value for power in wanted if power not in ON_ITS_MACHINE]
    if beyond:
        raise BadInput(f"machines grant: {', '.join(beyond)} is not a power over another"
                       " machine's sessions; use some of "
                       + ", ".join(sorted(power.value for power in ON_ITS_MACHINE)))
    grants = all_grants(home)
    if wanted:
        grants[machine] = sorted(power.value for power in wanted)
    else:
        grants.pop(machine, None)
    store.write_local(home, **{KEY: grants})
    return wanted
