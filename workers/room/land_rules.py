"""The room's rules in bullpen.yaml, which a branch being landed must not change by itself.

Who may do what (`may`), the command policy (`deny`), the spending limits (`budget`, and
the `prices` spend is counted at), how landing works and what it checks (`land`), the
agent command each session runs (`agent`), its `setup` command and the `machine` it runs
on are the operator's (DESIGN.md "Authority"). A landing that would change any of them,
at the top level or in a session of `sessions:`, is named with each key before and after,
and goes ahead only when the operator says so (`--allow-config`, or yes to the
dashboard's question).

The scripts `land.check` runs (`check.sh` in `sh check.sh`, see `check_words`) are the
check as much as the command is: a branch that changes one is named too (`check.sh (run
by land.check)`).

Both versions are read from git, the base's commit and the landed result's (or, for a
question asked before landing, the predicted merge's tree), and parsed with the loader
`up` uses. A bullpen.yaml the branch adds counts against no file, one it removes or
renames as the empty plan; one that would not parse, or becomes a symbolic link, is
refused outright (`up` could not read it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path

from board.errors import BadInput
from board.home import ROOM_DIR
from workers.room import config as config_file
from workers.room.check_words import scripts_run
from workers.room.config import Config, SessionPlan
from worktrees.gitcmd import run_git, split_z
from worktrees.land import LandRefused

SESSION_RULES = ("may", "budget", "agent", "setup", "machine")
SHOWN = 4  # changes named in one line; the rest are counted
_LINK_MODE = "120000"


@dataclass(frozen=True)
class RuleChange:
    """One rule a landing changes: `key` ("sessions.s1.may", "land.check"), its values,
    and the file it lives in."""

    key: str
    before: str
    after: str
    file: str = config_file.CONFIG_NAME

    def __str__(self) -> str:
        return f"{self.key}: {self.before} -> {self.after}"


class RulesChanged(LandRefused):
    """The branch changes the room's rules and the operator did not allow it (exit 2:
    land it with --allow-config); nothing landed."""

    exit_status = 2

    def __init__(self, message: str, changes: tuple[RuleChange, ...] = ()) -> None:
        super().__init__(message)
        self.changes = changes


def listed(changes: Iterable[RuleChange]) -> str:
    """The changes in one line, the first few in full."""
    items = list(changes)
    shown = "; ".join(str(change) for change in items[:SHOWN])
    return shown + (f"; and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def touched(root: Path, old: str, new: str, check: str | None) -> frozenset[str]:
    """Which files that hold the rules differ between `old` and `new` (commits or
    trees): bullpen.yaml, the scripts `check` runs, the room's own directory. One git
    call, so a landing that touches none of them (most) pays only that."""
    paths = [config_file.CONFIG_NAME, ROOM_DIR, *sorted(scripts_run(check or ""))]
    return frozenset(split_z(run_git(root, "diff", "--name-only", "--no-renames", "-z",
                                     old, new, "--", *paths).stdout))


def room_files(changed: frozenset[str]) -> list[str]:
    """Files under the room's own directory (.bullpen/: its store, local config with the
    database URL, logs) among `changed`: never tracked, so a branch that commits one
    (git add -f) is refused outright."""
    return sorted(path for path in changed if path.split("/", 1)[0] == ROOM_DIR)


def files_of(changes: Iterable[RuleChange]) -> str:
    """The files the changes live in, for a `git diff -- FILES` that shows them."""
    return " ".join(sorted({change.file for change in changes}))


def changes_between(root: Path, old: str, new: str, whose: str, check: str | None = None,
                    fallback: Config | None = None,
                    changed: frozenset[str] | None = None) -> tuple[RuleChange, ...]:
    """The rules that differ between bullpen.yaml at `old` and at `new` (commits or
    trees), and the scripts the base's `check` runs. Raises LandRefused when `new`'s
    bullpen.yaml cannot be read as a plan (`whose` names the branch in that line);
    `fallback` stands for an `old` that does not parse; `changed` is `touched`'s answer
    when the caller has it."""
    if changed is None:
        changed = touched(root, old, new, check)
    scripts = check_files(root, old, new, check) if changed & scripts_run(check or "") else ()
    if not any(path.split("/", 1)[0] == config_file.CONFIG_NAME for path in changed):
        return scripts  # the same file (or none on both sides): nothing to parse
    before, after = _entry(root, old), _entry(root, new)
    later = _config_at(root, after, whose)
    try:
        earlier = _config_at(root, before, "the base's")
    except LandRefused:
        if fallback is None:
            raise
        earlier = fallback
    return rule_changes(earlier, later) + scripts


def predicted_changes(root: Path, old: str, head: str, whose: str,
                      check: str | None = None) -> tuple[RuleChange, ...]:
    """`changes_between` the base and the merge of `head` into it, predicted without a
    worktree; nothing when that merge conflicts (the landing will refuse for that)."""
    merged = run_git(root, "merge-tree", "--write-tree", old, head, ok=(0, 1, 128))
    if merged.status != 0:
        return ()
    return changes_between(root, old, merged.stdout.split("\n", 1)[0].strip(), whose, check)


def check_files(root: Path, old: str, new: str, check: str | None) -> tuple[RuleChange, ...]:
    """The scripts of the repository that `check` runs whose version differs between
    `old` and `new`."""
    paths = sorted(scripts_run(check or ""))
    if not paths:
        return ()
    before, after = _entries(root, old, paths), _entries(root, new, paths)
    return tuple(RuleChange(f"{path} (run by land.check)", before.get(path, "none"),
                            after.get(path, "none"), path)
                 for path in paths if before.get(path) != after.get(path))


def _entries(root: Path, rev: str, paths: list[str]) -> dict[str, str]:
    """Path -> its object's short id at `rev`, for those of `paths` that are files there
    (a directory the check names, `pytest tests`, is the project's work, not the check)."""
    found = {}
    for item in split_z(run_git(root, "ls-tree", "-z", rev, "--", *paths).stdout):
        meta, _, path = item.partition("\t")
        mode, kind, oid = meta.split(" ")
        if kind == "blob":
            found[path] = ("link " if mode == _LINK_MODE else "") + oid[:7]
    return found


def rule_changes(before: Config, after: Config) -> tuple[RuleChange, ...]:
    """Every rule of `after` that differs from `before`, top level first."""
    found = [_change(key, getattr(before, key), getattr(after, key))
             for key in ("agent", "deny", "budget", "prices")]
    found += [_change(f"land.{item.name}", getattr(before.land, item.name),
                      getattr(after.land, item.name)) for item in fields(before.land)]
    names = [plan.name for plan in before.sessions]
    names += [plan.name for plan in after.sessions if plan.name not in names]
    for name in names:
        old, new = _session(before, name), _session(after, name)
        found += [_change(f"sessions.{name}.{key}", _rule(old, key), _rule(new, key))
                  for key in SESSION_RULES]
    return tuple(change for change in found if change is not None)


def _session(plan: Config, name: str) -> SessionPlan:
    """A session's plan; one not planned has no rules of its own (the room's agent)."""
    return plan.session(name) or SessionPlan(name=name, agent=plan.agent)


def _rule(plan: SessionPlan, key: str) -> object:
    value = getattr(plan, key)
    return tuple(sorted(value)) if key == "may" else value  # powers are a set


def _change(key: str, before: object, after: object) -> RuleChange | None:
    return None if before == after else RuleChange(key, _shown(before), _shown(after))


def _shown(value: object) -> str:
    if value is None or value in ((), {}):
        return "none"
    if isinstance(value, tuple):
        return "[" + ", ".join(str(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {item}" for key, item in sorted(value.items())) + "}"
    return repr(value) if isinstance(value, str) else str(value)


def _entry(root: Path, rev: str) -> tuple[str, str, str] | None:
    """(mode, type, object) of bullpen.yaml at the top of `rev`, None when it has none."""
    listed_ = split_z(run_git(root, "ls-tree", "-z", rev, "--", config_file.CONFIG_NAME).stdout)
    if not listed_:
        return None
    mode, kind, oid = listed_[0].split("\t", 1)[0].split(" ")
    return mode, kind, oid


def _config_at(root: Path, entry: tuple[str, str, str] | None, whose: str) -> Config:
    if entry is None:
        return Config(path=None)
    mode, kind, oid = entry
    if mode == _LINK_MODE or kind != "blob":
        what = "a symbolic link" if mode == _LINK_MODE else "not a file"
        raise LandRefused(f"{whose} bullpen.yaml would be {what}, which bullpen up cannot"
                          " read as the room's rules; nothing landed")
    text = run_git(root, "cat-file", "blob", oid).stdout
    try:
        return config_file.parse(text)
    except BadInput as error:
        raise LandRefused(f"{whose} bullpen.yaml would not parse ({error}); nothing landed"
                          " — fix it on the branch and land again") from None
