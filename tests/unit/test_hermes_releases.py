"""What each Hermes release can hold of bullpen's levers, probed where it can be, and
said loudly where it cannot: the installed source decides how a launch enforces the
room's deny list (approvals.deny from 0.18, bullpen's own pre_tool_call hook on 0.17,
nothing before), the release a session runs decides its row's words, the head of the
needs-you strip and doctor's finding."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from board.models import Session
from tui.dashboard.feed import SessionRow
from tui.dashboard.needs import NeedKind, needs_you
from workers.agents import agent_files, command_policy
from workers.agents.hermes import releases
from workers.agents.hermes.adapter import HermesAdapter
from workers.agents.hermes.hooks import read_hook
from workers.agents.levers import lost_levers
from workers.room.doctor import _version


def hermes_install(tmp_path: Path, deny_list: bool, blocking_hooks: bool,
                   shebang: str | None = None) -> str:
    """A `hermes` script in a venv of its own whose source has (or lacks) the deny
    list's check and a shell hook's block directive; returns the PATH finding it."""
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    for folder in ("hermes_cli", "tools", "agent"):
        (site / folder).mkdir(parents=True)
    (site / "tools" / "approval.py").write_text(
        "# user-defined deny rules (approvals.deny in config.yaml)\n" if deny_list else "x\n")
    (site / "agent" / "shell_hooks.py").write_text(
        'if data.get("action") == "block":\n' if blocking_hooks else "pass\n")
    (venv / "bin").mkdir()
    script = venv / "bin" / "hermes"
    script.write_text((shebang or f"#!{venv}/bin/python") + "\nimport sys\n")
    script.chmod(0o755)
    return str(venv / "bin")


@pytest.mark.parametrize("deny_list, blocking, expected", [
    (True, True, releases.BOTH),  # 0.18.2, 0.19.0: the list, and the hook reading as bash
    (True, False, releases.DENY_LIST),  # a list but no blocking hook (no such release yet)
    (False, True, releases.OWN_HOOK),  # 0.17.0
    (False, False, None),  # neither: bullpen cannot stop it
])
def test_the_installed_source_decides_how_the_deny_list_is_held(
        tmp_path: Path, deny_list: bool, blocking: bool, expected: str | None) -> None:
    path = hermes_install(tmp_path, deny_list, blocking)
    assert releases.deny_mechanism("hermes", path) == expected
    assert releases.deny_mechanism(f"env X=1 {path}/hermes --yolo", "") == expected


def test_an_install_whose_source_cannot_be_found_gets_both_ways(tmp_path: Path) -> None:
    path = hermes_install(tmp_path, False, False, shebang="#!/bin/sh")
    assert releases.deny_mechanism("hermes", path) == releases.BOTH
    assert releases.deny_mechanism("hermes", str(tmp_path / "nowhere")) == releases.BOTH


@pytest.mark.parametrize("version, held, spend, resumed", [
    ("0.16.0", None, None, False), ("0.17.0", releases.OWN_HOOK, "state.db sessions", False),
    ("0.18.2", releases.BOTH, "state.db sessions", False),
    ("0.19.0", releases.BOTH, "state.db session_model_usage", True),
    ("0.21.3", releases.BOTH, "state.db session_model_usage", True),
])
def test_each_release_declares_the_promises_it_keeps(version: str, held: str | None,
                                                     spend: str | None, resumed: bool) -> None:
    found = HermesAdapter().capabilities("hermes", version)
    assert (found.deny, found.spend, found.resume_context) == (held, spend, resumed)
    assert found.notes_at_turn
    assert lost_levers("hermes", version) == (() if held else ("deny not enforced",))


def test_a_version_not_known_yet_claims_no_lost_lever() -> None:
    assert lost_levers("hermes", None) == ()
    assert lost_levers("claude", "9.9.9") == ()


def _session(version: str | None, agent: str = "hermes") -> Session:
    return Session(name="shipper", agent=agent, profile=None, branch=None, worktree=None,
                   pane=None, desired="running", status="idle", exit_code=None, task=None,
                   base=None, hook_status=None, hook_status_at=None, last_activity=None,
                   created_at=1.0, agent_version=version)


def test_deny_not_enforced_heads_the_needs_you_strip() -> None:
    row = SessionRow(_session("0.16.0"), 0, levers=lost_levers("hermes", "0.16.0"),
                     over_budget="1k tok of this session's 100 tokens budget")
    blind = SessionRow(_session(None), 0, budget_blind="cannot enforce this session's 100"
                       " tokens budget: its spend is unreadable (hermes 0.16.0's state.db)")
    needs = needs_you([row, blind], [], [], [], coordinator="store not writable")
    assert [(n.kind, n.text) for n in needs[:2]] == [
        (NeedKind.LEVER, "shipper: deny not enforced"),
        (NeedKind.LEVER, "shipper: cannot enforce this session's 100 tokens budget: its"
                         " spend is unreadable (hermes 0.16.0's state.db)")]
    assert [n.kind for n in needs[2:]] == [NeedKind.COORDINATOR, NeedKind.BUDGET]


def test_doctor_is_not_ok_for_a_release_that_cannot_hold_the_deny_list() -> None:
    found = _version(_session("0.16.0"), HermesAdapter())
    assert [(f.ok, f.what) for f in found] == [
        (False, "shipper: hermes 0.16.0 is not a tested release; nearest tested: 0.17.0"
                " (the room's deny: rests on bullpen's pre_tool_call hook alone (0.17 ignores"
                " approvals.deny): a hook that fails or passes its 10 s timeout lets the"
                " command run): deny not enforced; it does not keep: hook context across"
                " resume (bullpen hands those notes again)")]
    assert found[0].fix
    assert [(f.ok, f.what) for f in _version(_session("0.17.0"), HermesAdapter())] == [
        (False, "shipper: hermes 0.17.0 (a tested release; known not to work: the room's deny:"
                " rests on bullpen's pre_tool_call hook alone (0.17 ignores approvals.deny):"
                " a hook that fails or passes its 10 s timeout lets the command run); it does"
                " not keep: hook context across resume (bullpen hands those notes again)")]
    assert [(f.ok, f.what) for f in _version(_session("0.19.0"), HermesAdapter())] == [
        (True, "shipper: hermes 0.19.0 (a tested release)")]


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    home = tmp_path / "room"
    agent_files.write_value(home, "shipper", agent_files.MAIN_TURN, "t1 open")
    command_policy.store(home, "shipper", command_policy.patterns(["npm publish*"]))
    return home


def _before(command: str, tool: str = "terminal") -> dict:
    return {"hook_event_name": "pre_tool_call", "tool_name": tool,
            "tool_input": {"command": command}, "session_id": "s", "cwd": "/", "extra": {}}


@pytest.mark.parametrize("command", [
    "touch published.flag && npm publish --tag next", "npm  publish", "env CI=1 npm publish",
    "bash -c 'cd pkg; npm publish'", "sudo npm publish", "git push --force origin main",
    "git push -f origin main",
])
def test_bullpens_own_pre_tool_call_hook_blocks_what_the_room_denies(
        stored: Path, command: str) -> None:
    call = read_hook(_before(command), stored, "shipper")
    assert call.denied is not None and call.refuse
    reply = HermesAdapter().deny_reply(call.denied)
    # The model is told why, in the words of the rule that refused it (the room's pattern
    # or the floor's rule).
    assert reply == {"decision": "block", "reason": call.denied.reason()}
    assert reply["reason"].startswith(("bullpen room policy", "bullpen's floor refuses"))


@pytest.mark.parametrize("payload", [_before("npm test"), _before("npm publish", "read_file"),
                                     {**_before("x"), "tool_input": "npm publish"}])
def test_other_calls_pass_the_pre_tool_call_hook(stored: Path, payload: dict) -> None:
    call = read_hook(payload, stored, "shipper")
    assert call.denied is None and not call.refuse


def test_up_says_in_one_line_that_a_release_with_neither_way_cannot_be_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workers.room import config, policy_check

    (tmp_path / "bullpen.yaml").write_text(yaml.safe_dump(
        {"agent": "hermes", "sessions": {"shipper": {}, "coder": {"agent": "claude"}}}))
    plan = config.load(tmp_path)
    monkeypatch.setenv("PATH", hermes_install(tmp_path, deny_list=False, blocking_hooks=False))
    lines = policy_check.release_gaps(plan)
    assert len(lines) == 1 and lines[0].startswith(
        "warning: shipper: deny not enforced: the installed release"), lines
    monkeypatch.setenv("PATH", hermes_install(tmp_path / "0.17", False, blocking_hooks=True))
    assert policy_check.release_gaps(plan) == []
