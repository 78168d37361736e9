"""Branch and path naming for session worktrees, and the branch prefixes Hermes owns."""

from pathlib import Path

import pytest

from worktrees.errors import BadWorktreeInput
from worktrees.naming import branch_for, check_branch_allowed, is_protected, worktree_path


def test_branch_and_path_follow_the_session_name() -> None:
    assert branch_for("coder") == "bullpen/coder"
    assert worktree_path(Path("/r"), "coder") == Path("/r/.bullpen/worktrees/coder")


@pytest.mark.parametrize("name", ["", "-x", "a/b", "a b", "..", "a..b", "x.lock", "x.", "é",
                                  "a" * 64, "../escape"])
def test_unsafe_names_are_refused_with_exit_status_2(name: str) -> None:
    with pytest.raises(BadWorktreeInput, match="invalid session name") as caught:
        branch_for(name)
    assert caught.value.exit_status == 2
    with pytest.raises(BadWorktreeInput):
        worktree_path(Path("/r"), name)


@pytest.mark.parametrize("branch", ["hermes/hermes-1a2b3c4d", "pr-12", "refs/heads/pr-x"])
def test_hermes_prefixes_are_protected(branch: str) -> None:
    assert is_protected(branch)
    with pytest.raises(BadWorktreeInput, match="Hermes prunes"):
        check_branch_allowed(branch)


@pytest.mark.parametrize("branch", ["bullpen/pr-12", "bullpen/hermes-x", "hermes/other", "main"])
def test_other_branches_are_allowed(branch: str) -> None:
    assert check_branch_allowed(branch) == branch


def test_session_names_that_look_like_hermes_branches_stay_under_bullpen() -> None:
    assert check_branch_allowed(branch_for("pr-7")) == "bullpen/pr-7"
