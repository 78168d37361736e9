"""`bullpen task graph`: the plan from parents to children, as the dashboard's graph view
shows it; ASCII connectors when the output is not a terminal (a pipe, a file, CI)."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from tests.cli_runner import BULLPEN, run_cli


def _plan(repo: Path) -> None:
    for args in (["Gather the usage data"], ["Implement /usage", "--after", "1"],
                 ["Review the commit", "--after", "2"], ["Unrelated chore"]):
        result = run_cli("task", "add", *args, cwd=repo)
        assert result.returncode == 0, result.stderr


def test_graph_prints_ascii_into_a_pipe(git_repo: Path) -> None:
    _plan(git_repo)
    result = run_cli("task", "graph", cwd=git_repo)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "#1 Gather the usage data [ready]",
        "`-> #2 Implement /usage [todo]",
        "    `-> #3 Review the commit [todo]",
        "#4 Unrelated chore [ready]",
    ]


def test_graph_draws_lines_on_a_terminal(git_repo: Path) -> None:
    _plan(git_repo)
    main, child = pty.openpty()
    process = subprocess.Popen([BULLPEN, "task", "graph"], cwd=git_repo, stdout=child,
                               stderr=subprocess.PIPE, env=os.environ.copy())
    os.close(child)
    output = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(main)
    assert process.wait(timeout=30) == 0
    text = output.decode().replace("\r\n", "\n")
    assert "└─▶ #2 Implement /usage [todo]" in text
    assert "    └─▶ #3 Review the commit [todo]" in text


def test_graph_of_an_empty_board_says_how_to_start(git_repo: Path) -> None:
    run_cli("init", cwd=git_repo)
    result = run_cli("task", "graph", cwd=git_repo)
    assert (result.returncode, result.stdout) == (0, "")
    assert "bullpen task add" in result.stderr
