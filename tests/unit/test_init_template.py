"""`bullpen init`'s template: every commented example block is valid once uncommented,
and together they show the keys a plan needs (deliver, push, may, fs_reads, from,
max_running, land, loop_guard, deny)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from board.chains import Limits
from tui.cli.init_commands import CONFIG_TEMPLATE
from workers.room import config

EXAMPLE = re.compile(r"^#[^\s#]")  # "#key: …" (an example), not "# text" (an explanation)


def example_blocks(template: str) -> list[list[int]]:
    """The line numbers of each run of commented example lines."""
    blocks: list[list[int]] = []
    previous = -2
    for number, line in enumerate(template.splitlines()):
        if EXAMPLE.match(line) or (line.startswith("#  ") and previous == number - 1):
            if previous != number - 1:
                blocks.append([])
            blocks[-1].append(number)
            previous = number
    return blocks


def uncommented(template: str, block: list[int]) -> str:
    lines = template.splitlines()
    for number in block:
        lines[number] = lines[number][1:]
    return "\n".join(lines) + "\n"


def test_the_template_as_written_is_a_valid_empty_plan(tmp_path: Path) -> None:
    (tmp_path / "bullpen.yaml").write_text(CONFIG_TEMPLATE)
    assert config.load(tmp_path).sessions == ()


@pytest.mark.parametrize("index", range(len(example_blocks(CONFIG_TEMPLATE))))
def test_each_commented_block_is_valid_when_uncommented(tmp_path: Path, index: int) -> None:
    block = example_blocks(CONFIG_TEMPLATE)[index]
    (tmp_path / "bullpen.yaml").write_text(uncommented(CONFIG_TEMPLATE, block))
    loaded = config.load(tmp_path)  # raises BadInput (file, line, key) if not
    assert (loaded.sessions or loaded.push or loaded.warm_cap.on or loaded.budget
            or loaded.land.check or loaded.deny or loaded.loop_guard != Limits())


def test_the_examples_show_the_keys_a_plan_needs() -> None:
    examples = "\n".join(CONFIG_TEMPLATE.splitlines()[number]
                         for block in example_blocks(CONFIG_TEMPLATE) for number in block)
    for key in ("deliver", "push", "may", "fs_reads", "from", "after", "on_commit",
                "profile", "setup", "agent", "task", "max_running", "idle_release", "budget",
                "prices", "land", "strategy", "check", "loop_guard", "notes", "rate",
                "deny"):
        assert re.search(rf"^#\s*{key}:", examples, re.M), key
    assert len(example_blocks(CONFIG_TEMPLATE)) == 8
