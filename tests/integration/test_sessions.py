"""Sessions for real: worktrees, tmux panes, the coordinator and note delivery."""

from __future__ import annotations

from pathlib import Path

import pytest

from board import notes, sessions
from tests.cli_runner import identity
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until
from workers.coordinator.lock import is_running
from workers.room.control import NOT_RUNNING

pytestmark = [pytest.mark.slow, pytest.mark.both_stores]


@pytest.fixture
def room(git_repo: Path, tmp_path: Path):
    with live_room(git_repo, tmp_path / "logs") as live:
        yield live


def spawn_agents(room: LiveRoom, *names: str) -> None:
    for name in names:
        room.cli("spawn", name, "--agent", room.agent(name), "--deliver", "type",
                 "--no-dashboard")
    for name in names:
        room.wait_status(name, "idle")


def token_env(room: LiveRoom, name: str) -> dict[str, str]:
    """An identity for `name` as its agent has it (a fresh launch token)."""
    with room.db() as conn:
        return identity(room.home, name, sessions.new_launch_token(conn, name))


def coordinator_pid(room: LiveRoom) -> int:
    return int((room.home / "coordinator.lock").read_text().split()[0])


def test_notes_reach_the_agents_input_exactly_once(room: LiveRoom) -> None:
    spawn_agents(room, "alice", "bob", "carol")
    room.cli("note", "send", "bob", "from the operator")
    with room.db() as conn:  # a note from another session, through the library
        peer = notes.send(conn, "alice", "bob", "from alice, about the schema")
    room.wait_for_line("bob", f"[note #{peer.id} from alice]")
    room.wait_for_line("bob", "from operator] from the operator")
    room.wait_status("bob", "idle")
    received = room.lines_of("bob")
    assert sum(f"#{peer.id} from alice" in line for line in received) == 1
    assert sum("from the operator" in line for line in received) == 1
    assert room.lines_of("carol") == [] and room.lines_of("alice") == []


def test_notes_sent_while_the_coordinator_is_dead_arrive_once(room: LiveRoom) -> None:
    spawn_agents(room, "alice", "bob")
    room.kill_coordinator(timeout=5.0)
    for index in range(3):
        room.cli("note", "send", "bob", f"while down {index}")
    # `ls` says why nothing arrives, and what starts it again.
    assert room.cli("ls").stdout.splitlines()[0] == f"coordinator: {NOT_RUNNING}"
    room.cli("up", "--detach", "--no-dashboard")
    assert "coordinator:" not in room.cli("ls").stdout
    for index in range(3):
        room.wait_for_line("bob", f"while down {index}")
    room.wait_status("bob", "idle")
    lines = room.lines_of("bob")
    assert [sum(f"while down {i}" in line for line in lines) for i in range(3)] == [1, 1, 1]


def test_up_is_idempotent(room: LiveRoom) -> None:
    spawn_agents(room, "alice")
    before = room.sessions()["alice"]["pane"]
    pid = coordinator_pid(room)
    result = room.cli("up", "--detach", "--no-dashboard")
    assert "alice is already running" in result.stdout
    assert room.sessions()["alice"]["pane"] == before and coordinator_pid(room) == pid


def test_killed_tmux_server_comes_back_with_up(room: LiveRoom) -> None:
    spawn_agents(room, "alice", "bob")
    room.server.kill_server()
    wait_until(lambda: all(r["status"] == "stopped" for r in room.sessions().values()),
               message="sessions to show stopped")
    room.cli("up", "--detach", "--no-dashboard")
    rows = room.sessions()
    for name in ("alice", "bob"):
        assert rows[name]["pane"], rows
        cwd = room.server.check("display-message", "-p", "-t", rows[name]["pane"],
                                "#{pane_current_path}").strip()
        assert Path(cwd) == room.home / "worktrees" / name
    room.cli("note", "send", "alice", "after the reboot")
    room.wait_for_line("alice", "after the reboot")


def test_an_exiting_agent_shows_exited_with_its_code(room: LiveRoom) -> None:
    room.cli("spawn", "quitter", "--agent", room.agent("quitter", "--exit-after", "1",
                                                        "--exit-code", "7"),
             "--deliver", "type", "--no-dashboard")
    room.wait_status("quitter", "idle")
    room.cli("note", "send", "quitter", "please exit")
    row = room.wait_status("quitter", "exited", timeout=2 + 2.0)  # typed when idle, then ≤ 2 s
    assert row["exit_code"] == 7


def test_exit_is_seen_within_two_seconds(room: LiveRoom) -> None:
    room.cli("spawn", "brief", "--agent", "sh -c 'read x; exit 3'", "--no-dashboard")
    pane = wait_until(lambda: room.sessions()["brief"]["pane"])
    room.server.check("send-keys", "-t", pane, "go", "Enter")
    row = room.wait_status("brief", "exited", timeout=2.0)
    assert row["exit_code"] == 3


