"""bullpen serve in a real browser: a phone answers a real question in a real pane.

A stand-in installed as `claude` (tests/agents/menu_agent.py) shows Claude Code
2.1.332's permission prompt in its tmux pane and logs the keys it gets. `bullpen serve`
runs for the room; headless Chromium (Debian's, driven by Playwright) logs in with the
printed token URL, sees the question, presses "4. No", and the program gets Down Down
Down Enter: answer 4. Around it, with plain HTTP: no cookie is refused, a wrong CSRF
token is refused, an answer to a question no longer on screen is refused; the audit has
operator@web. The page at phone width is saved as docs/images/serve-390x844.png.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.cli_runner import BULLPEN
from tests.rooms import live_room
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
AGENT = Path(__file__).resolve().parents[1] / "agents" / "menu_agent.py"
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "serve-390x844.png"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
STARTUP = 30.0


def _playwright():  # noqa: ANN202
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright for Python is not installed (pip install playwright)")
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    return sync_playwright


def _post(url: str, fields: dict, cookie: str | None, csrf: str | None) -> tuple[int, str]:
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    if csrf is not None:
        headers["X-CSRF-Token"] = csrf
    request = urllib.request.Request(url, json.dumps(fields).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _login(login_url: str) -> tuple[str, str]:
    """(the cookie header, the CSRF token) a plain HTTP client gets from the login link."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(login_url, timeout=20) as response:
        page = response.read().decode()
    cookie = "; ".join(f"{item.name}={item.value}" for item in jar)
    return cookie, re.search(r'name="csrf" content="([^"]+)"', page).group(1)


def test_a_phone_answers_a_question_in_a_real_pane(
        git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sync_playwright = _playwright()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "keys.jsonl"
    claude = bin_dir / "claude"
    claude.write_text(f'#!/bin/sh\nexec {sys.executable} {AGENT} --log {log} "$@"\n')
    claude.chmod(claude.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    (git_repo / "bullpen.yaml").write_text("sessions:\n  asker:\n    agent: claude\n")
    with live_room(git_repo, tmp_path / "logs") as room:
        room.cli("up", "--detach")
        room.cli("task", "add", "Read the page on a phone")
        room.wait_status("asker", "needs_input", STARTUP)
        asked = wait_until(lambda: json.loads(room.cli("questions", "--json").stdout),
                           20, message="bullpen questions to list asker's question")[0]
        assert [choice["number"] for choice in asked["choices"]] == [1, 2, 3, 4]

        serve = subprocess.Popen([BULLPEN, "serve", "--port", "0"], cwd=git_repo,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = serve.stdout.readline()
            login = re.search(r"(http://127\.0\.0\.1:\d+)/login\?token=\S+", line)
            assert login, (line, serve.stderr.read() if serve.poll() is not None else "")
            base, login_url = login.group(1), login.group(0)
            token = login_url.split("token=")[1]
            stored = (room.home / "web-token").read_text()
            assert token not in stored and stat.S_IMODE(
                (room.home / "web-token").stat().st_mode) == 0o600
            assert (room.home / "web-url").read_text().strip() == base
            assert token not in (git_repo / "bullpen.yaml").read_text()

            # Without the cookie: nothing is shown, nothing is answered.
            for path in ("/", "/state", "/events"):
                with pytest.raises(urllib.error.HTTPError) as refused:
                    urllib.request.urlopen(base + path, timeout=10)
                assert refused.value.code == 401, path
            assert _post(f"{base}/answer", {"session": "asker", "choice": "1",
                                            "question": asked["id"]}, None, None)[0] == 401
            with pytest.raises(urllib.error.HTTPError) as wrong_token:
                urllib.request.urlopen(f"{base}/login?token=not-{token}", timeout=10)
            assert wrong_token.value.code == 403
            cookie, csrf = _login(login_url)
            answer = {"session": "asker", "choice": "1", "question": asked["id"]}
            assert _post(f"{base}/answer", answer, cookie, "x" + csrf)[0] == 403
            assert _post(f"{base}/answer", answer, cookie, None)[0] == 403
            stale = {**answer, "question": "0" * len(asked["id"])}
            code, body = _post(f"{base}/answer", stale, cookie, csrf)
            assert code == 409 and "the question changed" in body, body
            assert not log.exists()  # nothing reached the program

            with sync_playwright() as driver:
                browser = driver.chromium.launch(executable_path=str(CHROMIUM),
                                                 args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 390, "height": 844},
                                        device_scale_factor=1)
                page.goto(login_url)
                assert "token=" not in page.url  # the token leaves the address bar
                button = page.locator('button[data-session="asker"][data-choice="4"]')
                button.wait_for(timeout=15000)
                assert "Do you want to proceed?" in page.locator("#needs").inner_text()
                page.screenshot(path=str(SCREENSHOT))
                button.click()
                page.locator("#said").filter(has_text="answered asker").wait_for(
                    timeout=15000)
                rows = wait_until(lambda: [json.loads(row) for row in
                                           log.read_text().splitlines()] if log.exists()
                                  else None, 15, message="the program to get an answer")
                assert rows[0]["answer"] == 4
                assert rows[0]["keys"] == ["Down", "Down", "Down", "Enter"]
                # The page follows the room live: the question leaves it.
                page.locator('[data-question]').wait_for(state="detached", timeout=15000)

                # The two other things the page does: move a card, send a note.
                page.select_option('select[aria-label="column of card 1"]', "review")
                page.locator("#cards button").first.click()
                page.locator("#said").filter(has_text="task 1 is review").wait_for(
                    timeout=15000)
                page.select_option("#to", "asker")
                page.fill("#body", "FROM-THE-PHONE")
                page.locator("#note button").click()
                page.locator("#notes").filter(has_text="FROM-THE-PHONE").wait_for(
                    timeout=15000)
                browser.close()
        finally:
            serve.terminate()
            assert serve.wait(10) == 0
        assert not (room.home / "web-url").exists()

        entries = json.loads(room.cli("audit", "--json").stdout)
        answers = [entry for entry in entries if entry["action"] == "answer"]
        assert [(entry["actor"], entry["outcome"]) for entry in answers] == [
            ("operator@web", "refused"), ("operator@web", "done")], answers
        assert "4 No" in answers[-1]["detail"]
        done = {(entry["action"], entry["target"]) for entry in entries
                if entry["actor"] == "operator@web" and entry["outcome"] == "done"}
        assert {("note", "asker"), ("move", "task 1")} <= done
        task = json.loads(room.cli("task", "show", "1", "--json").stdout)
        assert task["status"] == "review"
