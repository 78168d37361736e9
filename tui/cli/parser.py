"""The `bullpen` argument parser: one-line errors, exit status 2, commands loaded from the
`*_commands` modules (only the one a command line names, when it names one).

`bullpen --help` lists the commands in groups, each with a one-line example; a command
no group names (a new one) is listed under "Other" rather than hidden.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from tui import cli
from tui.cli.output import fail

TYPE_CHECKING = False  # not typing's: every CLI call would pay for importing typing
if TYPE_CHECKING:
    from typing import NoReturn

# (title, example, commands) in the order `bullpen --help` shows them.
GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Start and stop the room", "bullpen init && bullpen up",
     ("init", "up", "down", "demo", "attach", "dashboard")),
    ("Sessions", "bullpen spawn fixer --agent claude --task 'fix the flaky test'",
     ("spawn", "ls", "stop", "rm", "restart", "register", "questions", "answer", "serve")),
    ("Notes and notebooks", "bullpen note send coder 'the API moved to v2'",
     ("note", "notebook", "read", "alerts")),
    ("The board", "bullpen task add 'Write the parser' --assign coder",
     ("task",)),
    ("Code", "bullpen land coder", ("diff", "sync", "conflicts", "land")),
    ("Agents", "bullpen hermes setup coder", ("mcp", "hook", "hooks", "hermes")),
    ("Spend", "bullpen budget coder 200k", ("spend", "budget")),
    ("Checks", "bullpen doctor", ("doctor", "audit", "notify")),
    ("Machines", "bullpen machines approve laptop K7QXM2PA", ("room", "machines")),
    ("Help", "bullpen help task add", ("help",)),
)


class _Version(argparse.Action):
    """--version: the installed distribution's version (read only when asked)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from tui.cli.version import version

        print(f"{cli.PROG} {version()}")
        parser.exit()


class _Subcommands(argparse._SubParsersAction):
    """Subcommands whose own --help opens with the line they are listed with."""

    def add_parser(self, name: str, **kwargs):
        listed = kwargs.get("help")
        if listed and listed != argparse.SUPPRESS:
            kwargs.setdefault("description", listed[:1].upper() + listed[1:] + ".")
        return super().add_parser(name, **kwargs)


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, measuring the terminal without shutil: argparse builds one
    for every add_argument, and shutil (with zlib, bz2, lzma) is ~10 % of a CLI call."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _columns() - 2 if width is None else width)


def _columns() -> int:
    """shutil.get_terminal_size().columns: $COLUMNS, else the terminal's, else 80."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    if sys.__stdout__ is None:  # no standard output at all
        return 80
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors, exit status 2, documented subcommands, sorted
    choices and a "did you mean" for a near miss."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", _Subcommands)

    def error(self, message: str) -> NoReturn:
        fail(f"{self.prog}: {message} (see {self.prog} --help)", 2)

    def _check_value(self, action: argparse.Action, value: object) -> None:
        if action.choices is None or value in action.choices:
            return
        if isinstance(action, argparse._SubParsersAction):  # hidden ones left out, sorted
            shown = sorted(choice.dest for choice in action._choices_actions)
            what, listed = "unknown command", ", ".join(shown)
        else:  # a vocabulary's own order (triage, todo, ready, …) says more than a sort
            shown = [str(choice) for choice in action.choices]
            what, listed = "invalid choice:", ", ".join(map(repr, shown))
        import difflib  # only to suggest a near name

        near = difflib.get_close_matches(str(value), shown, n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        raise argparse.ArgumentError(action, f"{what} '{value}'{hint} (choose from {listed})")


class _TopParser(_Parser):
    """The `bullpen` parser itself, whose help lists the commands by group."""

    def format_help(self) -> str:
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        formatter.add_text(self.description)
        listed = {choice.dest: choice for choice in _subcommands(self)._choices_actions}
        grouped = {name for _, _, names in GROUPS for name in names}
        other = tuple(name for name in listed if name not in grouped)
        for title, example, names in (*GROUPS, ("Other", "", other)):
            present = [listed[name] for name in names if name in listed]
            if not present:
                continue
            formatter.start_section(f"{title}" + (f" (e.g. {example})" if example else ""))
            for choice in present:
                formatter.add_argument(choice)
            formatter.end_section()
        formatter.start_section("options")
        for action in self._actions:
            if action.option_strings:
                formatter.add_argument(action)
        formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(action for action in parser._actions
                if isinstance(action, argparse._SubParsersAction))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or (with `only`) one holding just that command's module."""
    parser = _TopParser(
        prog=cli.PROG,
        description="Several coding-agent sessions working as one team.",
        epilog="Run 'bullpen help COMMAND' (or 'bullpen COMMAND --help') for a command's"
               " options; docs/reference.md lists them all.",
    )
    parser.add_argument("--version", action=_Version, help="print bullpen's version")
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
