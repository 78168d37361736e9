"""A command read as a script, each simple command judged by meaning.

`steps(text)` walks every simple command bash would run for `text`: those of the
script, of the `$(…)` inside it, and of every script handed to a shell in it (`bash -c
TEXT`, `sh <<EOF`, `bash <<< TEXT`, `echo TEXT | bash`, `eval TEXT`, `su -c TEXT`,
`alias x=TEXT`), each with the forms wrappers make of it (`unwrapped`). `refusal(text)`
names the floor's rule the first of them breaks. Text this reader cannot follow is
refused when it mentions what the floor is about (`mentions_floor`): git push, rm -r,
git's hooks path, --no-verify; so is code handed to another language (`python -c`).
"""

from __future__ import annotations

from collections.abc import Iterator

from workers.agents.floor import git_meaning, rm_meaning
from workers.agents.floor.shell_lex import HOME, UNKNOWN, ParseError
from workers.agents.floor.shell_parse import MAX_DEPTH, Simple, parse
from workers.agents.floor.wrappers import (
    INTERPRETERS,
    SCRIPT_RUNNERS,
    SHELLS,
    assignments,
    interpreter_code,
    program,
    runner_script,
    shell_script,
    unwrapped,
)

UNREADABLE = "a command bullpen cannot read that mentions git push, rm -r or git's hooks"
RULES = (git_meaning.FORCED, git_meaning.DELETING, git_meaning.NO_VERIFY,
         git_meaning.HOOKS_PATH, rm_meaning.ROOT, rm_meaning.OF_HOME,
         rm_meaning.NO_PRESERVE_ROOT, UNREADABLE)
_FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir")


class Step:
    """One simple command of a walk (or, `unreadable`, a text that could not be read)."""

    __slots__ = ("cwd", "depth", "forms", "simple", "unreadable")

    def __init__(self, simple: Simple | None, forms: tuple[tuple[str, ...], ...],
                 cwd: str | None, depth: int, unreadable: str = "") -> None:
        self.simple, self.forms, self.cwd, self.depth = simple, forms, cwd, depth
        self.unreadable = unreadable


def steps(text: str, depth: int = 0) -> Iterator[Step]:
    """Every simple command `text` runs, nested scripts' too, in order."""
    try:
        commands = parse(text, depth=depth)
    except ParseError:
        yield Step(None, (), None, depth, unreadable=text)
        return
    cwd: str | None = None
    for simple in commands:
        forms = tuple(unwrapped(simple.words, _piped_words(simple.upstream))) \
            if simple.words else ()
        yield Step(simple, forms, cwd, depth)
        if forms:
            for inner in _scripts(simple, forms[-1]):
                yield from steps(inner.replace(UNKNOWN, ""), depth + 1)
        cwd = _after_cd(forms[-1] if forms else (), cwd)


def refusal(text: str) -> str | None:
    """The floor's rule `text` breaks (one of `RULES`), or None."""
    for step in steps(text):
        found = judged(step)
        if found:
            return found
    return None


def judged(step: Step) -> str | None:
    """The rule one step breaks, or None."""
    if step.unreadable:
        return UNREADABLE if mentions_floor(step.unreadable) else None
    assert step.simple is not None
    given = [*step.simple.assigns, *(a for form in step.forms[:-1] for a in assignments(form))]
    if any("hookspath" in assignment.lower() for assignment in given):
        return git_meaning.HOOKS_PATH
    if not step.forms:
        return None
    words = step.forms[-1]
    name = program(words[0])
    if git_meaning.is_git(words):
        return git_meaning.refusal(words, lambda inner: _nested(inner, step.depth))
    if name == "rm":
        return rm_meaning.refusal(words[1:], step.cwd)
    if name == "find":
        return _find(words, step.cwd)
    if name in INTERPRETERS:
        code = interpreter_code(words)
        return UNREADABLE if code is not None and mentions_floor(code) else None
    return None


