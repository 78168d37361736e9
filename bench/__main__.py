"""`python -m bench [NAME...]`: run every `bench/*_bench.py` (or the named ones)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import time

import bench


def available() -> list[str]:
    return sorted(info.name.removesuffix("_bench") for info in pkgutil.iter_modules(bench.__path__)
                  if info.name.endswith("_bench"))


def main(argv: list[str]) -> int:
    names = argv or available()
    unknown = sorted(set(names) - set(available()))
    if unknown:
        print(f"bench: unknown benchmark(s) {', '.join(unknown)}; have {', '.join(available())}",
              file=sys.stderr)
        return 2
    # An installed bullpen runs from compiled bytecode after its first call; under
    # PYTHONDONTWRITEBYTECODE every timed process would compile its modules again, and
    # the figures would be the compiler's (tests/conftest.py does the same for the suite).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    failed = []
    for name in names:
        print(f"\n== {name} ==", flush=True)
        started = time.perf_counter()
        try:
            importlib.import_module(f"bench.{name}_bench").main()
        except (Exception, SystemExit) as error:  # one broken bench must not hide the rest
            failed.append(name)
            print(f"{name} FAILED: {' '.join(str(error).split()) or type(error).__name__}",
                  flush=True)
        print(f"({name}: {time.perf_counter() - started:.1f} s)", flush=True)
    if failed:
        print(f"\nbench: {len(failed)} failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
