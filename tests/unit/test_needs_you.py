"""The needs-you strip lists each thing that waits on the human once."""

from __future__ import annotations

from board.attention import HeldNote
from board.models import Alert, Note
from board.views import AlertRow
from board.vocabulary import DeliveryState, HoldReason, NoteKind
from tui.dashboard.needs import NeedKind, needs_you


def alert_note(note_id: int, recipient: str) -> Note:
    return Note(id=note_id, sender="bullpen", recipient=recipient, body="src/app.py changed",
                reply_to=None, created_at=1.0, kind=NoteKind.ALERT)


def test_an_alert_whose_note_is_held_is_one_entry_that_says_why() -> None:
    alert = Alert(id=3, session="reviewer", path="src/app.py", changed_by="coder",
                  commit=None, created_at=1.0, note=9)
    other = Note(id=10, sender="coder", recipient="reviewer", body="look", reply_to=None,
                 created_at=2.0)
    needs = needs_you([], [], [AlertRow(alert, DeliveryState.HELD)],
                      [HeldNote(alert_note(9, "reviewer"), "reviewer", "busy"),
                       HeldNote(other, "reviewer", "busy")])
    assert [need.kind for need in needs] == [NeedKind.HELD, NeedKind.ALERT]
    assert "#10" in needs[0].text
    assert needs[1].text.endswith("(held: busy)")


def test_a_held_note_of_an_alert_for_someone_else_still_counts() -> None:
    alert = Alert(id=3, session="reviewer", path="src/app.py", changed_by="coder",
                  commit=None, created_at=1.0, note=9)
    needs = needs_you([], [], [AlertRow(alert, DeliveryState.QUEUED)],
                      [HeldNote(alert_note(9, "tester"), "tester", "busy")])
    assert [need.kind for need in needs] == [NeedKind.HELD, NeedKind.ALERT]


def test_a_note_waiting_for_a_slot_is_not_the_humans_to_clear() -> None:
    """Under max_running the session's row says `waiting for a slot`; its notes arrive
    when it starts, with nothing for the human to do."""
    note = Note(id=4, sender="bullpen", recipient="tests", body="your turn", reply_to=None,
                created_at=1.0, kind=NoteKind.HANDOFF)
    waiting = HeldNote(note, "tests", HoldReason.WAITING_FOR_SLOT)
    assert needs_you([], [], [], [waiting]) == []
    assert [n.kind for n in needs_you([], [], [], [HeldNote(note, "tests", "busy")])] == [
        NeedKind.HELD]


def test_a_session_at_its_budget_is_one_line_with_its_held_notes_and_the_fix() -> None:
    from board.models import Session
    from tui.dashboard.feed import SessionRow

    coder = Session(name="coder", agent="claude", profile=None, branch=None, worktree=None,
                    pane=None, desired="running", status="idle", exit_code=None, task=None,
                    base=None, hook_status=None, hook_status_at=None, last_activity=None,
                    created_at=1.0)
    row = SessionRow(coder, 0, over_budget="12.3k tok of this session's 10.0k tokens budget")
    notes = [Note(id=i, sender="reviewer", recipient="coder", body="look", reply_to=None,
                  created_at=1.0) for i in (5, 6)]
    needs = needs_you([row], [], [], [HeldNote(note, "coder", HoldReason.BUDGET)
                                      for note in notes])
    assert [need.kind for need in needs] == [NeedKind.BUDGET]
    assert needs[0].session == "coder"
    assert needs[0].text == ("coder: 12.3k tok of this session's 10.0k tokens budget · 2 held"
                             " · bullpen budget coder LIMIT")
