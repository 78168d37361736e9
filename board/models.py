"""Frozen records that cross package boundaries, each with its documented JSON shape."""

from __future__ import annotations

from board.records import as_dict, record
from board.vocabulary import (  # noqa: F401 (re-exported: callers import them from here)
    BROADCAST,
    EVERYONE,
    MAIN_CHECKOUT,
    OPERATOR,
    NoteKind,
    TaskStatus,
)


def iso(timestamp: float | None) -> str | None:
    """A stored unix time as an ISO 8601 UTC string with milliseconds."""
    if timestamp is None:
        return None
    from datetime import UTC, datetime  # here: the CLI's hot paths print no times

    moment = datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Json:
    # Every subclass is a record (board/records.py).

    def to_json(self) -> dict:
        data = as_dict(self)
        for key, value in data.items():
            if key.endswith("_at") and isinstance(value, float):
                data[key] = iso(value)
        return data


@record(frozen=True)
class Note(_Json):
    id: int
    sender: str
    recipient: str
    body: str
    reply_to: int | None
    created_at: float
    kind: str = NoteKind.NOTE
    task: int | None = None


@record(frozen=True)
class NotebookEntry(_Json):
    id: int
    author: str
    body: str
    private: bool
    created_at: float
    tag: str | None = None


@record(frozen=True)
class Comment(_Json):
    id: int
    author: str
    body: str
    created_at: float


@record(frozen=True)
class Task(_Json):
    id: int
    title: str
    status: str
    assignee: str | None
    parents: tuple[int, ...]
    summary: str | None
    body: str = ""
    children: tuple[int, ...] = ()
    block_reason: str | None = None
    created_by: str = OPERATOR
    created_at: float = 0.0
    updated_at: float = 0.0
    comments: tuple[Comment, ...] = ()

    @property
    def waiting(self) -> bool:
        """True while some parent is unfinished (the card shows a marker)."""
        return self.status == TaskStatus.TODO and bool(self.parents)

    def to_json(self) -> dict:
        data = super().to_json()
        data["parents"] = list(self.parents)
        data["children"] = list(self.children)
        data["comments"] = [comment.to_json() for comment in self.comments]
        return data


@record(frozen=True)
class Alert(_Json):
    id: int
    session: str
    path: str
    changed_by: str
    commit: str | None
    created_at: float
    paths: tuple[str, ...] = ()
    note: int | None = None
    message: str | None = None

    @property
    def show_command(self) -> str:
        """The command that shows the change that caused this alert."""
        if self.changed_by == MAIN_CHECKOUT:
            return f"git diff -- {self.path}" if not self.commit else f"git show {self.commit}"
        return f"bullpen diff {self.changed_by} -- {self.path}"

    def to_json(self) -> dict:
        data = super().to_json()
        data["paths"] = list(self.paths)
        data["show"] = self.show_command
        return data


@record(frozen=True)
class Change(_Json):
    """A recorded change: a coalesced burst of edits, or one commit (`commit` set)."""

    id: int
    changed_by: str
    paths: tuple[str, ...]
    commit: str | None
    message: str | None
    created_at: float


@record(frozen=True)
class Session(_Json):
    name: str
    agent: str | None
    profile: str | None
    branch: str | None
    worktree: str | None
    pane: str | None
    desired: str
    status: str
    exit_code: int | None
    task: str | None
    base: str | None
    hook_status: str | None
    hook_status_at: float | None
    last_activity: float | None
    created_at: float
    on_commit: str | None = None
    fs_reads: bool = False
    machine: str | None = None  # where it runs (None: a room on one machine, before 5)
    deliver: str | None = None  # `type`: typing notes into a generic agent is allowed
    status_reason: str | None = None  # why: the question, what is in front, …
    base_mode: str | None = None  # `base:` — after (None), main, or a ref
    agent_version: str | None = None  # what its agent said of itself at launch


@record(frozen=True)
class Event:
    id: int
    kind: str
    session: str | None
    ref: int | None
    data: dict
    created_at: float
