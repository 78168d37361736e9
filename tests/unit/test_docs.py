"""The docs tell the truth: every command and flag `bullpen --help` offers is in
docs/reference.md, every command documented there exists, and the README stays a short
way in (sqlite-utils keeps its docs honest the same way)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from tui.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference.md"
FLAG = re.compile(r"(?<![\w-])(--?[a-z][a-z-]*)")


def visible_commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
                     ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command `--help` lists (hidden ones, such as `coordinator`, left out)."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            listed = {choice.dest for choice in action._choices_actions}
            for name, sub in action.choices.items():
                if name in listed:
                    yield from visible_commands(sub, (*path, name))


def visible_flags(parser: argparse.ArgumentParser) -> list[list[str]]:
    return [action.option_strings for action in parser._actions
            if action.option_strings and action.help != argparse.SUPPRESS
            and not isinstance(action, argparse._HelpAction)]


def reference_lines() -> list[str]:
    """The `bullpen …` lines of the reference's command block."""
    text = REFERENCE.read_text()
    block = text.split("## Commands", 1)[1].split("```", 2)[1]
    return [line for line in block.splitlines() if line.startswith("bullpen ")]


def documented() -> dict[tuple[str, ...], list[str]]:
    """Each documented line by the command path it names (its longest known prefix)."""
    known = {path for path, _ in visible_commands(build_parser())}
    found: dict[tuple[str, ...], list[str]] = {}
    for line in reference_lines():
        words = line.split()[1:]
        path: tuple[str, ...] = ()
        for word in words:
            if (*path, word) not in known:
                break
            path = (*path, word)
        found.setdefault(path, []).append(line)
    return found


def test_every_command_and_flag_in_the_help_is_in_the_reference() -> None:
    lines = documented()
    missing = []
    for path, parser in visible_commands(build_parser()):
        if not path or parser.get_default("handler") is None:
            continue  # `bullpen` itself and groups such as `hermes` that only hold verbs
        name = f"bullpen {' '.join(path)}"
        if path not in lines:
            missing.append(f"{name}: not in docs/reference.md")
            continue
        written = {flag for line in lines[path] for flag in FLAG.findall(line)}
        missing += [f"{name} {options[-1]}: flag not in docs/reference.md"
                    for options in visible_flags(parser) if not written & set(options)]
    assert missing == []


def test_every_command_and_flag_in_the_reference_exists() -> None:
    parsers = dict(visible_commands(build_parser()))
    wrong = []
    for path, lines in documented().items():
        parser = parsers[path]
        if not path or parser.get_default("handler") is None:
            wrong += [f"{line!r}: no such command" for line in lines]
            continue
        offered = {flag for options in visible_flags(parser) for flag in options}
        wrong += [f"{line!r}: bullpen {' '.join(path)} has no {flag}"
                  for line in lines for flag in FLAG.findall(line) if flag not in offered]
    assert wrong == []


def test_the_readme_is_a_short_way_in_that_links_every_docs_page() -> None:
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert len(quick_start.strip().splitlines()) <= 40
    assert readme.startswith("# bullpen\n\n```sh\n./dev demo ")
    assert readme.splitlines()[4].startswith("./dev test ")
    linked = set(re.findall(r"\]\((docs/[\w-]+\.md)\)", readme))
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")}
    assert linked == pages
    assert {"docs/agents.md", "docs/delivery.md", "docs/machines.md",
            "docs/reference.md"} <= pages
    assert max(len(line) for line in readme.splitlines()) <= 100
