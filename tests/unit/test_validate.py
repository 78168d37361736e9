import pytest

from board import validate
from board.errors import BadInput


@pytest.mark.parametrize("name", ["a", "coder", "review-2", "x_y", "a" * 40])
def test_valid_session_names(name: str) -> None:
    assert validate.session_name(name) == name


@pytest.mark.parametrize("name", ["", "../x", "a b", "-x", "Coder", "a" * 41,
                                  "hermes/hermes-1", "2fast", "all", "operator", "main"])
def test_invalid_session_names(name: str) -> None:
    with pytest.raises(BadInput, match="invalid session name"):
        validate.session_name(name)


def test_text_limits_are_stated() -> None:
    with pytest.raises(BadInput, match="the limit is 8000"):
        validate.text("x" * 8001, "note")
    with pytest.raises(BadInput, match="empty"):
        validate.text("   ", "note")


@pytest.mark.parametrize("bad", ["\x1b[31mred", "a\rb", "stop\x03", "nul\x00"])
def test_control_characters_are_refused(bad: str) -> None:
    with pytest.raises(BadInput, match="control character"):
        validate.text(bad, "note")


def test_newlines_and_tabs_are_text() -> None:
    assert validate.text("line one\n\tline two", "note")


def test_statuses() -> None:
    assert validate.status("review") == "review"
    with pytest.raises(BadInput, match="invalid status 'doing'"):
        validate.status("doing")
