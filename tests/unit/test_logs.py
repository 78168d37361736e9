"""workers.logs: a long-running process's log keeps its cap and cuts every value, the
traceback of a failure included, and a line appended to a room log is one cut line."""

from __future__ import annotations

import logging
from pathlib import Path

from workers import logs

HUGE = "/" + "p" * 8_000_000  # the PO's 8 MB file_path


def lines_of(folder: Path) -> list[str]:
    return [line for path in sorted(folder.iterdir())
            for line in path.read_text().splitlines()]


def test_a_failure_with_a_huge_value_is_logged_cut_traceback_included(tmp_path: Path) -> None:
    handler = logs.handler_for(tmp_path / "coordinator.log")
    log = logging.getLogger("test_logs.huge")
    log.addHandler(handler)
    log.propagate = False
    try:
        try:
            raise OSError(36, "File name too long", HUGE)
        except OSError:
            log.warning("a hook request failed for %s", HUGE, exc_info=True)
    finally:
        log.removeHandler(handler)
        handler.close()
    written = lines_of(tmp_path)
    assert sum(len(line) + 1 for line in written) < logs.CAP_BYTES
    assert max(len(line) for line in written) <= logs.LINE_CHARS + 40
    assert any("a hook request failed for /ppp" in line and "chars)" in line
               for line in written)
    assert any(line.startswith("Traceback") for line in written)
    assert any("File name too long" in line and "chars)" in line for line in written)


def test_a_failure_formatted_by_another_handler_first_is_still_cut(tmp_path: Path) -> None:
    """logging keeps the first handler's traceback text on the record: ours cuts that."""
    ours = logs.handler_for(tmp_path / "coordinator.log")
    first = logging.StreamHandler(open(tmp_path.parent / "other.log", "w"))  # noqa: SIM115
    log = logging.getLogger("test_logs.twice")
    log.handlers = [first, ours]
    log.propagate = False
    try:
        try:
            raise ValueError(HUGE)
        except ValueError:
            log.exception("failed")
    finally:
        log.handlers = []
        ours.close()
        first.close()
    assert max(len(line) for line in lines_of(tmp_path)) <= logs.LINE_CHARS + 40


def test_a_traceback_of_many_frames_keeps_its_ends(tmp_path: Path) -> None:
    handler = logs.handler_for(tmp_path / "coordinator.log")
    log = logging.getLogger("test_logs.deep")
    log.addHandler(handler)
    log.propagate = False

    def deep(n: int) -> None:  # two functions in turn: Python folds a repeated frame
        if n == 0:
            raise RuntimeError("at the bottom")
        deeper(n - 1)

    def deeper(n: int) -> None:
        deep(n)

    try:
        try:
            deep(300)
        except RuntimeError:
            log.exception("deep")
    finally:
        log.removeHandler(handler)
        handler.close()
    written = lines_of(tmp_path)
    assert len(written) <= logs.TRACE_LINES + 2
    assert written[-1] == "RuntimeError: at the bottom"
    assert any("lines not logged" in line for line in written)


def test_an_appended_line_is_one_line_cut(tmp_path: Path) -> None:
    path = tmp_path / "hooks.log"
    logs.append_line(str(path), "first\n" + HUGE)
    [line] = path.read_text().splitlines()
    assert len(line) <= logs.LINE_CHARS + 40 and line.endswith("(8000007 chars)")
