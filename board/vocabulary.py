"""The room's shared words: every state, kind and name that more than one module matches.

A stdlib-only leaf (as Supervisor's `states.py`): anything in bullpen may import it, and it
imports nothing of bullpen, so emitters and matchers share one spelling and cannot drift.
Each enum is a `StrEnum`, so its members are the very strings stored in the database and
printed in `--json` output.

Ordinary StrEnums: the standard library's `enum._simple_enum` made them at half the cost,
but it is private (Python may change or remove it).
"""

from __future__ import annotations

from enum import StrEnum


class EventKind(StrEnum):
    """What an `events` row records; readers tail the log by id and match these."""

    SESSION_REGISTERED = "session_registered"
    SESSION_UPDATED = "session_updated"  # launch facts: pane, worktree, desired state
    SESSION_STATUS = "session_status"  # observed status changed
    SESSION_HOOK_STATUS = "session_hook_status"  # the agent's own hook reported
    SESSION_FINISHED = "session_finished"  # its last open task is done
    SESSION_REMOVED = "session_removed"  # `bullpen rm`: the room forgot it
    READ_RECORDED = "read_recorded"
    NOTE_SENT = "note_sent"
    NOTES_READ = "notes_read"
    NOTES_DELIVERED = "notes_delivered"
    NOTES_HELD = "notes_held"
    NOTEBOOK_WRITTEN = "notebook_written"
    TASK_ADDED = "task_added"
    TASK_READY = "task_ready"
    TASK_LINKED = "task_linked"
    TASK_MOVED = "task_moved"
    TASK_CLAIMED = "task_claimed"
    TASK_DONE = "task_done"
    TASK_BLOCKED = "task_blocked"
    TASK_COMMENTED = "task_commented"
    TASK_ASSIGNED = "task_assigned"
    CHANGE_RECORDED = "change_recorded"
    ALERT_RAISED = "alert_raised"
    CONFLICT_FOUND = "conflict_found"  # the radar predicts two branches will not merge
    CONFLICT_CLEARED = "conflict_cleared"
    SESSION_LANDED = "session_landed"  # its branch landed on the base branch
    CHAIN_HELD = "chain_held"  # the loop guard held a conversation (board/chains.py)
    CHAIN_RELEASED = "chain_released"  # the operator let its held notes through
    CHAIN_ENDED = "chain_ended"  # the operator ended it: its held notes were dropped
    SPEND_RECORDED = "spend_recorded"  # a session's tokens, read from its agent's records
    BUDGET_REACHED = "budget_reached"  # its notes and pings are held (`budget`)
    BUDGET_SET = "budget_set"  # the operator set a limit; held notes may flow again


class TaskStatus(StrEnum):
    """A task's column, in board order (Hermes Kanban's words, so users meet familiar ones)."""

    TRIAGE = "triage"
    TODO = "todo"
    READY = "ready"
    RUNNING = "running"
    BLOCKED = "blocked"
    REVIEW = "review"
    DONE = "done"
    ARCHIVED = "archived"


# Board order, left to right: moving a card one step goes to the neighbour in this tuple.
TASK_STATUSES: tuple[TaskStatus, ...] = tuple(TaskStatus)
FINISHED_TASK_STATUSES = frozenset({TaskStatus.DONE, TaskStatus.ARCHIVED})
# Statuses a task may not take while a parent is unfinished.
NEEDS_PARENTS_DONE = frozenset(
    {TaskStatus.READY, TaskStatus.RUNNING, TaskStatus.REVIEW, TaskStatus.DONE})


class SessionStatus(StrEnum):
    """What a session is doing: evidence, not a guess (DESIGN "Agent state")."""

    STARTING = "starting"  # launched, no evidence yet
    WORKING = "working"
    IDLE = "idle"  # its own empty prompt is in front
    NEEDS_INPUT = "needs_input"  # a question is on screen
    EXITED = "exited"  # the process ended (with its code)
    STOPPED = "stopped"  # no pane at all
    UNKNOWN = "unknown"  # evidence is missing or contradictory; never treated as idle
    WAITING = "waiting for a slot"  # past the warm cap (max_running): not launched yet
    # Shown, never stored: its machine stopped beating, so its stored word is stale (ls
    # and the dashboard both say this, board.machines.shown_status).
    UNREACHABLE = "unreachable"


# How an `unknown` session's reason starts when its screen was never recognised since its
# start (a release whose screen changed): the needs-you strip lists those first.
CANNOT_READ = "bullpen cannot read"


class DesiredState(StrEnum):
    """What the operator asked a session to be; `up` restores `running` ones."""

    REGISTERED = "registered"  # known but never launched
    RUNNING = "running"
    STOPPED = "stopped"
    WAITING = "waiting"  # wants to run; waits for a slot under max_running (plan order)
    # Gave its slot up under max_running (its task done, or idle past idle_release); a
    # note for it puts it back in line. The operator's `stop` is STOPPED: it stays down.
    RELEASED = "released"


class NoteKind(StrEnum):
    """Why a note was sent; the header and the dashboard stream show it."""

    NOTE = "note"  # from a session or the operator
    HANDOFF = "handoff"  # a task became ready: the parent's summary
    ALERT = "alert"  # a file this session read was changed
    PING = "ping"  # a commit to review
    SYSTEM = "system"  # bullpen's own announcements
    CONFLICT = "conflict"  # the radar: your work and another's will not merge (or now will)


class BaseMode(StrEnum):
    """Where a session's worktree starts (`base:` in bullpen.yaml); any other value is a ref."""

    AFTER = "after"  # its parents' final commits, carried in when it is handed its task
    MAIN = "main"  # the main checkout's HEAD, nothing carried in


