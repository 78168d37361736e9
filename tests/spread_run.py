"""`./dev spread`: the real-agent smoke tests on every release the version spread lists.

Each listed release (workers/agents/spread.toml) gets one pytest run of the tests marked
`spread` for its agent (a room through `bullpen up`: a note, a handoff, a question, a
restart), with `BULLPEN_TEST_RELEASE=kind=version` putting that release in the pinned
lane; runs go several at once (`--jobs`, default 2). Each release's `spread` line in
spread.toml is then rewritten with what its run found, and docs/agents.md's
compatibility table with it. Not part of `./dev test`: CI runs the pinned and newest
lanes.

    ./dev spread                      every listed release
    ./dev spread claude hermes=0.17.0 one agent's releases, or one release
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.installs import SPREAD_VARIABLE
from tests.spread_table import write_table
from workers.agents import spread

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 1800  # seconds one release's run may take on a loaded machine


def runs(wanted: list[str]) -> list[tuple[str, str]]:
    """(kind, version) of each release to run: all listed, or those `wanted` names
    (`claude`, `hermes=0.17.0`); exits 2 naming a word that is neither."""
    listed = spread.listed()
    chosen = []
    for word in wanted or list(listed):
        kind, _, version = word.partition("=")
        if kind not in listed or (version and version not in listed[kind].versions()):
            sys.exit(f"spread: {word!r} is not a listed agent or release"
                     f" (listed: {', '.join(listed)})")
        chosen += [(kind, v) for v in listed[kind].versions() if v == version or not version]
    return chosen


def run_one(kind: str, version: str, logs: Path) -> tuple[str, str, str]:
    """Run `kind` `version`'s smoke tests; (kind, version, what they found)."""
    report = logs / f"{kind}-{version}.xml"
    step = [sys.executable, "-m", "pytest", "-q", "-rfEs", "-p", "no:cacheprovider",
            "-n", "0", "-m", "spread", "-k", f"{kind}-pinned", f"--junitxml={report}",
            "tests/e2e"]
    env = {**os.environ, SPREAD_VARIABLE: f"{kind}={version}"}
    started = time.monotonic()
    with open(logs / f"{kind}-{version}.log", "w") as log:
        try:
            subprocess.run(step, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                           timeout=TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            return kind, version, f"timed out after {TIMEOUT} s"
    took = round(time.monotonic() - started)
    return kind, version, f"{verdict(report)} ({took} s)"


def verdict(report: Path) -> str:
    """What one run's JUnit report says, in one line: passed, or the first failure."""
    today = datetime.date.today().isoformat()
    try:
        cases = list(ElementTree.parse(report).getroot().iter("testcase"))
    except (OSError, ElementTree.ParseError):
        return f"did not run on {today} (no report)"
    failed = [(case, case.find(tag)) for case in cases for tag in ("failure", "error")
              if case.find(tag) is not None]
    skipped = [case.find("skipped") for case in cases if case.find("skipped") is not None]
    if failed:
        case, found = failed[0]
        name = case.get("name", "?").split("[")[0]
        return f"failed on {today}: {name}: {_plain(_where(found))}"
    if cases and not skipped:
        return f"{len(cases)} passed on {today}"
    if skipped and skipped[0] is not None:
        return f"skipped on {today}: {_plain(skipped[0].get('message') or '')[:160]}"
    return f"nothing ran on {today}"


def _where(found: ElementTree.Element | None) -> str:
    """The failing line of the test (pytest's `>` line) and the error's first words."""
    if found is None:
        return ""
    lines = (found.text or "").splitlines()
    source = [line[1:].strip() for line in lines if line.startswith(">")]
    error = ((found.get("message") or "").splitlines() or [""])[0]
    return f"{source[-1][:100]} ({error[:80]})" if source else error[:160]


def _plain(text: str) -> str:
    """One line a TOML string and a markdown cell both take."""
    return re.sub(r"\s+", " ", text).replace('"', "'").replace("|", "/").replace("\\", "/")


def record(kind: str, version: str, found: str, path: Path = spread.DATA) -> None:
    """Rewrite release `version`'s `spread = "…"` line in spread.toml."""
    text = path.read_text()
    block = re.compile(rf'(\[\[{kind}\.releases\]\]\nversion = "{re.escape(version)}"\n'
                       rf'(?:(?!\[).*\n)*?)spread = ".*"')
    updated, count = block.subn(lambda m: f'{m.group(1)}spread = "{found}"', text)
    if count != 1:
        raise SystemExit(f"spread: cannot find {kind} {version}'s spread line in {path}")
    path.write_text(updated)


def main() -> int:
    parser = argparse.ArgumentParser(prog="./dev spread", description=__doc__.split("\n")[0])
    parser.add_argument("wanted", nargs="*", help="an agent (claude) or release (claude=2.1.250)")
    parser.add_argument("--jobs", type=int, default=2, help="releases run at once")
    options = parser.parse_args()
    chosen = runs(options.wanted)
    logs = Path(tempfile.mkdtemp(prefix="bullpen-spread-"))
    print(f"spread: {len(chosen)} release(s), {options.jobs} at once; logs in {logs}",
          flush=True)
    results = []
    with ThreadPoolExecutor(max(1, options.jobs)) as pool:
        for kind, version, found in pool.map(lambda kv: run_one(*kv, logs), chosen):
            print(f"{kind} {version}: {found}", flush=True)
            results.append((kind, version, found))
    for kind, version, found in results:
        record(kind, version, found)
    spread.listed.cache_clear()
    write_table(spread.listed())
    print("spread: wrote workers/agents/spread.toml and docs/agents.md's table")
    return 0 if all(" passed on " in found for *_, found in results) else 1


if __name__ == "__main__":
    sys.exit(main())
