"""Where the real agents the tests run are installed, and installing npm ones.

Installs live outside the checkout and each test's HOME (a fresh temp dir), under
`$BULLPEN_TEST_CACHE`, else /tmp/bullpen-test-cache, so they survive between runs on one
machine. A test that needs one is skipped, with the reason, only when it cannot be had.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest


def cache_dir() -> Path:
    """The cache every real-agent install lives in."""
    return Path(os.environ.get("BULLPEN_TEST_CACHE") or "/tmp/bullpen-test-cache")


def install_npm_cli(package: str, version: str, command: str, label: str) -> Path:
    """The directory holding `command` from npm's `package@version`, installed once into
    the cache (two test runs never install at once); skips naming `label` if it cannot."""
    prefix = cache_dir() / f"{package.rpartition('/')[2]}-{version}"
    binary = prefix / "node_modules" / ".bin" / command
    marker = prefix / ".bullpen-installed"
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix.parent / f".{command}-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            npm = shutil.which("npm")
            if npm is None:
                pytest.skip(f"cannot install {label}: npm is not installed")
            step = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                    "--loglevel=error", f"{package}@{version}"]
            try:
                done = subprocess.run(step, capture_output=True, text=True, timeout=600)
            except (OSError, subprocess.TimeoutExpired) as error:
                pytest.skip(f"cannot install {label} {version}: {error}")
            if done.returncode != 0 or not binary.exists():
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                pytest.skip(f"cannot install {label} {version}: {last}")
            marker.write_text(version)
    return binary.parent