class DeliveryState(StrEnum):
    """Where a note stands for one recipient (board/deliveries.py has the transitions)."""

    QUEUED = "queued"  # waiting to be typed, handed or read
    HELD = "held"  # waiting, with a HoldReason (capped: inbox only)
    CLAIMED = "claimed"  # being typed: phase one of two
    TYPED = "typed"  # reached the agent's input through its pane
    HANDED = "handed"  # a hook gave it to the model
    READ = "read"  # read with `note inbox` or the MCP tool
    DROPPED = "dropped"  # never given: the operator ended its chain (a loop)


class HoldReason(StrEnum):
    """Why a note waits (`held`), as `note show --json` and the dashboard show it."""

    BUSY = "busy"
    NEEDS_INPUT = "needs input"
    HUMAN_TYPING = "human typing"
    SHELL = "shell session"
    CAPPED = "capped"
    NOT_OPTED_IN = "typing not enabled (deliver: type)"
    NOT_IN_FRONT = "another program in front"
    UNKNOWN = "state unknown"
    NO_PANE = "no pane"
    MCP_CONNECTING = "its bullpen MCP server is still connecting"
    WAITING_FOR_SLOT = "waiting for a slot"  # its session is not launched yet (max_running)
    LOOP = "loop suspected"  # its chain is held (board/chains.py): not typed, handed or read
    BUDGET = "budget"  # its (or the room's) spend reached its budget: held until raised


class ChainState(StrEnum):
    """Where a conversation chain stands (`chains.state`, board/chains.py)."""

    OPEN = "open"
    HELD = "held"  # the loop guard stopped it; the operator releases or ends it
    ENDED = "ended"  # the operator ended it: its held notes were dropped, no more join it


class DeliveryChannel(StrEnum):
    """How a note reached its recipient (`deliveries.via`)."""

    PANE = "pane"  # typed into the agent's empty prompt
    HOOK = "hook"  # pulled into a turn by the agent's hook
    INBOX = "inbox"  # read with `note inbox` or the MCP tool


class ReadSource(StrEnum):
    """Where the knowledge that a session read a file came from."""

    EXPLICIT = "explicit"  # bullpen read PATH
    HOOK = "hook"  # the agent's tool-call hook (exact)
    FS = "fs"  # filesystem open events (opt-in, for agents without hooks)
    MCP = "mcp"  # the MCP `read` tool
    TRANSCRIPT = "transcript"  # the agent's own transcript: tool calls its hook missed


class MachineState(StrEnum):
    """Whether a machine may use a room across machines (`machines.state`)."""

    APPROVED = "approved"
    REVOKED = "revoked"  # its database role lost every right (bullpen machines revoke)


class JoinState(StrEnum):
    """Where a machine's request to join stands (`join_requests.state`); the database's
    own functions move it (board/postgres/schema.py: bullpen_approve)."""

    PENDING = "pending"  # waiting for the operator to approve its code
    APPROVED = "approved"
    EXPIRED = "expired"  # its code was older than the pairing time-to-live
    REFUSED = "refused"  # spent by wrong codes, or refused by the operator
    SUPERSEDED = "superseded"  # another request of the same name was approved


class Approval(StrEnum):
    """What the database's `bullpen_approve` answers (board/pairing.py says each in a
    line), and the outcome `pairing_attempts` records (approved or wrong)."""

    APPROVED = "approved"  # answered as `approved:MACHINE`
    WRONG = "wrong"  # not the code that machine showed
    SPENT = "spent"  # its request was spent by wrong codes
    USED = "used"  # the code was used already
    EXPIRED = "expired"  # the code outlived the pairing time-to-live
    TAKEN = "taken"  # a machine of that name is in the room already
    NONE = "none"  # no request of that name waits
    LOCKED = "locked"  # migration 5's functions only: too many wrong codes lately


class AskState(StrEnum):
    """Where an operator's ask to another machine stands (`remote_asks.state`): the
    machine running the session does it, or refuses it, itself."""

    ASKED = "asked"  # filed; that machine's coordinator has not taken it yet
    TAKEN = "taken"  # its coordinator is doing it
    DONE = "done"
    REFUSED = "refused"  # that machine granted the asking machine no such power
    FAILED = "failed"
    EXPIRED = "expired"  # nobody answered in time (that machine's coordinator is down)


class RoomLayout(StrEnum):
    """How the room's tmux window holds the session panes (`layout:` in bullpen.yaml)."""

    SIDE_BY_SIDE = "side-by-side"  # the dashboard and every session in one window
    WINDOWS = "windows"  # each session in its own window (many sessions)


class IdentityVariable(StrEnum):
    """The environment a session's processes carry so bullpen knows who is calling."""

    HOME = "BULLPEN_HOME"  # the room's .bullpen directory
    SESSION = "BULLPEN_SESSION"
    TOKEN = "BULLPEN_TOKEN"
    # Claude Code's per-tool HTTP hook proves the session with this, never the token:
    # it answers that one hook and nothing else (board.identity.hook_key).
    HOOK_KEY = "BULLPEN_HOOK_KEY"


# What bullpen's MCP server and hook processes are given to act as the session.
IDENTITY_VARIABLES: tuple[IdentityVariable, ...] = (
    IdentityVariable.HOME, IdentityVariable.SESSION, IdentityVariable.TOKEN)

OPERATOR = "operator"  # the human: the caller when no session variables are set
SYSTEM_SENDER = "bullpen"  # pings, alerts and announcements come from bullpen itself
EVERYONE = "all"  # the broadcast recipient on the command line
BROADCAST = "*"  # how a broadcast is stored
MAIN_CHECKOUT = "main"  # the watch source and `changed_by` of the repository's main checkout
