"""Shell text cut into tokens as bash cuts it: words, operators, redirections, heredocs.

A word's text is what bash would pass to the program: quotes removed, `\\` escapes and
`$'…'` (ANSI-C: `\\x2d`, octal, `\\u`) decoded, line continuations dropped, `$NAME`
replaced by the value the script gave it earlier. What only the running shell knows
(an unset variable, a command's output) is `UNKNOWN`; `$HOME` and a leading `~` are
`~`. Unquoted `{`, `,`, `}` and the split points of an unquoted expansion are marked
(`BRACES`, `SPLIT`) so `shell_parse` can expand braces and split fields afterwards.
Each `$(…)`, `` `…` ``, `<(…)` inside is handed to `nested`, which reads it as a script.
"""

from __future__ import annotations

from collections.abc import Callable

UNKNOWN = "\x00"  # a value only the running shell knows
SPLIT = "\x04"  # where an unquoted expansion's value splits into words
LBRACE, COMMA, RBRACE = "\x01", "\x02", "\x03"  # unquoted { , } (brace expansion)
HOME = "~"
OPERATORS = ("&&", "||", ";;&", ";;", ";&", "|&", "|", "&", ";", "(", ")", "\n")
REDIRECTS = ("<<<", "<<-", "<<", "<>", "<&", "<", "&>>", "&>", ">>", ">&", ">|", ">")
_META = " \t\n;&|()<>"
_NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_NAME = _NAME_START + "0123456789"
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f",
                   "v": "\v", "e": "\x1b", "E": "\x1b", "\\": "\\", "'": "'", '"': '"',
                   "?": "?"}


class ParseError(ValueError):
    """Text bash would refuse, or that this reader cannot follow."""


class Token:
    """One token: `kind` is "word", "op" or "redir"; `text` as described above."""

    __slots__ = ("kind", "quoted", "raw", "text")

    def __init__(self, kind: str, text: str, raw: str = "", quoted: bool = False) -> None:
        self.kind, self.text, self.raw, self.quoted = kind, text, raw, quoted

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r})"


Lookup = Callable[[str], "str | None"]
Nested = Callable[[str], "str | None"]


