"""`max_running:` and `idle_release:` in bullpen.yaml: the warm cap (board/slots.py).

    max_running: 2                  # at most 2 agents run at once; the rest wait
    max_running: {all: 3, claude: 1}  # room-wide, and per agent kind
    idle_release: 10m               # an idle agent gives its slot to a waiting one

`idle_release` is off by default: releasing an idle agent ends its process, and with it
what it holds warm (the loaded conversation, prompt cache, MCP connections; a generic
agent's whole state). Claude and Hermes resume their last conversation when started
again, but the user opts in to paying that.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from board.errors import BadInput
from board.slots import ALL, WarmCap
from workers.agents.adapter import AgentKind
from workers.room.yaml_nodes import count, line_of, mapping, scalar

KEYS = ("max_running", "idle_release")
KINDS = tuple(kind.value for kind in AgentKind)
_DURATION = re.compile(r"^(?P<amount>\d+(?:\.\d+)?)\s*(?P<unit>s|m|h)?$")
_UNITS = {None: 1, "s": 1, "m": 60, "h": 3600}
OFF = ("off", "false", "no")


def parse(path: Path, top: dict[str, tuple[yaml.Node, yaml.Node]]) -> WarmCap:
    """The warm cap from the top-level mapping (no `max_running`: no cap)."""
    total: int | None = None
    kinds: dict[str, int] = {}
    if "max_running" in top:
        total, kinds = _max_running(path, top["max_running"][1])
    idle = _idle_release(path, top["idle_release"][1]) if "idle_release" in top else None
    if idle is not None and total is None and not kinds:
        raise BadInput(f"{path.name}:{line_of(top['idle_release'][0])}: idle_release: only"
                       " means something with max_running (a slot to give up)")
    return WarmCap(total, kinds, idle)


def _max_running(path: Path, node: yaml.Node) -> tuple[int | None, dict[str, int]]:
    if not isinstance(node, yaml.MappingNode):
        return count(path, node, "max_running", minimum=1), {}
    kinds: dict[str, int] = {}
    total = None
    for key, (key_node, value) in mapping(path, node, "max_running").items():
        if key != ALL and key not in KINDS:
            raise BadInput(f"{path.name}:{line_of(key_node)}: max_running.{key}: unknown"
                           f" key; use {ALL} or an agent kind ({', '.join(KINDS)})")
        number = count(path, value, f"max_running.{key}", minimum=1)
        if key == ALL:
            total = number
        else:
            kinds[key] = number
    if total is None and not kinds:
        raise BadInput(f"{path.name}:{line_of(node)}: max_running: give {ALL}: N, or a"
                       " number per agent kind")
    return total, kinds


def _idle_release(path: Path, node: yaml.Node) -> float | None:
    """Seconds (`90`, `90s`, `10m`, `1h`), or off."""
    text = scalar(path, node, "idle_release").strip().lower()
    if text in OFF:
        return None
    found = _DURATION.match(text)
    if not found or float(found["amount"]) <= 0:
        raise BadInput(f"{path.name}:{line_of(node)}: idle_release: expected a time such"
                       f" as 90s, 10m or 1h (or off), not {text!r}")
    return float(found["amount"]) * _UNITS[found["unit"]]
