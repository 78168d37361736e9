"""The version spread (workers/agents/spread.toml): the releases bullpen supports, read
by the adapters, doctor, the tests' lanes and docs/agents.md's compatibility table."""

from __future__ import annotations

from pathlib import Path

import pytest

from board.models import Session
from board.vocabulary import DesiredState, SessionStatus
from tests import claude_install, codex_install, hermes_install, spread_run
from tests.installs import SPREAD_VARIABLE, Lane, lane_version, spread_release
from tests.spread_table import DOC, table, table_in
from workers.agents import spread
from workers.agents.claude.adapter import ClaudeAdapter
from workers.agents.codex.adapter import CodexAdapter
from workers.agents.hermes.adapter import HermesAdapter
from workers.agents.kinds import adapter_for
from workers.room import doctor
from workers.room.spread_finding import spread_finding

# The releases users commonly have, which the spread must keep listing (issue 33).
COMMON = {"claude": ("2.1.197", "2.1.250", "2.1.300"), "codex": ("0.160.0", "0.165.0"),
          "hermes": ("0.17.0", "0.18.2")}


def test_the_compatibility_table_in_the_docs_is_the_one_the_spread_makes() -> None:
    shown = table_in(DOC.read_text())
    assert shown is not None, "docs/agents.md has no compatibility table"
    assert shown == table(spread.listed()), "run ./dev spread, or write the table again"


def test_the_spread_lists_the_pins_the_newest_and_the_releases_users_have() -> None:
    listed = spread.listed()
    for kind, common in COMMON.items():
        versions = listed[kind].versions()
        assert set(common) <= set(versions), kind
        assert listed[kind].pinned in versions and listed[kind].newest in versions


def test_each_adapter_says_the_listed_releases_are_its_tested_ones() -> None:
    for adapter in (ClaudeAdapter, CodexAdapter, HermesAdapter):
        assert adapter.tested_versions == spread.versions(adapter.kind)
        assert adapter().tested_versions == adapter.tested_versions
        assert adapter.tested_versions[-1] == spread.listed()[adapter.kind].newest
    assert adapter_for("bash").tested_versions == ()  # a kind the spread does not list


def test_the_tests_lanes_run_the_spreads_pins() -> None:
    listed = spread.listed()
    assert listed["claude"].pinned == claude_install.CLAUDE_VERSION
    assert listed["codex"].pinned == codex_install.CODEX_VERSION
    assert listed["hermes"].pinned == hermes_install.HERMES_VERSION


def test_a_spread_run_puts_its_release_in_the_pinned_lane_and_skips_the_newest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SPREAD_VARIABLE, "claude=2.1.250")
    assert spread_release("claude") == "2.1.250" and spread_release("codex") is None
    assert lane_version(Lane.PINNED, "claude", "2.1.332", "Claude Code") == "2.1.250"
    assert lane_version(Lane.PINNED, "codex", "0.171.0", "Codex") == "0.171.0"
    with pytest.raises(pytest.skip.Exception):
        lane_version(Lane.NEWEST, "claude", "2.1.400", "Claude Code")


def test_doctor_says_a_listed_release_without_gaps_is_ok() -> None:
    found = spread_finding("coder: claude 2.1.300", "claude", "2.1.300")
    assert found.ok and "tested release" in found.what


def test_doctor_warns_of_a_release_outside_the_spread_naming_the_nearest_and_their_gaps(
        ) -> None:
    found = spread_finding("coder: claude 2.1.310", "claude", "2.1.310")
    assert not found.ok
    assert "not a tested release" in found.what and "untested" not in found.what
    assert "2.1.300 (no known gaps)" in found.what and "2.1.332" in found.what
    assert found.fix is not None and "2.1.332" in found.fix
    older = spread_finding("h: hermes 0.16.0", "hermes", "0.16.0")
    assert not older.ok and "0.17.0 (the room's deny: rests on" in older.what  # its gaps
    assert "0.18.2" not in older.what  # only the nearest listed ones


def test_doctor_names_the_known_gaps_of_a_listed_release() -> None:
    listed = spread.release("hermes", "0.17.0")
    assert listed is not None and listed.gaps
    found = spread_finding("h: hermes 0.17.0", "hermes", "0.17.0")
    assert not found.ok and "a tested release; known not to work" in found.what
    assert all(gap in found.what for gap in listed.gaps)
    assert found.fix is not None and "0.19.0" in found.fix


def test_doctor_never_says_ok_for_a_release_nothing_has_run() -> None:
    session = Session("coder", "claude", None, None, None, "%1", DesiredState.RUNNING,
                      SessionStatus.IDLE, None, None, None, None, None, None, 0.0,
                      agent_version="2.1.301")
    (found,) = doctor._version(session, adapter_for("claude"))
    assert not found.ok and "nearest tested: 2.1.300" in found.what


@pytest.mark.parametrize("bad, said", [
    ('[claude]\npackage="p"\nregistry="npm"\npinned="2"\nnewest="2"\n'
     '[[claude.releases]]\nversion="2"\n[[claude.releases]]\nversion="1"\n', "oldest first"),
    ('[claude]\npackage="p"\nregistry="npm"\npinned="3"\nnewest="2"\n'
     '[[claude.releases]]\nversion="2"\n', "3 is not listed"),
    ('[claude]\nregistry="npm"\n', "package"),
    ("[claude\n", "spread.toml"),
])
def test_a_spread_file_that_says_something_wrong_is_refused_naming_it(
        tmp_path: Path, bad: str, said: str) -> None:
    path = tmp_path / "spread.toml"
    path.write_text(bad)
    with pytest.raises(spread.SpreadError, match=said):
        spread.load(path)


def test_the_spread_ships_with_the_package() -> None:
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"agents/spread.toml"' in text and spread.DATA.is_file()


def test_a_spread_run_rewrites_only_its_releases_result_line(tmp_path: Path) -> None:
    copy = tmp_path / "spread.toml"
    copy.write_text(spread.DATA.read_text())
    spread_run.record("claude", "2.1.250", "1 passed on 2026-12-04 (80 s)", copy)
    after = spread.load(copy)
    assert spread.release("claude", "2.1.250") is not None
    assert after["claude"].releases[1].spread == "1 passed on 2026-12-04 (80 s)"
    before = spread.load(spread.DATA)
    assert [r for a in after.values() for r in a.releases if r.version != "2.1.250"] == \
        [r for a in before.values() for r in a.releases if r.version != "2.1.250"]


def test_a_spread_run_says_what_its_junit_report_holds(tmp_path: Path) -> None:
    report = tmp_path / "r.xml"
    report.write_text('<testsuites><testsuite><testcase name="test_a[claude-pinned]">'
                      '<failure message="AssertionError: assert &quot;x&quot; | y\nmore">'
                      'def test_a():\n&gt;       assert "x" in y\nE   AssertionError</failure>'
                      '</testcase></testsuite></testsuites>')
    said = spread_run.verdict(report)
    assert said.startswith("failed on ")
    assert "test_a: assert 'x' in y (AssertionError: assert 'x' / y" in said
    report.write_text('<testsuites><testsuite><testcase name="t"/></testsuite></testsuites>')
    assert " passed on " in spread_run.verdict(report)
    assert "no report" in spread_run.verdict(tmp_path / "none.xml")
