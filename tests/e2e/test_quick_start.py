"""The README's quick start, done literally on a fresh clone: its install line puts
`bullpen` on PATH, `bullpen --version` prints, and `bullpen init` then `bullpen up --detach`
in a scratch repository start the README's minimal plan.

The install is `uv tool install .` from the clone (uv comes with the dev extras); its
downloads are kept in the test cache, so only a machine's first run fetches from PyPI.
The plan's agent (`gemini`) is a scripted stand-in put on PATH under that name.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents import scripted_agent
from tests.installs import cache_dir
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def quick_start(readme: str) -> tuple[str, str]:
    """The install line and the first (generic agents') bullpen.yaml of the quick start."""
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    shell = re.findall(r"```sh\n(.*?)```", section, re.S)[0]
    install = next(line for line in shell.splitlines() if " install " in line)
    plan = re.findall(r"```yaml\n(.*?)```", section, re.S)[0]
    return install.split("#", 1)[0].strip(), plan


def test_the_readme_quick_start_works_on_a_fresh_clone(tmp_path: Path,
                                                       git_repo: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    install, plan = quick_start((clone / "README.md").read_text())
    assert install == "uv tool install ."

    # PATH as on a fresh machine: system dirs, uv, and the tool bin dir — no test venv.
    tools = tmp_path / "tools"
    tools.mkdir()
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert uv, "uv comes with the dev extras"
    (tools / "uv").symlink_to(uv)
    agent = shlex.join([sys.executable, scripted_agent.__file__])
    (tools / "gemini").write_text(  # one log per session: the shell expands the name
        f'#!/bin/sh\nexec {agent} --log "{tmp_path}/gemini-$BULLPEN_SESSION.jsonl"\n')
    (tools / "gemini").chmod(0o755)
    bin_dir = tmp_path / "bin"
    env = {**os.environ, "PATH": f"{bin_dir}:{tools}:/usr/local/bin:/usr/bin:/bin",
           "UV_TOOL_DIR": str(tmp_path / "uv-tools"), "UV_TOOL_BIN_DIR": str(bin_dir),
           "UV_CACHE_DIR": str(cache_dir() / "uv"), "UV_PYTHON": sys.executable}
    env.pop("VIRTUAL_ENV", None)

    def sh(command: str, cwd: Path, timeout: float = 120) -> str:
        result = subprocess.run(["sh", "-c", command], cwd=cwd, env=env, text=True,
                                capture_output=True, timeout=timeout)
        assert result.returncode == 0, f"{command}: {result.stderr[-2000:]}"
        return result.stdout

    sh(install, clone, timeout=300)
    assert shutil.which("bullpen", path=env["PATH"]) == str(bin_dir / "bullpen")
    assert re.fullmatch(r"bullpen \d+\.\d+\.\d+\S*\n", sh("bullpen --version", git_repo))

    sh("bullpen init", git_repo)
    assert (git_repo / "bullpen.yaml").exists() and (git_repo / ".bullpen").is_dir()
    (git_repo / "bullpen.yaml").write_text(plan)
    try:
        sh("bullpen up --detach", git_repo)

        def sessions() -> dict[str, dict]:
            rows = json.loads(sh("bullpen ls --json", git_repo))
            return {row["name"]: row for row in rows}
        running = wait_until(lambda: (rows := sessions()).keys() == {"research", "coder"}
                             and all(row["pane"] for row in rows.values()) and rows, 20,
                             message=lambda: f"both sessions in panes: {sessions()}")
        assert all(row["status"] not in ("exited", "stopped") for row in running.values())
        log = tmp_path / "gemini-research.jsonl"
        wait_until(lambda: log.exists() and "notes/plan.md" in log.read_text(), 20,
                   message=lambda: "research was typed its task (deliver: type)")
    finally:
        sh("bullpen down", git_repo)
