"""Running the demo: a throwaway repository, `bullpen up`, and the story followed step by step.

`prepare` makes the repository and its `bullpen.yaml`; `start` brings the room up;
`follow` polls the store and prints each step (with its time since the start) as it
happens; `teardown` brings the room down. The CLI strings these together.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from board.db import connect
from board.errors import BullpenError
from board.home import DB_NAME, ROOM_DIR
from workers.demo.steps import STEPS, Seen
from workers.room.control import RoomControl
from workers.tmux import layout

TIMEOUT = 90.0  # seconds for the whole story; it takes ~20 s here
POLL = 0.1

APP = 'def handler():\n    """GET /users."""\n    return "v1"\n'
README = "# users-service\n\nA tiny service with one endpoint, `GET /users`.\n"
PLAN = """\
# The demo's plan: research -> code -> review, with built-in scripted agents.
# deliver: type lets bullpen type notes into these agents, which it does not know.
layout: side-by-side
sessions:
  research:
    agent: {research}
    deliver: type
    task: Gather the /users usage data into data/usage.md, then mark your task done
  coder:
    agent: {coder}
    deliver: type
    after: [research]
    task: Implement what data/usage.md asks for in src/app.py
  reviewer:
    agent: {reviewer}
    deliver: type
    on_commit: coder
    task: Review each commit from coder
"""


class DemoFailed(BullpenError):
    """A step of the story did not happen in time."""

    exit_status = 1


@dataclass
class Outcome:
    """What the follower saw: each step's evidence, in story order, and what went wrong."""

    started: float
    seen: list[Seen | None] = field(default_factory=lambda: [None] * len(STEPS))
    error: str | None = None

    @property
    def complete(self) -> bool:
        return self.error is None and all(self.seen)

    def first_missing(self) -> int | None:
        return next((i for i, seen in enumerate(self.seen) if seen is None), None)


def clean_env() -> dict[str, str]:
    """The caller's environment without any room identity or enclosing tmux."""
    drop = {"BULLPEN_HOME", "BULLPEN_SESSION", "BULLPEN_TOKEN", "TMUX", "TMUX_PANE"}
    return {key: value for key, value in os.environ.items() if key not in drop}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env=clean_env())


def agent_command(role: str, pace: float) -> str:
    return shlex.join([sys.executable, "-m", "workers.demo.agents", role, "--pace", str(pace)])


def prepare(parent: Path | None = None, pace: float = 0.0) -> Path:
    """A fresh repository (one commit: src/app.py, README.md) with the demo's bullpen.yaml."""
    base = Path(tempfile.mkdtemp(prefix="bullpen-demo-", dir=parent))
    repo = base / "users-service"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text(APP)
    (repo / "README.md").write_text(README)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.name", "bullpen demo")
    _git(repo, "config", "user.email", "demo@bullpen.invalid")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "users-service: one endpoint")
    (repo / "bullpen.yaml").write_text(PLAN.format(
        **{role: agent_command(role, pace) for role in ("research", "coder", "reviewer")}))
    return repo


def bullpen(repo: Path, *args: str) -> subprocess.CompletedProcess:
    """Run this install's `bullpen` in the demo repository, as the operator.

    A process of its own (and so the room façade behind the CLI) with a clean
    environment: the room's tmux server must not inherit an enclosing session's identity.
    """
    return subprocess.run([*shlex.split(layout.bullpen_command()), *args], cwd=repo,
                          env=clean_env(), capture_output=True, text=True, check=False)


def start(repo: Path, with_dashboard: bool) -> None:
    """`bullpen up --detach` in the demo repository."""
    done = bullpen(repo, "up", "--detach", *([] if with_dashboard else ["--no-dashboard"]))
    if done.returncode:
        raise DemoFailed(f"bullpen up failed: {(done.stderr or done.stdout).strip()}")


def follow(repo: Path, started: float, say: Callable[[str], None],
           timeout: float = TIMEOUT) -> Outcome:
    """Poll the store until every step is seen (or the time is up), printing each one."""
    outcome = Outcome(started)
    deadline = time.monotonic() + timeout
    shown = 0
    conn = None
    while True:
        if conn is None and (repo / ROOM_DIR / DB_NAME).exists():
            conn = connect(repo / ROOM_DIR / DB_NAME)
        if conn is not None:
            try:
                observe(conn, outcome)
            except AssertionError as error:
                outcome.error = str(error)
            # Print in story order, each step once everything before it was seen.
            while shown < len(STEPS) and outcome.seen[shown]:
                say(line_for(shown, outcome))
                shown += 1
        if outcome.complete or outcome.error or time.monotonic() > deadline:
            break
        time.sleep(POLL)  # polling the store for the story's progress, with a deadline
    if conn is not None:
        conn.close()
    return outcome


