"""The Hermes memory provider backed by the notebook, driven by hermes' own code.

Each session's provider runs in a subprocess of the cached hermes venv's python with no
bullpen on its path: hermes reads `memory.provider` from the profile bullpen prepared,
loads `plugins/bullpen/` with its own loader, and its `MemoryManager` mirrors memory-tool
writes and prefetches recall — against a real SQLite room with two sessions.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from board import notebook, sessions
from board.identity import Caller
from board.room import Room
from tests.cli_runner import BULLPEN, identity
from tests.hermes_install import install_beside_hermes
from workers.agents.hermes import profile as hermes_profile

pytestmark = pytest.mark.both_stores

USER_CONFIG = "# mine\nmodel:\n  default: gpt-x\n"
SHARED = "the payments handler returns v1 of the ledger API"
PRIVATE = "the user wants terse answers about the payments handler"

DRIVER = """
import json, sys
from agent.memory_manager import MemoryManager
from agent.memory_provider import MemoryProvider
from plugins.memory import _get_active_memory_provider, load_memory_provider

job = json.loads(sys.argv[1])
name = _get_active_memory_provider()
provider = load_memory_provider(name)
manager = MemoryManager()
manager.add_provider(provider)
manager.initialize_all(session_id="t1", platform="cli", agent_context=job["context"])
for args in job["writes"]:
    manager.notify_memory_tool_write('{"success": true}', args)
print(json.dumps({"name": name, "abc": isinstance(provider, MemoryProvider),
                  "available": provider.is_available(),
                  "system": manager.build_system_prompt(),
                  "recall": manager.prefetch_all(job["query"]) if job["query"] else ""}))
"""


@pytest.fixture
def hermes_home(tmp_path: Path) -> Path:
    """A Hermes root whose default profile has a user's config."""
    root = tmp_path / ".hermes"
    (root / "profiles" / "coder").mkdir(parents=True)
    (root / "config.yaml").write_text(USER_CONFIG)
    (root / "profiles" / "coder" / "config.yaml").write_text(USER_CONFIG)
    return root


def drive(python: Path, profile: Path, env: dict[str, str], *, query: str = "",
          writes: tuple[dict[str, Any], ...] = (),
          context: str = "primary") -> subprocess.CompletedProcess:
    """Run DRIVER for one session: hermes' loader and MemoryManager, its profile's home."""
    job = json.dumps({"query": query, "writes": list(writes), "context": context})
    return subprocess.run(
        [str(python), "-c", DRIVER, job], cwd=profile, capture_output=True, text=True,
        timeout=120, env={"PATH": os.environ["PATH"], "HOME": os.environ["HOME"],
                          "HERMES_HOME": str(profile), **env})


def run_provider(python: Path, profile: Path, env: dict[str, str], **job: Any) -> dict:
    """Drive one session's provider; what hermes saw of it, as DRIVER prints it."""
    done = drive(python, profile, env, **job)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def memory(target: str, content: str, action: str = "add", **extra: str) -> dict[str, str]:
    """The arguments of one call to hermes' built-in `memory` tool."""
    return {"action": action, "target": target, "content": content, **extra}


def test_setup_installs_the_plugin_and_unsetup_removes_it(hermes_home: Path) -> None:
    plan = hermes_profile.prepare_profile("coder", "x", hermes_home, executable=BULLPEN)
    plugin = hermes_profile.plugin_dir(plan.directory)
    assert not plugin.exists()  # nothing written yet, but the diff shows the plugin
    assert f"+++ {plugin / '__init__.py'} (with bullpen)" in plan.diff()
    hermes_profile.apply_plan(plan)
    config = yaml.safe_load(plan.config_path.read_text())
    assert config["memory"] == {"provider": "bullpen"}
    assert sorted(p.name for p in plugin.iterdir()) == ["__init__.py", "plugin.yaml"]
    assert not hermes_profile.prepare_profile("coder", "x", hermes_home, executable=BULLPEN).changed

    hermes_profile.unsetup("coder", hermes_home)
    assert plan.config_path.read_text() == USER_CONFIG
    assert not (plan.directory / "plugins").exists()


