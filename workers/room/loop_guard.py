"""`loop_guard:` in bullpen.yaml — the loop guard's two limits (board/chains.py):

    loop_guard:
      notes: 12        # agent-to-agent notes a chain may pass with no progress (off: never held)
      rate: 20/min     # notes one session may send: N/s, N/min or N/h (off: no limit)

Absent keys keep the defaults (docs/reference.md says why these).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from board.chains import Limits
from board.errors import BadInput
from workers.room.yaml_nodes import count, line_of, mapping, scalar

KEYS = ("notes", "rate")
OFF = ("off", "false", "no")
_RATE = re.compile(r"^\s*(?P<count>\d+)\s*(?:/\s*(?P<unit>s|sec|second|min|minute|h|hour))?\s*$")
_SECONDS = {"s": 1, "sec": 1, "second": 1, "min": 60, "minute": 60, "h": 3600, "hour": 3600}


def parse(path: Path, node: yaml.Node) -> Limits:
    """The section's limits; bad values name the file, line and key."""
    fields = mapping(path, node, "loop_guard")
    for key, (key_node, _) in fields.items():
        if key not in KEYS:
            raise BadInput(f"{path.name}:{line_of(key_node)}: loop_guard.{key}: unknown key;"
                           f" use {', '.join(KEYS)}")
    default = Limits()
    notes, rate, per = default.notes, default.rate, default.per
    if "notes" in fields:
        value = fields["notes"][1]
        notes = None if _is_off(value) else count(path, value, "loop_guard.notes", minimum=1)
    if "rate" in fields:
        value = fields["rate"][1]
        if _is_off(value):
            rate = None
        else:
            found = _RATE.match(scalar(path, value, "loop_guard.rate"))
            if found is None or int(found["count"]) < 1:
                raise BadInput(f"{path.name}:{line_of(value)}: loop_guard.rate: expected"
                               " notes per time such as 20/min (or 5/s, 300/h, off)")
            rate, per = int(found["count"]), _SECONDS[found["unit"] or "min"]
    return Limits(notes, rate, per)


def _is_off(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and str(node.value).lower() in OFF
