"""One vocabulary: every event kind that is matched is also emitted, and both use the enum.

The checks read the product's source (board, worktrees, workers, tui) with `ast`, so a
reader waiting for an event nothing writes any more (the drift `session_removed` was)
fails here rather than silently never firing.
"""

from __future__ import annotations

import ast
import enum
import pickle
import re
import subprocess
import sys
from functools import cache

from board import vocabulary
from board.vocabulary import EventKind, SessionStatus, TaskStatus
from tests.product_source import PRODUCT, ROOT, trees


def _is_emit(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "emit" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "events")


def _kind_member(node: ast.AST) -> str | None:
    """`X` for an `EventKind.X` expression, else None."""
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "EventKind"):
        return node.attr
    return None


def _is_kind_expression(node: ast.AST) -> bool:
    """`kind` or `something.kind`: what an event matcher compares."""
    return ((isinstance(node, ast.Name) and node.id == "kind")
            or (isinstance(node, ast.Attribute) and node.attr == "kind"))


# Every event kind is `noun_verbed`; other `.kind`s (note kinds, git change letters) are
# single words, so they are not mistaken for events.
EVENT_SHAPE = re.compile(r"^[a-z]+(_[a-z]+)+$")
# Names of the agents' own event sets (Hermes' hook events), not bullpen's events.
AGENT_VOCABULARY = {"HOOK_EVENTS"}


def _strings_in(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and EVENT_SHAPE.match(n.value)]


@cache
def emitted_and_consumed() -> tuple[dict[str, list[str]], dict[str, list[str]], list[str]]:
    """(kind -> emitting places, kind -> matching places, emits not using the enum)."""
    emitted: dict[str, list[str]] = {}
    consumed: dict[str, list[str]] = {}
    literal_emits: list[str] = []
    for path, tree in trees().items():
        where = str(path.relative_to(ROOT))
        emit_kind_nodes: set[int] = set()
        for node in ast.walk(tree):
            if _is_emit(node):
                kind_arg = node.args[1] if len(node.args) > 1 else None
                member = _kind_member(kind_arg) if kind_arg is not None else None
                if member is None:
                    literal_emits.append(f"{where}:{node.lineno}")
                    continue
                emit_kind_nodes.add(id(kind_arg))
                emitted.setdefault(EventKind[member].value, []).append(where)
        for node in ast.walk(tree):
            member = _kind_member(node)
            if member is not None and id(node) not in emit_kind_nodes:
                consumed.setdefault(EventKind[member].value, []).append(where)
            # Literal matchers not yet on the enum: `kind == "x"`, `x.kind in (...)`, and
            # the members of any `*_EVENTS` set.
            if isinstance(node, ast.Compare) and (
                    _is_kind_expression(node.left)
                    or any(_is_kind_expression(c) for c in node.comparators)):
                for value in _strings_in(node):
                    consumed.setdefault(value, []).append(where)
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id.endswith("_EVENTS")
                    and t.id not in AGENT_VOCABULARY for t in node.targets):
                for value in _strings_in(node.value):
                    consumed.setdefault(value, []).append(where)
    return emitted, consumed, literal_emits


def test_every_event_is_emitted_with_the_enum() -> None:
    _, _, literal_emits = emitted_and_consumed()
    assert literal_emits == [], "events.emit with a bare string: use EventKind"


def test_every_consumed_event_kind_has_an_emitter() -> None:
    emitted, consumed, _ = emitted_and_consumed()
    orphans = {kind: places for kind, places in consumed.items() if kind not in emitted}
    assert orphans == {}, "these event kinds are waited for but nothing emits them"


def test_every_event_kind_in_the_vocabulary_is_emitted() -> None:
    emitted, _, _ = emitted_and_consumed()
    assert sorted(set(EventKind) - set(emitted)) == []


def test_session_statuses_cover_the_design() -> None:
    """DESIGN's agent states, including `starting` (the launcher writes it), `unknown`
    and the warm cap's `waiting for a slot` (DESIGN "Supervising")."""
    assert {s.value for s in SessionStatus} == {
        "starting", "working", "idle", "needs_input", "exited", "stopped", "unknown",
        "waiting for a slot", "unreachable"}


def test_task_statuses_are_hermes_kanban_words_in_board_order() -> None:
    assert [s.value for s in TaskStatus] == [
        "triage", "todo", "ready", "running", "blocked", "review", "done", "archived"]


def test_vocabulary_is_a_stdlib_leaf() -> None:
    code = "import sys, board.vocabulary; print('\\n'.join(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, check=True).stdout.split()
    ours = {name for name in loaded if name.split(".")[0] in PRODUCT}
    assert ours == {"board", "board.vocabulary"}


def test_each_enum_is_an_ordinary_strenum() -> None:
    """Plain `StrEnum` subclasses (no private fast path): members are the stored strings,
    they pickle by name and the class says what it holds."""
    words = [value for value in vars(vocabulary).values()
             if isinstance(value, type) and issubclass(value, enum.StrEnum)
             and value is not enum.StrEnum]
    assert EventKind in words and len(words) >= 16
    for built in words:
        assert type(built) is enum.EnumType and built.__module__ == "board.vocabulary"
        assert built.__doc__ and pickle.loads(pickle.dumps(next(iter(built)))) is next(iter(built))
        assert all(isinstance(member, str) and member == member.value for member in built)
    assert TaskStatus("done") is TaskStatus.DONE and f"{TaskStatus.DONE}" == "done"
