"""The hermes-agent the tests run: one cached venv holding hermes-agent[mcp] and bullpen.

The venv lives outside the checkout, under `$BULLPEN_TEST_CACHE` (else
/tmp/bullpen-test-cache), one per checkout and pyproject.toml, and is kept between runs.
It is made with uv (a dev extra) when uv is there: from uv's cache, also kept there,
that takes ~10 s where pip took 1-2 min, so a fresh clone does not pay for hermes-agent
again. pip is the fallback. A test that needs the venv is skipped, with the reason, only
when it cannot be had; bullpen and hermes failing to resolve together is our bug and
fails instead.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.installs import Lane, cache_dir, lane_version, newest_pypi_version, pinned_version

HERMES_VERSION = pinned_version("hermes")  # newest lane: PyPI, at test time
ROOT = Path(__file__).resolve().parents[1]
# What each installer prints when the two cannot share a venv.
RESOLUTION_FAILED = ("ResolutionImpossible", "No solution found when resolving")


def hermes_version(lane: Lane) -> str:
    """The hermes-agent version `lane` runs."""
    return lane_version(lane, "hermes", newest_pypi_version("hermes-agent"),
                        "hermes-agent")


def install_beside_hermes(version: str = HERMES_VERSION) -> Path:
    """The `bin` directory of one venv holding hermes-agent[mcp] *and* this checkout's
    bullpen, resolved together (hermes pins mcp 1.26; bullpen accepts it)."""
    stamp = hashlib.sha256(str(ROOT).encode() + (ROOT / "pyproject.toml").read_bytes())
    venv = cache_dir() / f"hermes-bullpen-{version}-{stamp.hexdigest()[:12]}"
    marker = venv / ".bullpen-installed"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs never install at once
        if not marker.exists():
            wanted = [f"hermes-agent[mcp]=={version}", "-e", str(ROOT)]
            if not _with_uv(venv, wanted):
                _run([sys.executable, "-m", "venv", "--clear", str(venv)], version)
                _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *wanted],
                     version)
            marker.write_text(version)
    return venv / "bin"


def offline_hermes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base_url: str,
                   version: str = HERMES_VERSION) -> tuple[Path, Path]:
    """(the venv's bin, the Hermes root) for a real hermes `version` run offline against
    the scripted chat-completions server at `base_url` (DESIGN.md "Driving a real hermes
    offline"): its venv first on PATH, HERMES_HOME a fresh root holding the custom model
    with an explicit context length, tirith off and the update check answered."""
    import yaml

    bin_dir = install_beside_hermes(version)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    root = tmp_path / "hermes-home"
    root.mkdir(mode=0o700)
    monkeypatch.setenv("HERMES_HOME", str(root))
    (root / ".update_check").write_text(json.dumps({"ts": 4102444800, "latest": version}))
    (root / "config.yaml").write_text(yaml.safe_dump({
        "model": {"provider": "custom", "base_url": base_url, "default": "stub-model",
                  "context_length": 131072},
        "security": {"tirith_enabled": False}}))
    return bin_dir, root


def _with_uv(venv: Path, wanted: list[str]) -> bool:
    """Make the venv with uv; False (pip's turn) when uv is missing or fails to fetch."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        return False
    env = {**os.environ, "UV_CACHE_DIR": str(cache_dir() / "uv")}
    for step in ([uv, "venv", "-q", "--clear", "--python", sys.executable, str(venv)],
                 [uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"),
                  *wanted]):
        if _run(step, env=env, may_fail=True) is False:
            return False
    return True


def _run(step: list[str], version: str = HERMES_VERSION, env: dict[str, str] | None = None,
         may_fail: bool = False) -> bool:
    try:
        done = subprocess.run(step, capture_output=True, text=True, timeout=900, env=env)
    except (OSError, subprocess.TimeoutExpired) as error:
        if may_fail:
            return False
        pytest.skip(f"cannot install bullpen beside hermes-agent {version}: {error}")
    if done.returncode != 0 and any(text in done.stderr for text in RESOLUTION_FAILED):
        pytest.fail("bullpen and hermes-agent[mcp] cannot share a venv:\n"
                    + done.stderr[-2000:])  # our bug, never a skip
    if done.returncode != 0:
        if may_fail:
            return False
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"cannot install bullpen beside hermes-agent {version}: {last}")
    return True
