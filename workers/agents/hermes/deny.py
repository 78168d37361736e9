"""The room's command policy in a Hermes profile: `approvals.deny`, and its refusals read.

Hermes 0.19.0 checks each command of its terminal tool against the profile's
`approvals.deny` (fnmatch globs, case-insensitive) before it runs — before its --yolo
bypass too — over the whole command and a few variants of its own (the script of a
`bash -c`, quoting tricks undone, and the command with a newline put before each later
simple command). So each pattern P is written twice: P (the whole command) and
`*\\nP` (a later command of a chain, `cd x && P…`). Unlike bullpen's own matching
(`command_policy`), Hermes does not make runs of spaces one, nor drop `sudo`/`env`
words, and a P without a final `*` catches a later command only when it is the last.

Each launch writes the session's patterns into its profile, keeping the profile's own
entries: the entries bullpen wrote are listed in `bullpen-deny.json` beside config.yaml,
so the next launch replaces them and `without_deny` takes exactly them out (unsetup, and
a plan export that must leave bullpen's parts behind).

A refusal is Hermes' own; bullpen sees it in its `post_tool_call` hook (the tool's
error names the pattern) and audits it: `refused_command`.

The list is the second layer. Every release from 0.17 runs bullpen's own `pre_tool_call`
hook on its terminal tool (part of the profile's set-up: hermes/config.py), which judges
the command as bash reads it (`workers/agents/pre_tool`, failing closed) and answers
Hermes' block directive; 0.17.0 ignores `approvals.deny` (hermes/releases.py), so there
the hook alone holds the list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from board.errors import BadInput
from workers.agents.command_policy import Denial
from workers.agents.hermes import files
from workers.agents.hermes.config import read_config, section

BEFORE_TOOL = "pre_tool_call"

OURS_FILE = "bullpen-deny.json"  # beside config.yaml: the approvals.deny entries bullpen wrote
LATER = "*\n"  # Hermes' variant with a newline before each later simple command
TERMINAL = "terminal"
_REFUSED = re.compile(r"user-defined deny rule '(?P<pattern>.*)' \(approvals\.deny", re.S)


def hermes_patterns(patterns: Iterable[str]) -> list[str]:
    """The `approvals.deny` entries that hold `patterns` in Hermes' matching."""
    found: list[str] = []
    for pattern in patterns:
        for entry in (pattern, LATER + pattern):
            if entry not in found:
                found.append(entry)
    return found


def ours(directory: Path) -> list[str]:
    """The entries bullpen wrote into the profile at `directory` (none: [])."""
    try:
        found = json.loads((directory / OURS_FILE).read_text())
    except (OSError, ValueError):
        return []
    return [entry for entry in found if isinstance(entry, str)] \
        if isinstance(found, list) else []


def with_deny(config: dict, entries: list[str], previous: Iterable[str] = ()) -> dict:
    """`config` whose `approvals.deny` holds its own entries, then `entries` (bullpen's
    earlier ones, `previous`, replaced)."""
    merged = dict(config)
    approvals = section(merged, "approvals")
    existing = approvals.get("deny") or []
    if not isinstance(existing, list):
        raise BadInput("approvals.deny of the hermes config is not a list; fix it first")
    dropped = set(previous) | set(entries)
    approvals["deny"] = [entry for entry in existing if entry not in dropped] + entries
    merged["approvals"] = approvals
    return merged


def without_deny(config: dict, previous: Iterable[str]) -> dict:
    """`config` without the `approvals.deny` entries bullpen wrote (`previous`)."""
    cleaned = dict(config)
    approvals = section(cleaned, "approvals")
    existing = approvals.get("deny")
    if not isinstance(existing, list):
        return cleaned
    kept = [entry for entry in existing if entry not in set(previous)]
    if kept:
        approvals["deny"] = kept
    else:
        approvals.pop("deny")
    if approvals:
        cleaned["approvals"] = approvals
    else:
        cleaned.pop("approvals", None)
    return cleaned


def write(directory: Path, patterns: Iterable[str]) -> None:
    """Put the session's patterns into the profile's `approvals.deny` (at launch)."""
    import yaml

    path = directory / "config.yaml"
    text, config = read_config(path)
    entries = hermes_patterns(patterns)
    merged = with_deny(config, entries, ours(directory))
    if merged != config or text is None:
        if text and "approvals" not in config and merged.get("hooks") == config.get("hooks"):
            # appended: the file's comments stay
            new = (text if text.endswith("\n") else text + "\n") + yaml.safe_dump(
                {"approvals": merged["approvals"]}, sort_keys=False)
        else:
            new = yaml.safe_dump(merged, sort_keys=False, default_flow_style=False)
        files.write_keeping_mode(path, new)
    files.write_keeping_mode(directory / OURS_FILE, json.dumps(entries, indent=1) + "\n")


def refused_command(payload: Mapping[str, object]) -> Denial | None:
    """The command Hermes' deny list refused, from a `post_tool_call` payload, or None."""
    extra = payload.get("extra")
    tool_input = payload.get("tool_input")
    if payload.get("tool_name") != TERMINAL or not isinstance(extra, dict) \
            or not isinstance(tool_input, dict):
        return None
    found = _REFUSED.search(str(extra.get("error_message") or extra.get("result") or ""))
    command = tool_input.get("command")
    if found is None or not isinstance(command, str):
        return None
    return Denial(command, found["pattern"].removeprefix(LATER))
