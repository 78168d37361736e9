"""An agent command behind wrappers is launched as its kind, with bullpen's flags.

`IS_SANDBOX=1 claude …` (DESIGN's recipe for root), `env X=1 claude --model m`, `npx
@anthropic-ai/claude-code`, `env X=1 hermes`, an absolute hermes, `uvx --from
hermes-agent hermes`, `env X=1 codex` and `npx @openai/codex`: each is spawned in a real
tmux pane whose program is a stand-in that records the argv and environment it was
really started with, so the test reads the launched command line itself — bullpen's
flags after the program's own words, never after `env` or `npx` — and the files those
flags name.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.rooms import LiveRoom, live_room
from tests.waiting import wait_until
from workers.agents.hermes.profile import auto_profile_name

STAND_IN = """#!{python}
import json, os, sys
with open({log!r}, "a") as log:
    log.write(json.dumps({{"argv": sys.argv, "env": {{k: os.environ.get(k) for k in
        ("X", "IS_SANDBOX", "BULLPEN_SESSION", "BULLPEN_HOOK_KEY",
         "HERMES_ACCEPT_HOOKS")}}}}) + "\\n")
os.execvp("cat", ["cat"])
"""


@pytest.fixture
def stand_ins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`claude`, `hermes`, `codex`, `npx` and `uvx` in `<tmp>/bin` (on PATH after the
    venv's bin, as in a pane), each logging how it was run to `<tmp>/runs/<program>.jsonl`,
    then staying in front as `cat`."""
    import sys

    bin_dir, runs = tmp_path / "bin", tmp_path / "runs"
    bin_dir.mkdir()
    runs.mkdir()
    for program in ("claude", "hermes", "codex", "npx", "uvx"):
        stub = bin_dir / program
        stub.write_text(STAND_IN.format(python=sys.executable, log=str(runs / f"{program}.jsonl")))
        stub.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return tmp_path


def launched(runs: Path, program: str, session: str) -> dict:
    """The run of `program` that session `session` started (waited for)."""
    def found() -> dict | None:
        return next(iter(launches(runs, program, session)), None)
    return wait_until(found, 15.0, message=lambda: f"{program} started by {session}: "
                      f"{sorted(p.name for p in runs.iterdir())}")


def launches(runs: Path, program: str, session: str) -> list[dict]:
    """Every launch of `program` for `session` so far, in order; the `--version` probe
    bullpen makes of the agent (recorded as the session's agent version) is not one."""
    log = runs / f"{program}.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return [row for row in rows if row["env"]["BULLPEN_SESSION"] == session
            and row["argv"][-1] != "--version"]


def in_front(room: LiveRoom, session: str) -> str:
    pane = room.sessions()[session]["pane"]
    return room.server.check("display-message", "-p", "-t", pane,
                             "#{pane_current_command}").strip()


def flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def assert_claude_launch(argv: list[str], own: list[str], home: Path, session: str) -> None:
    """bullpen's settings and MCP config follow the program's own words."""
    assert argv[1:len(own) + 1] == own
    assert argv[len(own) + 1:len(own) + 5] == [
        "--settings", str(home / "agents" / session / "claude-settings.json"),
        "--mcp-config", str(home / "agents" / session / "claude-mcp.json")]
    settings = json.loads(Path(flag(argv, "--settings")).read_text())
    assert set(settings["hooks"]) >= {"PostToolUse", "UserPromptSubmit", "Stop",
                                      "PermissionRequest", "SessionStart"}
    assert settings["permissions"] == {"allow": ["mcp__bullpen"]}
    server = json.loads(Path(flag(argv, "--mcp-config")).read_text())["mcpServers"]["bullpen"]
    assert server["args"] == ["mcp"]


@pytest.mark.slow
def test_wrapped_claude_commands_start_with_bullpens_settings_hooks_and_mcp(
        git_repo: Path, stand_ins: Path) -> None:
    runs = stand_ins / "runs"
    with live_room(git_repo, stand_ins / "logs") as room:
        for name, agent in (("sandboxed", "IS_SANDBOX=1 claude --dangerously-skip-permissions"),
                            ("enved", "env X=1 claude --model m"),
                            ("packaged", "npx @anthropic-ai/claude-code")):
            room.cli("spawn", name, "--agent", agent, "--no-dashboard")

        sandboxed = launched(runs, "claude", "sandboxed")
        assert sandboxed["env"]["IS_SANDBOX"] == "1" and sandboxed["env"]["BULLPEN_HOOK_KEY"]
        assert_claude_launch(sandboxed["argv"], ["--dangerously-skip-permissions"],
                             room.home, "sandboxed")
        enved = launched(runs, "claude", "enved")
        assert enved["env"]["X"] == "1"
        assert_claude_launch(enved["argv"], ["--model", "m"], room.home, "enved")
        packaged = launched(runs, "npx", "packaged")
        assert_claude_launch(packaged["argv"], ["@anthropic-ai/claude-code"], room.home,
                             "packaged")
        # Each program itself is the pane's foreground process, not a shell around it.
        for name in ("sandboxed", "enved", "packaged"):
            assert in_front(room, name) == "cat"


