"""Where things sit in the room's tmux server: the visible window and the hidden one.

The tmux session `bullpen` holds the dashboard pane with the session panes beside it
(`side-by-side`) or one window per session (`windows`). The coordinator runs in a
separate tmux session, `bullpen-coordinator`, outside the visible layout.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from board.vocabulary import IdentityVariable, RoomLayout
from workers.tmux.server import DEFAULT_SESSION, SESSION_OPTION, RoomServer, socket_name_for

ROOM_SESSION = DEFAULT_SESSION
COORDINATOR_SESSION = "bullpen-coordinator"
DASHBOARD = "dashboard"
ROOM_WINDOW = "room"  # the window holding the dashboard (and, side by side, the sessions)
COORDINATOR = "coordinator"


def server_for(repo_root: Path) -> RoomServer:
    """The room's tmux server (`tmux -L bullpen-<hash>`); it may not be running."""
    return RoomServer(socket_name_for(repo_root))


def bullpen_command(*args: str) -> str:
    """A shell command running this very bullpen (the same interpreter and install)."""
    executable = Path(sys.executable).parent / "bullpen"
    return shlex.join([str(executable), *args])


def tool_path() -> str:
    """PATH for panes: this install's bin first, so agents can run `bullpen`."""
    return f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"


def pane_of(server: RoomServer, role: str) -> str | None:
    """The pane whose `@bullpen_session` option is `role` (a session name or dashboard)."""
    proc = server.run("list-panes", "-a", "-F", f"#{{pane_id}}\t#{{{SESSION_OPTION}}}")
    if proc.returncode != 0:
        return None
    for line in proc.stdout.decode().splitlines():
        pane_id, _, owner = line.partition("\t")
        if owner == role:
            return pane_id
    return None


def owns_pane(server: RoomServer, pane_id: str | None, role: str) -> bool:
    """True when `pane_id` exists and is the pane of `role` (a session or the dashboard).

    Pane ids restart at %0 with a new tmux server, so an id remembered from before a
    crash may now name another pane; the `@bullpen_session` option says whose it is.
    """
    if not pane_id:
        return False
    proc = server.run("display-message", "-p", "-t", pane_id, f"#{{{SESSION_OPTION}}}")
    return proc.returncode == 0 and proc.stdout.decode().strip() == role


def ensure_room_window(server: RoomServer, repo_root: Path, home: Path,
                       with_dashboard: bool = True,
                       layout_name: str = RoomLayout.SIDE_BY_SIDE) -> str:
    """Start the visible tmux session if needed; return the pane new panes split from.

    Its first pane runs the dashboard (or an idle placeholder when `with_dashboard` is
    false, as in tests and headless runs). A dashboard closed (`q`) or killed while the
    room ran is put back where it was: first in the room's window, its main pane.
    """
    existing = pane_of(server, DASHBOARD)
    if existing:
        return existing
    command = bullpen_command("dashboard") if with_dashboard else "exec cat"
    env = {IdentityVariable.HOME: str(home), "PATH": tool_path()}
    if server.has_session(ROOM_SESSION):
        return _restore_dashboard(server, repo_root, command, env, layout_name)
    server.ensure_session(ROOM_SESSION, cwd=repo_root, width=220, height=60)
    first = server.check("list-panes", "-t", f"={ROOM_SESSION}:", "-F", "#{pane_id}").split()[0]
    server.check("rename-window", "-t", first, ROOM_WINDOW, ";",
                 "set-option", "-t", first, "mouse", "on")
    _become_dashboard(server, first, command, repo_root, env)
    return first


def _restore_dashboard(server: RoomServer, repo_root: Path, command: str,
                       env: dict[str, str], layout_name: str) -> str:
    """A new dashboard pane, left of the sessions in the room's window (or that window
    again, first, when the dashboard was its last pane)."""
    window = f"={ROOM_SESSION}:{ROOM_WINDOW}"
    listed = server.run("list-panes", "-t", window, "-F", "#{pane_id}")
    panes = listed.stdout.decode().split() if listed.returncode == 0 else []
    if panes:  # full height, before the window's first pane: the main pane's place
        args = ["split-window", "-hbf", "-t", panes[0]]
    else:
        args = ["new-window", "-b", "-t", f"={ROOM_SESSION}:^", "-n", ROOM_WINDOW]
    pane = server.check(*args, "-d", "-P", "-F", "#{pane_id}", "-c", str(repo_root),
                        "exec cat").strip()
    _become_dashboard(server, pane, command, repo_root, env)
    arrange = arrange_args(layout_name, pane)
    if arrange:
        server.check(*arrange)
    server.run("select-window", "-t", pane, ";", "select-pane", "-t", pane)
    return pane


def _become_dashboard(server: RoomServer, pane: str, command: str, repo_root: Path,
                      env: dict[str, str]) -> None:
    server.check("set-option", "-p", "-t", pane, SESSION_OPTION, DASHBOARD, ";",
                 "select-pane", "-t", pane, "-T", DASHBOARD)
    server.respawn_pane(pane, command, repo_root, env)


def arrange_args(layout: str, dashboard: str) -> list[str]:
    """The tmux commands that put the dashboard on the left and the sessions stacked on
    the right (side-by-side); none for the windows layout."""
    if layout != RoomLayout.SIDE_BY_SIDE:
        return []
    return ["select-layout", "-t", dashboard, "main-vertical", ";",
            "set-option", "-w", "-t", dashboard, "main-pane-width", "45%", ";",
            "select-layout", "-t", dashboard, "main-vertical"]
