"""The scripts a land.check command runs (a branch rewriting one changes the check), and
not the files it only reads, tests, or redirects to."""

from __future__ import annotations

import pytest

from workers.room.check_words import scripts_run


@pytest.mark.parametrize(("check", "scripts"), [
    ("sh check.sh", {"sh", "check.sh"}),
    ("./ci/check --fast; FOO=1 bash -e scripts/t.sh x", {"ci/check", "bash", "scripts/t.sh"}),
    ("make -f ci.mk check", {"make", "ci.mk"}),
    ("sh check.sh 2>&1 | tee log", {"sh", "check.sh", "tee"}),
    ("python3 ci.py && node tools/lint.js", {"python3", "ci.py", "node", "tools/lint.js"}),
])
def test_each_command_and_each_interpreters_script_count(check: str, scripts: set) -> None:
    assert scripts_run(check) == scripts


@pytest.mark.parametrize("check", ["grep -q v2 src/app.py", "echo $$ > x.pid; read line < gate",
                                   "/usr/bin/true", "../outside.sh", "sh 'unclosed"])
def test_files_read_redirected_or_outside_the_repository_do_not(check: str) -> None:
    assert scripts_run(check) & {"src/app.py", "x.pid", "gate", "/usr/bin/true",
                                 "../outside.sh", "unclosed"} == set()
