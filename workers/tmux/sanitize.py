"""Make untrusted text safe to type into a pane: one printable line, bounded length.

Note text comes from other agents. Typed raw, an escape sequence could retitle the pane
or drive the terminal, a `\\r` or newline would submit early, `\\x03` would interrupt the
agent, and a plain shell would run it. `clean` leaves only printable text on one line.
"""

from __future__ import annotations

import re

from board.patterns import lazy  # compiled on first use: a hook uses few of them

LIMIT = 2000
TRUNCATED = "… (full text: bullpen note inbox)"
NEWLINE_MARK = "⏎"

# String sequences (OSC, DCS, SOS, PM, APC; 7-bit and C1 forms) run to BEL or ST; a
# newline or the end of text also ends one, so an unterminated sequence eats one line.
_STRING_SEQ = lazy(r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])"
                   r"[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?", re.DOTALL)
_CSI = lazy(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?")
_SS23 = lazy(r"\x1b[NO][^\n]?|[\x8e\x8f][^\n]?")  # single shifts take one char
_OTHER_ESC = lazy(r"\x1b[ -/]*[0-~]?")  # ESC c, ESC 7, ESC ( B, lone ESC …
_LINE_BREAKS = lazy(r"\r\n|[\n\r\x0b\x0c\x85\u2028\u2029]")
# C0 and C1 controls and DEL (tabs and line breaks are handled before), plus the
# bidirectional overrides that make text display differently from what it is.
_CONTROLS = lazy(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Characters an agent reads but a human does not see: zero-width spaces and joiners,
# bidi marks and controls, the BOM, and Unicode tag characters (hidden instructions).
# The zero-width joiner is kept only between two pictographs (👩‍💻 is one emoji).
_PICTOGRAPH = "\u2600-\u27bf\U0001f000-\U0001faff"
_INVISIBLE = lazy("[\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064"
                  "\u2066-\u206f\ufeff\u061c\u180e\U000e0000-\U000e007f]"
                  f"|(?<![{_PICTOGRAPH}])\u200d|\u200d(?![{_PICTOGRAPH}])")
_SPACES = lazy(r"\s+")
_BREAK_RUNS = lazy(rf"(?:\s*{NEWLINE_MARK}\s*)+")


def strip_escapes(text: str) -> str:
    """Remove terminal escape sequences (CSI, OSC, DCS, SS2/SS3, other ESC forms)."""
    for pattern in (_STRING_SEQ, _CSI, _SS23, _OTHER_ESC):
        text = pattern.sub("", text)
    return text


def strip_invisible(text: str) -> str:
    """`text` without zero-width, bidi-control and tag characters (the rest is kept)."""
    return _INVISIBLE.sub("", text)


def clean(text: str, limit: int = LIMIT, cut: str = TRUNCATED) -> str:
    """One printable line: no escapes or control characters, line breaks shown as ⏎.

    Runs of whitespace collapse to one space; text longer than `limit` characters is cut
    and ends with `cut` (by default `… (full text: bullpen note inbox)`). Unicode text is
    kept.
    """
    text = strip_invisible(strip_escapes(text))
    text = _LINE_BREAKS.sub(f" {NEWLINE_MARK} ", text).replace("\t", " ")
    text = _CONTROLS.sub("", text)
    text = _SPACES.sub(" ", text)
    text = _BREAK_RUNS.sub(f" {NEWLINE_MARK} ", text).strip(f" {NEWLINE_MARK}")
    if len(text) > limit:
        text = text[: max(0, limit - len(cut))].rstrip() + cut
    return text


def is_one_line(text: str) -> bool:
    """True when `text` holds no escape, control character or line break at all."""
    return _CONTROLS.search(text) is None and _LINE_BREAKS.search(text) is None


def as_shell_comment(line: str, limit: int = LIMIT) -> str:
    """`# ` + the cleaned line: for a pane whose agent is a plain shell.

    The result never holds a newline or control character, so the shell sees one
    comment line. zsh ignores comments typed interactively only with the
    `interactivecomments` option; deliver to zsh only if that is known to be set.
    """
    return "# " + clean(line, limit=limit - 2)
