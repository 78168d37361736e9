"""One process per directory, machine-wide (workers.agents.exclusive), with real processes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from board.errors import Refused
from workers.agents import exclusive


@pytest.fixture
def sleeper():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc
    proc.kill()
    proc.wait()


def test_a_live_holder_refuses_a_second_claim_from_any_room(
        tmp_path: Path, sleeper: subprocess.Popen) -> None:
    with exclusive.claim(tmp_path, "hermes profile 'p'", Path("/r1/.bullpen"), "a") as hold:
        hold(sleeper.pid)
    with pytest.raises(Refused, match=rf"hermes profile 'p' is in use by session 'a' of"
                       rf" /r1/.bullpen \(pid {sleeper.pid}\)"), \
            exclusive.claim(tmp_path, "hermes profile 'p'", Path("/r2/.bullpen"), "a"):
        pass
    assert exclusive.holder(tmp_path).pid == sleeper.pid


def test_a_holder_that_exited_or_whose_pid_was_reused_holds_nothing(
        tmp_path: Path, sleeper: subprocess.Popen) -> None:
    with exclusive.claim(tmp_path, "p", Path("/r"), "a") as hold:
        hold(sleeper.pid)
    record = json.loads((tmp_path / exclusive.HOLDER_FILE).read_text())
    (tmp_path / exclusive.HOLDER_FILE).write_text(json.dumps({**record, "started": 1}))
    assert exclusive.holder(tmp_path) is None  # same pid, another process
    (tmp_path / exclusive.HOLDER_FILE).write_text(json.dumps(record))
    assert exclusive.holder(tmp_path) is not None
    sleeper.kill()
    sleeper.wait()
    assert exclusive.holder(tmp_path) is None
    with exclusive.claim(tmp_path, "p", Path("/r"), "b") as hold:
        hold(12345678)  # no such process: a launch whose pane died at once
    assert exclusive.holder(tmp_path) is None


def test_two_launches_at_once_are_decided_one_after_the_other(
        tmp_path: Path, sleeper: subprocess.Popen) -> None:
    started = threading.Event()
    outcome: list[str] = []

    def second() -> None:
        started.wait()
        try:
            with exclusive.claim(tmp_path, "p", Path("/r2"), "b"):
                outcome.append("claimed")
        except Refused:
            outcome.append("refused")

    thread = threading.Thread(target=second)
    thread.start()
    with exclusive.claim(tmp_path, "p", Path("/r1"), "a") as hold:
        started.set()  # the other claim now waits on the lock, not on a stale record
        thread.join(0.3)
        assert thread.is_alive()
        hold(sleeper.pid)
    thread.join(15)
    assert outcome == ["refused"]


def test_a_directory_not_made_yet_is_held_by_nobody(tmp_path: Path) -> None:
    with exclusive.claim(tmp_path / "missing", "p", Path("/r"), "a") as hold:
        hold(1)
    assert not (tmp_path / "missing").exists()
