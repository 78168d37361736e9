"""One room's tmux server: a dedicated socket, panes targeted by id, typed errors.

Every tmux command goes through `RoomServer.run`, which counts subprocesses so the
dashboard and the benchmarks can check the "one tmux call per tick" budget.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from board.errors import BadInput, BullpenError

DEFAULT_SESSION = "bullpen"
SESSION_OPTION = "@bullpen_session"  # pane option naming the bullpen session; agents can't alter it
WAITING_OPTION = "@bullpen_waiting"  # a shell pane's "note(s) waiting" mark
_PLACEHOLDER = "exec cat"  # holds a new pane open until its options are set


@dataclass(frozen=True)
class NewPane:
    """One pane `RoomServer.launch_many` starts: `command` in `cwd` with `env`, named
    `title` (its title and `@bullpen_session`)."""

    command: str
    cwd: Path
    env: Mapping[str, str]
    title: str


class TmuxError(BullpenError):
    """A tmux command failed (exit status 1)."""


class TmuxMissing(TmuxError, BadInput):
    """The tmux binary is not installed (exit status 2: install it and try again)."""

    exit_status = 2


def socket_name_for(repo_root: Path) -> str:
    """Return the room's tmux socket name: `bullpen-` + 10 hex digits of the repo path."""
    digest = hashlib.sha1(str(Path(repo_root).resolve()).encode()).hexdigest()
    return f"bullpen-{digest[:10]}"


def require_tmux() -> str:
    """Return the tmux binary's path, or raise `TmuxMissing` saying how to install it."""
    import shutil  # here: shutil loads zlib, bz2 and lzma, and `bullpen ls` never asks

    found = shutil.which("tmux")
    if found is None:
        raise TmuxMissing(
            "tmux is not installed; install it (apt-get install tmux / brew install tmux)"
        )
    return found


def _env_flags(env: Mapping[str, str]) -> list[str]:
    """`-e KEY=VAL` flags: the values reach tmux's server, not the agent's command line."""
    flags: list[str] = []
    for key, value in env.items():
        if not key or "=" in key:
            raise ValueError(f"bad environment variable name: {key!r}")
        flags += ["-e", f"{key}={value}"]
    return flags


# tmux sends a command line to its server in one message of at most 16 KiB
# (MAX_IMSGSIZE): longer chains fail with "command too long".
CHAIN_BYTES = 12_000


def _chains(commands: list[list[str]]) -> list[list[str]]:
    """The commands joined by `;` into as few chains as fit a tmux message each."""
    chains: list[list[str]] = []
    size = CHAIN_BYTES
    for command in commands:
        length = sum(len(arg.encode()) + 1 for arg in command) + 2
        if chains and size + length <= CHAIN_BYTES:
            chains[-1] += [";", *command]
            size += length
        else:
            chains.append(list(command))
            size = length
    return chains


def _pane_options(target: str, title: str) -> list[str]:
    """A session pane's marks: it stays when its command exits (with the status), and
    its title and `@bullpen_session` name the session."""
    return ["set-option", "-p", "-t", target, "remain-on-exit", "on", ";",
            "set-option", "-p", "-t", target, SESSION_OPTION, title, ";",
            "select-pane", "-t", target, "-T", title]


def _require_pane_id(pane_id: str) -> str:
    if not (pane_id.startswith("%") and pane_id[1:].isdigit()):
        raise ValueError(f"not a tmux pane id: {pane_id!r} (expected %N)")
    return pane_id


