"""Routing raw watcher events to sources, without touching the filesystem."""

from __future__ import annotations

from pathlib import Path

import pytest

from workers.coordinator.change_filter import (
    ADDED,
    DELETED,
    MODIFIED,
    Target,
    is_editor_temp,
    is_ref_event,
    route,
)

REPO = Path("/r")
TARGETS = [Target("main", REPO), Target("a", REPO / ".bullpen" / "worktrees" / "a")]


@pytest.mark.parametrize("name", [".app.py.swp", "app.py~", ".#app.py", "#app.py#", "4913",
                                  "app.py.tmp", "x.pyc", "app.py___jb_tmp___",
                                  "app.py.tmp.12359.e2c39158b38d", "app.py.tmp.77.1796169600123",
                                  ".hermes-tmp.Ab12Cd", ".hermes-tmp.4242"])
def test_editor_temp_files(name: str) -> None:
    assert is_editor_temp(f"src/{name}")


@pytest.mark.parametrize("name", ["app.py", "swp.py", "tmp/notes.md", "Makefile",
                                  "data.tmp.csv", "app.tmp.1.py", "hermes-tmp.md"])
def test_real_files_are_not_temp(name: str) -> None:
    assert not is_editor_temp(name)


@pytest.mark.parametrize(("path", "expected"), [
    ("HEAD", True), ("packed-refs", True), ("refs/heads/main", True),
    ("refs/heads/bullpen/a", True), ("refs/heads/bullpen/a.lock", False),
    ("worktrees/a/HEAD", True), ("worktrees/a/index", False), ("objects/ab/cdef", False),
    ("logs/refs/heads/main", False), ("refs/tags/v1", False), ("index", False),
])
def test_ref_events(path: str, expected: bool) -> None:
    assert is_ref_event(path) is expected


def test_events_go_to_the_deepest_checkout_and_internals_are_dropped() -> None:
    raw = [
        (MODIFIED, "/r/src/app.py"),
        (MODIFIED, "/r/.bullpen/worktrees/a/src/app.py"),
        (ADDED, "/r/.bullpen/bullpen.db-wal"),
        (MODIFIED, "/r/.bullpen/worktrees/a/.git"),
        (ADDED, "/r/src/__pycache__/app.cpython-311.pyc"),
        (ADDED, "/r/src/.app.py.swp"),
        (DELETED, "/r/README.md"),
        (MODIFIED, "/elsewhere/file"),
        (ADDED, "/r/.git/objects/ab/cdef"),
    ]
    routed = route(raw, TARGETS, REPO / ".git")
    assert routed.files == {"main": {"src/app.py": {MODIFIED}, "README.md": {DELETED}},
                            "a": {"src/app.py": {MODIFIED}}}
    assert not routed.refs_moved


def test_a_checkouts_index_writes_are_routed_to_it() -> None:
    """git writes a checkout's index (through index.lock) when it is at work there: in the
    common git dir for the main checkout, in its own under worktrees/ for a linked one."""
    targets = [Target("main", REPO, REPO / ".git"),
               Target("a", REPO / ".bullpen" / "worktrees" / "a", REPO / ".git/worktrees/a")]
    raw = [(ADDED, "/r/.git/worktrees/a/index.lock"), (ADDED, "/r/.git/worktrees/a/index"),
           (ADDED, "/r/.git/scout.index.lock"), (MODIFIED, "/r/.git/worktrees/b/index")]
    routed = route(raw, targets, REPO / ".git")
    assert routed.index_written == {"a"} and not routed.refs_moved
    assert route([(MODIFIED, "/r/.git/index")], targets, REPO / ".git").index_written == {
        "main"}
    assert route(raw, TARGETS, REPO / ".git").index_written == set()  # git dirs unknown


def test_a_branch_ref_marks_refs_moved() -> None:
    routed = route([(ADDED, "/r/.git/refs/heads/bullpen/a")], TARGETS, REPO / ".git")
    assert routed.refs_moved and routed.files == {}
