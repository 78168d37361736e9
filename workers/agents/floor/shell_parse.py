"""A script's simple commands, as bash would run them: `parse(text)`.

Compound commands (`if … fi`, `while`, `for`, `case … esac`, `{ …; }`, `( … )`,
functions, `[[ … ]]`, `((…))`), `!`, `time`, pipelines and lists are taken apart into
the simple commands inside them, in order; a redirection is dropped from the words
wherever it stands (`>/dev/null git push` is `git push`), and what it feeds the
command's standard input (a heredoc's body, a here-string) is kept, with the command the
pipe feeds from. `$(…)`, backquotes and `<(…)` are read as scripts of their own and
their commands come first. A variable the script set earlier (`F=-f; git push $F`,
`export F=-f`) has its value; brace expansion (`-{f,}`) and field splitting are done.
Text bash would refuse raises `ParseError`.
"""

from __future__ import annotations

from workers.agents.floor.shell_lex import (
    COMMA,
    LBRACE,
    RBRACE,
    SPLIT,
    UNKNOWN,
    Lexer,
    ParseError,
    Token,
)

MAX_DEPTH = 8  # scripts inside scripts (`$(…)`, `bash -c`) before the text is unreadable
MAX_WORDS = 256  # words one brace expansion may make
RESERVED = frozenset({"!", "{", "}", "then", "else", "elif", "fi", "do", "done", "if",
                      "while", "until", "coproc"})
DECLARE = frozenset({"export", "local", "declare", "typeset", "readonly"})
SEPARATORS = frozenset({";", "\n", "&"})
CASE_ENDS = frozenset({";;", ";&", ";;&"})


class Simple:
    """One simple command: its words, the `NAME=value` words before it, the texts a
    heredoc or here-string feeds it, and the command a pipe feeds it from."""

    __slots__ = ("assigns", "stdin", "upstream", "words")

    def __init__(self, words: tuple[str, ...], assigns: tuple[str, ...] = (),
                 stdin: list[str] | None = None, upstream: Simple | None = None) -> None:
        self.words, self.assigns = words, assigns
        self.stdin = stdin if stdin is not None else []
        self.upstream = upstream

    def __repr__(self) -> str:
        return f"Simple({self.words!r})"


def parse(text: str, env: dict[str, str] | None = None, depth: int = 0) -> list[Simple]:
    """The simple commands of `text`, nested ones first; ParseError when unreadable."""
    if depth > MAX_DEPTH:
        raise ParseError("scripts nested too deep")
    return _Parser(text, {} if env is None else env, depth).run()


def is_assignment(word: str) -> bool:
    """`NAME=value` (or `NAME+=value`)?"""
    name, equals, _ = word.partition("=")
    name = name.removesuffix("+")
    return bool(equals) and bool(name) and not name[0].isdigit() \
        and name.replace("_", "a").isalnum() and name.isascii()


def clean(text: str) -> str:
    """A token's text with its brace and split marks made plain again."""
    return text.replace(LBRACE, "{").replace(COMMA, ",").replace(RBRACE, "}") \
        .replace(SPLIT, " ")


class _Building:
    __slots__ = ("assigns", "stdin", "words")

    def __init__(self) -> None:
        self.words: list[Token] = []
        self.assigns: list[str] = []
        self.stdin: list[str] = []


