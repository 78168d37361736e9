"""board.records.record behaves as the frozen dataclass the type checker takes it for."""

from __future__ import annotations

import dataclasses

import pytest

from board.models import Comment, Note, Task
from board.records import FrozenRecordError, as_dict, field, fields, record


@record(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class DataPoint:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()


@record
class Box:
    items: list = field(default_factory=list)


def test_construction_equality_hash_and_repr_match_a_dataclass() -> None:
    for args, kwargs in (((1,), {}), ((1, 2), {}), ((), {"x": 1, "tags": ("a",)})):
        ours, theirs = Point(*args, **kwargs), DataPoint(*args, **kwargs)
        assert repr(ours) == repr(theirs).replace("DataPoint", "Point")
        assert dataclasses.astuple(theirs) == tuple(getattr(ours, n) for n in fields(ours))
    assert Point(1, 2) == Point(x=1, y=2) and Point(1) != Point(2)
    assert Point(1) != DataPoint(1)  # another class is never equal
    assert hash(Point(1, 2)) == hash(Point(1, 2)) and len({Point(1), Point(1)}) == 1
    match Point(3, 4):
        case Point(x, y):
            assert (x, y) == (3, 4)


@pytest.mark.parametrize("make", [lambda: Point(), lambda: Point(1, 2, (), 4),
                                  lambda: Point(1, z=2), lambda: Point(1, x=1)])
def test_wrong_arguments_are_a_type_error(make) -> None:
    with pytest.raises(TypeError):
        make()


def test_frozen_records_refuse_assignment_and_others_take_it() -> None:
    point = Point(1)
    with pytest.raises(FrozenRecordError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.y  # type: ignore[misc]
    box, other = Box(), Box()
    box.items.append(1)
    assert (box.items, other.items) == ([1], [])  # a new default for each
    box.items = [2]
    with pytest.raises(TypeError):
        hash(box)  # eq without frozen: unhashable, as a dataclass


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError):
        @record(frozen=True)
        class Bad:
            a: int = 1
            b: int


def test_as_dict_and_to_json_go_through_nested_records() -> None:
    task = Task(1, "t", "todo", None, (2,), None, comments=(Comment(5, "a", "hi", 0.0),))
    assert as_dict(task)["comments"] == ({"id": 5, "author": "a", "body": "hi",
                                          "created_at": 0.0},)
    note = Note(1, "a", "b", "hi", None, 0.0)
    assert note.to_json()["created_at"] == "1970-01-01T00:00:00.000Z"
    assert task.to_json()["comments"][0]["created_at"] == "1970-01-01T00:00:00.000Z"
    assert fields(Note) == ("id", "sender", "recipient", "body", "reply_to", "created_at",
                            "kind", "task")


def test_post_init_runs_after_the_fields_are_set() -> None:
    seen = []

    @record(frozen=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            seen.append(self.a)

    Checked(7)
    assert seen == [7]
