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


def run(capsys, *argv: str) -> tuple[int, str, str]:
    from tui.cli import main

    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_version_prints_the_installed_version(capsys) -> None:
    from importlib import metadata

    assert run(capsys, "--version") == (0, f"bullpen {metadata.version('bullpen')}\n", "")


def test_help_command_prints_a_commands_own_help(capsys) -> None:
    _, own, _ = run(capsys, "task", "add", "--help")
    assert run(capsys, "help", "task", "add") == (0, own, "")
    status, _, err = run(capsys, "help", "task", "ad")
    assert status == 2 and "did you mean 'add'?" in err and len(err.splitlines()) == 1


def test_the_help_lists_each_listed_command_once_in_a_group_with_an_example() -> None:
    parser = build_parser()
    listing = parser.format_help()
    names = [choice.dest for action in parser._actions
             if isinstance(action, argparse._SubParsersAction)
             for choice in action._choices_actions]
    for name in names:
        assert len([line for line in listing.splitlines()
                    if line.split()[:1] == [name]]) == 1, name
    headings = [line for line in listing.splitlines() if line.endswith("):")]
    assert len(headings) >= 8 and all("(e.g. bullpen " in line for line in headings)


def test_an_unknown_command_lists_the_visible_ones_sorted_and_a_near_miss(capsys) -> None:
    status, _, err = run(capsys, "frobnicate")
    assert status == 2 and len(err.splitlines()) == 1
    listed = err.split("choose from ", 1)[1].split(")")[0].split(", ")
    assert listed == sorted(listed) and "coordinator" not in listed and "up" in listed
    assert "did you mean 'note'?" in run(capsys, "nte")[2]


def test_every_example_in_the_top_level_help_parses() -> None:
    import shlex

    from tui.cli.parser import GROUPS

    for _, example, _ in GROUPS:
        for command in example.split("&&"):
            words = shlex.split(command)
            assert words[0] == "bullpen"
            try:
                build_parser().parse_args(words[1:])
            except SystemExit:
                raise AssertionError(f"the help's example {command.strip()!r} does not"
                                     " parse") from None
