"""`bullpen help [COMMAND...]`: a command's own help, as `bullpen COMMAND --help` prints it."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    help_ = subparsers.add_parser("help", help="show the help of a command")
    help_.add_argument("words", nargs="*", metavar="COMMAND",
                       help="the command (and verb), e.g. 'task add'")
    help_.set_defaults(handler=show_help)


def show_help(args: argparse.Namespace) -> int:
    from tui.cli.parser import build_parser

    parser = build_parser()
    for word in args.words:
        sub = next((action for action in parser._actions
                    if isinstance(action, argparse._SubParsersAction)), None)
        if sub is None:
            parser.error(f"'{word}': {parser.prog} takes no subcommand")
        try:  # unknown: one line, a near miss suggested, exit 2
            parser._check_value(sub, word)
        except argparse.ArgumentError as error:
            parser.error(str(error))
        parser = sub.choices[word]
    parser.print_help()
    return 0
