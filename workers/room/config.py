"""`bullpen.yaml`: the sessions `up` starts and the plan that orders them.

Errors name the file, the line and the key, e.g.
`bullpen.yaml:9: sessions.coder.after: unknown session 'reseach'`.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from board import machines, validate
from board.authority import Power, parse_powers
from board.budgets import Limit
from board.chains import Limits
from board.errors import BadInput
from board.prices import Price
from board.slots import WarmCap
from board.vocabulary import RoomLayout
from workers.room import budget_config, deny, loop_guard, warm_cap
from workers.room.yaml_nodes import check_depth, flag, key_at, mapping, names, scalar

CONFIG_NAME = "bullpen.yaml"
# Refused past this, unparsed: PyYAML takes seconds per MB (a 50 MB file kept up busy
# for over a minute), and a plan of 200 sessions is ~40 KB.
MAX_BYTES = 1024 * 1024
LAYOUTS = tuple(RoomLayout)
DEFAULT_AGENT = "hermes"
SESSION_KEYS = {"machine", "agent", "profile", "task", "after", "on_commit", "setup", "from",
                "fs_reads", "deliver", "may", "base", "budget"}
DELIVER_VALUES = ("type", "inbox")  # deliver: type lets bullpen type into a generic agent
TOP_KEYS = {"agent", "layout", "sessions", "push", "land", deny.KEY, "loop_guard",
            *warm_cap.KEYS, "budget", "prices"}
LAND_KEYS = {"strategy", "check"}
STRATEGIES = ("merge", "squash", "rebase")
REMOTE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass(frozen=True)
class SessionPlan:
    name: str
    agent: str
    profile: str | None = None
    task: str | None = None
    after: tuple[str, ...] = ()
    on_commit: str | None = None
    setup: str | None = None
    base: str | None = None
    fs_reads: bool = False
    deliver: str | None = None
    may: tuple[Power, ...] = ()  # powers over other sessions the plan grants (authority)
    machine: str | None = None  # where it runs (None: on the machine that owns the room)
    # `base:` — after (default: its parents' final commits at handoff), main, or a ref
    base_mode: str | None = None
    # "bullpen.yaml:7: sessions.reviewer.on_commit", for refusing a name `up` finds in
    # neither the plan nor the room (it may run on another machine of the room)
    on_commit_at: str | None = None
    budget: Limit | None = None  # its own spending limit (budget_config)


@dataclass(frozen=True)
class LandSettings:
    """`land:` — how `bullpen land` merges a branch into the base, and what it checks."""

    strategy: str = "merge"
    check: str | None = None  # a shell command run in the built result; non-zero refuses


@dataclass(frozen=True)
class Config:
    path: Path | None
    agent: str = DEFAULT_AGENT
    layout: str = RoomLayout.SIDE_BY_SIDE
    sessions: tuple[SessionPlan, ...] = field(default=())
    push: str | None = None  # the git remote each session's branch is pushed to on commit
    land: LandSettings = field(default_factory=LandSettings)
    deny: tuple[str, ...] = ()  # the room's command patterns, beside bullpen's floor
    warm_cap: WarmCap = field(default_factory=WarmCap)  # max_running, idle_release
    loop_guard: Limits = field(default_factory=Limits)  # workers/room/loop_guard.py
    budget: Limit | None = None  # the room's spending limit (budget_config)
    prices: dict[str, Price] = field(default_factory=dict)  # `prices:`, over the table's

    def session(self, name: str) -> SessionPlan | None:
        return next((plan for plan in self.sessions if plan.name == name), None)


# The last plan parsed from each file, with its text: one `up` reads the plan three
# times (0.25 s of parsing each for 200 sessions); the same text is not parsed again.
_parsed: dict[Path, tuple[str, Config]] = {}


def load(root: Path) -> Config:
    """Read `<root>/bullpen.yaml` (an absent file is an empty plan)."""
    path = root / CONFIG_NAME
    if not path.exists():
        return Config(path=None)
    text = read_capped(path)
    known = _parsed.get(path)
    if known is not None and known[0] == text:
        return known[1]
    plan = _parse_text(path, text)
    _parsed[path] = (text, plan)
    return plan


def parse(text: str) -> Config:
    """Parse a bullpen.yaml's `text` as `load` does (a version read from git, say)."""
    if len(text) > MAX_BYTES:  # the cap holds for a version read from git too
        raise RefusedFile(_too_big(Path(CONFIG_NAME), len(text.encode())))
    return _parse_text(Path(CONFIG_NAME), text)


