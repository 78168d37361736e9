"""What each Hermes release keeps of bullpen's promises, and the probe of an installed one.

Read from the releases on PyPI (users pin old ones) and seen running (tests/e2e):
- `approvals.deny` in the profile is checked before a terminal command runs from 0.18
  (0.18.2, 0.19.0); 0.17.0 ignores the key. 0.17.0 already runs `pre_tool_call` shell
  hooks that may block the call (stdout `{"action": "block", "message": …}`), so there
  bullpen enforces the room's list through its own `pre_tool_call` hook. Where a release
  has both, both are written: the hook judges the command as bash reads it (the floor of
  workers/agents/floor: `git -C . push -f`, wrappers, `bash -c`), which Hermes' own
  fnmatch over the list does not, and the list still holds if the hook fails (Hermes
  runs a command whose hook errs or times out).
- Tokens: `state.db`'s `session_model_usage` from 0.19.0, the `sessions` row itself in
  0.17.0 and 0.18.2 (board/foreign_stores.py probes which, at each read).
- What a hook added to a turn survives `--resume` from 0.19.0 only.
- `pre_llm_call` hands notes in at the turn boundary in all three.

`deny_mechanism` probes the installed release itself (its source, beside the Python its
`hermes` script runs), so a launch picks the way that holds without asking the version
(a second); where the source cannot be found, both ways are written (fail closed).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from workers.agents.adapter import Capabilities
from workers.agents.command_line import split_command
from workers.agents.spread import version_key

DENY_LIST = "its profile's approvals.deny"
OWN_HOOK = "bullpen's pre_tool_call hook"
BOTH = f"{DENY_LIST} and {OWN_HOOK}"  # a release with both, or one whose source is unknown
DENY_LIST_SINCE = (0, 18)
BLOCKING_HOOK_SINCE = (0, 17)
USAGE_TABLE_SINCE = (0, 19)
SESSION_ROW_SINCE = (0, 17)
RESUME_CONTEXT_SINCE = (0, 19)
# Text the source holds where the release has the feature (its own code, not a comment
# of ours): the deny list's check, and a shell hook's block directive being read.
_DENY_LIST_MARK = ("tools/approval.py", "approvals.deny")
_BLOCK_MARK = ("agent/shell_hooks.py", '"block"')


def capabilities(version: str | None) -> Capabilities:
    """The promises Hermes `version` keeps (None: as the newest tested release)."""
    key = version_key(version) if version else (1 << 30,)
    deny = BOTH if key >= DENY_LIST_SINCE else (
        OWN_HOOK if key >= BLOCKING_HOOK_SINCE else None)
    spend = ("state.db session_model_usage" if key >= USAGE_TABLE_SINCE else
             "state.db sessions" if key >= SESSION_ROW_SINCE else None)
    return Capabilities(notes_at_turn=True, deny=deny, spend=spend,
                        resume_context=key >= RESUME_CONTEXT_SINCE)


def deny_mechanism(agent: str, path: str) -> str | None:
    """How the installed Hermes that `agent` runs (found on `path`) is kept from running
    a denied command: DENY_LIST, OWN_HOOK, BOTH when its source cannot be found, or
    None when it has neither (bullpen cannot stop it)."""
    source = installed_source(agent, path)
    if source is None:
        return BOTH
    listed, blocks = _holds(source, _DENY_LIST_MARK), _holds(source, _BLOCK_MARK)
    if listed and blocks:
        return BOTH
    return DENY_LIST if listed else OWN_HOOK if blocks else None


def installed_source(agent: str, path: str) -> Path | None:
    """The site-packages holding the Hermes that `agent` runs: beside the Python named
    by its `hermes` script's first line (pip, uv and pipx installs); None otherwise."""
    line = split_command(agent)
    found = shutil.which(line.program if line else "hermes", path=path or os.defpath)
    if found is None:
        return None
    try:
        with open(os.path.realpath(found), "rb") as script:
            first = script.readline(500)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode(errors="replace").split()
    if not words:
        return None
    venv = Path(words[0]).parent.parent
    for lib in sorted(venv.glob("lib/python3*/site-packages")):
        if (lib / "hermes_cli").is_dir():
            return lib
    return None


def _holds(source: Path, mark: tuple[str, str]) -> bool:
    try:
        return mark[1] in (source / mark[0]).read_text(errors="replace")
    except OSError:
        return False
