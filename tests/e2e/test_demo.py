"""`bullpen demo --detach`: the whole story runs, every step is printed, exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.processes import children, describe, pipe_sharers
from workers.demo import story
from workers.demo.steps import STEPS
from workers.tmux import layout

pytestmark = pytest.mark.slow


def test_demo_detached_runs_every_step_and_cleans_up(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    result = run_cli("demo", "--detach", "--timeout", "60", cwd=tmp_path,
                     env={"TMPDIR": str(scratch)}, timeout=120)

    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    for number, step in enumerate(STEPS, start=1):
        assert any(f"{number:2}. {step.title} — " in line for line in lines), step.title
    assert lines[-1].startswith(f"all {len(STEPS)} steps happened; the story took")
    assert list(scratch.iterdir()) == []  # the throwaway repository is gone


def test_demo_refuses_a_bad_timeout(tmp_path: Path) -> None:
    result = run_cli("demo", "--detach", "--timeout", "0", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == "bullpen: --timeout must be a positive number of seconds"


def test_demo_that_runs_out_of_time_names_the_missing_step_and_keeps_the_repo(
        tmp_path: Path) -> None:
    said: list[str] = []
    status = story.run_detached(said.append, timeout=0.3, parent=tmp_path)

    assert status == 1
    failed = next(line for line in said if line.startswith("the demo failed at step"))
    number = int(failed.split("step ")[1].split(":")[0])
    assert f": {STEPS[number - 1].title} (not seen within" in failed
    [kept] = [p for p in tmp_path.iterdir() if p.name.startswith("bullpen-demo-")]
    assert (kept / "users-service" / ".bullpen" / "bullpen.db").exists()
    assert not layout.server_for(kept / "users-service").is_alive()  # the room is down


def test_an_attached_demo_whose_terminal_closes_takes_its_room_and_repo_away(
        tmp_path: Path) -> None:
    import fcntl
    import os
    import pty
    import signal
    import struct
    import subprocess
    import termios
    import threading

    from tests.cli_runner import BULLPEN
    from tests.waiting import wait_until

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    master, slave = pty.openpty()  # a terminal, so the demo attaches as for a person
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    demo = subprocess.Popen([BULLPEN, "demo"], stdin=slave, stdout=slave, stderr=slave,
                            cwd=tmp_path, env={**os.environ, "TMPDIR": str(scratch),
                                               "TERM": "xterm-256color"})
    os.close(slave)
    seen = bytearray()

    def drain() -> None:  # what the terminal shows, so tmux never blocks on a full pty
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            seen.extend(chunk)
    threading.Thread(target=drain, daemon=True).start()
    repo: Path | None = None
    try:
        repo = wait_until(lambda: next(iter(scratch.glob("bullpen-demo-*/users-service")), None),
                          30, message="the demo's repository")
        server = layout.server_for(repo)

        def hint() -> str:
            result = server.run("show-options", "-t", f"={layout.ROOM_SESSION}:", "-v",
                                "status-left")
            return result.stdout.decode() if result.returncode == 0 else ""

        def state() -> str:  # what a failure shows: the demo, its room, its terminal
            sessions = server.run("list-sessions", "-F", "#{session_name}")
            # written/discarded: tmux drops a slow terminal's output ("can't keep up")
            clients = server.run("list-clients", "-F", "#{client_tty} #{client_flags}"
                                 " written=#{client_written} discarded=#{client_discarded}")
            return (f"\n  demo exit status: {demo.poll()}, waiting on:"
                    f" {[describe(child) for child in children(demo.pid)]}"
                    f"\n  the demo's pipes also held by: {pipe_sharers(demo.pid)}"
                    f"\n  room's tmux server alive: {server.is_alive()}, sessions:"
                    f" {sessions.stdout.decode().split()}, clients:"
                    f" {clients.stdout.decode().strip()!r}"
                    f"\n  repository still there: {repo.exists()}"
                    f"\n  the terminal's last bytes ({len(seen)} in all):"
                    f" {bytes(seen[-1500:])!r}")
        wait_until(lambda: "then d ends it" in hint(), 60,
                   message=lambda: f"the exit hint on the room's status line: {hint()!r}"
                                   + state())
        wait_until(lambda: b"ends it" in seen, 30,
                   message=lambda: "the hint on the attached terminal itself" + state())
        demo.send_signal(signal.SIGHUP)  # what closing the terminal sends it
        assert demo.wait(timeout=60) == 128 + signal.SIGHUP
        assert not server.is_alive()
        assert list(scratch.iterdir()) == []
    finally:
        if demo.poll() is None:
            demo.kill()
        if repo is not None:  # a failed run leaves no room running into the next tests
            layout.server_for(repo).kill_server()
        os.close(master)

