"""`bullpen plan export|install|update`: a team's plan shared as a git repository,
without secrets."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    plan = subparsers.add_parser(
        "plan", help="share the room's plan and its agents' setup, without secrets",
        description="Export the room's bullpen.yaml and each session's agent setup (Hermes:"
                    " SOUL.md, skills, config with secrets as references) as a directory to"
                    " commit and share; install one in your clone; update it later.")
    verbs = plan.add_subparsers(dest="verb", metavar="VERB", required=True)
    export = verbs.add_parser("export", help="write the plan into DIR, ready to commit")
    export.add_argument("directory", metavar="DIR", type=Path,
                        help="a new or empty directory, or an earlier export (replaced)")
    export.set_defaults(handler=export_plan)
    install = verbs.add_parser("install", help="set up a shared plan in this repository")
    install.add_argument("source", metavar="PATH|GIT-URL",
                         help="a plan directory or a git URL to clone")
    install.add_argument("--force", action="store_true",
                         help="replace a different bullpen.yaml, SOUL, skills or config")
    install.add_argument("--yes", action="store_true",
                         help="install what the plan brings (listed) without asking")
    install.set_defaults(handler=install_plan)
    update = verbs.add_parser("update", help="fetch the plan's newer version, show, apply")
    update.add_argument("--yes", action="store_true", help="apply without asking")
    update.set_defaults(handler=update_plan)


def export_plan(args: argparse.Namespace) -> int:
    from workers.plans.export import export

    result = export(args.directory)
    for name, setup in result.sessions:
        what = f"{setup.kind}: {len(setup.files)} files" if setup else "its command only"
        print(f"{name}: {what}")
    for secret in result.secrets:
        print(f"secret left out, to be provided: {secret['name']} ({secret['where']}; for"
              f" {', '.join(secret['sessions'])})")
    print(f"wrote the plan to {result.directory}; commit it there (git init) and share it")
    return 0


def _ask(question: str) -> bool:
    sys.stdout.flush()
    try:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def install_plan(args: argparse.Namespace) -> int:
    from board.errors import BadInput
    from workers.plans.install import install

    def confirm(shown: list[str]) -> bool:
        for line in shown:
            print(line)
        if args.yes:
            return True
        if not sys.stdin.isatty():
            sys.stdout.flush()
            raise BadInput("nothing was installed: review what the plan brings (listed"
                           " above), then run bullpen plan install again with --yes")
        return _ask("install it?")

    for line in install(args.source, confirm, force=args.force).lines:
        print(line)
    return 0


def update_plan(args: argparse.Namespace) -> int:
    from workers.plans.update import update

    printed: list[str] = []

    def confirm(shown: list[str]) -> bool:
        for line in shown:
            print(line)
        printed.extend(shown)
        if args.yes:
            return True
        if not sys.stdin.isatty():
            print("run bullpen plan update --yes to apply")
            return False
        return _ask("apply?")

    outcome = update(confirm)
    for line in outcome.lines[len(printed):]:
        if line != "not applied":
            print(line)
    return 0
