"""A room attached from inside the user's own tmux: its own prefix, said on its status line.

tmux cannot switch a client to a session of another server (`switch-client` stays on its
own server), and a session cannot be linked across servers, so the room — on its own
socket, so that it never touches the user's sessions — is attached as a nested client.
Both would then take `Ctrl-b`: the outer tmux eats it, and "`Ctrl-b d` leaves" detaches
the user's own session instead of the room. So while nested, the room's session takes
another prefix (`Ctrl-a`, or `Ctrl-b` when the user's own is `Ctrl-a`) and its status
line says which; attached outside tmux again, the room has tmux's usual prefix back.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from workers.tmux.server import DEFAULT_SESSION, RoomServer

NESTED_OPTION = "@bullpen_nested"  # the session option set while attached nested
OWN_STATUS = "status"  # its value when the status line is this module's too
USUAL_PREFIX = "C-b"
SHOWN = {"C-a": "Ctrl-a", "C-b": "Ctrl-b"}


def outer_socket(server: RoomServer, env: Mapping[str, str]) -> Path | None:
    """The socket of the tmux the caller runs inside, unless it is the room's own."""
    inside = env.get("TMUX", "")
    if not inside:
        return None
    socket = Path(inside.split(",")[0])
    return None if socket == server.socket_path(env) else socket


def outer_prefix(server: RoomServer, socket: Path) -> str:
    """The user's tmux prefix (its global option), `C-b` when it cannot be read."""
    proc = subprocess.run([server.tmux_bin, "-S", str(socket), "show-options", "-gv",
                           "prefix"], capture_output=True, text=True, check=False,
                          stdin=subprocess.DEVNULL)
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else USUAL_PREFIX


def prefix_for(outer: str) -> str:
    """A prefix for the room that the user's tmux does not take for its own."""
    return "C-b" if outer == "C-a" else "C-a"


def fit_prefix(server: RoomServer, env: Mapping[str, str],
               session: str = DEFAULT_SESSION) -> str | None:
    """Give the room's session a prefix of its own while attached from inside another
    tmux, and tmux's usual one back otherwise; returns the line to show (None: none)."""
    target = f"={session}:"
    socket = outer_socket(server, env)
    ours = server.run("show-options", "-qv", "-t", target, NESTED_OPTION).stdout.decode().strip()
    if socket is None:
        if ours:
            status = ["set-option", "-u", "-t", target, "status-left", ";"] \
                if ours == OWN_STATUS else []
            server.check("set-option", "-u", "-t", target, "prefix", ";", *status,
                         "set-option", "-u", "-t", target, NESTED_OPTION)
        return None
    prefix = prefix_for(outer_prefix(server, socket))
    shown = SHOWN.get(prefix, prefix)
    # A status line someone else set (the demo's, which names #{prefix} itself) stays.
    taken = not ours and bool(server.run("show-options", "-qv", "-t", target,
                                         "status-left").stdout.strip())
    status = [] if taken else [
        "set-option", "-t", target, "status-left-length", "40", ";",
        "set-option", "-t", target, "status-left",
        f"#[fg=black,bg=cyan,bold] room: {shown} d leaves #[default] ", ";"]
    server.check("set-option", "-t", target, "prefix", prefix, ";",
                 "bind-key", "-T", "prefix", prefix, "send-prefix", ";", *status,
                 "set-option", "-t", target, NESTED_OPTION, "1" if taken else OWN_STATUS)
    return f"inside your tmux, this room's prefix is {shown}: {shown} d leaves it"
