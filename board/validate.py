"""Input rules shared by every entry point (CLI, MCP, hooks, dashboard)."""

from __future__ import annotations

from board.errors import BadInput
from board.patterns import lazy
from board.vocabulary import (
    BROADCAST,
    EVERYONE,
    MAIN_CHECKOUT,
    OPERATOR,
    SYSTEM_SENDER,
    TASK_STATUSES,
    TaskStatus,
)

STATUSES = TASK_STATUSES  # board order
NAME_PATTERN = lazy(r"^[a-z][a-z0-9_-]{0,39}$")
RESERVED_NAMES = {EVERYONE, BROADCAST, OPERATOR, MAIN_CHECKOUT, SYSTEM_SENDER, "dashboard",
                  "coordinator"}
# Characters allowed in stored text besides printable ones: newline and tab.
_CONTROL = lazy(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")

# Terminal escape sequences (CSI, OSC) and what no display should receive: controls,
# zero-width, bidi and tag characters, lone surrogates.
_ESCAPE_SEQUENCE = lazy(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
_UNDISPLAYABLE = lazy(
    "[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"
    "\U000e0000-\U000e007f\ud800-\udfff]")

_SURROGATE = lazy("[\ud800-\udfff]")
ONE_LINE = frozenset({"task title", "tag"})  # shown in lists and columns: one line each

LIMITS = {
    "note": 8_000,
    "notebook entry": 20_000,
    "task title": 200,
    "task body": 20_000,
    "summary": 8_000,
    "comment": 8_000,
    "reason": 2_000,
    "tag": 40,
}


def session_name(name: str) -> str:
    """A session name: lower-case letters, digits, '-' or '_', starting with a letter, ≤ 40."""
    if not NAME_PATTERN.match(name or ""):
        raise BadInput(
            f"invalid session name {name!r}: use 1-40 lower-case letters, digits, '-' or '_',"
            " starting with a letter"
        )
    if name in RESERVED_NAMES:
        raise BadInput(f"invalid session name {name!r}: it is reserved")
    return name


def text(value: str, what: str) -> str:
    """Non-empty text within the limit for `what`, without control characters."""
    if value is None or not value.strip():
        raise BadInput(f"{what} is empty")
    limit = LIMITS[what]
    if len(value) > limit:
        raise BadInput(f"{what} is {len(value)} characters; the limit is {limit}")
    undecodable = _SURROGATE.search(value)
    if undecodable:  # a byte that is not UTF-8, smuggled in by surrogateescape
        raise BadInput(f"{what} is not valid UTF-8 (character {undecodable.start() + 1});"
                       " pass UTF-8 text")
    if what in ONE_LINE and ("\n" in value or "\t" in value):
        raise BadInput(f"{what} must be one line; remove the newline or tab")
    bad = _CONTROL.search(value)
    if bad:
        raise BadInput(
            f"{what} contains the control character {bad.group()!r}; remove it"
            " (newlines and tabs are fine)"
        )
    return value


def status(value: str) -> TaskStatus:
    """A task status by its name, or one clear error listing the valid ones."""
    if value not in STATUSES:
        raise BadInput(f"invalid status {value!r}: use one of {', '.join(STATUSES)}")
    return TaskStatus(value)


def one_line(value: str, limit: int = 200) -> str:
    """`value` made safe to store and show as one line: escape sequences and control,
    invisible or unpaired characters removed, whitespace collapsed, shortened with "…".

    For data bullpen records but did not write (commit subjects, file names): it is
    cleaned, never refused — refusing it would stop whoever records it.
    """
    text = _ESCAPE_SEQUENCE.sub("", value)
    text = " ".join(_UNDISPLAYABLE.sub(" ", text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