class _Parser:
    def __init__(self, text: str, env: dict[str, str], depth: int) -> None:
        self.text, self.env, self.depth = text, env, depth
        self.found: list[Simple] = []

    def lookup(self, name: str) -> str | None:
        return "~" if name == "HOME" else self.env.get(name)

    def nested(self, inner: str) -> str | None:
        """Read `$(inner)` as a script; its output when it is a plain `echo`."""
        commands = parse(inner, dict(self.env), self.depth + 1)
        self.found.extend(commands)
        if len(commands) == 1 and commands[0].words[:1] == ("echo",):
            return " ".join(word for word in commands[0].words[1:]
                            if word not in ("-n", "-e", "-E"))
        return None

    def run(self) -> list[Simple]:
        lexer = Lexer(self.text, self.lookup, self.nested)
        current, upstream = _Building(), None
        skip = ""  # "header" (for/select), "case", "name" (function), "]]"
        cases: list[str] = []  # per open case: "pattern" or "body"
        while (token := lexer.next()) is not None:
            if token.kind == "op":
                op = token.text
                if skip == "header" and op in SEPARATORS:
                    skip = ""
                if skip or (cases and cases[-1] == "pattern"):
                    if cases and cases[-1] == "pattern" and op == ")" and not skip:
                        cases[-1] = "body"
                    continue
                if op == "(" and current.words:
                    self._function_parens(lexer, current)
                    current = _Building()
                    continue
                simple = self._finish(current, upstream)
                current = _Building()
                upstream = simple if op in ("|", "|&") else None
                if op in CASE_ENDS and cases:
                    cases[-1] = "pattern"
                continue
            if token.kind == "redir":
                self._redirect(lexer, token.text, current)
                continue
            word = clean(token.text)
            if skip:
                if (skip == "]]" and word == "]]") or (skip == "case" and word == "in") \
                        or skip == "name":
                    if skip == "case":
                        cases.append("pattern")
                    skip = ""
                continue
            if cases and cases[-1] == "pattern":
                if word == "esac":
                    cases.pop()
                continue
            if not current.words and not token.quoted:
                if word == "esac" and cases:
                    cases.pop()
                    continue
                if word in RESERVED:
                    continue
                skip = {"for": "header", "select": "header", "case": "case",
                        "function": "name", "[[": "]]"}.get(word, "")
                if skip:
                    continue
            if not current.words and is_assignment(token.raw):  # NAME= itself unquoted
                current.assigns.append(token.text)
                continue
            current.words.append(token)
        if skip in ("]]", "case") or cases:
            raise ParseError("unclosed compound command")
        self._finish(current, upstream)
        return self.found

    def _function_parens(self, lexer: Lexer, current: _Building) -> None:
        """`name ()` of a function definition; bash refuses `(` after other words."""
        closing = lexer.next()
        if len(current.words) != 1 or closing is None or closing.text != ")":
            raise ParseError("unexpected (")

    def _redirect(self, lexer: Lexer, op: str, current: _Building) -> None:
        target = lexer.next()
        if target is None or target.kind != "word":
            raise ParseError(f"{op} without a target")
        if op in ("<<", "<<-"):
            lexer.expect_heredoc(clean(target.text), op == "<<-", current.stdin)
        elif op == "<<<":
            current.stdin.append(clean(target.text).replace(UNKNOWN, ""))

    def _finish(self, current: _Building, upstream: Simple | None) -> Simple | None:
        words = tuple(word for token in current.words for word in _expanded(token))
        if not words:
            self._assign(current.assigns)
            if current.assigns or current.stdin:
                self.found.append(Simple((), tuple(current.assigns), current.stdin))
            return None
        if words[0] in DECLARE:
            self._assign([word for word in words[1:] if is_assignment(word)])
        simple = Simple(words, tuple(clean(a) for a in current.assigns), current.stdin,
                        upstream)
        self.found.append(simple)
        return simple

    def _assign(self, assigns: list[str]) -> None:
        for assignment in assigns:
            name, _, value = clean(assignment).partition("=")
            if UNKNOWN in value or name.endswith("+"):
                self.env.pop(name.removesuffix("+"), None)
            else:
                self.env[name] = value


def _expanded(token: Token) -> list[str]:
    """The words one token becomes: braces expanded, fields split, marks made plain."""
    words = [token.text]
    if LBRACE in token.text:
        words = _braces(token.text)
    found: list[str] = []
    for word in words:
        parts = word.split(SPLIT) if SPLIT in word else [word]
        for part in parts:
            plain = part.replace(LBRACE, "{").replace(COMMA, ",").replace(RBRACE, "}")
            if plain or token.quoted:
                found.append(plain)
    return found


def _braces(text: str) -> list[str]:
    """Bash's brace expansion of `a{b,c}d` (marked braces only), at most MAX_WORDS."""
    start = text.find(LBRACE)
    while start >= 0:
        depth, commas, index = 0, [], start
        for index in range(start, len(text)):
            char = text[index]
            if char == LBRACE:
                depth += 1
            elif char == RBRACE:
                depth -= 1
                if depth == 0:
                    break
            elif char == COMMA and depth == 1:
                commas.append(index)
        if depth == 0 and commas:
            cuts = [start, *commas, index]
            head, tail = text[:start], text[index + 1:]
            found: list[str] = []
            for left, right in zip(cuts, cuts[1:], strict=False):
                for word in _braces(head + text[left + 1:right] + tail):
                    found.append(word)
                    if len(found) >= MAX_WORDS:
                        return found
            return found
        start = text.find(LBRACE, start + 1)
    return [text]