def test_another_memory_provider_is_never_replaced(hermes_home: Path) -> None:
    path = hermes_home / "profiles" / "coder" / "config.yaml"
    path.write_text("memory:\n  provider: honcho\n  memory_enabled: true\n")
    plan = hermes_profile.prepare_profile("coder", "x", hermes_home, executable=BULLPEN)
    hermes_profile.apply_plan(plan)
    assert yaml.safe_load(path.read_text())["memory"] == {"provider": "honcho",
                                                          "memory_enabled": True}
    assert plan.plugin == () and not hermes_profile.plugin_dir(plan.directory).exists()
    hermes_profile.unsetup("coder", hermes_home)
    assert yaml.safe_load(path.read_text()) == {"memory": {"provider": "honcho",
                                                           "memory_enabled": True}}


def test_writes_land_in_the_notebook_and_recall_keeps_private_entries_private(
        room: Room, hermes_home: Path) -> None:
    python = install_beside_hermes() / "python"
    envs, profiles = {}, {}
    for name in ("a", "b"):
        envs[name] = identity(room.home, name, sessions.register(room.conn, name))
        plan = hermes_profile.prepare_profile(hermes_profile.AUTO, name, hermes_home)
        hermes_profile.apply_plan(plan)
        profiles[name] = plan.directory

    wrote = run_provider(python, profiles["a"], envs["a"], writes=(
        memory("memory", SHARED), memory("user", PRIVATE)))
    assert (wrote["name"], wrote["abc"], wrote["available"]) == ("bullpen", True, True)
    assert "bullpen notebook" in wrote["system"]
    assert [(e.author, e.body, e.private, e.tag)
            for e in notebook.read(room.conn, Caller("a"), "a")] == [
        ("a", SHARED, False, "hermes-memory"), ("a", PRIVATE, True, "hermes-user")]

    recalled = run_provider(python, profiles["b"], envs["b"],
                            query="What does the payments handler answer?")["recall"]
    assert f"[a] {SHARED}" in recalled
    assert "terse" not in recalled  # A's private entry matches the words, yet stays hidden
    own = run_provider(python, profiles["a"], envs["a"], query="payments handler")["recall"]
    assert own == ""  # a session's own entries are in hermes' own memory already


def test_replacements_removals_and_subagents(room: Room, hermes_home: Path) -> None:
    python = install_beside_hermes() / "python"
    env = identity(room.home, "a", sessions.register(room.conn, "a"))
    plan = hermes_profile.prepare_profile(hermes_profile.AUTO, "a", hermes_home)
    hermes_profile.apply_plan(plan)
    run_provider(python, plan.directory, env, writes=(
        memory("memory", "ledger API is v2", "replace", old_text="v1 of the ledger"),
        memory("user", "", "remove", old_text="terse answers")))
    run_provider(python, plan.directory, env, context="subagent",
                 writes=(memory("memory", "a subagent's scratch fact"),))
    assert [(e.body, e.private) for e in notebook.read(room.conn, Caller("a"), "a")] == [
        ("ledger API is v2\n(replaces: v1 of the ledger)", False),
        ("retracted: terse answers", True)]


def test_a_bad_token_is_reported_and_nothing_is_written(room: Room,
                                                        hermes_home: Path) -> None:
    python = install_beside_hermes() / "python"
    sessions.register(room.conn, "a")
    plan = hermes_profile.prepare_profile(hermes_profile.AUTO, "a", hermes_home)
    hermes_profile.apply_plan(plan)
    done = drive(python, plan.directory, identity(room.home, "a", "wrong"),
                 writes=(memory("memory", SHARED),))
    assert done.returncode == 0, done.stderr  # hermes carries on without the provider
    assert "BULLPEN_TOKEN does not match session 'a'" in done.stderr
    assert notebook.operator_view(room.conn) == []
