"""A bullpen.yaml over 1 MB is refused before any of it is parsed: one line naming the
file and the limit, exit 2, nothing started, for every command that loads it. A 50 MB
file kept `up` busy past 60 s; the same attack made of what is not a regular file (a
FIFO, /dev/zero) or a file whose size says nothing (/proc) may not keep it reading."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from board import sessions
from board.room import Room
from tests.cli_runner import run_cli
from workers.coordinator.lock import is_running
from workers.room import config

LIMIT = "over the 1 MB a bullpen.yaml may be"
# Every command that reads bullpen.yaml: up, doctor, spawn (its agent), land (its check).
LOADERS = (("up", "--detach"), ("doctor",), ("doctor", "--json"), ("spawn", "x", "--agent",
           "sh"), ("land", "bob"))


def big_plan(path: Path, megabytes: int) -> None:
    """Valid YAML, sessions and all, of `megabytes` MB (PyYAML: seconds per MB)."""
    entry = "  s{}:\n    agent: sh\n    task: \"" + "x" * 200 + "\"\n"
    with path.open("w") as out:
        out.write("sessions:\n")
        written, index = 0, 0
        while written < megabytes * 1024 * 1024:
            written += out.write(entry.format(index))
            index += 1


def refused_in_one_line(result, git_repo: Path) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("bullpen: bullpen.yaml:"), result.stderr


def test_a_50_mb_bullpen_yaml_is_refused_at_once_by_every_command_that_loads_it(
        room: Room, git_repo: Path) -> None:
    sessions.register(room.conn, "bob")
    path = git_repo / config.CONFIG_NAME
    big_plan(path, 50)
    started = time.perf_counter()
    with pytest.raises(config.RefusedFile, match=f"50 MB, {LIMIT}"):
        config.load(git_repo)
    assert time.perf_counter() - started < 0.1  # stat, no read: not seconds of parsing
    for command in LOADERS:
        result = run_cli(*command, cwd=git_repo, timeout=20)
        refused_in_one_line(result, git_repo)
        assert LIMIT in result.stderr, (command, result.stderr)
    assert not is_running(room.home)  # up started nothing
    assert [s.name for s in sessions.all_sessions(room.conn)] == ["bob"]  # spawn made none
    assert run_cli("ls", cwd=git_repo).returncode == 0  # ls does not read it at all


def test_the_limit_itself_is_read_and_one_byte_more_is_not(git_repo: Path) -> None:
    path = git_repo / config.CONFIG_NAME
    head = "agent: sh\n"
    path.write_text(head + "#" * (config.MAX_BYTES - len(head) - 1) + "\n")
    assert path.stat().st_size == config.MAX_BYTES
    assert config.load(git_repo).agent == "sh"
    with path.open("a") as out:
        out.write("#")
    with pytest.raises(config.RefusedFile, match=f"1,048,577 bytes, {LIMIT}"):
        config.load(git_repo)


def test_no_regular_file_keeps_a_command_reading(git_repo: Path) -> None:
    path = git_repo / config.CONFIG_NAME
    os.mkfifo(path)  # opening it would wait for a writer forever
    result = run_cli("up", "--detach", cwd=git_repo, timeout=20)
    refused_in_one_line(result, git_repo)
    assert "not a regular file" in result.stderr
    path.unlink()
    path.symlink_to("/dev/zero")  # endless
    result = run_cli("doctor", cwd=git_repo, timeout=20)
    refused_in_one_line(result, git_repo)
    assert "not a regular file" in result.stderr


def test_a_file_whose_size_says_nothing_is_read_only_to_the_limit(git_repo: Path) -> None:
    source = Path("/proc/kallsyms")  # a regular file of size 0 that reads for megabytes
    try:
        with source.open() as probe:
            readable = len(probe.read(config.MAX_BYTES + 1)) > config.MAX_BYTES
    except OSError:
        readable = False
    if not readable:
        pytest.skip("no /proc/kallsyms of over 1 MB here")
    (git_repo / config.CONFIG_NAME).symlink_to(source)
    with pytest.raises(config.RefusedFile, match=LIMIT):
        config.load(git_repo)
