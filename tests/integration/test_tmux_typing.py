"""type_line into real panes: the scripted agent gets each line once; shells run nothing."""

from __future__ import annotations

import json
from pathlib import Path

import libtmux
import pytest

from tests.agents.scripted_agent import command_line
from tests.waiting import wait_for_text, wait_until
from workers.tmux.keyboard import is_shell, type_line
from workers.tmux.panes import snapshot_all
from workers.tmux.sanitize import as_shell_comment, clean
from workers.tmux.server import RoomServer, TmuxError


@pytest.fixture
def room_tmux(server: libtmux.Server, tmp_path: Path) -> RoomServer:
    """A RoomServer on the libtmux fixture's private socket, with its session started."""
    room = RoomServer(server.socket_name or "")
    room.ensure_session("bullpen", cwd=tmp_path)
    return room


def logged(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [json.loads(line)["line"] for line in log.read_text().splitlines()]


def test_agent_receives_each_line_exactly_once(room_tmux: RoomServer, tmp_path: Path) -> None:
    log = tmp_path / "agent.jsonl"
    pane = room_tmux.launch("bullpen", command_line(log), tmp_path, {}, "b", new_window=True)
    wait_for_text(lambda: room_tmux.capture(pane), "agent>")
    note = clean("[note #12 from a] check src/app.py; $(rm -rf ~) — ok?\r\n\x1b[2Jthanks")
    type_line(room_tmux, pane, note, enter_delay=0)
    wait_until(lambda: logged(log), message="the agent to log a line")
    screen = wait_for_text(lambda: room_tmux.capture(pane), "got: [note #12")
    assert "^[[200~" in screen  # it arrived as a bracketed paste (echoed by the tty)
    type_line(room_tmux, pane, "second line", enter_delay=0)
    wait_until(lambda: len(logged(log)) == 2, message="a second logged line")
    assert logged(log) == [note, "second line"]
    assert note == "[note #12 from a] check src/app.py; $(rm -rf ~) — ok? ⏎ thanks"
    buffers = room_tmux.check("list-buffers", "-F", "#{buffer_name}")
    assert "bullpen-" not in buffers  # paste-buffer -d removed them


def test_paste_without_submit_waits_for_enter(room_tmux: RoomServer, tmp_path: Path) -> None:
    log = tmp_path / "agent.jsonl"
    pane = room_tmux.launch("bullpen", command_line(log), tmp_path, {}, "b", new_window=True)
    wait_for_text(lambda: room_tmux.capture(pane), "agent>")
    type_line(room_tmux, pane, "draft", submit=False)
    wait_for_text(lambda: room_tmux.capture(pane), "draft")
    assert logged(log) == []
    type_line(room_tmux, pane, "", submit=True)
    wait_until(lambda: logged(log) == ["draft"], message="the draft submitted")


def test_agent_script_actions_and_exit_code(room_tmux: RoomServer, tmp_path: Path) -> None:
    log, script, out = tmp_path / "a.jsonl", tmp_path / "script.jsonl", tmp_path / "out"
    script.write_text("\n".join([
        "# scripted actions",
        json.dumps({"on": "<start>", "say": "ready as $BULLPEN_SESSION"}),
        json.dumps({"on": r"^write (?P<word>\w+)",
                    "run": ["sh", "-c", f"echo {{word}} $BULLPEN_SESSION > {out}"]}),
        json.dumps({"on": "^ask$", "say": "Allow it? (y/n)"}),
    ]))
    command = command_line(log, "--script", str(script), "--exit-after", "3",
                           "--exit-code", "7")
    pane = room_tmux.launch("bullpen", command, tmp_path, {"BULLPEN_SESSION": "c"}, "c",
                            new_window=True)
    wait_for_text(lambda: room_tmux.capture(pane), "ready as $BULLPEN_SESSION")
    type_line(room_tmux, pane, "write hello", enter_delay=0)
    wait_until(lambda: out.exists() and out.read_text() == "hello c\n", message="run action")
    type_line(room_tmux, pane, "ask", enter_delay=0)
    wait_for_text(lambda: room_tmux.capture(pane), "Allow it? (y/n)")
    type_line(room_tmux, pane, "last", enter_delay=0)
    wait_until(lambda: snapshot_all(room_tmux)[pane].dead_status == 7, message="exit 7")
    assert logged(log) == ["write hello", "ask", "last"]


def test_note_typed_into_a_shell_as_a_comment_runs_nothing(room_tmux: RoomServer,
                                                            tmp_path: Path) -> None:
    pane = room_tmux.launch("bullpen", "exec sh", tmp_path, {"PS1": "$ "}, "shell",
                            new_window=True)
    wait_until(lambda: is_shell(snapshot_all(room_tmux)[pane].current_command),
               message="a shell in the pane")
    wait_for_text(lambda: room_tmux.capture(pane), "$")
    targets = [tmp_path / f"pwned{i}" for i in range(4)]
    hostile = (f"hi; touch {targets[0]}\n$(touch {targets[1]}) `touch {targets[2]}`"
               f"\r touch {targets[3]} \x03 | tee /dev/null")
    type_line(room_tmux, pane, as_shell_comment(hostile), enter_delay=0)
    type_line(room_tmux, pane, "echo MARK_$((40+2))", enter_delay=0)
    wait_for_text(lambda: room_tmux.capture(pane), "\nMARK_42")
    assert [t for t in targets if t.exists()] == []


def test_type_line_refuses_unclean_text_and_missing_panes(room_tmux: RoomServer) -> None:
    for bad in ("two\nlines", "submit\r", "ctrl\x03c", "esc\x1b[0m", "tab\there"):
        with pytest.raises(ValueError, match="clean"):
            type_line(room_tmux, "%0", bad, enter_delay=0)
    with pytest.raises(TmuxError):
        type_line(room_tmux, "%9999", "hello", enter_delay=0)


@pytest.mark.parametrize(("command", "expected"), [
    ("sh", True), ("bash", True), ("-zsh", True), ("/usr/bin/fish", True), ("dash", True),
    ("ksh", True), ("hermes", False), ("python3", False), ("claude", False), ("", False),
])
def test_is_shell(command: str, expected: bool) -> None:
    assert is_shell(command) is expected


def test_press_keys_sends_only_menu_keys(room_tmux: RoomServer, tmp_path: Path) -> None:
    """An answer can press Up, Down and Enter and nothing else: no text, no C-c."""
    from workers.tmux.keyboard import press_keys

    log = tmp_path / "agent.jsonl"
    pane = room_tmux.launch("bullpen", command_line(log), tmp_path, {}, "k", new_window=True)
    wait_for_text(lambda: room_tmux.capture(pane), "agent>")
    for keys in (("y",), ("C-c",), ("Enter", "rm -rf ~"), ("Escape",)):
        with pytest.raises(ValueError):
            press_keys(room_tmux, pane, keys)
    assert logged(log) == []  # nothing reached the agent
    press_keys(room_tmux, pane, ("Enter",))
    wait_until(lambda: logged(log) == [""], message="the one Enter to reach the agent")
