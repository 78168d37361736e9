"""The radar's fast path writes the same tree git would, and touches no index or file."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import git
from worktrees.predict import snapshot
from worktrees.tree_edit import TreeEditor


def test_edited_files_make_the_tree_git_add_would(git_repo: Path) -> None:
    (git_repo / "a-b").write_text("sorts between a and a/\n")
    (git_repo / "src" / "util.py").write_text("u = 1\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "more")
    tree = git(git_repo, "rev-parse", "HEAD^{tree}").strip()
    (git_repo / "src" / "app.py").write_text("changed\n")
    (git_repo / "src" / "util.py").unlink()
    (git_repo / "new" / "deep").mkdir(parents=True)
    (git_repo / "new" / "deep" / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(git_repo / "new" / "deep" / "run.sh", 0o755)
    os.symlink("README.md", git_repo / "link")
    index, status = git(git_repo, "ls-files", "--stage"), git(git_repo, "status", "--porcelain")
    editor = TreeEditor(git_repo)
    try:
        edited = editor.edit(git_repo, tree, ["src/app.py", "src/util.py", "new/deep/run.sh",
                                              "link"])
        head = git(git_repo, "rev-parse", "HEAD").strip()
        commit = editor.commit(edited, head)
    finally:
        editor.close()

    assert edited == git(git_repo, "rev-parse", f"{snapshot(git_repo).commit}^{{tree}}").strip()
    assert git(git_repo, "rev-parse", f"{commit}^").strip() == head
    assert git(git_repo, "ls-files", "--stage") == index
    assert git(git_repo, "status", "--porcelain") == status


def test_a_repository_with_attributes_takes_gits_path(git_repo: Path) -> None:
    (git_repo / ".gitattributes").write_text("*.txt eol=crlf\n")
    editor = TreeEditor(git_repo)
    try:
        assert not editor.usable
    finally:
        editor.close()


def test_a_branch_head_is_read_from_its_ref_file_or_from_packed_refs(git_repo: Path) -> None:
    git(git_repo, "branch", "loose")
    head = git(git_repo, "rev-parse", "HEAD").strip()
    editor = TreeEditor(git_repo)
    try:
        assert editor.branch_head("loose") == head
        git(git_repo, "pack-refs", "--all")
        assert not (git_repo / ".git" / "refs" / "heads" / "loose").exists()
        assert editor.branch_head("loose") == head
        assert editor.branch_head("absent") is None
    finally:
        editor.close()
