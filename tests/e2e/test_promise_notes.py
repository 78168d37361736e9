"""Promise 2, passing notes: A's note shows in B's input with A's name and the note's id,
stays in B's inbox, and B's reply quotes it by id."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Plan

pytestmark = pytest.mark.slow


def test_a_note_reaches_b_pane_and_b_replies_quoting_it(plan: Plan) -> None:
    plan.write(
        {"a": {}, "b": {}},
        # B answers any note from A, quoting its id.
        {"b": [{"on": r"^\[note #(?P<id>\d+) from a\] (?P<text>.*)$",
                "run": ["bullpen", "note", "send", "a", "--reply-to", "{id}",
                        "re your '{text}': done, tests pass"]}]})
    plan.up()
    sent = plan.cli_as("a", "note", "send", "b", "please", "check", "the", "parser")
    assert sent["sender"] == "a"

    typed = plan.live.wait_for_line("b", f"[note #{sent['id']} from a] please check the parser")
    assert typed == f"[note #{sent['id']} from a] please check the parser"

    inbox_b = plan.cli_as("b", "note", "inbox", "--all")
    assert [(n["id"], n["sender"], n["body"]) for n in inbox_b if n["kind"] == "note"] == [
        (sent["id"], "a", "please check the parser")]

    # B's reply is typed into A's pane saying whose note it answers ...
    line = plan.live.wait_for_line("a", f" from b re #{sent['id']}]")
    [typed_reply] = [t for t in plan.typed("a") if t["reply"] == sent["id"]]
    assert line.endswith("] re your 'please check the parser': done, tests pass")
    # ... and kept in A's inbox with the id it quotes.
    [reply] = [n for n in plan.cli_as("a", "note", "inbox", "--all")
               if n["id"] == typed_reply["id"]]
    assert (reply["sender"], reply["reply_to"]) == ("b", sent["id"])
