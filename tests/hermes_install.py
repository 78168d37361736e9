"""The hermes-agent the tests run: installed once into a cached venv, shared by test runs.

The venv lives outside each test's HOME (a fresh temp dir) so it survives between runs:
under `$BULLPEN_TEST_CACHE`, else /tmp/bullpen-test-cache. A test that needs it is
skipped, with the reason, only when the install fails.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERMES_VERSION = "0.19.0"


def cache_dir() -> Path:
    """Outside the test's HOME (a fresh temp dir), so the venv survives between runs."""
    return Path(os.environ.get("BULLPEN_TEST_CACHE") or "/tmp/bullpen-test-cache")


def install_hermes() -> Path:
    """The `bin` directory of a venv holding hermes-agent[mcp]; skips if it cannot be had."""
    venv = cache_dir() / f"hermes-venv-{HERMES_VERSION}"
    marker = venv / ".bullpen-installed"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".hermes-{HERMES_VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs never install at once
        if not marker.exists():
            steps = [[sys.executable, "-m", "venv", "--clear", str(venv)],
                     [str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                      f"hermes-agent[mcp]=={HERMES_VERSION}"]]
            for step in steps:
                try:
                    done = subprocess.run(step, capture_output=True, text=True, timeout=900)
                except (OSError, subprocess.TimeoutExpired) as error:
                    pytest.skip(f"cannot install hermes-agent {HERMES_VERSION}: {error}")
                if done.returncode != 0:
                    last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                    pytest.skip(f"cannot install hermes-agent {HERMES_VERSION}: {last}")
            marker.write_text(HERMES_VERSION)
    return venv / "bin"


def install_beside_hermes() -> Path:
    """The `bin` directory of one venv holding hermes-agent[mcp] *and* this checkout's
    bullpen, resolved together by pip (hermes pins mcp 1.26; bullpen accepts it). Made
    once per checkout and pyproject.toml, then reused; skips if it cannot be had."""
    root = Path(__file__).resolve().parents[1]
    stamp = hashlib.sha256(str(root).encode() + (root / "pyproject.toml").read_bytes())
    venv = cache_dir() / f"hermes-bullpen-{HERMES_VERSION}-{stamp.hexdigest()[:12]}"
    marker = venv / ".bullpen-installed"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            steps = [[sys.executable, "-m", "venv", "--clear", str(venv)],
                     [str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                      f"hermes-agent[mcp]=={HERMES_VERSION}", "-e", str(root)]]
            for step in steps:
                try:
                    done = subprocess.run(step, capture_output=True, text=True, timeout=900)
                except (OSError, subprocess.TimeoutExpired) as error:
                    pytest.skip(f"cannot install bullpen beside hermes-agent: {error}")
                if done.returncode != 0 and "ResolutionImpossible" in done.stderr:
                    pytest.fail("bullpen and hermes-agent[mcp] cannot share a venv:\n"
                                + done.stderr[-2000:])  # our bug, never a skip
                if done.returncode != 0:
                    last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                    pytest.skip(f"cannot install bullpen beside hermes-agent: {last}")
            marker.write_text(HERMES_VERSION)
    return venv / "bin"
