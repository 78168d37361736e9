"""clean() and as_shell_comment(): untrusted note text becomes one printable line."""

from __future__ import annotations

import pytest

from workers.tmux.sanitize import (
    LIMIT,
    TRUNCATED,
    as_shell_comment,
    clean,
    is_one_line,
    strip_escapes,
)


def printable_one_line(text: str) -> bool:
    return all(ch == " " or ch.isprintable() for ch in text) and "\n" not in text


@pytest.mark.parametrize(("raw", "expected"), [
    ("\x1b[31mred\x1b[0m text", "red text"),
    ("\x1b[2J\x1b[H\x1b[?25lcleared", "cleared"),
    ("\x1b]0;pwned title\x07hello", "hello"),             # OSC title, BEL-terminated
    ("\x1b]2;pwned\x1b\\hello", "hello"),                # OSC title, ST-terminated
    ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"),  # OSC 8 hyperlink
    ("\x1bP+q544e\x1b\\after", "after"),                 # DCS
    ("\x1b_apc\x1b\\x", "x"),                            # APC
    ("\x9b31mc1 csi", "c1 csi"),
    ("\x9d0;t\x9cok", "ok"),
    ("\x1bOA\x1bNxkeys", "keys"),                        # SS3 / SS2
    ("\x1bc\x1b7\x1b(Bplain", "plain"),
    ("lone \x1b", "lone"),
])
def test_escape_sequences_are_removed(raw: str, expected: str) -> None:
    assert clean(raw) == expected


def test_unterminated_osc_stops_at_the_line_break() -> None:
    assert clean("a\x1b]0;title\nsecond line") == "a ⏎ second line"


@pytest.mark.parametrize("control", ["\r", "\x03", "\x04", "\x1b", "\x7f", "\x00", "\x08",
                                     "\x15", "\x1a", "\x85", "\x9c", "\u202e"])
def test_control_characters_never_survive(control: str) -> None:
    out = clean(f"yes{control}no")
    assert control not in out
    assert printable_one_line(out)


def test_carriage_return_cannot_submit_early() -> None:
    out = clean("first\rrm -rf ~\r\n")
    assert "\r" not in out and "\n" not in out
    assert out == "first ⏎ rm -rf ~"


def test_newlines_and_tabs_make_one_line() -> None:
    assert clean("line one\n\n\nline two\tand\t\ttab") == "line one ⏎ line two and tab"
    assert clean("\n\nlead and trail\n") == "lead and trail"


def test_whitespace_runs_collapse() -> None:
    assert clean("  a    b \u00a0 c  ") == "a b c"


def test_shell_metacharacters_stay_text() -> None:
    text = "done; rm -rf ~ && $(touch /tmp/x) `id` | tee > out"
    assert clean(text) == text


def test_unicode_is_kept() -> None:
    text = "café → 日本語 👩‍💻 ok"
    assert clean(text) == text


def test_long_text_is_capped_with_a_pointer_to_the_inbox() -> None:
    out = clean("x" * 5000)
    assert len(out) == LIMIT
    assert out.endswith(TRUNCATED)
    assert clean("y" * LIMIT) == "y" * LIMIT
    assert len(clean("z" * 100, limit=50)) == 50


def test_clean_is_idempotent() -> None:
    raw = "\x1b[1mbold\x1b[0m\r\n\tnext; ls\x03\n" + "w " * 1500
    once = clean(raw)
    assert clean(once) == once


def test_strip_escapes_keeps_controls_for_callers_that_want_them() -> None:
    assert strip_escapes("a\x1b[0m\nb") == "a\nb"


def test_shell_comment_is_one_comment_line() -> None:
    out = as_shell_comment("hi\n$(touch /tmp/pwned)\r; touch x\x1b[0m")
    assert out == "# hi ⏎ $(touch /tmp/pwned) ⏎ ; touch x"
    assert "\n" not in out and "\r" not in out
    assert len(as_shell_comment("q" * 5000)) == LIMIT


def test_is_one_line_accepts_only_cleaned_text() -> None:
    assert is_one_line(clean("a\r\nb\x1b[0m\tc"))
    assert is_one_line("unicode ⏎ 日本語 fine")
    for bad in ("a\nb", "a\rb", "tab\t", "\x1b[0m", "\x03", "\x7f", "\x9b", "\u2028", "\u202e"):
        assert not is_one_line(bad), repr(bad)
