"""`python -m bench [--quick] [NAME...]`: run every `bench/*_bench.py` (or the named ones)
to the end, then print one table of their figures against their targets.

`--quick` runs each briefly (smaller rooms, fewer rounds: about a minute in all), for a
developer's loop; its figures are rougher. SIGTERM or SIGINT ends the run cleanly: the
running bench's own cleanup runs, every room a bench made is taken down, and the table
of what was measured so far is printed; the exit status is then 128 + the signal.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import signal
import sys
import time

import bench
from bench import figures, rooms
from bench.common import QUICK


class Stopped(BaseException):
    """A signal ended the run (not an Exception: one bench's failure handler must not
    take it for a broken bench and go on to the next)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _stop(signum: int, frame: object) -> None:
    # A second signal must not cut the cleanup the first one started short.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise Stopped(signum)


def available() -> list[str]:
    return sorted(info.name.removesuffix("_bench") for info in pkgutil.iter_modules(bench.__path__)
                  if info.name.endswith("_bench"))


def main(argv: list[str]) -> int:
    brief = "--quick" in argv
    names = [name for name in argv if name != "--quick"] or available()
    unknown = sorted(set(names) - set(available()))
    if unknown:
        print(f"bench: unknown benchmark(s) {', '.join(unknown)}; have {', '.join(available())}",
              file=sys.stderr)
        return 2
    if brief:  # read by the benches' sizes at their import
        os.environ[QUICK] = "1"
    # An installed bullpen runs from compiled bytecode after its first call; under
    # PYTHONDONTWRITEBYTECODE every timed process would compile its modules again, and
    # the figures would be the compiler's (tests/conftest.py does the same for the suite).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    failed: list[str] = []
    stopped: Stopped | None = None
    try:
        for name in names:
            run_one(name, failed)
    except Stopped as signalled:
        stopped = signalled
        print(f"\nbench: stopped by {signalled}; taking its rooms down", flush=True)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        left = rooms.take_down_all()
        if left:
            print(f"bench: took down {len(left)} room(s) left running", flush=True)
    print("\n" + figures.table(figures.FIGURES), flush=True)
    if stopped is not None:
        return 128 + stopped.signum
    if failed:
        print(f"\nbench: {len(failed)} failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def run_one(name: str, failed: list[str]) -> None:
    """One bench, its failure said in one line and recorded (the others still run)."""
    print(f"\n== {name} ==", flush=True)
    figures.current_bench[0] = name
    started = time.perf_counter()
    try:
        importlib.import_module(f"bench.{name}_bench").main()
    except (Exception, SystemExit) as error:  # one broken bench must not hide the rest
        failed.append(name)
        reason = " ".join(str(error).split()) or type(error).__name__
        figures.failed(name, reason)
        print(f"{name} FAILED: {reason}", flush=True)
    print(f"({name}: {time.perf_counter() - started:.1f} s)", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
