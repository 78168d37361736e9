"""The `bullpen` argument parser: one-line errors, exit status 2, commands loaded from the
`*_commands` modules (only the one a command line names, when it names one)."""

from __future__ import annotations

import argparse
import importlib
import os
from typing import NoReturn

from tui import cli
from tui.cli.output import fail


class _Subcommands(argparse._SubParsersAction):
    """Subcommands whose own --help opens with the line they are listed with."""

    def add_parser(self, name: str, **kwargs):
        listed = kwargs.get("help")
        if listed and listed != argparse.SUPPRESS:
            kwargs.setdefault("description", listed[:1].upper() + listed[1:] + ".")
        return super().add_parser(name, **kwargs)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors, exit status 2 and documented subcommands."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", _Subcommands)

    def error(self, message: str) -> NoReturn:
        fail(f"{self.prog}: {message} (see {self.prog} --help)", 2)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or (with `only`) one holding just that command's module."""
    parser = _Parser(
        prog=cli.PROG,
        description="Several coding-agent sessions working as one team.",
        epilog="Run 'bullpen COMMAND --help' for a command's options.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND",
                                       parser_class=_Parser)
    modules = ([f"{cli.__name__}.{cli.COMMANDS[only]}"] if only in cli.COMMANDS
               else command_modules())
    for module_name in modules:
        importlib.import_module(module_name).register(subparsers)
    order = list(cli.COMMANDS)
    subparsers._choices_actions.sort(  # help lists commands in the table's order
        key=lambda action: order.index(action.dest) if action.dest in order else len(order))
    return parser


def command_modules() -> list[str]:
    """The `*_commands` modules of this package, in name order."""
    # A directory listing, not pkgutil: pkgutil's imports cost more than the listing.
    return sorted(
        f"{cli.__name__}.{entry.removesuffix('.py')}"
        for entry in os.listdir(cli.__path__[0])
        if entry.endswith("_commands.py")
    )
