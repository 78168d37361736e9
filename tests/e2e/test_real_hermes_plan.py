"""A team plan travels between two machines' worth of homes, with the real Hermes Agent
(hermes-agent[mcp] 0.19.0) against a scripted model server on 127.0.0.1.

The exporter's default profile holds a literal `model.api_key`, a SOUL and a skill; the
plan is exported, committed, and installed with `bullpen plan install file://…` into a
fresh clone under a fresh HOME and HERMES_HOME whose `.env` holds the partner's own key.
`bullpen up` there starts the same sessions, each on its own profile, whose system
prompt carries the exported SOUL and skill, and whose model calls carry the partner's
key, never the exporter's.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.agents.fake_model import FakeModel, Reply, Text, all_text, session_of
from tests.conftest import git
from tests.hermes_install import install_beside_hermes
from tests.rooms import live_room
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TURN = 180.0
SECRET = "sk-exporter-SECRET-77aa13"
PARTNER_KEY = "partner-own-key-5e1"
SOUL = "You are the team's careful engineer. SOUL-MARK-3141\n"
SKILL = ("---\nname: plan-checklist-skill\ndescription: The team's checklist for every"
         " change\n---\nRun the tests before each commit.\n")
SESSIONS = ("research", "coder")


def respond(request: dict) -> Reply:
    return Text(f"{session_of(request)} noted")


def bullpen(bin_dir: Path, cwd: Path, *args: str) -> str:
    done = subprocess.run([str(bin_dir / "bullpen"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"bullpen {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def hermes_root(path: Path, version: str) -> Path:
    path.mkdir(parents=True, mode=0o700)
    (path / ".update_check").write_text(json.dumps({"ts": 4102444800, "latest": version}))
    return path


def test_a_plan_installed_on_a_fresh_home_starts_the_same_souls_and_skills(
        git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        hermes_release: str) -> None:
    bin_dir = install_beside_hermes(hermes_release)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with FakeModel(respond) as model:
        exporter = hermes_root(tmp_path / "exporter-hermes", hermes_release)
        monkeypatch.setenv("HERMES_HOME", str(exporter))
        (exporter / "config.yaml").write_text(yaml.safe_dump({
            "model": {"provider": "custom", "base_url": model.base_url,
                      "default": "stub-model", "context_length": 131072, "api_key": SECRET},
            "security": {"tirith_enabled": False}}))
        (exporter / "SOUL.md").write_text(SOUL)
        (exporter / "skills" / "plan-checklist-skill").mkdir(parents=True)
        (exporter / "skills" / "plan-checklist-skill" / "SKILL.md").write_text(SKILL)
        plan = {"agent": "hermes", "layout": "windows", "sessions": {
            name: {"task": f"Say hello as {name}"} for name in SESSIONS}}
        (git_repo / "bullpen.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
        shared = tmp_path / "team-plan"
        bullpen(bin_dir, git_repo, "plan", "export", str(shared))
        git(shared, "init", "-q", "-b", "main")
        git(shared, "add", "-A")
        git(shared, "commit", "-qm", "our team")
        assert not [path for path in shared.rglob("*") if path.is_file()
                    and SECRET.encode() in path.read_bytes()]

        partner_home = tmp_path / "partner-home"
        partner_home.mkdir()
        monkeypatch.setenv("HOME", str(partner_home))
        partner = hermes_root(partner_home / ".hermes", hermes_release)
        monkeypatch.setenv("HERMES_HOME", str(partner))
        (partner / ".env").write_text(f"MODEL_API_KEY={PARTNER_KEY}\n")
        clone = tmp_path / "partner-clone"
        git(tmp_path, "clone", "-q", str(git_repo), str(clone))
        out = bullpen(bin_dir, clone, "plan", "install", f"file://{shared}", "--yes")
        assert "MODEL_API_KEY" in out and "[provided]" in out, out

        with live_room(clone, tmp_path / "logs") as live:
            bullpen(bin_dir, clone, "up", "--detach", "--no-dashboard")
            asked = wait_until(
                lambda: {session_of(r) for r in model.snapshot()} >= set(SESSIONS)
                and model.snapshot(), TURN,
                message=lambda: f"both sessions to call the model: {live.sessions()}")
            for name in SESSIONS:
                first = next(r for r in asked if session_of(r) == name)
                system = "\n".join(str(m.get("content")) for m in first["messages"]
                                   if m.get("role") == "system")
                assert "SOUL-MARK-3141" in system, f"{name}'s system prompt: {system[:400]}"
                assert "plan-checklist-skill" in all_text(first)
            credentials = {exchange.credential for exchange in model.exchanges()}
            assert credentials == {f"Bearer {PARTNER_KEY}"}
            profiles = {row["name"]: row for row in live.sessions().values()}
            assert set(profiles) == set(SESSIONS)
