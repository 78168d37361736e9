"""The warm cap through `bullpen up`: five scripted sessions with `after:` chains and
`max_running: 2` never run more than two agent processes (counted in /proc all along),
start in plan order as slots free, and finish every task; a note to a waiting session is
held with it and typed once, after it starts."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import Plan
from tests.processes import children
from tests.waiting import wait_until
from workers.tmux.server import RoomServer, TmuxError

pytestmark = pytest.mark.slow

READY = r"task #(?P<task>\d+) is ready"
# File order puts a child before its parent: plan order is parents first, then file order.
SESSIONS: dict[str, dict[str, Any]] = {
    "b": {"after": ["a"], "task": "Build on a"},
    "a": {"task": "Lay the ground"},
    "c": {"after": ["b"], "task": "Finish the chain"},
    "d": {"task": "Work alone"},
    "e": {"after": ["d"], "task": "Follow d"},
}
PLAN_ORDER = ["a", "b", "c", "d", "e"]


def work(name: str) -> list[dict[str, Any]]:
    """Claim the task, work a little (a commit), mark it done."""
    return [{"on": READY, "run": ["bullpen", "task", "claim", "{task}"]},
            {"on": READY, "run": ["sh", "-c", f"sleep 0.3; echo {name} > {name}.txt &&"
                                  f" git add {name}.txt && git commit -qm {name}"]},
            {"on": READY, "run": ["bullpen", "task", "done", "{task}", "--summary",
                                  f"{name} is done"]}]


class AgentCounter:
    """Samples, every few milliseconds, the scripted agents running in the room's panes
    (each pane's process tree), and every so often every one alive in /proc (an agent
    that outlived its pane counts too)."""

    def __init__(self, logs: Path, server: RoomServer) -> None:
        self.logs = str(logs)
        self.server = server
        self.most = 0
        self.at_most: list[str] = []
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> AgentCounter:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def alive(self) -> dict[int, tuple[int, str]]:
        """pid -> (parent pid, session) of each scripted agent of this room."""
        found = {}
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
                parent = int((proc / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue  # exited meanwhile
            words = [w.decode(errors="replace") for w in argv]
            if len(words) > 3 and words[1].endswith("scripted_agent.py") and \
                    words[3].startswith(self.logs):
                found[int(proc.name)] = (parent, Path(words[3]).stem)
        return found

    def agents(self) -> list[str]:
        """The agents running now: a child forked by an agent for its `run` action wears
        its parent's command line until it execs, and is not another agent."""
        found = self.alive()
        return sorted(name for parent, name in found.values() if parent not in found)

    def _agent(self, pid: int) -> str | None:
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            return None
        argv = words.split("\0")
        if len(argv) > 3 and argv[1].endswith("scripted_agent.py") and \
                argv[3].startswith(self.logs):
            return Path(argv[3]).stem
        return None

    def in_panes(self) -> list[str]:
        """The agents in the panes' process trees (an agent's own children not looked at)."""
        try:
            roots = [int(pid) for pid in self.server.check(
                "list-panes", "-a", "-F", "#{pane_pid}").split()]
        except (TmuxError, ValueError):
            return []  # no server yet, or it is going
        found, stack = [], roots
        while stack:
            pid = stack.pop()
            if (name := self._agent(pid)) is not None:
                found.append(name)
                continue
            stack += children(pid)
        return sorted(found)

    def _run(self) -> None:
        while not self._stop.is_set():
            now = self.agents() if self.samples % 20 == 0 else self.in_panes()
            if len(now) > self.most:
                self.most, self.at_most = len(now), now
            self.samples += 1
            self._stop.wait(0.005)


def first_pane_event(plan: Plan) -> dict[str, tuple[int, float]]:
    """session -> (event id, time) of the first launch that gave it a pane."""
    rows = plan.live.db().execute(
        "SELECT session, id, created_at, data FROM events WHERE kind = 'session_updated'"
        " ORDER BY id").fetchall()
    found: dict[str, tuple[int, float]] = {}
    for session, event_id, at, data in rows:
        if json.loads(data or "{}").get("pane_id") and session not in found:
            found[session] = (event_id, at)
    return found