class RefusedFile(BadInput):
    """A bullpen.yaml refused unread: too big, or no regular file."""


def read_capped(path: Path) -> str:
    """The text of a bullpen.yaml, refused in one line past MAX_BYTES before any of it is
    parsed: its size is looked at first, and at most MAX_BYTES + 1 are read (a file that
    grows meanwhile, or is no regular file, never keeps a command reading)."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(f"{path.name}: not a regular file; make it one, of at most"
                              f" {_size(MAX_BYTES)}")
        if info.st_size > MAX_BYTES:
            raise RefusedFile(_too_big(path, info.st_size))
        with path.open() as handle:
            text = handle.read(MAX_BYTES + 1)
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"{path.name}: cannot read: {error}") from None
    if len(text) > MAX_BYTES:
        raise RefusedFile(_too_big(path, None))
    return text


def _too_big(path: Path, size: int | None) -> str:
    said = f" {_size(size)}," if size is not None else ""  # None: its size says 0
    return (f"{path.name}:{said} over the {_size(MAX_BYTES)} a {CONFIG_NAME} may be; make"
            " it smaller")


def _size(size: int) -> str:
    megabytes = size / 1024 / 1024
    if size % (1024 * 1024) == 0 or megabytes >= 10:
        return f"{megabytes:.0f} MB"
    return f"{size:,} bytes"  # 1,048,577 bytes: just over the limit says so


def _parse_text(path: Path, text: str) -> Config:
    try:
        check_depth(path, text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.reader.ReaderError as error:  # a control character, no line of its own
        line = text.count("\n", 0, error.position) + 1
        raise BadInput(f"{path.name}:{line}: {key_at(text, line - 1)}: not valid YAML:"
                       f" character {chr(error.character)!r} is not allowed") from None
    except yaml.MarkedYAMLError as error:
        # An unclosed [, { or quote is reported where parsing gave up; its start is the news.
        context = error.context or ""
        opened = error.context_mark if "flow" in context or "quoted" in context else None
        mark = opened or error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else 1
        raise BadInput(f"{path.name}:{line}: {key_at(text, line - 1)}: not valid YAML:"
                       f" {error.problem}") from None
    if node is None:
        return Config(path=path)
    try:
        return _parse(path, node)
    except RecursionError:  # an alias that holds itself (`&a [*a]`)
        raise BadInput(f"{path.name}:{node.start_mark.line + 1}: top level: a value that"
                       " refers to itself") from None


def _parse(path: Path, root_node: yaml.Node) -> Config:
    top = mapping(path, root_node, "")
    for key, (key_node, _) in top.items():
        if key == "store":  # a database URL holds a secret; bullpen.yaml is tracked
            raise BadInput(f"{path.name}:{key_node.start_mark.line + 1}: store: does not"
                           " belong in bullpen.yaml (it is committed); put it in"
                           " .bullpen/local.yaml or BULLPEN_DATABASE_URL")
        if key == "notify":  # its URLs hold tokens and passwords; bullpen.yaml is tracked
            raise BadInput(f"{path.name}:{key_node.start_mark.line + 1}: notify: does not"
                           " belong in bullpen.yaml (it is committed); put it in"
                           " .bullpen/local.yaml")
        if key not in TOP_KEYS:
            raise BadInput(f"{path.name}:{key_node.start_mark.line + 1}: {key}: unknown key;"
                           f" use {', '.join(sorted(TOP_KEYS))}")
    agent = scalar(path, top["agent"][1], "agent") if "agent" in top else DEFAULT_AGENT
    layout = (scalar(path, top["layout"][1], "layout") if "layout" in top
              else RoomLayout.SIDE_BY_SIDE)
    if layout not in LAYOUTS:
        raise BadInput(f"{path.name}:{top['layout'][1].start_mark.line + 1}: layout: use"
                       f" {' or '.join(LAYOUTS)}, not {layout!r}")
    push = scalar(path, top["push"][1], "push") if "push" in top else None
    if push is not None and not REMOTE_NAME.match(push):
        raise BadInput(f"{path.name}:{top['push'][1].start_mark.line + 1}: push: name a git"
                       f" remote (such as origin), not {push!r}")
    plans: list[SessionPlan] = []
    lines: dict[str, dict[str, yaml.Node]] = {}
    sessions_node = top.get("sessions", (None, None))[1]
    is_empty = sessions_node is None or (isinstance(sessions_node, yaml.ScalarNode)
                                         and sessions_node.value in ("", "null", "~"))
    entries = {} if is_empty or sessions_node is None else mapping(path, sessions_node,
                                                                    "sessions")
    for name, (name_node, body) in entries.items():
        where = f"sessions.{name}"
        try:
            validate.session_name(name)
        except BadInput as error:
            raise BadInput(
                f"{path.name}:{name_node.start_mark.line + 1}: {where}: {error}") from None
        fields = {} if isinstance(body, yaml.ScalarNode) and not body.value else \
            mapping(path, body, where)
        lines[name] = {key: key_node for key, (key_node, _) in fields.items()}
        for key, (key_node, _) in fields.items():
            if key not in SESSION_KEYS:
                raise BadInput(f"{path.name}:{key_node.start_mark.line + 1}: {where}.{key}:"
                               f" unknown key; use {', '.join(sorted(SESSION_KEYS))}")
        text = {key: scalar(path, value, f"{where}.{key}") for key, (_, value)
                in fields.items() if key in ("agent", "profile", "task", "on_commit", "setup",
                                             "from", "deliver", "base", "machine")}
        if "machine" in text:
            try:
                machines.validate_name(text["machine"])
            except BadInput as error:
                line = fields["machine"][0].start_mark.line + 1
                raise BadInput(f"{path.name}:{line}: {where}.machine: {error}") from None
        if "base" in text and "from" in text:
            line = fields["base"][0].start_mark.line + 1
            raise BadInput(f"{path.name}:{line}: {where}.base: give base or from, not both"
                           " (base: REF starts the worktree at REF)")
        if text.get("deliver") not in (None, *DELIVER_VALUES):
            line = fields["deliver"][0].start_mark.line + 1
            raise BadInput(f"{path.name}:{line}: {where}.deliver: {text['deliver']!r};"
                           f" use {' or '.join(DELIVER_VALUES)}")
        after = names(path, fields["after"][1], f"{where}.after") if "after" in fields else ()
        fs_reads = flag(path, fields["fs_reads"][1], f"{where}.fs_reads") \
            if "fs_reads" in fields else False
        may: tuple[Power, ...] = ()
        if "may" in fields:
            line = fields["may"][0].start_mark.line + 1
            may = parse_powers(names(path, fields["may"][1], f"{where}.may"),
                               where=f"{path.name}:{line}: {where}.may")
        on_commit_at = (f"{path.name}:{fields['on_commit'][0].start_mark.line + 1}:"
                        f" {where}.on_commit") if "on_commit" in fields else None
        plans.append(SessionPlan(name=name, agent=text.get("agent", agent),
                                 profile=text.get("profile"), task=text.get("task"),
                                 after=after, on_commit=text.get("on_commit"),
                                 setup=text.get("setup"),
                                 base=text.get("from") or _base_ref(text.get("base")),
                                 base_mode=text.get("base"),
                                 fs_reads=fs_reads, deliver=text.get("deliver"),
                                 may=may, on_commit_at=on_commit_at,
                                 machine=text.get("machine"),
                                 budget=budget_config.budget(path, fields["budget"][1],
                                                             f"{where}.budget")
                                 if "budget" in fields else None))
    _check_plan(path, plans, lines)
    land = _land(path, top["land"][1]) if "land" in top else LandSettings()
    guard = loop_guard.parse(path, top["loop_guard"][1]) if "loop_guard" in top else Limits()
    return Config(path=path, agent=agent, layout=layout, sessions=tuple(plans), push=push,
                  land=land, warm_cap=warm_cap.parse(path, top), loop_guard=guard,
                  **budget_config.room_levers(path, top),
                  deny=deny.parse(path, top[deny.KEY][1]) if deny.KEY in top else ())


def _base_ref(mode: str | None) -> str | None:
    """The ref a `base:` value starts the worktree at (None: the main checkout's HEAD)."""
    return None if mode in (None, "after", "main") else mode


def _land(path: Path, node: yaml.Node) -> LandSettings:
    fields = mapping(path, node, "land")
    for key, (key_node, _) in fields.items():
        if key not in LAND_KEYS:
            raise BadInput(f"{path.name}:{key_node.start_mark.line + 1}: land.{key}:"
                           f" unknown key; use {', '.join(sorted(LAND_KEYS))}")
    strategy = scalar(path, fields["strategy"][1], "land.strategy") \
        if "strategy" in fields else "merge"
    if strategy not in STRATEGIES:
        raise BadInput(f"{path.name}:{fields['strategy'][1].start_mark.line + 1}:"
                       f" land.strategy: use {', '.join(STRATEGIES)}, not {strategy!r}")
    check = scalar(path, fields["check"][1], "land.check") if "check" in fields else None
    return LandSettings(strategy, check)


def _check_plan(path: Path, plans: list[SessionPlan],
                lines: dict[str, dict[str, yaml.Node]]) -> None:
    known = {plan.name for plan in plans}

    def fail(name: str, key: str, problem: str) -> BadInput:
        line = lines[name][key].start_mark.line + 1
        return BadInput(f"{path.name}:{line}: sessions.{name}.{key}: {problem}")

    holders: dict[str, str] = {}
    for plan in plans:
        for other in plan.after:
            if other not in known:
                raise fail(plan.name, "after", f"unknown session {other!r}")
            if other == plan.name:
                raise fail(plan.name, "after", "a session cannot wait for itself")
        if plan.on_commit and plan.on_commit not in known:
            # Not planned here: `up` looks for it among the room's sessions (another
            # machine's); until then it must at least be a session name.
            try:
                validate.session_name(plan.on_commit)
            except BadInput as error:
                raise fail(plan.name, "on_commit", str(error)) from None
        if plan.on_commit == plan.name:
            raise fail(plan.name, "on_commit", "a session cannot watch its own commits")
        if plan.profile:
            if plan.profile in holders:
                raise fail(plan.name, "profile", f"profile {plan.profile!r} is already used by"
                           f" session {holders[plan.profile]!r}; one session per profile")
            holders[plan.profile] = plan.name
    cycle = _find_cycle({plan.name: plan.after for plan in plans})
    if cycle:
        raise fail(cycle[0], "after", "a cycle: " + " -> ".join([*cycle, cycle[0]]))


def _find_cycle(after: dict[str, tuple[str, ...]]) -> list[str] | None:
    """A list of sessions that wait for each other in a ring, or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    stack: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        stack.append(name)
        for parent in after.get(name, ()):
            if state.get(parent) == 1:
                return stack[stack.index(parent):]
            if parent not in state and (found := visit(parent)):
                return found
        stack.pop()
        state[name] = 2
        return None

    for name in after:
        if name not in state and (found := visit(name)):
            return found
    return None
