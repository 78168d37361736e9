"""Every command documents itself: a description in its --help and help for each argument."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from tui.cli import build_parser


def commands(parser: argparse.ArgumentParser,
             path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...],
                                                         argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from commands(sub, (*path, name))


def test_every_command_has_a_description_and_every_argument_help() -> None:
    undocumented = []
    for path, parser in commands(build_parser()):
        if not parser.description:
            undocumented.append(f"bullpen {' '.join(path)}: no description")
        for action in parser._actions:
            if action.help is None and not isinstance(action, argparse._SubParsersAction):
                undocumented.append(f"bullpen {' '.join(path)}: {action.dest} has no help")
    assert undocumented == []


def test_a_listed_command_opens_its_help_with_the_same_line() -> None:
    parser = build_parser()
    spawn = dict(commands(parser))[("spawn",)]
    assert spawn.format_help().split("\n\n")[1] == "Start a new session in its own worktree."


def test_hidden_commands_are_not_listed_as_suppressed() -> None:
    listing = build_parser().format_help()
    assert "SUPPRESS" not in listing
    assert not [line for line in listing.splitlines() if line.split()[:1] == ["coordinator"]]
