"""The adapter protocol: what bullpen knows about one kind of agent.

An adapter reads the agent's screen (is its own empty input prompt in front? a question?
a spinner?), says how a note reaches it, and does for its kind what the rest of bullpen
asks of every kind: the launch command (`launch_command`), what a spawn makes first
(`plan_spawn`), what its process must have to itself (`sole_use`), doctor's checks
(`health`), reads its hooks missed (`missed_reads`), the tokens its records say it
spent (`read_spend`) and what a hook call means (`read_hook`). Each method has a
default that fits an agent bullpen knows nothing about, so `room`, `coordinator` and
`surfaces` never ask which kind they hold. Each kind has one folder in
`workers.agents` (`claude/`, `hermes/` …); `workers.agents.kinds.adapter_for` picks one
from the agent command. Adapters are stateless: the coordinator's state tracker keeps
time, stillness and hook reports (and its spend reader, each reader's place).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path

from board.models import Session
from board.records import field, record
from board.vocabulary import CANNOT_READ, SessionStatus
from workers.agents.hook_call import HookCall, HookInputError
from workers.agents.spread import TestedVersions

TYPE_CHECKING = False  # not typing's: an agent's hook process imports this module
if TYPE_CHECKING:  # the plan, policy and spend modules are for `plan`, denied commands
    from board.spend import Usage  # and the spend reader
    from workers.agents.plan_setup import ExportRequest, Installed, InstallRequest, Setup
    from workers.agents.pre_tool import Refusal


class AgentKind(StrEnum):
    """The kinds of agent bullpen tells apart (chosen from the agent command)."""

    HERMES = "hermes"
    CLAUDE = "claude"
    CODEX = "codex"
    AIDER = "aider"
    SHELL = "shell"
    GENERIC = "generic"


DENY_NOT_ENFORCED = "deny not enforced"  # a session row's words for a lever that fails


# What a session is doing, from evidence: one vocabulary with the store and `ls`.
AgentState = SessionStatus


class Sign(StrEnum):
    """What an adapter recognises on one screen."""

    PROMPT_EMPTY = "prompt_empty"  # the agent's own input prompt, nothing typed in it
    PROMPT_TEXT = "prompt_text"  # its prompt, holding text (the human's, or a paste)
    QUESTION = "question"  # a dialog or question waiting for an answer
    BUSY = "busy"  # a spinner, "esc to interrupt", a running turn
    NOTHING = "nothing"  # none of the above


class Route(StrEnum):
    """How notes reach an agent of a kind."""

    TYPE = "type"  # typed into its own empty prompt (hooks may pull them first)
    ANNOUNCE = "announce"  # never typed: kept in the inbox, announced on the status line


@record(frozen=True)
class Screen:
    """The visible screen of a pane: every line (right-stripped) and the cursor.

    `alternate` is tmux's `alternate_on` (pagers, editors and full-screen programs use
    the alternate screen); `in_mode` is copy mode, where keys do not reach the program.
    """

    lines: tuple[str, ...]
    cursor_x: int = 0
    cursor_y: int = 0
    alternate: bool = False
    in_mode: bool = False

    @property
    def cursor_line(self) -> str:
        """The line the cursor is on ("" when the cursor is below the captured lines)."""
        if 0 <= self.cursor_y < len(self.lines):
            return self.lines[self.cursor_y]
        return ""

    @classmethod
    def from_text(cls, text: str, cursor: tuple[int, int] | None = None,
                  alternate: bool = False) -> Screen:
        """A screen from captured text; the cursor defaults to the end of the last line."""
        lines = tuple(line.rstrip() for line in text.split("\n"))
        while len(lines) > 1 and not lines[-1]:
            lines = lines[:-1]
        if cursor is None:
            cursor = (len(lines[-1]) if lines else 0, max(len(lines) - 1, 0))
        return cls(lines, cursor[0], cursor[1], alternate)


@record(frozen=True)
class Reading:
    """One screen as an adapter reads it; `detail` is the question line, or the text
    found in the input line, or what showed the agent busy."""

    sign: Sign
    detail: str | None = None


@record(frozen=True)
class Launch:
    """One launch of a session's agent, as a kind's `launch_command` sees it. `env` is
    the pane's environment, which the kind may add to."""

    session: Session
    token: str
    home: Path
    fresh: bool = False  # start a new conversation instead of resuming the last
    env: dict[str, str] = field(default_factory=dict)
    deny: tuple[str, ...] = ()  # the room's command policy: floor and `deny:` patterns


@record(frozen=True)
class SpawnPlan:
    """What a spawn makes for its agent before the first launch (Hermes: its profile).

    `profile` is the one the session is registered with; `creates`, a directory `apply`
    will make, which a spawn failing later takes back."""

    profile: str | None = None
    creates: Path | None = None
    apply: Callable[[], object] = lambda: None