def _nested(text: str, depth: int) -> str | None:
    if depth >= MAX_DEPTH:
        return UNREADABLE if mentions_floor(text) else None
    return next(filter(None, map(judged, steps(text, depth + 1))), None)


def mentions_floor(text: str) -> bool:
    """Does `text` name what the floor guards (git and push, rm and -r, the hooks)?"""
    lowered = text.lower()
    words = set(lowered.replace("'", " ").replace('"', " ").replace(",", " ")
                .replace("(", " ").replace(")", " ").replace("[", " ").split())
    if "hookspath" in lowered or "no-verify" in lowered:
        return True
    if "push" in lowered and "git" in lowered:
        return True
    return "rm" in words or "rmtree" in lowered or "--no-preserve-root" in lowered


def _scripts(simple: Simple, words: tuple[str, ...]) -> list[str]:
    """The scripts a simple command hands to a shell."""
    name = program(words[0])
    if name in SHELLS:
        kind, text = shell_script(words)
        if kind == "text":
            return [text]
        return _stdin_texts(simple) if kind == "stdin" else []
    if name == "eval":
        return [" ".join(words[1:])]
    if name == "alias":
        return [word.partition("=")[2] for word in words[1:] if "=" in word]
    if name in SCRIPT_RUNNERS or words[0] == "-c":  # `flock FILE -c TEXT`
        found = words[1] if words[0] == "-c" and len(words) > 1 else runner_script(words)
        return [found] if found else []
    return []


def _stdin_texts(simple: Simple) -> list[str]:
    """What a shell reading its standard input gets: heredocs, here-strings, a pipe."""
    texts = list(simple.stdin)
    upstream = simple.upstream
    if upstream is not None and upstream.words:
        name = program(upstream.words[0])
        if name in ("echo", "printf"):
            texts.append(_printed(upstream.words))
        elif name == "cat" and len(upstream.words) == 1:
            texts.extend(upstream.stdin)
        else:  # a program's output bullpen cannot know: judged by what it says
            texts.append(" ".join(upstream.words) if mentions_floor(
                " ".join(upstream.words)) else "")
            if texts[-1]:
                texts[-1] = "'" + texts[-1]  # unreadable on purpose: refused if it mentions
    return [text for text in texts if text]


def _printed(words: tuple[str, ...]) -> str:
    args = [word for word in words[1:] if word not in ("-n", "-e", "-E")]
    return " ".join(args).replace("\\n", "\n").replace("%s", " ")


def _piped_words(upstream: Simple | None) -> tuple[str, ...]:
    if upstream is None or not upstream.words or \
            program(upstream.words[0]) not in ("echo", "printf"):
        return ()
    return tuple(_printed(upstream.words).split())


def _after_cd(words: tuple[str, ...], cwd: str | None) -> str | None:
    if not words or words[0] not in ("cd", "pushd"):
        return cwd
    target = next((word for word in words[1:] if not word.startswith("-")), HOME)
    if target.startswith(("/", HOME)) and UNKNOWN not in target:
        return target
    return None  # somewhere relative: not known


def _find(words: tuple[str, ...], cwd: str | None) -> str | None:
    """`find / -delete`, `find ~ -exec rm -rf {} +`, `find . -exec git push -f \\;`: rm's
    rules on find's start paths, and each `-exec` command judged as the floor judges any."""
    import shlex  # here: only a find with an action needs it
    paths = []
    for word in words[1:]:
        if word.startswith(("-", "(", "!")):
            break
        paths.append(word)
    paths = paths or ["."]
    actions = list(words)
    if "-delete" in actions:
        for path in paths:
            found = rm_meaning.refusal(("-r", path), cwd)
            if found:
                return found
    for index, word in enumerate(actions):
        if word not in _FIND_ACTIONS or index + 1 >= len(actions):
            continue
        command = actions[index + 1:]
        end = next((at for at, arg in enumerate(command) if arg in (";", "+")), len(command))
        for path in paths:
            run = tuple(path if arg == "{}" else arg for arg in command[:end])
            found = _nested(shlex.join(run), 0) if run else None
            if found:
                return found
    return None
