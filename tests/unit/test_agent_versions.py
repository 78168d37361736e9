"""Asking an agent its version: the command asked, and once per installed binary."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.processes import run_state
from tests.waiting import wait_until
from workers.agents import versions
from workers.agents.versions import agent_version, version_argv


def test_the_version_is_asked_of_the_agent_program_with_its_wrappers() -> None:
    assert version_argv("claude --dangerously-skip-permissions") == ["claude", "--version"]
    assert version_argv("IS_SANDBOX=1 claude --model m") == [
        "env", "IS_SANDBOX=1", "claude", "--version"]
    assert version_argv("npx @anthropic-ai/claude-code") == [
        "npx", "@anthropic-ai/claude-code", "--version"]
    assert version_argv("") is None


def _program(bin_dir: Path, says: str) -> Path:
    program = bin_dir / "agent"
    program.write_text(f"#!/bin/sh\necho x >> {bin_dir}/asked\necho '{says}'\n")
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    return program


def test_each_installed_binary_is_asked_once(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _program(bin_dir, "2.1.332 (Claude Code)")
    env = {"PATH": str(bin_dir)}
    assert agent_version(tmp_path, "agent --flag", env) == "2.1.332"
    assert agent_version(tmp_path, "agent", env) == "2.1.332"
    assert (bin_dir / "asked").read_text().count("x") == 1  # the second came from the cache
    _program(bin_dir, "hermes-agent v0.20.1 — build 7")  # a new install: asked again
    assert agent_version(tmp_path, "agent", env) == "0.20.1"
    assert (bin_dir / "asked").read_text().count("x") == 2


def test_an_agent_that_says_no_version_is_none(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _program(bin_dir, "no version here")
    assert agent_version(tmp_path, "agent", {"PATH": str(bin_dir)}) is None
    assert agent_version(tmp_path, "missing-agent", {"PATH": str(bin_dir)}) is None


def test_a_program_that_does_not_answer_is_ended_with_its_children(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "agent"
    # The child lets go of the probe's pipes: only ending the whole group ends it.
    program.write_text(f"#!/bin/sh\ntrap '' TERM HUP\nsleep 60 >/dev/null 2>&1 &\n"
                       f"echo $! > {tmp_path}/child\nwait\n")
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    # Time enough for the shell to start its child under a loaded suite: the probe must
    # time out with that child running, or there is nothing to see ended.
    monkeypatch.setattr(versions, "TIMEOUT", 2.0)
    assert agent_version(tmp_path, "agent", {"PATH": f"{bin_dir}:/usr/bin:/bin"}) is None
    assert (tmp_path / "child").exists(), "the program had not started its child in time"
    child = int((tmp_path / "child").read_text())

    # SIGKILL lands a moment after kill() returns; a zombie (Z) or a gone process (?) ended
    wait_until(lambda: run_state(child) in ("Z", "?"), 5,
               message=f"the program's child {child} ended with its group")
