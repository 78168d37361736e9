"""2,000 connections to the hook port that never send a whole request, against the real
coordinator held to 1,024 descriptors (`ulimit -n 1024`): it stays up, and a note from
one session to another is still typed."""

from __future__ import annotations

import contextlib
import resource
import socket

import pytest

from tests.e2e.conftest import Plan
from tests.waiting import wait_until
from workers.agents import agent_files
from workers.coordinator.lock import running_pid

pytestmark = pytest.mark.slow

CONNECTIONS = 2000


def test_half_open_connections_neither_stop_the_coordinator_nor_the_notes(plan: Plan) -> None:
    plan.write({"a": {}, "b": {}}, {})
    plan.up()
    home = plan.live.home
    pid = wait_until(lambda: running_pid(home), 15, message="the coordinator to run")
    port = wait_until(lambda: agent_files.hook_port(home), 15, message="the hook port")
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (1024, 1024))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < CONNECTIONS + 200:
        pytest.skip(f"this test's own descriptor limit ({hard}) is under {CONNECTIONS}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, CONNECTIONS + 200), hard))
    opened: list[socket.socket] = []
    try:
        for number in range(CONNECTIONS):
            with contextlib.suppress(OSError):  # a full backlog may turn some away
                conn = socket.create_connection(("127.0.0.1", port), timeout=2)
                if number % 2:
                    conn.sendall(b"POST /hook/claude HTTP/1.0\r\nX-Bullpen-Se")
                opened.append(conn)
        assert len(opened) > CONNECTIONS // 2
        sent = plan.cli_as("a", "note", "send", "b", "still", "here?")
        plan.live.wait_for_line("b", f"[note #{sent['id']} from a] still here?", timeout=30)
        assert running_pid(home) == pid  # the same coordinator: it never stopped
    finally:
        for conn in opened:
            conn.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
