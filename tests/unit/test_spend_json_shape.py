"""`spend --json`: every session has the keys docs/reference.md lists, known or not."""

from __future__ import annotations

import re
from pathlib import Path

from board.spend import Spent, Usage

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"


def documented_keys() -> set[str]:
    """The session keys of the spend row of reference.md's JSON shapes, less those the
    command adds beside the spend itself (name, budget, held_for_budget,
    budget_unenforceable)."""
    row = next(line for line in REFERENCE.read_text().splitlines()
               if line.startswith("| spend | `spend --json`"))
    inner = re.search(r"sessions: \[\{(.*?)\}\]", row)
    assert inner is not None, row
    flat = re.sub(r"\{[^{}]*\}", "", inner.group(1))  # tokens: {...}, budget: {...}
    keys = {part.split(":")[0].strip() for part in flat.split(",") if part.strip()}
    return keys - {"name", "budget", "held_for_budget", "budget_unenforceable"}


def test_a_session_without_records_has_every_documented_key() -> None:
    known = Spent(Usage(10, 5, 0, 0), 0.01, True, ("m",), "claude-transcript").to_json()
    unknown = Spent().to_json()
    assert set(known) == documented_keys()
    assert set(unknown) == documented_keys()
    assert (unknown["known"], unknown["tokens"], unknown["models"]) == (False, None, [])
