"""Two machines, one room: two clones of one bare repository, each with its own room home,
tmux server and coordinator, one PostgreSQL database. The promises hold across them."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from board import machines
from tests.conftest import commit_file
from tests.e2e.conftest import Plan
from tests.machines import join_machine, make_bare_origin
from tests.pg_cluster import PgCluster
from tests.rooms import live_room
from tests.waiting import wait_until
from workers.room.control import RoomControl

pytestmark = pytest.mark.slow


@pytest.fixture
def alpha_beta(tmp_path: Path, pg_cluster: PgCluster) -> Iterator[tuple[Plan, Plan]]:
    database = pg_cluster.new_database()
    url = pg_cluster.url(database)
    origin = make_bare_origin(tmp_path)
    a = join_machine(origin, tmp_path / "alpha", "alpha", url)
    b = join_machine(origin, tmp_path / "beta", "beta", url)
    with live_room(a.repo, tmp_path / "logs-a") as live_a, \
            live_room(b.repo, tmp_path / "logs-b") as live_b:
        yield Plan(live_a), Plan(live_b)
    pg_cluster.drop_database(database)


def test_notes_handoffs_alerts_and_privacy_cross_machines(alpha_beta) -> None:
    on_a, on_b = alpha_beta
    on_a.write({"research": {}}, {})
    on_b.write({"coder": {}}, {})
    on_a.up()
    on_b.up()
    sessions_seen_by_b = on_b.live.sessions()
    assert sessions_seen_by_b["research"]["machine"] == "alpha"
    assert sessions_seen_by_b["coder"]["machine"] == "beta"

    # A note from a session on alpha is typed into a session on beta.
    sent = on_a.cli_as("research", "note", "send", "coder", "schema", "is", "in")
    on_b.live.wait_for_line("coder", f"[note #{sent['id']} from research] schema is in")
    # alpha's dashboard previews beta's pane from the capture beta's coordinator stored.
    preview = wait_until(lambda: (text := RoomControl(on_a.live.home).capture("coder"))
                         and "schema is in" in text and text, 15,
                         message="beta's capture of coder's pane")
    assert preview.startswith("coder runs on machine beta (capture ")

    # Research on alpha hands its task to the coder on beta.
    research = on_a.cli_as("research", "task", "add", "gather usage", "--assign", "research")
    code = json.loads(on_a.live.cli("task", "add", "build endpoint", "--assign", "coder",
                                    "--after", str(research["id"]), "--json").stdout)
    code_id = code["id"]
    as_research = on_a.as_session("research")
    on_a.live.cli("task", "claim", str(research["id"]), env=as_research)
    on_a.live.cli("task", "done", str(research["id"]), "--summary", "peak at noon",
                  env=as_research)
    handoff = on_b.live.wait_for_line("coder", f"#{code_id}", timeout=20)
    assert "peak at noon" in handoff

    # A file read on beta and changed on alpha alerts the reader (repo-relative paths).
    on_b.live.cli("read", "src/app.py", env=on_b.as_session("coder"))
    (on_a.worktree("research") / "src" / "app.py").write_text("def handler():\n    return 2\n")
    alert = on_b.live.wait_for_line("coder", "[change alert]", timeout=20)
    assert "src/app.py changed by session research" in alert

    # A private entry written on alpha stays private on beta.
    on_a.live.cli("notebook", "write", "shared: usage peaks at noon", env=as_research)
    on_a.live.cli("notebook", "write", "hunch: it is a bot", "--private", env=as_research)
    read_on_b = on_b.cli_as("coder", "notebook", "read", "research")
    assert [entry["body"] for entry in read_on_b] == ["shared: usage peaks at noon"]
    assert on_b.cli_as("coder", "notebook", "search", "bot") == []


def test_a_silent_machine_is_unreachable_and_its_notes_wait_until_it_is_back(
        alpha_beta) -> None:
    on_a, on_b = alpha_beta
    on_a.write({"research": {}}, {})
    on_b.write({"coder": {}}, {})
    on_a.up()
    on_b.up()
    on_b.live.wait_status("research", "idle", timeout=20)
    pid = int((on_a.live.home / "coordinator.lock").read_text().split()[0])
    os.kill(pid, signal.SIGKILL)  # alpha's coordinator dies; its panes stay

    # Within 10 s beta shows alpha's session as unreachable, not idle.
    on_b.live.wait_status("research", machines.UNREACHABLE, timeout=10)
    sent = on_b.cli_as("coder", "note", "send", "research", "still", "there?")
    assert f"#{sent['id']}" not in " ".join(on_a.live.lines_of("research"))
    on_a.up()  # alpha's coordinator is back: the note that waited is typed once
    on_a.live.wait_for_line("research", f"[note #{sent['id']} from coder] still there?",
                            timeout=20)
    on_b.live.wait_status("research", "idle", timeout=20)
    assert sum(f"#{sent['id']}" in line for line in on_a.live.lines_of("research")) == 1


def test_a_commit_on_alpha_is_pushed_pings_beta_and_beta_can_diff_it(alpha_beta) -> None:
    on_a, on_b = alpha_beta
    # beta's plan has its reviewer follow alpha's coder, a session it does not plan itself
    for plan, fields in ((on_a, {"coder": {}}), (on_b, {"reviewer": {"on_commit": "coder"}})):
        plan.write(fields, {})
        with (plan.repo / "bullpen.yaml").open("a") as config:
            config.write("push: origin\n")
    on_a.up()
    on_b.up()
    worktree = on_a.worktree("coder")
    commit_file(worktree, "src/app.py", "def handler():\n    return 'v3'\n", "faster handler")

    ping = on_b.live.wait_for_line("reviewer", "faster handler", timeout=20)
    assert "coder" in ping
    diff = wait_until(lambda: (result := on_b.live.cli("diff", "coder", "--", "src/app.py",
                                                       check=False)).returncode == 0
                      and result, 20, message="coder's branch on origin")
    assert "+    return 'v3'" in diff.stdout
    assert "runs on machine alpha" in diff.stderr


def test_an_operator_acts_on_another_machines_session_only_when_granted(alpha_beta) -> None:
    """beta's operator asks alpha to stop or restart alpha's research: refused until
    alpha grants it (in alpha's own local config), then done by alpha; both audit it."""
    on_a, on_b = alpha_beta
    on_a.write({"research": {}}, {})
    on_b.write({"coder": {}}, {})
    on_a.up()
    on_b.up()
    first_pane = on_a.live.sessions()["research"]["pane"]
    first_pid = on_a.live.server.pane_pid(first_pane)

    refused = on_b.live.cli("stop", "research", check=False)
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.strip() == (
        "bullpen: machine alpha has not granted machine beta stop over its sessions"
        " (on alpha: bullpen machines grant beta stop)")
    assert on_a.live.server.pane_pid(first_pane) == first_pid  # untouched
    as_coder = on_b.live.cli("stop", "research", env=on_b.as_session("coder"), check=False)
    assert as_coder.returncode == 2 and "only an operator may ask" in as_coder.stderr

    granted = on_a.live.cli("machines", "grant", "beta", "stop", "restart")
    assert "may stop and restart this machine's sessions" in granted.stdout
    restarted = on_b.live.cli("restart", "research")
    assert "restarted research on machine alpha" in restarted.stdout
    new_pane = on_a.live.sessions()["research"]["pane"]
    new_pid = on_a.live.server.pane_pid(new_pane)
    assert new_pid is not None and new_pid != first_pid
    stopped = on_b.live.cli("stop", "research")
    assert stopped.stdout.startswith("on machine alpha: ")
    on_a.live.wait_status("research", "stopped")
    assert on_a.live.server.pane_pid(new_pane) != new_pid
    assert on_b.live.sessions()["coder"]["status"] != "stopped"  # beta's own untouched

    removing = on_b.live.cli("stop", "research", "--remove-worktree", check=False)
    assert removing.returncode == 2 and "remove" in removing.stderr  # not granted
    assert on_a.worktree("research").exists()

    entries = json.loads(on_a.live.cli("audit", "--json", "--limit", "50").stdout)
    # (both clones log in as one role here, so the audit's machine column stays empty:
    # tests/e2e/test_partners_pairing.py pairs real roles; the actions name the machines)
    on_alpha = [(e["actor"], e["action"], e["outcome"]) for e in entries
                if e["target"] == "research" and "asked by" in e["action"]]
    assert ("operator@beta", "stop (asked by machine beta)", "refused") in on_alpha
    assert ("operator@beta", "restart (asked by machine beta)", "allowed") in on_alpha
    assert ("operator@beta", "stop (asked by machine beta)", "allowed") in on_alpha
    asked = [(e["actor"], e["action"], e["outcome"]) for e in entries
             if "asked of machine alpha" in e["action"]]
    assert ("operator", "stop (asked of machine alpha)", "refused") in asked
    assert ("operator", "restart (asked of machine alpha)", "done") in asked
    assert ("coder", "stop (asked of machine alpha)", "refused") in asked
