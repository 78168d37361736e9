"""The senders' promises with real Apprise and a real receiver: a steady flood (an agent
asking a new question every 10 ms) is at most one message a second, each full (25
lines) but the last, every line in one of them; `put` never waits, even for a receiver
that hangs."""

from __future__ import annotations

import time
from pathlib import Path

from board.notify_config import NotifyEvent
from tests.notify_receiver import hanging_port, receiver
from tests.waiting import wait_until
from workers.coordinator.notify_sender import MIN_GAP, PER_MESSAGE, Message, Sender


def test_a_flood_is_one_message_a_second_at_most_and_loses_nothing(tmp_path: Path) -> None:
    home = tmp_path / ".bullpen"
    home.mkdir()
    with receiver() as got:
        sender = Sender(home, got.url)
        start = time.monotonic()
        count = 0
        while time.monotonic() - start < 3.0:
            sender.put(Message(NotifyEvent.QUESTION, f"bob asks: question {count}?"))
            count += 1
            time.sleep(0.01)  # a new question every 10 ms, for 3 s
        wait_until(lambda: len(got.lines()) == count, 30,
                   message=lambda: f"{count} lines told: {len(got.lines())}")
        sender.stop()
    assert sorted(got.lines()) == sorted(f"bob asks: question {n}?" for n in range(count))
    gaps = [b["at"] - a["at"] for a, b in zip(got.posts, got.posts[1:], strict=False)]
    print(f"{count} questions in 3 s -> {len(got.posts)} messages")
    # the first goes at once with what came with it; the backlog then fills each message
    assert {len(post["message"].splitlines()) for post in got.posts[1:-1]} == {PER_MESSAGE}
    assert all(gap >= MIN_GAP * 0.9 for gap in gaps), gaps


def test_put_never_waits_for_a_receiver_that_hangs(tmp_path: Path) -> None:
    home = tmp_path / ".bullpen"
    home.mkdir()
    with hanging_port() as port:
        sender = Sender(home, f"json://127.0.0.1:{port}")
        sender.put(Message(NotifyEvent.TASK_DONE, "task #1 done"))
        time.sleep(0.3)  # the sender is now waiting on the receiver that never answers
        start = time.perf_counter()
        for n in range(2000):  # past the queue's bound: counted and dropped, not waited on
            sender.put(Message(NotifyEvent.TASK_DONE, f"task #{n} done"))
        took = time.perf_counter() - start
    print(f"2000 puts with a hanging receiver: {took * 1000:.1f} ms")
    assert took < 0.5 and sender.dropped > 0