@record(frozen=True)
class SoleUse:
    """A directory one agent process may use at a time, machine-wide, and how to name it
    in a refusal (`hermes profile 'coder'`)."""

    what: str
    directory: Path


@record(frozen=True)
class Health:
    """One of doctor's findings about a session's agent, with the command that fixes it."""

    ok: bool
    what: str
    fix: str | None = None


@record(frozen=True)
class Capabilities:
    """The promises one release of an agent can keep, as its adapter declares them per
    version range (from the release's source, and the tests that run it). What can be
    probed is probed where it is used (the profile's config schema at launch, the
    store's tables at each spend read); this is what a row, needs-you and doctor say."""

    notes_at_turn: bool = False  # a hook hands notes in at the turn boundary
    deny: str | None = None  # how the room's deny list is enforced; None: it is not
    spend: str | None = None  # which record its spend is read from; None: none known
    resume_context: bool = False  # what a hook added to a turn survives a resume


@record(frozen=True)
class SpendReading:
    """What a session's agent spent, from its own records: totals by model since the
    session began, where they were read (`source`), and the reader's place (`state`,
    JSON-able: offsets and running totals) so the next read starts where this one ended."""

    by_model: dict[str, Usage]
    source: str
    state: dict = field(default_factory=dict)
    rewritten: tuple[str, ...] = ()  # records found shrunk since the last read ("its
    # transcript was cut"): their figure stays, and the operator is told
    unreadable: str | None = None  # why the records cannot be read (a store of a shape
    # bullpen does not know, with the version); `by_model` is then empty