class Lexer:
    """Tokens of one script, on demand (`next`); heredoc bodies are read at the newline
    after their `<<WORD` (`expect_heredoc`)."""

    def __init__(self, text: str, lookup: Lookup, nested: Nested) -> None:
        self.text, self.pos = text, 0
        self.lookup, self.nested = lookup, nested
        self.heredocs: list[tuple[str, bool, list[str]]] = []

    def expect_heredoc(self, delimiter: str, strip_tabs: bool, body: list[str]) -> None:
        """Read the body ending at `delimiter` into `body` after the next newline."""
        self.heredocs.append((delimiter, strip_tabs, body))

    def next(self) -> Token | None:
        """The next token, or None at the end of the text."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t":
                self.pos += 1
            elif text.startswith("\\\n", self.pos):
                self.pos += 2
            elif char == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            else:
                break
        if self.pos >= len(text):
            if self.heredocs:
                self._read_heredocs()
            return None
        if text.startswith("((", self.pos):  # an arithmetic command: nothing runs
            self.pos = _closing(text, self.pos + 2, "((", "))") + 2
            return Token("word", "true", "((…))")
        for op in OPERATORS:
            if text.startswith(op, self.pos):
                self.pos += len(op)
                if op == "\n":
                    self._read_heredocs()
                return Token("op", op)
        if text[self.pos] in "<>" and not text.startswith(("<(", ">("), self.pos):
            return self._redirect()
        return self._word()

    def _redirect(self) -> Token:
        for op in REDIRECTS:
            if self.text.startswith(op, self.pos):
                self.pos += len(op)
                return Token("redir", op)
        raise ParseError("unreadable redirection")  # pragma: no cover (every < > matches)

    def _word(self) -> Token:
        text, start = self.text, self.pos
        out: list[str] = []
        quoted = False
        while self.pos < len(text):
            char = text[self.pos]
            if char in "<>" and text.startswith(("<(", ">("), self.pos):
                end = _closing(text, self.pos + 2, "(", ")")
                self.nested(text[self.pos + 2:end])
                self.pos = end + 1
                out.append(UNKNOWN)  # a file name only the running shell knows
                continue
            if char in _META:
                if out and all(c.isdigit() for c in out) and char in "<>":
                    return self._redirect()  # `2>&1`: a descriptor, not a word
                if char == "(" and "".join(out).endswith("="):  # NAME=(array …)
                    end = _closing(text, self.pos + 1, "(", ")")
                    out.append(UNKNOWN)
                    self.pos = end + 1
                    continue
                break
            if char == "\\":
                following = text[self.pos + 1:self.pos + 2]
                self.pos += 2
                if following != "\n":
                    out.append(following)
                    quoted = True
            elif char == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    raise ParseError("unclosed single quote")
                out.append(text[self.pos + 1:end])
                self.pos, quoted = end + 1, True
            elif char == '"':
                out.append(self._double_quoted())
                quoted = True
            elif char == "$" and text.startswith(("$'", '$"'), self.pos):
                if text[self.pos + 1] == '"':
                    self.pos += 1
                    out.append(self._double_quoted())
                else:
                    out.append(self._ansi_c())
                quoted = True
            elif char == "$" or char == "`":
                out.append(self._expansion(split=True))
            elif char in "{,}":
                out.append({"{": LBRACE, ",": COMMA, "}": RBRACE}[char])
                self.pos += 1
            elif char == "~" and not out:
                out.append(HOME)
                self.pos += 1
            else:
                out.append(char)
                self.pos += 1
        return Token("word", "".join(out), text[start:self.pos], quoted)

    def _double_quoted(self) -> str:
        text = self.text
        self.pos += 1
        out: list[str] = []
        while True:
            if self.pos >= len(text):
                raise ParseError("unclosed double quote")
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                return "".join(out)
            if char == "\\":
                following = text[self.pos + 1:self.pos + 2]
                self.pos += 2
                if following in '$`"\\':
                    out.append(following)
                elif following != "\n":
                    out.append("\\" + following)
            elif char in "$`":
                out.append(self._expansion(split=False))
            else:
                out.append(char)
                self.pos += 1

    def _ansi_c(self) -> str:
        """`$'…'`, decoded as bash decodes it."""
        text = self.text
        self.pos += 2
        out: list[str] = []
        while True:
            if self.pos >= len(text):
                raise ParseError("unclosed $' quote")
            char = text[self.pos]
            if char == "'":
                self.pos += 1
                return "".join(out)
            if char != "\\":
                out.append(char)
                self.pos += 1
                continue
            code = text[self.pos + 1:self.pos + 2]
            self.pos += 2
            if code in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[code])
            elif code in "xuU":
                size = {"x": 2, "u": 4, "U": 8}[code]
                digits = _take(text, self.pos, size, "0123456789abcdefABCDEF")
                self.pos += len(digits)
                out.append(chr(int(digits, 16)) if digits else "\\" + code)
            elif code in "01234567":
                digits = code + _take(text, self.pos, 2, "01234567")
                self.pos += len(digits) - 1
                out.append(chr(int(digits, 8) & 0xFF))
            elif code == "c":
                out.append(chr(ord(text[self.pos:self.pos + 1] or "@") & 0x1F))
                self.pos += 1
            else:
                out.append("\\" + code)

    def _expansion(self, split: bool) -> str:
        """`$NAME`, `${…}`, `$(…)`, `$((…))` or `` `…` `` at `pos`: its value, or UNKNOWN."""
        text = self.text
        if text[self.pos] == "`":
            end = self.pos + 1
            while end < len(text) and text[end] != "`":
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                raise ParseError("unclosed backquote")
            inner = text[self.pos + 1:end].replace("\\`", "`").replace("\\$", "$")
            self.pos = end + 1
            return _fields(self.nested(inner), split)
        following = text[self.pos + 1:self.pos + 2]
        if text.startswith("$((", self.pos):
            self.pos = _closing(text, self.pos + 3, "((", "))") + 2
            return UNKNOWN
        if following == "(":
            end = _closing(text, self.pos + 2, "(", ")")
            inner, self.pos = text[self.pos + 2:end], end + 1
            return _fields(self.nested(inner), split)
        if following == "{":
            end = _closing(text, self.pos + 2, "{", "}")
            inner, self.pos = text[self.pos + 2:end], end + 1
            self._nested_in(inner)
            known = self.lookup(inner) if all(c in _NAME for c in inner) and inner else None
            return _fields(known, split)
        if following and following in _NAME_START:
            name = following + _take(text, self.pos + 2, len(text), _NAME)
            self.pos += 1 + len(name)
            return _fields(self.lookup(name), split)
        if following and following in "0123456789@*#?$!-":
            self.pos += 2
            return UNKNOWN
        self.pos += 1
        return "$"

    def _nested_in(self, inner: str) -> None:
        """A `${X:-$(cmd)}`: the command in it runs too."""
        if "$(" in inner or "`" in inner:
            Lexer(inner.partition(":-")[2] or inner, self.lookup, self.nested).next()

    def _read_heredocs(self) -> None:
        text = self.text
        for delimiter, strip_tabs, body in self.heredocs:
            lines: list[str] = []
            while self.pos < len(text):
                end = text.find("\n", self.pos)
                end = len(text) if end < 0 else end
                line = text[self.pos:end]
                self.pos = end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
                lines.append(line)
            body.append("\n".join(lines))
        self.heredocs = []


def _fields(value: str | None, split: bool) -> str:
    if value is None:
        return UNKNOWN
    return SPLIT.join(value.split()) if split else value


def _take(text: str, start: int, most: int, allowed: str) -> str:
    end = start
    while end < len(text) and end - start < most and text[end] in allowed:
        end += 1
    return text[start:end]


def _closing(text: str, start: int, opening: str, closing: str) -> int:
    """Where the `closing` matching an `opening` just before `start` begins (quotes,
    escapes and nesting skipped)."""
    depth, index = 1, start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "'" and opening != "((":
            end = text.find("'", index + 1)
            if end < 0:
                raise ParseError("unclosed single quote")
            index = end + 1
            continue
        if char == '"':
            end = index + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            index = end + 1
            continue
        if text.startswith(closing, index):
            depth -= 1
            if depth == 0:
                return index
            index += len(closing)
            continue
        if text.startswith(opening, index) or (opening == "(" and text.startswith("$(", index)):
            depth += 1
            index += len(opening) + (1 if text[index] == "$" else 0)
            continue
        index += 1
    raise ParseError(f"unclosed {opening}")
