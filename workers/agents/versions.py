"""The version of the agent a session runs, asked of the agent itself (`claude --version`).

Agents ship weekly and their screens and hooks change, so bullpen records what each
session runs and says so when it cannot read it. Asking costs a process (Claude 0.2 s,
Hermes about a second), so each installed binary is asked once: the answer is kept in
`.bullpen/agent-versions.json` under the binary's path, size and modification time, and
an `up` of many sessions asks each installed agent once. Stdlib only.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

from board.patterns import lazy
from workers.agents.command_line import is_assignment, split_command

CACHE = "agent-versions.json"
TIMEOUT = 5.0  # seconds; an agent that says nothing by then has no version recorded
_VERSION = lazy(r"(?<![\d.])\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.]+)?")


def version_argv(command: str) -> list[str] | None:
    """The agent's own program with `--version`, wrappers kept (`env X=1 claude
    --version`, `npx @anthropic-ai/claude-code --version`); None when there is none."""
    line = split_command(command)
    if line is None:
        return None
    wrappers = list(line.wrappers)
    if wrappers and is_assignment(wrappers[0]):
        wrappers.insert(0, "env")  # VAR=value words need env to run without a shell
    return [*wrappers, line.program, "--version"]


def agent_version(home: Path, command: str, env: dict[str, str]) -> str | None:
    """What `command`'s agent says its version is, from the cache when its binary has
    not changed; None when it cannot say (not installed, no answer, no version in it)."""
    argv = version_argv(command)
    if argv is None:
        return None
    key = _cache_key(argv, env.get("PATH", os.environ.get("PATH", "")))
    cache = _load(home)
    if key is not None and key in cache:
        return cache[key]
    version = _ask(argv, env)
    if key is not None and version is not None:
        cache[key] = version
        _save(home, cache)
    return version


def _cache_key(argv: list[str], path: str) -> str | None:
    """The binary's identity (path, size, mtime); the command itself for a wrapper such
    as npx, whose binary is not the agent."""
    program = argv[-2]
    if len(argv) > 2 and not all(is_assignment(word) or word == "env" for word in argv[:-2]):
        return " ".join(argv)
    found = shutil.which(program, path=path)
    if found is None:
        return None
    real = os.path.realpath(found)
    try:
        stat = os.stat(real)
    except OSError:
        return None
    return f"{real}:{stat.st_size}:{int(stat.st_mtime)}"


def _ask(argv: list[str], env: dict[str, str]) -> str | None:
    """Run the probe in a process group of its own, ended whole if it does not answer
    in time (a program that does not know --version may start its UI, or children)."""
    try:
        probe = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, text=True,
                                 env={**os.environ, **env}, start_new_session=True)
    except OSError:
        return None
    try:
        stdout, stderr = probe.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(probe.pid, signal.SIGKILL)
        probe.communicate()
        return None
    found = _VERSION.search(stdout) or _VERSION.search(stderr)
    return found.group(0) if probe.returncode == 0 and found else None


def _load(home: Path) -> dict[str, str]:
    try:
        data = json.loads((home / CACHE).read_text())
    except (OSError, ValueError):
        return {}
    return {key: value for key, value in data.items() if isinstance(value, str)} \
        if isinstance(data, dict) else {}


def _save(home: Path, cache: dict[str, str]) -> None:
    temporary = home / f".{CACHE}.{os.getpid()}"
    try:
        temporary.write_text(json.dumps(cache, indent=1, sort_keys=True))
        temporary.replace(home / CACHE)  # whole or not at all, for a concurrent reader
    except OSError:
        temporary.unlink(missing_ok=True)  # a cache only: the next launch asks again
