"""The web page's access rules: the token kept as a hash, rotation, cookies, the rate."""

from __future__ import annotations

import stat
from pathlib import Path

from workers.surfaces.web import access


def test_only_the_tokens_hash_is_kept_owner_only_and_a_new_one_retires_the_old(
        tmp_path: Path) -> None:
    first = access.new_login_token(tmp_path)
    kept = tmp_path / access.TOKEN_FILE
    assert first not in kept.read_text() and stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert access.token_matches(tmp_path, first)
    second = access.new_login_token(tmp_path)
    assert access.token_matches(tmp_path, second)
    assert not access.token_matches(tmp_path, first)
    assert not access.token_matches(tmp_path, "")
    assert not access.token_matches(tmp_path / "elsewhere", second)


def test_a_cookie_is_known_only_if_this_server_gave_it(tmp_path: Path) -> None:
    logins = access.Logins()
    cookie, csrf = logins.open()
    assert logins.csrf_of(cookie) == csrf
    assert logins.csrf_of(cookie + "x") is None and logins.csrf_of(None) is None
    logins.clear()  # the server stopped: nobody is logged in
    assert logins.csrf_of(cookie) is None


def test_answers_past_the_rate_are_refused() -> None:
    limit = access.RateLimit(3, 60.0)
    assert [limit.allow() for _ in range(5)] == [True, True, True, False, False]


def test_the_served_url_is_there_only_while_it_serves(tmp_path: Path) -> None:
    assert access.served_url(tmp_path) is None
    access.write_url(tmp_path, "http://127.0.0.1:8765")
    assert access.served_url(tmp_path) == "http://127.0.0.1:8765"
    access.clear_url(tmp_path)
    assert access.served_url(tmp_path) is None