@pytest.fixture
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "hermes-home"
    home.mkdir()
    (home / "config.yaml").write_text("model: {default: m}\n")  # the default profile
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home


@pytest.mark.slow
def test_wrapped_hermes_commands_start_on_the_sessions_set_up_profile(
        git_repo: Path, stand_ins: Path, hermes_home: Path) -> None:
    runs = stand_ins / "runs"
    hermes, uvx = str(stand_ins / "bin" / "hermes"), str(stand_ins / "bin" / "uvx")
    with live_room(git_repo, stand_ins / "logs") as room:
        # uvx by its path: a real one may sit before the stand-ins (bullpen's venv has uv).
        for name, agent in (("enved", "env X=1 hermes"), ("absolute", hermes),
                            ("packaged", f"{uvx} --from hermes-agent hermes")):
            room.cli("spawn", name, "--agent", agent, "--no-dashboard")
        for name, program, before in (("enved", "hermes", []), ("absolute", "hermes", []),
                                      ("packaged", "uvx", ["--from", "hermes-agent", "hermes"])):
            run = launched(runs, program, name)
            profile = auto_profile_name(name, git_repo)  # bullpen-NAME-<repo hash>
            assert run["argv"][1:] == [*before, "-p", profile, "--cli"]
            assert run["env"]["HERMES_ACCEPT_HOOKS"] == "1"
            config = yaml.safe_load(
                (hermes_home / "profiles" / profile / "config.yaml").read_text())
            assert config["mcp_servers"]["bullpen"]["args"] == ["mcp"]
            assert set(config["hooks"]) >= {"pre_llm_call", "post_tool_call", "on_session_end"}
        assert launched(runs, "hermes", "enved")["env"]["X"] == "1"


@pytest.mark.slow
def test_a_session_on_the_old_profile_name_keeps_it_when_started_again(
        git_repo: Path, stand_ins: Path, hermes_home: Path) -> None:
    """Rooms made before profile names carried the repository's hash registered their
    sessions on `bullpen-<name>`: a restart (or `up`) still starts them on it."""
    with live_room(git_repo, stand_ins / "logs") as room:
        room.cli("spawn", "old", "--agent", "hermes", "--no-dashboard")
        launched(stand_ins / "runs", "hermes", "old")
        (hermes_home / "profiles" / auto_profile_name("old", git_repo)).rename(
            hermes_home / "profiles" / "bullpen-old")
        with room.db() as conn:
            conn.execute("UPDATE sessions SET profile = 'bullpen-old' WHERE name = 'old'")
            conn.commit()
        room.cli("restart", "old")
        again = wait_until(lambda: (runs := launches(stand_ins / "runs", "hermes", "old"))[1:]
                           and runs[-1], 15, message="the restart's launch")
        assert again["argv"][1:] == ["-p", "bullpen-old", "--cli"]


@pytest.mark.slow
def test_wrapped_codex_commands_start_with_bullpens_mcp_server(
        git_repo: Path, stand_ins: Path) -> None:
    runs = stand_ins / "runs"
    with live_room(git_repo, stand_ins / "logs") as room:
        room.cli("spawn", "enved", "--agent", "env X=1 codex -m o3", "--no-dashboard")
        room.cli("spawn", "packaged", "--agent", "npx @openai/codex", "--no-dashboard")
        for name, program, own in (("enved", "codex", ["-m", "o3"]),
                                   ("packaged", "npx", ["@openai/codex"])):
            argv = launched(runs, program, name)["argv"]
            assert argv[1:len(own) + 1] == own
            assert argv[len(own) + 1] == "-c" and argv[-1] == "--no-daemon"
            key, value = flag(argv, "-c").split("=", 1)
            server = tomllib.loads(f"value = {value}")["value"]
            assert key == "mcp_servers.bullpen" and server["args"] == ["mcp"]
        assert launched(runs, "codex", "enved")["env"]["X"] == "1"
