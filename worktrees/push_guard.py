"""The second layer of the floor: a `pre-push` hook in every session's worktree.

Whatever runs `git push` in a session's worktree (the agent, a script, a Makefile, an
alias, a Python subprocess), git runs the worktree's pre-push hook first; bullpen's
refuses an update that is not a fast-forward (the remote's sha is not an ancestor of the
pushed one) or that deletes a ref (the local sha all zeros), for any remote, then hands
the same input to the repository's own pre-push, if it has one. Only `--no-verify` and
a `-c core.hooksPath=…` skip it, and the first layer refuses both.

How: the worktree's own config (`git config --worktree`) sets `core.hooksPath` to
`<git common dir>/bullpen/hooks`, which holds, for every hook git knows, a script that
runs the repository's hook of that name (from its own `core.hooksPath`, else
`$GIT_COMMON_DIR/hooks`, looked up when it runs), so the user's pre-commit, commit-msg …
keep running in the sessions' worktrees. What this changes in the user's repository:
`extensions.worktreeConfig = true` in `.git/config` (git ≥ 2.20 understands it; when
enabling it, `core.worktree` and a true `core.bare` move to the main worktree's
`config.worktree`, as git-config(1) requires), the `bullpen/hooks` directory in `.git`,
and one `config.worktree` per session worktree. The main checkout's hooks are untouched.
"""

from __future__ import annotations

import os
from pathlib import Path

from worktrees.gitcmd import git_out, run_git

GUARD_DIR = ("bullpen", "hooks")  # under the git common dir
HOOKS = ("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
         "pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit",
         "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update",
         "post-receive", "post-update", "reference-transaction", "pre-auto-gc",
         "post-rewrite", "sendemail-validate", "post-index-change", "p4-changelist",
         "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit")
# The repository's own hooks, found when a hook runs: its core.hooksPath from any scope
# but the worktree's (that one is ours), else the common dir's hooks/.
_FIND_OWN = """own_dir=$(git config --show-scope --get-all core.hooksPath 2>/dev/null \\
    | grep -v '^worktree' | tail -n 1 | cut -f 2-)
case $own_dir in
    '') own_dir="$(git rev-parse --git-common-dir)/hooks" ;;
    '~/'*) own_dir="$HOME/${own_dir#'~/'}" ;;
esac
own="$own_dir/$(basename "$0")"
"""
_CHAIN = """#!/bin/sh
# Written by bullpen (worktrees/push_guard.py): runs the repository's own hook.
""" + _FIND_OWN + """if [ -x "$own" ]; then exec "$own" "$@"; fi
exit 0
"""
_PRE_PUSH = """#!/bin/sh
# Written by bullpen (worktrees/push_guard.py): a session may not rewrite or delete
# history on a remote. Then the repository's own pre-push runs with the same input.
input=$(cat)
refused=$(printf '%s\\n' "$input" | while read -r local_ref local_sha remote_ref remote_sha
do
    [ -n "$local_ref" ] || continue
    case $local_sha in *[!0]*) ;; *) echo "deletes $remote_ref"; continue ;; esac
    case $remote_sha in *[!0]*) ;; *) continue ;; esac
    git merge-base --is-ancestor "$remote_sha" "$local_sha" 2>/dev/null \\
        || echo "rewrites $remote_ref (not a fast-forward)"
done)
if [ -n "$refused" ]; then
    printf 'bullpen: push to %s refused: it %s. Sessions may not rewrite or delete a\\n' \\
        "$1" "$refused" >&2
    echo "remote's history; ask the human." >&2
    exit 1
fi
""" + _FIND_OWN + """if [ -x "$own" ]; then
    printf '%s\\n' "$input" | "$own" "$@"
    exit $?
fi
exit 0
"""


def guard_dir(root: Path) -> Path:
    """Where the guard's hooks live for the repository at `root`."""
    common = Path(git_out(root, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    return common.joinpath(*GUARD_DIR)


def write_hooks(root: Path) -> Path:
    """Write (again) the guard's hook scripts for the repository at `root`."""
    folder = guard_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    for name in HOOKS:
        path = folder / name
        text = _PRE_PUSH if name == "pre-push" else _CHAIN
        if not path.exists() or path.read_text() != text:
            staged = folder / f".{name}.tmp"
            staged.write_text(text)
            staged.chmod(0o755)
            os.replace(staged, path)
    return folder


def enable_worktree_config(root: Path) -> None:
    """Turn on extensions.worktreeConfig, moving core.worktree and a true core.bare to
    the main worktree's config.worktree first, as git-config(1) requires."""
    common = Path(git_out(root, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    shared = str(common / "config")
    if run_git(root, "config", "--file", shared, "--bool", "--get",
               "extensions.worktreeConfig", ok=(0, 1)).stdout.strip() == "true":
        return
    main_worktree = str(common / "config.worktree")
    for key, moved in (("core.worktree", None), ("core.bare", "true")):
        value = run_git(root, "config", "--file", shared, "--get", key, ok=(0, 1)).stdout
        if value.strip() and (moved is None or value.strip().lower() == moved):
            run_git(root, "config", "--file", main_worktree, key, value.strip())
            run_git(root, "config", "--file", shared, "--unset", key)
    run_git(root, "config", "--file", shared, "extensions.worktreeConfig", "true")


def install(root: Path, worktrees: list[Path]) -> None:
    """Guard `worktrees` (linked worktrees of the repository at `root`): their pushes go
    through bullpen's pre-push, their other hooks are the repository's own. Made again
    at each spawn and `up`, so a worktree made before the guard gets it then."""
    folder = write_hooks(root)
    enable_worktree_config(root)
    for worktree in worktrees:
        admin = Path((worktree / ".git").read_text().removeprefix("gitdir: ").strip())
        config = admin / "config.worktree"
        if not config.exists():  # what `git config --worktree` writes, without a process
            config.write_text(f"[core]\n\thooksPath = {_quoted(str(folder))}\n")
        elif not guarded(worktree):
            run_git(worktree, "config", "--worktree", "core.hooksPath", str(folder))


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def guarded(worktree: Path) -> bool:
    """Does `worktree` push through the guard?"""
    found = run_git(worktree, "config", "--worktree", "--get", "core.hooksPath", ok=(0, 1))
    return found.stdout.strip().endswith("/".join(GUARD_DIR))
