"""`notify:` read from the local config, and receivers named without their secrets."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from board.errors import BadInput
from board.notify_config import ALL_EVENTS, NotifyEvent, label, read, scrub


def local(tmp_path: Path, notify: object) -> Path:
    (tmp_path / "local.yaml").write_text(yaml.safe_dump({"notify": notify}))
    return tmp_path


@pytest.mark.parametrize(("url", "shown"), [
    ("json://127.0.0.1:8080", "json://127.0.0.1:8080"),
    ("ntfy://ntfy.sh/my-secret-topic", "ntfy://ntfy.sh/***"),
    ("ntfys://me:hunter2@ntfy.example.com/topic", "ntfys://***@ntfy.example.com/***"),
    ("mailto://me:app-password@gmail.com", "mailto://***@gmail.com"),
    ("tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/987654", "tgram://***/***"),
    ("slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ", "slack://***/***"),
    ("matrixs://bot:s3cret@matrix.org/#room", "matrixs://***@matrix.org"),
    ("discord://4174216298/JHMHI8qBe7bk2ZwO5U711o3dV_js", "discord://***/***"),
    ("dbus://", "dbus://***"),
])
def test_a_receiver_is_named_without_its_tokens_or_passwords(url: str, shown: str) -> None:
    assert label(url) == shown


def test_an_error_naming_the_url_is_scrubbed_of_its_secrets() -> None:
    url = "tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/987654"
    said = scrub(f"POST https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
                 f"/sendMessage failed for {url} (chat 987654)", url)
    assert "AAHdq" not in said and "123456789" not in said and "987654" not in said


def test_urls_and_events_are_read_and_events_default_to_all(tmp_path: Path) -> None:
    settings = read(local(tmp_path, ["json://127.0.0.1:1"]))
    assert settings is not None and settings.urls == ("json://127.0.0.1:1",)
    assert settings.events == ALL_EVENTS
    settings = read(local(tmp_path, {"urls": "json://x.example:1", "events": ["question"]}))
    assert settings is not None and settings.events == {NotifyEvent.QUESTION}
    assert read(tmp_path / "nowhere") is None


@pytest.mark.parametrize(("notify", "said"), [
    ({"urls": ["tgram://SECRETTOKEN"], "events": ["questions"]}, "'questions' is not one of"),
    ({"urls": []}, "urls: expected one or more Apprise URLs"),
    ({"urls": ["not a url with SECRET"]}, "is not a URL"),
    ({"url": ["json://a.b:1"]}, "url: unknown key"),
    ("json://a.b:1", "expected urls:"),
])
def test_a_malformed_notify_is_one_line_that_shows_no_url(tmp_path: Path, notify: object,
                                                         said: str) -> None:
    with pytest.raises(BadInput, match=said) as refused:
        read(local(tmp_path, notify))
    assert "SECRET" not in str(refused.value) and "\n" not in str(refused.value)
