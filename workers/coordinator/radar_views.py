"""What the conflict radar knows of one session's work: a `View`, and how an edit of a
few files updates it without a git process (worktrees.tree_edit)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from board.models import Session
from board.vocabulary import DesiredState
from worktrees.naming import branch_for
from worktrees.tree_edit import TreeEditor


@dataclass(frozen=True)
class View:
    """One session's work as the radar last saw it."""

    commit: str  # HEAD, or a snapshot commit holding its uncommitted edits
    head: str
    dirty: bool
    fork: str | None  # where it left the base branch
    changed: frozenset[str]  # paths changed since then
    partial: bool = False  # built from the reported paths only (a conflict re-checks all)
    tree: str = ""  # the tree of `commit`, and of `head`
    head_tree: str = ""


def edited_view(editor: TreeEditor, session: Session, old: View,
                paths: set[str]) -> View | None:
    """The view after edits to `paths` on the same HEAD, written in-process from the
    last snapshot's tree (no git process); None when that cannot be done here."""
    if not editor.usable or not old.tree or not session.worktree or \
            editor.branch_head(session.branch or branch_for(session.name)) != old.head:
        return None
    tree = editor.edit(Path(session.worktree), old.tree, sorted(paths))
    if tree is None:
        return None
    dirty = tree != old.head_tree
    commit = editor.commit(tree, old.head) if dirty else old.head
    # Same HEAD and fork, only these files edited: the changed set can only grow by
    # them (an undone edit stays listed until the next full look: harmless).
    return View(commit, old.head, dirty, old.fork, old.changed | frozenset(paths),
                partial=True, tree=tree, head_tree=old.head_tree)


def is_live(session: Session) -> bool:
    """A session whose work counts: not stopped, with its worktree here."""
    return bool(session.worktree and session.desired != DesiredState.STOPPED
                and Path(session.worktree).is_dir())
