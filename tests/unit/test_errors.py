"""One error root: every fault a user can meet is a BullpenError carrying its exit status."""

from __future__ import annotations

import pytest

from board.errors import BadInput, BullpenError, NotFound, Refused
from workers.surfaces.hooks import HookInputError
from workers.tmux.server import TmuxError, TmuxMissing
from worktrees.errors import BadWorktreeInput, UnsafeRemoval, WorktreeError

FAILURES = (BullpenError, WorktreeError, TmuxError)  # exit status 1
BAD_INPUT = (BadInput, NotFound, Refused, BadWorktreeInput, UnsafeRemoval, TmuxMissing,
             HookInputError)  # exit status 2: nothing was changed


@pytest.mark.parametrize("error", FAILURES + BAD_INPUT)
def test_every_user_visible_error_shares_the_root(error: type[Exception]) -> None:
    assert issubclass(error, BullpenError)


@pytest.mark.parametrize("error", FAILURES)
def test_failures_exit_one(error: type[BullpenError]) -> None:
    assert error("x").exit_status == 1


@pytest.mark.parametrize("error", BAD_INPUT)
def test_bad_input_exits_two_and_is_bad_input(error: type[BullpenError]) -> None:
    assert error("x").exit_status == 2
    assert issubclass(error, BadInput)  # caught as bad input by every surface