def test_five_sessions_under_max_running_two(plan: Plan) -> None:
    path = plan.write(SESSIONS, {name: work(name) for name in SESSIONS})
    config = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({"max_running": 2, **config}, sort_keys=False))

    with AgentCounter(plan.live.logs, plan.live.server) as counter:
        shown = plan.live.cli("up", "--detach", "--no-dashboard").stdout
        for name in ("c", "d", "e"):
            assert f"{name} waits for a slot (max_running 2)" in shown, shown
        assert "started a in" in shown and "started b in" in shown

        rows = plan.live.sessions()
        assert rows["e"]["status"] == "waiting for a slot"
        assert rows["e"]["pane"] is None

        # A note to a waiting session waits with it, held with the reason.
        sent = json.loads(plan.live.cli("note", "send", "e", "hello e", "--json").stdout)
        note_id = sent["id"]

        def held() -> dict | None:
            shown = json.loads(plan.live.cli("note", "show", str(note_id), "--json").stdout)
            delivery = shown["deliveries"][0]
            return delivery if delivery["state"] == "held" else None
        delivery = wait_until(held, 15, message="the note held for e")
        assert delivery["held_reason"] == "waiting for a slot"

        ids = dict(plan.live.db().execute("SELECT session, task FROM plan_tasks").fetchall())

        def all_done() -> bool:
            done = {row[0] for row in plan.live.db().execute(
                "SELECT id FROM tasks WHERE status = 'done'")}
            return set(ids.values()) <= done
        wait_until(all_done, 90, interval=0.2,
                   message=lambda: f"every task done: {plan.live.cli('ls').stdout}")
        plan.live.wait_for_line("e", "hello e", timeout=15)

    assert counter.samples > 200  # about 600 on a loaded 2-core machine
    assert counter.most == 2, counter.at_most  # the cap was reached, never passed

    launched = first_pane_event(plan)
    assert sorted(launched, key=lambda n: launched[n][0]) == PLAN_ORDER

    done = dict(plan.live.db().execute(
        "SELECT ref, id FROM events WHERE kind = 'task_done'").fetchall())
    for child, parent in (("b", "a"), ("c", "b"), ("e", "d")):
        assert done[ids[parent]] < done[ids[child]]

    typed = Counter(t["id"] for t in plan.typed("e"))
    assert typed[note_id] == 1, plan.live.lines_of("e")
    rows = plan.live.sessions()
    released = [n for n, row in rows.items() if row["status"] == "stopped"]
    assert len(released) >= 3, rows


def test_bad_max_running_is_one_line_and_exit_2(plan: Plan) -> None:
    path = plan.write({"a": {"task": "x"}}, {})
    config = yaml.safe_load(path.read_text())
    for value, needle in ((0, "max_running: expected a whole number of at least 1"),
                          ({"all": 2, "gemini": 1}, "max_running.gemini: unknown key"),
                          ("two", "max_running: expected a whole number")):
        path.write_text(yaml.safe_dump({"max_running": value, **config}, sort_keys=False))
        result = plan.live.cli("up", "--detach", "--no-dashboard", check=False)
        assert result.returncode == 2, result
        assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1
        assert not plan.live.home.joinpath("bullpen.db").exists() or \
            plan.live.db().execute("SELECT count(*) FROM sessions").fetchone()[0] == 0


def test_stop_frees_a_slot_and_a_second_up_keeps_the_line(plan: Plan) -> None:
    path = plan.write({"a": {"task": "Hold the slot"}, "b": {"task": "Wait for it"}}, {})
    config = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({"max_running": 1, **config}, sort_keys=False))
    assert "b waits for a slot (max_running 1)" in plan.live.cli(
        "up", "--detach", "--no-dashboard").stdout
    plan.live.cli("down")
    again = plan.live.cli("up", "--detach", "--no-dashboard").stdout
    assert "restarted a" in again and "b waits for a slot (max_running 1)" in again, again
    assert plan.live.sessions()["b"]["status"] == "waiting for a slot"

    plan.live.cli("stop", "a")
    stopped_at = time.time()
    row = wait_until(lambda: (b := plan.live.sessions()["b"])["pane"] and b, 15,
                     message=lambda: f"b started: {plan.live.sessions()['b']}")
    assert row["status"] != "waiting for a slot"
    launched = first_pane_event(plan)["b"][1]
    assert launched - stopped_at < 2.0, launched - stopped_at
