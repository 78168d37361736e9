"""The real Hermes Agent (hermes-agent 0.19.0) asks about a dangerous command; a phone
answers "Deny" on the page `bullpen serve` shows.

A room through `bullpen up` runs one Hermes session at its default approvals (`mode:
smart`: the scripted server's auxiliary answer is not APPROVE, so Hermes escalates to
its own boxed `Allow once / … / Deny` menu; no `--yolo`). The scripted model asks the
terminal tool for a recursive delete (`rm -rf junk/subN`, Hermes' "recursive delete",
not refused by bullpen's floor) nine times in one turn; each time headless Chromium at
390x844 shows the question and presses "4. Deny". None of the directories is deleted,
the model is told Hermes' own denial each time, and the audit has nine answers by
`operator@web`.

The figure printed (-s / -rA): how long after the question is drawn in the pane (a
thread polling `tmux capture-pane`) the page shows it (a MutationObserver's stamp),
p50/p99, split at the store (when the session's row says `needs_input` with the
question), beside the cost of one `tmux capture-pane` measured in the same run.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import FakeModel, Reply, Text, ToolCall, last_user_text
from tests.agents.fake_model import tool_results_since_user as step_of
from tests.e2e.test_serve_page import CHROMIUM, CHROMIUM_ARGS, _playwright
from tests.hermes_install import offline_hermes
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until
from workers.room.control import RoomControl
from workers.surfaces.web.state import snapshot

pytestmark = pytest.mark.slow

TURN = 180.0  # seconds; a Hermes turn takes ~5 s here, CI machines are slower
TARGETS = tuple(f"junk/sub{number}" for number in range(1, 10))  # nine questions
ASK = "CLEAN-UP the junk folder"
GAVE_UP = "left the junk alone"
# Playwright looks again at growing intervals (up to 500 ms), so the page itself
# stamps the moment a question's element is added, in wall-clock milliseconds.
STAMP = """(wanted) => {
  window.shownAt = {};
  new MutationObserver(() => {
    for (const element of document.querySelectorAll("[data-question]")) {
      for (const asked of wanted) {
        if (!(asked in window.shownAt) && element.textContent.includes(asked)) {
          window.shownAt[asked] = Date.now();
        }
      }
    }
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""
DENIED = "BLOCKED: User denied this command."  # Hermes' own words (tools/approval.py)


def respond(request: dict) -> Reply:
    """Asked to clean up: delete each target in turn, whatever the last answer was."""
    if ASK not in last_user_text(request):
        return Text("noted")
    step = step_of(request)
    if step < len(TARGETS):
        return ToolCall("terminal", {"command": f"rm -rf {TARGETS[step]}"})
    return Text(GAVE_UP)


@pytest.fixture
def hermes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[
        tuple[FakeModel, Path]]:
    """(the model server, the venv's bin); approvals at Hermes' defaults."""
    with FakeModel(respond) as model:
        bin_dir, _ = offline_hermes(tmp_path, monkeypatch, model.base_url)
        yield model, bin_dir


class PaneWatch(threading.Thread):
    """Polls the pane with `tmux capture-pane`: when each target's menu first showed
    (wall-clock seconds, as the page stamps it), and how long each capture took; and
    the store's row: when
    the session's reason first named each target (the room's `needs_input`)."""

    def __init__(self, live: LiveRoom, pane: str) -> None:
        super().__init__(daemon=True)
        self.live, self.server, self.pane = live, live.server, pane
        self.seen: dict[str, float] = {}
        self.stored: dict[str, float] = {}
        self.captures: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with self.live.db() as conn:
            while not self.stop.is_set():
                started = time.monotonic()
                text = self.server.capture(self.pane)
                done = time.monotonic()
                self.captures.append(done - started)
                seen = time.time()
                status, reason = conn.execute("SELECT status, status_reason FROM sessions"
                                              " WHERE name = 'cleaner'").fetchone()
                read = time.time()
                for target in TARGETS:
                    asked = f"rm -rf {target}"
                    if "Dangerous Command" in text and asked in text:
                        self.seen.setdefault(target, seen)
                    if status == "needs_input" and asked in (reason or ""):
                        self.stored.setdefault(target, read)
                self.stop.wait(0.005)  # the sampling period, not a wait for a condition


def percentiles(values: list[float]) -> tuple[float, float]:
    """(p50, p99) in milliseconds."""
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p99 * 1000


def _timed_snapshot(live: LiveRoom) -> float:
    """Seconds one read of the page's state takes (what `bullpen serve` does per change)."""
    started = time.monotonic()
    state = snapshot(RoomControl(live.home))
    assert state["needs"]["questions"], state
    return time.monotonic() - started


def run(bin_dir: Path, live: LiveRoom, *args: str) -> str:
    """`bullpen ARGS` from the venv it shares with Hermes."""
    done = subprocess.run([str(bin_dir / "bullpen"), *args], cwd=live.repo,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"bullpen {' '.join(args)}: {done.stderr}"
    return done.stdout


def test_real_hermes_dangerous_command_denied_from_the_page(
        hermes: tuple[FakeModel, Path], git_repo: Path, tmp_path: Path) -> None:
    sync_playwright = _playwright()
    model, bin_dir = hermes
    plan = {"agent": "hermes", "layout": "windows", "sessions": {"cleaner": {}}}
    (git_repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
    with live_room(git_repo, tmp_path / "logs") as live:
        run(bin_dir, live, "up", "--detach", "--no-dashboard")
        row = live.wait_status("cleaner", "idle", timeout=TURN)
        worktree = Path(row["worktree"])
        for target in TARGETS:
            (worktree / target).mkdir(parents=True)
        watch = PaneWatch(live, row["pane"])
        watch.start()
        serve = subprocess.Popen([str(bin_dir / "bullpen"), "serve", "--port", "0"],
                                 cwd=git_repo, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        shown: dict[str, float] = {}
        try:
            line = serve.stdout.readline()
            login = re.search(r"http://127\.0\.0\.1:\d+/login\?token=\S+", line)
            assert login, (line, serve.stderr.read() if serve.poll() is not None else "")
            with sync_playwright() as driver:
                browser = driver.chromium.launch(executable_path=str(CHROMIUM),
                                                 args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 390, "height": 844},
                                        device_scale_factor=1)
                page.goto(login.group(0))
                page.locator("#needs").filter(has_text="nothing").wait_for(timeout=15000)
                page.evaluate(STAMP, [f"rm -rf {target}" for target in TARGETS])
                run(bin_dir, live, "note", "send", "cleaner", ASK)
                for target in TARGETS:
                    asked = page.locator("[data-question]").filter(
                        has_text=f"rm -rf {target}")
                    asked.wait_for(timeout=TURN * 1000)
                    shown[target] = page.evaluate("(asked) => window.shownAt[asked]",
                                                  f"rm -rf {target}") / 1000
                    text = asked.inner_text()
                    assert "Dangerous Command" in text and "recursive delete" in text, text
                    deny = asked.locator('button[data-session="cleaner"][data-choice="4"]')
                    assert "Deny" in deny.inner_text()
                    if target == TARGETS[-1]:  # what the page's reader costs, asked
                        reads = [_timed_snapshot(live) for _ in range(3)]
                    deny.click()
                    page.locator("#said").filter(has_text="answered cleaner").wait_for(
                        timeout=15000)
                    asked.wait_for(state="detached", timeout=15000)
                browser.close()
        finally:
            watch.stop.set()
            serve.terminate()
            assert serve.wait(10) == 0

        done = wait_until(lambda: [e for e in model.exchanges()
                                   if GAVE_UP in str(e.reply)], TURN,
                          message=lambda: f"the turn's end: {live.pane_text('cleaner')}")
        told = [str(m.get("content")) for m in done[0].request["messages"]
                if m.get("role") == "tool"]
        assert len(told) == len(TARGETS) and all(DENIED in text for text in told), told
        for target in TARGETS:
            assert (worktree / target).is_dir(), f"{target} was deleted"

        entries = json.loads(run(bin_dir, live, "audit", "--json"))
        answers = [(e["actor"], e["outcome"], e["detail"]) for e in entries
                   if e["action"] == "answer"]
        assert [(actor, outcome) for actor, outcome, _ in answers] == [
            ("operator@web", "done")] * len(TARGETS), answers
        assert all("4 Deny" in detail for _, _, detail in answers), answers

    for name, lags in (
            ("pane -> page", [shown[t] - watch.seen[t] for t in TARGETS]),
            ("  pane -> store", [watch.stored[t] - watch.seen[t] for t in TARGETS]),
            ("  store -> page", [shown[t] - watch.stored[t] for t in TARGETS])):
        lag50, lag99 = percentiles(lags)
        print(f"\n{name}, {len(lags)} questions: p50 {lag50:.0f} ms, p99 {lag99:.0f} ms"
              f" ({', '.join(f'{lag * 1000:.0f}' for lag in lags)} ms)", end="")
    cap50, cap99 = percentiles(watch.captures)
    print(f"\nthe page's read of the room (web.state.snapshot), asked:"
          f" {', '.join(f'{read * 1000:.0f}' for read in reads)} ms")
    print(f"one tmux capture-pane, {len(watch.captures)} in this run:"
          f" p50 {cap50:.1f} ms, p99 {cap99:.1f} ms")