class Adapter:
    """One kind of agent. Subclasses set the class attributes, override `read`, and
    override what their kind does beyond the defaults."""

    kind: AgentKind = AgentKind.GENERIC
    programs: frozenset[str] = frozenset()  # foreground process names that are the agent
    route: Route = Route.TYPE
    has_hooks: bool = False  # it runs `bullpen hook KIND`, which pulls notes into its turn
    uses_alternate_screen: bool = False  # full-screen TUI: the alternate screen is its own
    # Its questions are menus moved with arrow keys and confirmed with Enter
    # (readers.menus), so bullpen can type an answer the human chose; False: never.
    answers_menus: bool = False
    opted_in: bool = True  # generic agents: typed text only with `deliver: type`
    line_oriented: bool = False  # its input is the cursor's line (the tty echoes typing)
    prompt_known: bool = True  # False: still and asking nothing is all "idle" can mean
    says_version: bool = False  # `PROGRAM --version` names its release
    tested_versions = TestedVersions()  # the releases bullpen supports (spread.toml)
    version: str | None = None  # what this session's agent said of itself at launch

    def unreadable_reason(self) -> str:
        """Why a session is `unknown` when its screen was never recognised since start:
        the agent changed, or bullpen never knew it. Names the version and the tested
        ones, so the human knows which side moved."""
        running = f"{self.kind} {self.version}" if self.version else str(self.kind)
        tested = f" — tested: {', '.join(self.tested_versions)}" if self.tested_versions \
            else ""
        return f"{CANNOT_READ} {running}'s screen; notes wait{tested}"

    def read(self, screen: Screen) -> Reading:
        """What is on `screen`: the agent's own prompt (empty or not), a question, a
        spinner, or nothing recognised."""
        raise NotImplementedError

    def busy_line(self, text: str) -> str | None:
        """What to type while the agent is busy so that it is queued, not an interrupt;
        None means "wait for the prompt" (the default, and the safe choice)."""
        return None

    def input_text(self, screen: Screen) -> str | None:
        """The text in the agent's input line ("" when empty), None if no prompt is seen."""
        reading = self.read(screen)
        if reading.sign == Sign.PROMPT_EMPTY:
            return ""
        if reading.sign == Sign.PROMPT_TEXT:
            return reading.detail or ""
        return None

    def launch_command(self, agent: str, launch: Launch) -> str:
        """The command a pane runs: `agent` with what bullpen adds for this kind (its
        settings, MCP server, the conversation to resume), maybe adding to `launch.env`.
        The default runs `agent` as it is."""
        return agent

    def enforces_deny(self, agent: str) -> str | None:
        """How this kind's agent is kept from running a denied command (named for doctor
        and the docs), or None when bullpen cannot stop it: the default."""
        return None

    def capabilities(self, agent: str, version: str | None) -> Capabilities:
        """The promises release `version` of this kind keeps (None: the version is not
        known, so what the tested releases keep is assumed). The default: what the
        class attributes and `enforces_deny` say, for every version."""
        return Capabilities(notes_at_turn=self.has_hooks, deny=self.enforces_deny(agent))

    def lost_levers(self, agent: str, version: str | None) -> tuple[str, ...]:
        """What release `version` cannot hold that the tested releases of this kind do,
        in the words a session row shows (`deny not enforced`); () when nothing. (A
        spend it cannot read is found by reading: `unreadable`, board/spend.py.)"""
        if version is None or not self.tested_versions:
            return ()
        now = self.capabilities(agent, version)
        tested = self.capabilities(agent, self.tested_versions[-1])
        return (DENY_NOT_ENFORCED,) if tested.deny and not now.deny else ()

    def lost_promises(self, agent: str, version: str | None) -> tuple[str, ...]:
        """The other promises release `version` does not keep that the tested releases
        do, for doctor to name (`hook context across resume`); () when nothing."""
        if version is None or not self.tested_versions:
            return ()
        now = self.capabilities(agent, version)
        tested = self.capabilities(agent, self.tested_versions[-1])
        return tuple(words for words, was, kept in (
            ("notes at the turn boundary", tested.notes_at_turn, now.notes_at_turn),
            ("hook context across resume (bullpen hands those notes again)", tested.resume_context,
             now.resume_context))
            if was and not kept)

    def deny_gaps(self, agent: str, deny: tuple[str, ...]) -> list[str]:
        """The patterns of `deny` this kind's mechanism cannot hold (it enforces the
        rest); the default: none beyond what `enforces_deny` says."""
        return []

    def serves_mcp(self, agent: str, session: Session) -> bool:
        """Whether `launch_command` gives this launch bullpen's MCP server (so the first
        note waits until the server listed its tools). The default adds none."""
        return False

    def plan_spawn(self, name: str, profile: str | None, agent: str = "",
                   home: Path | None = None) -> SpawnPlan:
        """What spawning session `name` (running `agent`, in the room at `home`) makes
        first; refusals raised here come before anything is made. The default makes
        nothing."""
        return SpawnPlan(profile)

    def sole_use(self, agent: str, profile: str | None) -> SoleUse | None:
        """What one process of `agent` (registered with `profile`) must have to itself on
        the machine — a Hermes profile — or None; `workers.agents.exclusive` holds it."""
        return None

    def health(self, home: Path, session: Session) -> list[Health]:
        """doctor's findings about a running session's integration (hooks, profile);
        the default has nothing to check."""
        return []

    def missed_reads(self, home: Path, session: Session,
                     after: Callable[[], float]) -> dict[str, float]:
        """Files the agent read after `after()` (epoch seconds) that no hook recorded,
        path -> when, from the agent's own records. The default knows none."""
        return {}

    def kept_conversation(self, session: Session,
                          conversation: str) -> tuple[float, str] | None:
        """When `conversation` began and the text the agent's own store keeps of it, for
        finding the notes a hook handed that a resume would not give the model again;
        None (the default): not known, and nothing is handed again."""
        return None

    def read_spend(self, home: Path, session: Session, state: dict) -> SpendReading | None:
        """The tokens the agent's own records say it spent, read on from `state` (the
        last reading's; {} at first). None: it keeps no record bullpen reads, or none
        yet — spend unknown, never estimated. The default knows none."""
        return None

    def read_hook(self, payload: Mapping[str, object], home: Path, session: str) -> HookCall:
        """What one `bullpen hook KIND` call means (the kind keeps its own turn
        bookkeeping in `agent_files`). Only kinds with `has_hooks` have any."""
        raise HookInputError(f"{self.kind} agents have no bullpen hooks")

    def per_tool_hook(self, payload: Mapping[str, object]) -> bool:
        """Whether the call is the hook after a tool call, which only records reads and
        which the session's hook key (not its token) may prove."""
        return False

    def notes_reply(self, context: str) -> dict:
        """What the hook prints to hand `context` (pending notes) into the agent's turn."""
        raise HookInputError(f"{self.kind} agents take no notes from a hook")

    def export_setup(self, request: ExportRequest) -> Setup | None:
        """Write the session's agent setup (personality, skills, config without secrets)
        into `request.target` for a shared plan (`bullpen plan export`); None when the
        kind has none to share (the default: its command line in bullpen.yaml is all)."""
        return None

    def install_setup(self, request: InstallRequest) -> Installed:
        """Install a plan's setup for one session on this machine (`bullpen plan
        install`, `update`). The default has nothing to install."""
        from workers.agents.plan_setup import Installed

        return Installed()

    def deny_reply(self, refusal: Refusal) -> dict:
        """What the hook prints to refuse a tool call (the room's policy denies it, or it
        could not be checked)."""
        raise HookInputError(f"{self.kind} agents take no refusal from a hook")

    def refused_by(self, hook: bool) -> str:
        """Who refused a command, for its audit entry: the kind's hook, or its own list."""
        return f"{self.kind}'s hook" if hook else f"{self.kind}'s own deny list"
