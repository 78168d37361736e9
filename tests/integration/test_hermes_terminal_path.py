"""Hermes' terminal tool finds `bullpen` by name: its login shell resets PATH
(/etc/profile), so a profile bullpen set up sources the room's PATH file after it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from board import sessions
from board.room import Room
from tests.cli_runner import BULLPEN
from tests.hermes_install import install_beside_hermes
from workers.agents.hermes import launch as hermes_launch
from workers.agents.hermes import profile as hermes_profile
from workers.tmux.layout import tool_path

# The terminal tool of the real Hermes, as the model calls it.
TERMINAL = """
from tools.environments.local import LocalEnvironment
print(LocalEnvironment(cwd={cwd!r}).execute("command -v bullpen")["output"].strip())
"""


@pytest.fixture
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / ".hermes"
    (root / "profiles" / "coder").mkdir(parents=True)
    (root / "profiles" / "coder" / "config.yaml").write_text("model: {default: stub}\n")
    monkeypatch.setenv("HERMES_HOME", str(root))
    return root


def test_hermes_terminal_tool_runs_bullpen_by_name_in_a_set_up_profile(
        room: Room, hermes_home: Path, git_repo: Path) -> None:
    python = install_beside_hermes() / "python"
    hermes_profile.apply_plan(hermes_profile.prepare_profile("coder", "coder", hermes_home,
                                                             executable=BULLPEN))
    config = yaml.safe_load((hermes_home / "profiles" / "coder" / "config.yaml").read_text())
    assert config["terminal"]["shell_init_files"] == [
        "~/.profile", "~/.bash_profile", "~/.bashrc", "${BULLPEN_HOME}/hermes-path.sh"]
    sessions.register(room.conn, "coder", profile="coder")
    env = {"PATH": tool_path()}
    hermes_launch.launch_command("hermes", sessions.get(room.conn, "coder"), room.home, env,
                                 fresh=False)
    pane_env = {"HOME": os.environ["HOME"], "HERMES_HOME": str(hermes_home / "profiles" / "coder"),
                "BULLPEN_HOME": str(room.home), "PATH": env["PATH"]}
    found = subprocess.run([str(python), "-c", TERMINAL.format(cwd=str(git_repo))],
                           env=pane_env, capture_output=True, text=True, timeout=120)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip().splitlines()[-1] == str(Path(tool_path().split(":")[0]) / "bullpen")

    hermes_profile.unsetup("coder", hermes_home)
    assert yaml.safe_load((hermes_home / "profiles" / "coder" / "config.yaml").read_text()) == {
        "model": {"default": "stub"}}