class RoomServer:
    """The tmux server of one room, on its own socket (`tmux -L NAME`)."""

    def __init__(self, socket_name: str, *, config_file: Path | None = None) -> None:
        """Wrap the server on `socket_name`; `config_file` replaces ~/.tmux.conf."""
        self.socket_name = socket_name
        self.config_file = config_file
        self.tmux_bin = require_tmux()
        self.calls = 0  # tmux subprocesses started through this object
        # Pane ids the next snapshot expects; kept current by launch/kill and snapshots.
        self.pane_ids_hint: list[str] = []
        self.reap_wanted = False  # a dead pane lacks its status: see workers.tmux.panes

    def __repr__(self) -> str:
        return f"RoomServer({self.socket_name!r})"

    # -- plumbing -------------------------------------------------------------------

    def base_argv(self) -> list[str]:
        """The argv prefix reaching this server: `tmux [-f CONF] -L NAME`."""
        argv = [self.tmux_bin]
        if self.config_file is not None:
            argv += ["-f", str(self.config_file)]
        return argv + ["-L", self.socket_name]

    def run(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """Run one tmux process with `args` (`;` chains commands); never raises on failure."""
        self.calls += 1
        return subprocess.run(
            [*self.base_argv(), *args],
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )

    def check(self, *args: str, stdin: bytes | None = None) -> str:
        """Run tmux and return its stdout as text; raise `TmuxError` on failure."""
        proc = self.run(*args, stdin=stdin)
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip() or f"exit {proc.returncode}"
            raise TmuxError(f"tmux {args[0]} failed on socket {self.socket_name}: {err}")
        return proc.stdout.decode(errors="replace")

    # -- server and session -----------------------------------------------------------

    def is_alive(self) -> bool:
        """True when the room's tmux server is running."""
        return self.run("list-sessions").returncode == 0

    def has_session(self, name: str = DEFAULT_SESSION) -> bool:
        """True when the tmux session `name` exists (exact match)."""
        return self.run("has-session", "-t", f"={name}").returncode == 0

    def ensure_session(self, name: str = DEFAULT_SESSION, cwd: Path | None = None,
                       width: int = 200, height: int = 50) -> None:
        """Create the detached tmux session `name` unless it exists (starts the server)."""
        if self.has_session(name):
            return
        args = ["new-session", "-d", "-s", name, "-x", str(width), "-y", str(height)]
        if cwd is not None:
            args += ["-c", str(cwd)]
        self.check(*args)

    def kill_server(self) -> None:
        """Stop the room's tmux server and every pane in it (no error if not running)."""
        self.run("kill-server")
        self.pane_ids_hint = []

    # -- panes ------------------------------------------------------------------------

    def launch(self, target: str, command: str, cwd: Path, env: Mapping[str, str],
               title: str, new_window: bool = False, then: Sequence[str] = ()) -> str:
        """Start `command` in a new pane and return its id (`%N`).

        `target` is a session name (new window) or a pane/window id to split. The pane
        keeps `remain-on-exit on`, so an exit stays visible with its status; its title
        and the `@bullpen_session` option are set to `title`. The pane first runs a
        placeholder and is respawned with `command` once its options are set, so even
        a command that exits at once leaves a dead pane with its exit code. `then` is a
        tmux command chained after those (e.g. a re-layout), saving a process.
        """
        if new_window:
            where = target if target.startswith(("@", "%")) else f"={target}:"
            args = ["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", where, "-n", title]
        else:
            args = ["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target]
        pane_id = _require_pane_id(
            self.check(*args, "-c", str(cwd), _PLACEHOLDER).strip())
        self.check(
            "set-option", "-p", "-t", pane_id, "remain-on-exit", "on", ";",
            "set-option", "-p", "-t", pane_id, SESSION_OPTION, title, ";",
            "select-pane", "-t", pane_id, "-T", title, ";",
            "respawn-pane", "-k", "-t", pane_id, "-c", str(cwd), *_env_flags(env), command,
            *([";", *then] if then else []),
        )
        self.pane_ids_hint.append(pane_id)
        return pane_id

    def launch_many(self, target: str, panes: Sequence[NewPane], new_window: bool = False,
                    then: Sequence[str] = ()) -> list[str]:
        """`launch` for each of `panes`, with as few tmux processes as a command line
        of tmux can hold (`then` runs after each new pane, so a re-layout makes room for
        the next split). On a failure the panes this call made are killed before
        `TmuxError` is raised."""
        made: list[str] = []
        try:
            if new_window and not target.startswith(("@", "%")):
                self._windows_at_end(target, panes, then, made)
            else:
                self._split_then_respawn(target, panes, new_window, then, made)
        except BaseException:
            for pane_id in made:
                self.run("kill-pane", "-t", pane_id)
            raise
        self.pane_ids_hint += made
        return made

    def _windows_at_end(self, session: str, panes: Sequence[NewPane], then: Sequence[str],
                        made: list[str]) -> None:
        """Each pane a new last window of `session`, running its command at once, its
        options set by the next commands of the same chain through `{end}`. tmux runs a
        chain's commands before it handles any child's exit, so a command that exits at
        once still leaves a dead pane with its status: one process start per pane
        instead of a placeholder and a respawn (200 windows: tmux's CPU 0.5 s, not 1.9 s)."""
        last = f"={session}:{{end}}"
        for chain in _chains([
                ["new-window", "-d", "-a", "-P", "-F", "#{pane_id}", "-t", last, "-n",
                 pane.title, "-c", str(pane.cwd), *_env_flags(pane.env), pane.command, ";",
                 *_pane_options(last, pane.title), *([";", *then] if then else [])]
                for pane in panes]):
            self._started(self.run(*chain), made, "new-window")

    def _split_then_respawn(self, target: str, panes: Sequence[NewPane], new_window: bool,
                            then: Sequence[str], made: list[str]) -> None:
        """Each pane first runs a placeholder, respawned with its command once its
        options are set (a new split has no name to be found by in the same chain)."""
        for chain in _chains([
                [*(["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", target, "-n",
                    pane.title] if new_window else
                   ["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target]),
                 "-c", str(pane.cwd), _PLACEHOLDER, *([";", *then] if then else [])]
                for pane in panes]):
            self._started(self.run(*chain), made, "split-window")
        for chain in _chains([
                [*_pane_options(pane_id, pane.title), ";",
                 "respawn-pane", "-k", "-t", pane_id, "-c", str(pane.cwd),
                 *_env_flags(pane.env), pane.command]
                for pane_id, pane in zip(made, panes, strict=True)]):
            self.check(*chain)

    def _started(self, proc: subprocess.CompletedProcess[bytes], made: list[str],
                 verb: str) -> None:
        """Note the pane ids a chain printed; raise `TmuxError` if it failed."""
        made += [word for word in proc.stdout.decode().split() if word[:1] == "%"]
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip() or "no message"
            raise TmuxError(f"tmux {verb} failed on socket {self.socket_name}: {err}")

    def respawn_pane(self, pane_id: str, command: str, cwd: Path,
                     env: Mapping[str, str]) -> None:
        """Restart `command` in an existing (usually dead) pane, keeping its id."""
        self.check("respawn-pane", "-k", "-t", _require_pane_id(pane_id), "-c", str(cwd),
                   *_env_flags(env), command)

    def kill_pane(self, pane_id: str) -> bool:
        """Kill a pane; return False when it did not exist."""
        ok = self.run("kill-pane", "-t", _require_pane_id(pane_id)).returncode == 0
        if pane_id in self.pane_ids_hint:
            self.pane_ids_hint.remove(pane_id)
        return ok

    def pane_pid(self, pane_id: str) -> int | None:
        """The pid of the pane's own process (None when there is no such pane)."""
        proc = self.run("display-message", "-p", "-t", _require_pane_id(pane_id),
                        "#{pane_pid}")
        text = proc.stdout.decode().strip()
        return int(text) if proc.returncode == 0 and text.isdigit() else None

    def pane_exists(self, pane_id: str) -> bool:
        """True when the pane id names a pane on this server (dead panes included)."""
        proc = self.run("display-message", "-p", "-t", _require_pane_id(pane_id),
                        "#{pane_id}")
        return proc.returncode == 0 and proc.stdout.decode().strip() == pane_id

    def select_pane(self, pane_id: str) -> None:
        """Make the pane the active one of its window, and its window the current one."""
        pane_id = _require_pane_id(pane_id)
        self.check("select-window", "-t", pane_id, ";", "select-pane", "-t", pane_id)

    def zoom_pane(self, pane_id: str, zoomed: bool = True) -> None:
        """Zoom the pane to fill its window (or unzoom with `zoomed=False`); idempotent."""
        pane_id = _require_pane_id(pane_id)
        flag = self.check("display-message", "-p", "-t", pane_id, "#{window_zoomed_flag}")
        if (flag.strip() == "1") != zoomed:
            self.check("resize-pane", "-Z", "-t", pane_id)

    def capture(self, pane_id: str, lines: int = 0) -> str:
        """The pane's visible text, plus `lines` lines of scrollback above it."""
        args = ["capture-pane", "-p", "-t", _require_pane_id(pane_id)]
        if lines > 0:
            args += ["-S", f"-{lines}"]
        return self.check(*args)

    def attach_command(self, target: str = DEFAULT_SESSION,
                       env: Mapping[str, str] | None = None) -> list[str]:
        """The argv that puts the user's terminal on `target` (a session or pane id).

        Inside a client of this same server it is `switch-client`; inside another tmux
        it attaches with `TMUX` unset (tmux refuses nesting otherwise); else `attach`.
        """
        env = os.environ if env is None else env
        inside = env.get("TMUX", "")
        if inside and Path(inside.split(",")[0]) == self.socket_path(env):
            return [*self.base_argv(), "switch-client", "-t", target]
        argv = [*self.base_argv(), "attach-session", "-t", target]
        return ["env", "-u", "TMUX", *argv] if inside else argv

    def socket_path(self, env: Mapping[str, str] | None = None) -> Path:
        """Where tmux puts the socket for `-L NAME` (`$TMUX_TMPDIR/tmux-UID/NAME`)."""
        env = os.environ if env is None else env
        tmpdir = env.get("TMUX_TMPDIR") or "/tmp"
        return Path(tmpdir) / f"tmux-{os.geteuid()}" / self.socket_name

    def pane_ids(self) -> list[str]:
        """All pane ids on the server, in tmux's order (one tmux call)."""
        proc = self.run("list-panes", "-a", "-F", "#{pane_id}")
        if proc.returncode != 0:
            return []
        return [line for line in proc.stdout.decode().split() if line.startswith("%")]
