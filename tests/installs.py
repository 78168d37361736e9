"""Where the real agents the tests run are installed, and installing npm ones.

Installs live outside the checkout and each test's HOME (a fresh temp dir), under
`$BULLPEN_TEST_CACHE`, else /tmp/bullpen-test-cache, so they survive between runs on one
machine. A test that needs one is skipped, with the reason, only when it cannot be had.

Each real agent runs in two lanes: the version the tests pin, and the newest the
registry has when the tests run, so a release that changes the agent's screen or hooks
fails the suite the day users can install it.
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import shutil
import subprocess
import sys
from enum import StrEnum
from pathlib import Path

import pytest

from workers.agents import spread

SPREAD_VARIABLE = "BULLPEN_TEST_RELEASE"  # kind=version: ./dev spread's one release


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


class Lane(StrEnum):
    """Which release of a real agent a test runs: the one the tests pin, or the newest
    the registry has at test time (what a new user installs today)."""

    PINNED = "pinned"
    NEWEST = "newest"


LANES = tuple(Lane)


@functools.cache
def newest_npm_version(package: str) -> str:
    """The newest version of `package` on the npm registry; skips, naming why, when npm
    cannot say (a skip is reported as one, never as a pass)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"cannot ask npm for the newest {package}: npm is not installed")
    try:
        done = subprocess.run([npm, "view", package, "version"], capture_output=True,
                              text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"cannot ask npm for the newest {package}: {error}")
    version = done.stdout.strip()
    if done.returncode != 0 or not re.fullmatch(r"\d+\.\d+\.\d+\S*", version):
        last = (done.stderr.strip().splitlines() or ["no answer"])[-1]
        pytest.skip(f"cannot ask npm for the newest {package}: {last}")
    return version


@functools.cache
def newest_pypi_version(package: str) -> str:
    """The newest version of `package` on PyPI (through pip); skips, naming why, when
    pip cannot say."""
    try:
        done = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package],
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"cannot ask PyPI for the newest {package}: {error}")
    found = re.search(rf"^{re.escape(package)} \(([^)]+)\)", done.stdout, re.MULTILINE)
    if done.returncode != 0 or found is None:
        last = (done.stderr.strip().splitlines() or ["no answer"])[-1]
        pytest.skip(f"cannot ask PyPI for the newest {package}: {last}")
    return found.group(1)


def pinned_version(kind: str) -> str:
    """The release of `kind` the tests pin: the version spread's (workers/agents/spread.toml)."""
    return spread.listed()[kind].pinned


def spread_release(kind: str) -> str | None:
    """The release of `kind` a `./dev spread` run asks for in place of the pinned one
    (`BULLPEN_TEST_RELEASE=claude=2.1.250`), None in every other run."""
    asked, _, version = os.environ.get(SPREAD_VARIABLE, "").partition("=")
    return version if asked == kind and version else None


def lane_version(lane: Lane, kind: str, newest: str, label: str) -> str:
    """The version `lane` runs. The newest lane is skipped, saying so, when the newest
    release is the pinned one: the pinned lane already runs it. In a `./dev spread` run
    the pinned lane runs the release asked for and the newest lane is skipped."""
    pinned = spread_release(kind) or pinned_version(kind)
    if spread_release(kind) and lane == Lane.NEWEST:
        pytest.skip(f"this spread run runs {label} {pinned} in the pinned lane only")
    if lane == Lane.PINNED:
        return pinned
    if newest == pinned:
        pytest.skip(f"{label}'s newest release is the pinned {pinned}; the pinned lane"
                    " runs it")
    return newest
