"""Real Hermes Agent (hermes-agent[mcp] 0.19.0) guarded by bullpen, in rooms started by
`bullpen up`, against a scripted chat-completions server on 127.0.0.1.

- Hermes' dangerous-command menu (`Allow once / … / Deny`, with its countdown) is a
  question: the session is `needs_input` with the menu's words, not `working`.
- One process per Hermes profile on the machine: a `-p` in the agent command, two
  sessions of one bullpen.yaml naming one profile, and the same session name in two
  repositories never run two Hermes on one profile.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import FakeModel, Reply, Text, ToolCall, last_user_text
from tests.agents.fake_model import tool_results_since_user as step_of
from tests.hermes_install import offline_hermes
from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TURN = 180.0  # seconds; a Hermes turn takes ~5 s here, CI machines are slower
DANGEROUS = "rm -rf junk/sub"


def respond(request: dict) -> Reply:
    """A session asked to clean up runs a recursive delete; anything else is noted."""
    if "clean up" in last_user_text(request) and step_of(request) == 0:
        return ToolCall("terminal", {"command": DANGEROUS})
    return Text("noted")


@pytest.fixture
def hermes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[
        tuple[FakeModel, Path, Path]]:
    """(the model server, the venv's bin, the Hermes root) for rooms in this test.
    Approvals stay at Hermes' defaults (`mode: smart`, `timeout: 60`)."""
    with FakeModel(respond) as model:
        bin_dir, root = offline_hermes(tmp_path, monkeypatch, model.base_url)
        yield model, bin_dir, root


def run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`bullpen ARGS` from the venv it shares with Hermes."""
    return subprocess.run([str(bin_dir / "bullpen"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def ok(bin_dir: Path, live: LiveRoom, *args: str) -> str:
    done = run(bin_dir, live.repo, *args)
    assert done.returncode == 0, f"bullpen {' '.join(args)}: {done.stderr}"
    return done.stdout


def test_real_hermes_dangerous_command_menu_is_needs_input_with_its_question(
        hermes: tuple[FakeModel, Path, Path], git_repo: Path, tmp_path: Path) -> None:
    model, bin_dir, _root = hermes
    with live_room(git_repo, tmp_path / "logs") as live:
        ok(bin_dir, live, "up", "--detach", "--no-dashboard")
        ok(bin_dir, live, "spawn", "cleaner", "--no-dashboard")
        worktree = Path(live.sessions()["cleaner"]["worktree"])
        (worktree / "junk" / "sub").mkdir(parents=True)
        live.wait_status("cleaner", "idle", timeout=TURN)
        ok(bin_dir, live, "note", "send", "cleaner", "please clean up the junk folder")

        asking = wait_until(lambda: (row := live.sessions()["cleaner"])["status"]
                            == "needs_input" and row, TURN,
                            message=lambda: f"the menu as a question: {live.sessions()}"
                            f"\n{live.pane_text('cleaner')}")
        assert asking["reason"] == (f"Dangerous Command: {DANGEROUS} (recursive delete):"
                                    " Allow once / Allow for this session / Add to"
                                    " permanent allowlist / Deny")
        assert "Dangerous Command" in live.pane_text("cleaner")  # Hermes' own menu
        # A note sent now waits: nothing is typed into the menu.
        ok(bin_dir, live, "note", "send", "cleaner", "HELD-NOTE later")
        with live.db() as conn:
            wait_until(lambda: conn.execute(
                "SELECT d.state FROM deliveries d JOIN notes n ON n.id = d.note"
                " WHERE n.body = 'HELD-NOTE later'").fetchone()[0] == "held", 30,
                message="the note held while the menu asks")
        assert (worktree / "junk" / "sub").is_dir()  # never answered for the human


def profile_of(live: LiveRoom, name: str) -> str:
    with live.db() as conn:
        return conn.execute("SELECT profile FROM sessions WHERE name = ?", (name,)).fetchone()[0]


def refused(done: subprocess.CompletedProcess, *words: str) -> None:
    """Exit 2 with one line on stderr holding `words`."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and all(word in lines[0] for word in words), done.stderr


def test_real_hermes_one_process_per_profile_in_a_room(
        hermes: tuple[FakeModel, Path, Path], git_repo: Path, tmp_path: Path) -> None:
    _model, bin_dir, root = hermes
    with live_room(git_repo, tmp_path / "logs") as live:
        ok(bin_dir, live, "up", "--detach", "--no-dashboard")
        ok(bin_dir, live, "spawn", "hh", "--no-dashboard")
        live.wait_status("hh", "idle", timeout=TURN)
        profile = profile_of(live, "hh")

        # The profile named in the command, by -p, --profile= or HERMES_HOME.
        for name, agent in (("hh3", f"hermes -p {profile}"),
                            ("hh4", f"hermes --profile={profile} --cli"),
                            ("hh5", f"HERMES_HOME={root}/profiles/{profile} hermes --cli")):
            refused(run(bin_dir, live.repo, "spawn", name, "--agent", agent,
                        "--no-dashboard"), f"profile {profile!r} is in use", "'hh'")
            assert name not in live.sessions()
            assert not (live.home / "worktrees" / name).exists()

        # Two sessions of one bullpen.yaml on one profile: up starts neither.
        shared = root / "profiles" / "shared"
        shared.mkdir(parents=True)
        (shared / "config.yaml").write_text((root / "config.yaml").read_text())
        ok(bin_dir, live, "hermes", "setup", "shared", "--yes")
        plan = {"agent": "hermes", "sessions": {"one": {"agent": "hermes -p shared"},
                                                "two": {"agent": "hermes -p shared"}}}
        (live.repo / "bullpen.yaml").write_text(yaml.safe_dump(plan))
        refused(run(bin_dir, live.repo, "up", "--detach", "--no-dashboard"),
                "bullpen.yaml", "'one'", "'two'", "hermes profile 'shared'")
        assert set(live.sessions()) == {"hh"}
        assert live.sessions()["hh"]["status"] == "idle"  # the running one untouched


def test_real_hermes_profiles_are_apart_across_repositories_and_never_shared(
        hermes: tuple[FakeModel, Path, Path], git_repo: Path, tmp_path: Path) -> None:
    _model, bin_dir, _root = hermes
    other = tmp_path / "other" / "repo"
    shutil.copytree(git_repo, other)  # a second repository, its own history
    with live_room(git_repo, tmp_path / "logs") as first, \
            live_room(other, tmp_path / "logs-other") as second:
        for live in (first, second):
            ok(bin_dir, live, "up", "--detach", "--no-dashboard")
            ok(bin_dir, live, "spawn", "hh", "--no-dashboard")
        for live in (first, second):
            live.wait_status("hh", "idle", timeout=TURN)
        taken = profile_of(first, "hh")
        assert taken != profile_of(second, "hh")  # session hh in each: two profiles

        # The first room's profile, asked for by the second: refused, naming its holder.
        for how in (("--profile", taken), ("--agent", f"hermes -p {taken}")):
            refused(run(bin_dir, second.repo, "spawn", "hh2", *how, "--no-dashboard"),
                    f"hermes profile {taken!r} is in use", "'hh'", str(first.home))
            assert "hh2" not in second.sessions()

        # Stopped, its Hermes gone: the profile is free again.
        ok(bin_dir, first, "stop", "hh")
        ok(bin_dir, second, "spawn", "hh2", "--profile", taken, "--no-dashboard")
        second.wait_status("hh2", "idle", timeout=TURN)
