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
    existing, dead = _dashboard_pane(server)
    command = bullpen_command("dashboard") if with_dashboard else "exec cat"
    env = {IdentityVariable.HOME: str(home), "PATH": tool_path()}
    if existing:
        if dead:  # kept by a remain-on-exit of the user's tmux.conf: start it again there
            server.respawn_pane(existing, command, repo_root, env)
        return existing
    if server.has_session(ROOM_SESSION):
        return _restore_dashboard(server, repo_root, command, env, layout_name)
    server.ensure_session(ROOM_SESSION, cwd=repo_root, width=220, height=60)
    first = server.check("list-panes", "-t", f"={ROOM_SESSION}:", "-F", "#{pane_id}").split()[0]
    server.check("rename-window", "-t", first, ROOM_WINDOW, ";",
                 "set-option", "-t", first, "mouse", "on")
    _become_dashboard(server, first, command, repo_root, env)
    return first


def _dashboard_pane(server: RoomServer) -> tuple[str | None, bool]:
    """The dashboard's pane and whether it is dead, in one tmux call."""
    proc = server.run("list-panes", "-a", "-F",
                      f"#{{pane_id}}\t#{{{SESSION_OPTION}}}\t#{{pane_dead}}")
    for line in proc.stdout.decode().splitlines() if proc.returncode == 0 else []:
        pane_id, owner, dead = (line.split("\t") + ["", ""])[:3]
        if owner == DASHBOARD:
            return pane_id, dead == "1"
    return None, False


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


# Below this terminal size side by side squeezes the dashboard under its usable width
# (~70 columns) or the session panes to a few rows: each then gets a window of its own.
SIDE_BY_SIDE_MIN = (150, 30)


def fit_to_terminal(server: RoomServer, layout_name: str,
                    size: tuple[int, int]) -> str | None:
    """Lay a side-by-side room out for a terminal of `size` (columns, rows): below
    SIDE_BY_SIDE_MIN each session gets a window of its own, the dashboard keeps the room
    window; big enough again, they come back beside it. Returns what it told the user
    (for tmux to show), or None when nothing moved."""
    dashboard = pane_of(server, DASHBOARD)
    if layout_name != RoomLayout.SIDE_BY_SIDE or dashboard is None:
        return None
    listed = server.check("list-panes", "-s", "-t", f"={ROOM_SESSION}", "-F",
                          f"#{{pane_id}} #{{window_id}} #{{{SESSION_OPTION}}}")
    panes = [line.split(" ", 2) for line in listed.splitlines() if line.count(" ") == 2]
    room_window = next(window for pane, window, _ in panes if pane == dashboard)
    columns, rows = size
    if columns < SIDE_BY_SIDE_MIN[0] or rows < SIDE_BY_SIDE_MIN[1]:
        beside = sorted(((pane, role) for pane, window, role in panes  # in spawn order
                         if window == room_window and pane != dashboard and role),
                        key=lambda item: int(item[0].lstrip("%")))
        for pane, role in beside:
            server.check("break-pane", "-ad", "-s", pane, "-n", role,
                         "-t", f"={ROOM_SESSION}:{{end}}")  # after the last window
        # One status line wide even at 80 columns; docs/dashboard.md says the rest.
        return (f"{columns}x{rows}: each session has a window of its own (prefix, then n, p"
                " or w)") if beside else None
    apart = [pane for pane, window, role in panes if window != room_window and role]
    for pane in apart:
        server.check("join-pane", "-d", "-h", "-s", pane, "-t", dashboard)
    if apart:
        server.check(*arrange_args(layout_name, dashboard))
    return None


def beside_dashboard(server: RoomServer, layout_name: str, dashboard: str) -> bool:
    """Whether a new session pane goes beside the dashboard: side by side, and the room's
    window (sized by the terminal last attached) is at least SIDE_BY_SIDE_MIN; in a
    smaller room it gets a window of its own, as `fit_to_terminal` gives the others."""
    if layout_name != RoomLayout.SIDE_BY_SIDE:
        return False
    size = server.run("display-message", "-p", "-t", dashboard,
                      "#{window_width} #{window_height}").stdout.split()
    if len(size) != 2 or not all(part.isdigit() for part in size):
        return True  # no such pane (yet): the room's default size is big enough
    return int(size[0]) >= SIDE_BY_SIDE_MIN[0] and int(size[1]) >= SIDE_BY_SIDE_MIN[1]


def arrange_args(layout: str, dashboard: str) -> list[str]:
    """The tmux commands that put the dashboard on the left and the sessions stacked on
    the right (side-by-side); none for the windows layout."""
    if layout != RoomLayout.SIDE_BY_SIDE:
        return []
    return ["select-layout", "-t", dashboard, "main-vertical", ";",
            "set-option", "-w", "-t", dashboard, "main-pane-width", "45%", ";",
            "select-layout", "-t", dashboard, "main-vertical"]
