"""`bullpen machines grant` says in plain words what the other machine's operator may do."""

from __future__ import annotations

import pytest

from board.authority import Power
from tui.cli.machine_commands import grant_line


@pytest.mark.parametrize(("powers", "said"), [
    ((Power.RESTART,), "the operator of machine beta may restart this machine's sessions"),
    ((Power.STOP, Power.RESTART),
     "the operator of machine beta may stop and restart this machine's sessions"),
    ((Power.REMOVE,),
     "the operator of machine beta may remove the worktrees of this machine's sessions"),
    ((Power.REMOVE, Power.STOP), "the operator of machine beta may stop this machine's"
                                 " sessions and remove their worktrees"),
    ((), "the operator of machine beta may no longer act on this machine's sessions"),
])
def test_a_grant_reads_as_a_sentence(powers: tuple[Power, ...], said: str) -> None:
    assert grant_line("beta", powers) == said
