"""`bullpen mcp`, `bullpen hook KIND`, `bullpen hooks claude`, `bullpen hermes setup|unsetup`:
the commands real agents run, and the ones that prepare them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.cli.output import fail

AGENT_KINDS = ("hermes", "claude")


def register(subparsers: argparse._SubParsersAction) -> None:
    mcp = subparsers.add_parser(
        "mcp", help="stdio MCP server offering the room's verbs as tools",
        description="Run the MCP server on stdin/stdout, acting as the session named by"
                    " BULLPEN_SESSION (proven by BULLPEN_TOKEN), else as the operator.")
    mcp.set_defaults(handler=run_mcp)

    hook = subparsers.add_parser(
        "hook", help="entry point for an agent's hooks (JSON on stdin)",
        description="Called by Hermes or Claude Code hooks. Never fails the agent: bad"
                    " input is logged to .bullpen/logs/hooks.log and ignored.")
    hook.add_argument("kind", metavar="KIND", help=" or ".join(AGENT_KINDS))
    hook.set_defaults(handler=run_hook)

    hooks = subparsers.add_parser("hooks", help="install bullpen's hooks for an agent")
    kinds = hooks.add_subparsers(dest="kind", metavar="AGENT", required=True)
    claude = kinds.add_parser(
        "claude", help="write .claude/settings.local.json and .mcp.json in a worktree")
    claude.add_argument("--worktree", metavar="PATH", type=Path, default=None,
                        help="the checkout to prepare (default: the current directory)")
    claude.set_defaults(handler=install_claude_hooks)

    hermes = subparsers.add_parser("hermes", help="prepare Hermes profiles for bullpen")
    verbs = hermes.add_subparsers(dest="verb", metavar="VERB", required=True)
    setup = verbs.add_parser("setup", help="add bullpen's MCP server and hooks to a profile")
    setup.add_argument("profile", metavar="PROFILE", help="a profile name, 'default' or 'auto'")
    setup.add_argument("--session", metavar="NAME", default=None,
                       help="the session an 'auto' profile is for")
    setup.add_argument("--yes", action="store_true", help="write without asking")
    setup.set_defaults(handler=setup_hermes)
    unsetup = verbs.add_parser("unsetup", help="remove bullpen's keys from a profile")
    unsetup.add_argument("profile", metavar="PROFILE", help="the profile bullpen set up")
    unsetup.add_argument("--yes", action="store_true", help="write without asking")
    unsetup.set_defaults(handler=unsetup_hermes)


def run_mcp(args: argparse.Namespace) -> int:
    from board.room import open_room
    from workers.surfaces.mcp_server import serve

    with open_room(create=False) as current:
        serve(current)
    return 0


def run_hook(args: argparse.Namespace) -> int:
    from workers.surfaces.hooks import run_hook as handle

    output = handle(args.kind, sys.stdin.read())
    if output:
        print(output)
    return 0


def install_claude_hooks(args: argparse.Namespace) -> int:
    from workers.agents.claude.settings import write_settings

    files = write_settings((args.worktree or Path.cwd()).resolve())
    print(f"wrote {files.settings}")
    print(f"wrote {files.mcp}")
    return 0


def _confirm(question: str, yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        fail(f"bullpen: {question} needs confirmation; run again with --yes", 2)
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def setup_hermes(args: argparse.Namespace) -> int:
    from workers.agents.hermes import profile as hermes_profile

    if args.profile == hermes_profile.AUTO and not args.session:
        fail("bullpen: hermes setup auto needs --session NAME (the profile is per session)", 2)
    room = None
    if args.profile == hermes_profile.AUTO:  # its name carries the repository's hash
        from board.home import repo_root_of_home, room_home

        room = repo_root_of_home(room_home())
    plan = hermes_profile.prepare_profile(args.profile, args.session or "",
                                          hermes_profile.hermes_root(), room=room)
    if not plan.changed:
        print(f"profile {plan.profile} is already set up for bullpen")
        return 0
    if plan.create:
        print(f"will create profile {plan.profile} at {plan.directory}")
    sys.stdout.write(plan.diff())
    if not _confirm(f"write {plan.config_path}?", args.yes):
        print("nothing written")
        return 1
    backup = hermes_profile.apply_plan(plan)
    print(f"wrote {plan.config_path}" + (f" (backup: {backup})" if backup else ""))
    return 0


def unsetup_hermes(args: argparse.Namespace) -> int:
    from workers.agents.hermes import profile as hermes_profile

    if not _confirm(f"remove bullpen's keys from profile {args.profile}?", args.yes):
        print("nothing written")
        return 1
    backup = hermes_profile.unsetup(args.profile, hermes_profile.hermes_root())
    if backup is None:
        print(f"profile {args.profile} has no bullpen keys")
    else:
        print(f"removed bullpen's keys from profile {args.profile} (backup: {backup})")
    return 0