def test_hostile_note_text_arrives_inert(room: LiveRoom) -> None:
    spawn_agents(room, "bob")
    room.cli("spawn", "shell", "--agent", "sh", "--no-dashboard")
    room.wait_status("shell", "idle")
    marker = room.repo / "pwned"
    hostile = f"\x1b]0;evil\x07\x1b[2Jhi\r; touch {marker} \x03 $(touch {marker})\n`id`"
    with room.db() as conn:  # written by something other than the CLI, which refuses it
        for recipient in ("bob", "shell"):
            conn.execute("INSERT INTO notes (sender, recipient, body, kind, created_at)"
                         " VALUES ('mallory', ?, ?, 'note', 0)", (recipient, hostile))
            note_id = conn.execute("SELECT max(id) FROM notes").fetchone()[0]
            conn.execute("INSERT INTO deliveries (note, recipient, state)"
                         " VALUES (?, ?, 'queued')", (note_id, recipient))
            conn.execute("INSERT INTO events (kind, created_at) VALUES ('note_sent', 0)")
    line = room.wait_for_line("bob", "from mallory]")
    assert "\x1b" not in line and "\r" not in line and "\x03" not in line
    assert f"; touch {marker}" in line  # kept as text
    # A shell is never typed into: the note waits, held, announced on the status line.
    pane = room.sessions()["shell"]["pane"]
    wait_until(lambda: "from mallory" in room.server.run(
        "show-options", "-p", "-v", "-t", pane, "@bullpen_waiting").stdout.decode(),
        message="announced")
    with room.db() as conn:
        assert notes.delivery_state(conn, note_id, "shell") == "held"
    assert "mallory" not in room.pane_text("shell")
    room.server.check("send-keys", "-t", pane, "echo done-$((40+2))", "Enter")
    wait_until(lambda: "done-42" in room.pane_text("shell"), message="the shell to answer")
    assert not marker.exists()


def test_worktrees_with_work_are_kept_without_force(room: LiveRoom) -> None:
    spawn_agents(room, "alice")
    worktree = room.home / "worktrees" / "alice"
    (worktree / "notes.txt").write_text("unsaved thoughts\n")
    refused = room.cli("stop", "alice", "--remove-worktree", check=False)
    assert refused.returncode == 2 and "uncommitted" in refused.stderr
    assert room.sessions()["alice"]["status"] != "stopped"  # nothing changed
    room.cli("down", "--remove-worktrees")
    assert (worktree / "notes.txt").read_text() == "unsaved thoughts\n"
    room.cli("up", "--detach", "--no-dashboard")
    room.cli("stop", "alice", "--remove-worktree", "--force")
    assert not worktree.exists()


def test_down_returns_once_the_coordinator_is_gone_so_up_can_start_one(
        room: LiveRoom) -> None:
    """`down` then `up` at once: a coordinator still letting go of its lock would make
    up's new one leave as "already running", and the room would run without one."""
    spawn_agents(room, "alice")
    for _ in range(3):
        room.cli("down")
        assert not is_running(room.home)
        room.cli("up", "--detach", "--no-dashboard")
        assert is_running(room.home)


def test_unmerged_commits_keep_the_worktree(room: LiveRoom) -> None:
    spawn_agents(room, "alice")
    worktree = room.home / "worktrees" / "alice"
    (worktree / "feature.py").write_text("x = 1\n")
    from tests.conftest import git
    git(worktree, "add", "feature.py")
    git(worktree, "commit", "-q", "-m", "feature")
    refused = room.cli("stop", "alice", "--remove-worktree", check=False)
    assert refused.returncode == 2 and "not in the main checkout" in refused.stderr
    result = room.cli("down", "--remove-worktrees")
    assert "kept alice's worktree" in result.stdout
    assert (worktree / "feature.py").exists()


def test_fs_reads_records_what_an_agent_without_hooks_opens(room: LiveRoom) -> None:
    room.cli("spawn", "plain", "--agent", "sh", "--fs-reads", "--no-dashboard")
    room.wait_status("plain", "idle")
    pane = room.sessions()["plain"]["pane"]
    room.server.check("send-keys", "-t", pane, "cat src/app.py", "Enter")

    def recorded() -> list[tuple[str, str]]:
        with room.db() as conn:
            return conn.execute("SELECT path, source FROM reads WHERE session = 'plain'"
                                ).fetchall()
    assert ("src/app.py", "fs") in [tuple(row) for row in wait_until(recorded, 10)]


def test_windows_layout_gives_each_session_its_own_window(room: LiveRoom) -> None:
    (room.repo / "bullpen.yaml").write_text(
        "layout: windows\nagent: cat\nsessions:\n  alice: {}\n  bob: {}\n")
    room.cli("up", "--detach", "--no-dashboard")
    room.cli("spawn", "carol", "--agent", "cat", "--no-dashboard")
    room.cli("restart", "alice")
    rows = room.sessions()
    windows = {name: room.server.check("display-message", "-p", "-t", rows[name]["pane"],
                                       "#{window_id} #{window_name}").split()
               for name in ("alice", "bob", "carol")}
    assert len({window_id for window_id, _ in windows.values()}) == 3
    assert {name: window_name for name, (_, window_name) in windows.items()} == {
        "alice": "alice", "bob": "bob", "carol": "carol"}
