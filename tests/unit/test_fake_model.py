"""The scripted model server's own bookkeeping, which the real-agent tests rely on.

`waiting() == 0` is how those tests know every answer has been written, before they
assert no turn was cut short; an answer decided but still being streamed must count.
"""

from __future__ import annotations

import json
import threading
import urllib.request

from tests.agents.fake_model import FakeAnthropic, Reply, Text
from tests.waiting import wait_until


class SlowStream(FakeAnthropic):
    """Builds its stream only once the test lets it, so the gap between 'reply decided'
    and 'stream written' can be looked at."""

    def __init__(self) -> None:
        super().__init__(lambda request: Text("ok"))
        self.decided = threading.Event()
        self.may_write = threading.Event()

    def stream(self, reply: Reply, number: int) -> list[str]:
        self.decided.set()
        self.may_write.wait(timeout=10)
        return super().stream(reply, number)


def _ask(address: str) -> bytes:
    body = json.dumps({"tools": [{"name": "Read"}], "messages": []}).encode()
    request = urllib.request.Request(address + "/v1/messages", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read()


def test_an_answer_still_being_streamed_counts_as_waiting() -> None:
    with SlowStream() as model:
        asking = threading.Thread(target=_ask, args=(model.address,))
        asking.start()
        try:
            assert model.decided.wait(timeout=10)
            [exchange] = model.exchanges()
            assert exchange.reply == Text("ok")  # decided...
            assert model.waiting() == 1 and not exchange.finished  # ...but not yet written
        finally:
            model.may_write.set()
            asking.join(timeout=10)
        wait_until(lambda: model.waiting() == 0, 10.0, message="the stream to end")
        assert model.exchanges()[0].finished
