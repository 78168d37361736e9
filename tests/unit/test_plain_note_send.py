"""`note send TO TEXT...` without options skips argparse (tui.cli.main): what it makes of
a command line must be what argparse makes of it, and anything else goes to argparse."""

from __future__ import annotations

import pytest

from tui.cli import build_parser
from tui.cli.note_commands import SendArgs, send_note

FIELDS = ("to", "text", "reply_to", "json", "wait")


@pytest.mark.parametrize("words", [
    ["b", "hi"],
    ["b", "hello", "there", "world"],
    ["all", "a note", "in words"],
    ["operator", ""],
    ["b", "x=1", "@file", "a\nb"],
])
def test_a_plain_send_reads_as_argparse_reads_it(words: list[str]) -> None:
    plain = SendArgs.plain(words)
    parsed = build_parser("note").parse_args(["note", "send", *words])
    assert plain is not None and parsed.handler is send_note
    assert {f: getattr(plain, f) for f in FIELDS} == {f: getattr(parsed, f) for f in FIELDS}


@pytest.mark.parametrize("words", [
    [], ["b"], ["b", "--json", "x"], ["--wait", "1", "b", "x"], ["b", "x", "--reply-to", "3"],
    ["b", "-"], ["-h"], ["b", "--", "-x"],
])
def test_options_or_a_missing_text_go_to_argparse(words: list[str]) -> None:
    assert SendArgs.plain(words) is None
