"""Which words of a shell command (`land.check`) may be scripts of the repository it
runs: a branch that rewrites one changes the check it is landed by (`land_rules`)."""

from __future__ import annotations

import shlex
from pathlib import Path

INTERPRETERS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "python", "node", "perl",
                          "ruby", "make"})  # `make -f ci.mk` too: -f's operand comes next


def scripts_run(check: str) -> set[str]:
    """The words of `check` that may be scripts it runs: each command's own word
    (`./ci/check`), and the first operand of an interpreter (`sh check.sh`, `python3
    ci.py`). Files it only reads or tests (`grep -q v2 src/app.py`) are the project's."""
    lexer = shlex.shlex(check, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # an unclosed quote: the shell refuses it, and the check fails
        return set()
    found, at_command, interpreter, redirected = set(), True, False, False
    for word in words:
        if redirected:
            redirected = False  # the file a redirection names: read or written, not run
        elif word and set(word) <= set("<>&") and set(word) & set("<>"):
            redirected = True
        elif word and set(word) <= set(";&|()"):
            at_command, interpreter = True, False
        elif at_command and "=" in word and not word.startswith("="):
            continue  # FOO=bar before the command
        elif at_command or (interpreter and not word.startswith("-")):
            found.add(word.removeprefix("./"))
            interpreter = at_command and Path(word).name.rstrip("0123456789.") in INTERPRETERS
            at_command = False
        else:
            interpreter = interpreter and word.startswith("-")
    return {word for word in found
            if word and not word.startswith("/") and ".." not in word.split("/")}
