"""`bullpen demo [--detach]`: a throwaway repository and three scripted agents, no LLM.

With a terminal it attaches to the room and the story plays in the panes; with
`--detach` (or no terminal) it runs to the end, prints each step with its time, and
exits 0 only if every step happened.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo", help="watch three scripted agents research, code and review (no LLM needed)")
    demo.add_argument("--detach", action="store_true",
                      help="run to the end without attaching; print the story and check it")
    demo.add_argument("--keep", action="store_true",
                      help="keep the throwaway repository (and, attached, the room) afterwards")
    demo.add_argument("--timeout", type=float, default=90.0, metavar="SECONDS",
                      help="with --detach: give up after this long (default 90)")
    demo.add_argument("--no-dashboard", action="store_true", help=argparse.SUPPRESS)
    demo.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from workers.demo import story
    from workers.tmux.server import require_tmux

    require_tmux()
    if args.timeout <= 0:
        from board.errors import BadInput
        raise BadInput("--timeout must be a positive number of seconds")

    def say(line: str) -> None:
        print(line, flush=True)

    if args.detach or not sys.stdout.isatty():
        return story.run_detached(say, keep=args.keep, timeout=args.timeout)
    try:
        return story.run_attached(say, keep=args.keep, with_dashboard=not args.no_dashboard)
    except story.DemoEnded as ended:  # its terminal closed: cleaned up, nobody to tell
        return 128 + ended.number