def observe(conn, outcome: Outcome) -> None:
    """Check every step not yet seen once more."""
    for index, step in enumerate(STEPS):
        if outcome.seen[index] is None:
            outcome.seen[index] = step.check(conn)


def line_for(index: int, outcome: Outcome) -> str:
    seen = outcome.seen[index]
    assert seen is not None
    elapsed = max(0.0, seen.at - outcome.started)
    return f"{elapsed:6.1f}s  {index + 1:2}. {STEPS[index].title} — {seen.detail}"


def verdict(outcome: Outcome, elapsed: float) -> str:
    """One line: every step happened, or which one did not."""
    if outcome.complete:
        story = max(seen.at for seen in outcome.seen if seen) - outcome.started
        return f"all {len(STEPS)} steps happened; the story took {story:.1f} s"
    missing = outcome.first_missing()
    if outcome.error:
        return f"the demo failed: {outcome.error}"
    assert missing is not None
    return (f"the demo failed at step {missing + 1}: {STEPS[missing].title}"
            f" (not seen within {elapsed:.0f} s)")


def teardown(repo: Path, keep: bool) -> None:
    """Bring the room down; unless `keep`, delete the throwaway repository too."""
    bullpen(repo, "down")
    layout.server_for(repo).kill_server()
    if not keep:
        shutil.rmtree(repo.parent, ignore_errors=True)


def run_detached(say: Callable[[str], None], *, keep: bool = False,
                 timeout: float = TIMEOUT, parent: Path | None = None) -> int:
    """The whole demo without a terminal: 0 only if every step happened.

    On failure the room is brought down but the repository is kept, for a look.
    """
    repo = prepare(parent)
    say(f"demo repository: {repo}")
    started, clock = time.time(), time.monotonic()
    try:
        start(repo, with_dashboard=False)
        outcome = follow(repo, started, say, timeout)
    except BaseException:
        teardown(repo, keep=True)
        raise
    say(verdict(outcome, time.monotonic() - clock))
    if not outcome.complete:
        say(f"kept {repo} for a look (store: {repo / ROOM_DIR / DB_NAME})")
    teardown(repo, keep=keep or not outcome.complete)
    return 0 if outcome.complete else 1


def run_attached(say: Callable[[str], None], *, keep: bool = False,
                 with_dashboard: bool = True, pace: float = 0.4) -> int:
    """The demo on this terminal: attach to the room while the story plays, then report.

    However it ends — detaching (tmux's prefix, then d, as the room's status line says),
    a closed terminal (SIGHUP) or SIGTERM — the room comes down and the throwaway
    repository goes; with `keep` both stay for exploring.
    """
    repo = prepare(pace=pace)
    started, clock = time.time(), time.monotonic()
    try:
        start(repo, with_dashboard=with_dashboard)
    except BaseException:
        teardown(repo, keep=True)
        raise
    previous = {number: signal.signal(number, _end_demo) for number in END_SIGNALS}
    try:
        show_exit_hint(repo)
        say(f"demo repository: {repo}; the story takes ~15 s. Detach (tmux prefix, then d)"
            " to finish.")
        subprocess.run(RoomControl(repo / ROOM_DIR).attach_command(), check=False)
        outcome = follow(repo, started, say, timeout=0)
        say(verdict(outcome, time.monotonic() - clock))
        if keep:
            say(f"the room is still up in {repo}; stop it there with: bullpen down")
        return 0 if outcome.complete else 1
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if not keep:
            teardown(repo, keep=False)


END_SIGNALS = (signal.SIGHUP, signal.SIGTERM)


class DemoEnded(BaseException):
    """The demo's terminal went away (or it was told to stop): clean up, then leave."""

    def __init__(self, number: int) -> None:
        super().__init__(signal.Signals(number).name)
        self.number = number


def _end_demo(number: int, frame: object) -> None:
    raise DemoEnded(number)


def show_exit_hint(repo: Path) -> None:
    """Inside the room, where the user looks: the key that ends the demo."""
    session = f"={layout.ROOM_SESSION}:"  # exactly it, never bullpen-coordinator by prefix
    layout.server_for(repo).check(
        "set-option", "-t", session, "status-left-length", "60", ";",
        "set-option", "-t", session, "status-left",
        "#[fg=black,bg=green,bold] bullpen demo: #{prefix} then d ends it #[default] ")
