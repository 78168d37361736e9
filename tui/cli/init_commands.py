"""`bullpen init` and `bullpen register`: set up a room, let an outside agent join it."""

from __future__ import annotations

import argparse
import shlex

from board import machines, sessions
from board.home import main_worktree
from board.room import prepare_home
from tui.cli.context import room
from tui.cli.output import print_json

CONFIG_NAME = "bullpen.yaml"

# Lines "#key: …" are examples: uncomment a block (drop each line's leading "#") and it is
# valid as it stands (a test does that for every block). "# text" lines explain.
CONFIG_TEMPLATE = """\
# bullpen.yaml — the sessions `bullpen up` starts in this repository.
# Every key is optional; `bullpen up` with no sessions just opens the room.
# Each "#key:" block below is an example: drop the leading "#"s and it is valid.
# All keys: docs/reference.md in bullpen's repository.

# agent: the default command each session runs in its pane (its cwd is the
# session's own worktree, .bullpen/worktrees/<name>, on branch bullpen/<name>).
agent: hermes

# layout: side-by-side (dashboard beside the session panes) or windows (one per session).
layout: side-by-side

# push: a room across machines pushes each session's branch to this remote on commit.
#push: origin

# max_running: at most this many agents at once; the rest wait for a slot, in plan
# order. Or per agent kind: max_running: {all: 3, claude: 1}. idle_release (default
# off: it ends an idle agent, and what it holds warm) gives an idle one's slot away.
#max_running: 2
#idle_release: 10m

# budget: the room's spending limit, read from the agents' own records (bullpen spend):
# tokens (500k, 1.5M) or US dollars ($5). At it, sessions get one note saying so and
# their notes wait until you raise it (bullpen budget --room LIMIT); nothing is killed.
# A session takes budget: too. prices: USD per million tokens for models bullpen lacks.
#budget: $20
#prices:
#  my-model: {input: 0.5, output: 1.5}

# land: how `bullpen land` puts a session's work on the main checkout's branch: merge
# (a merge commit), squash (one commit) or rebase (linear), once check (run in the
# built result) passes; a conflict or a failing check changes nothing.
#land:
#  strategy: merge
#  check: ./dev test

# loop_guard: how many agent-to-agent notes a chain may pass with no progress (a note
# from you, a task change, a commit) before it is held for you, and how many notes one
# session may send (N/s, N/min or N/h). Defaults: 12 and 20/min; off turns one off.
#loop_guard:
#  notes: 20
#  rate: 30/min

# deny: commands no agent in the room may run (glob patterns, quoted), beside
# bullpen's own floor (force pushes, rm -rf / and ~), which cannot be taken away.
#deny:
#  - "npm publish*"
#  - "rm -rf /*"

# sessions: what `up` starts. An example plan, research -> code -> review:
#sessions:
#  research:
#    task: Gather the usage data into data/usage.md, then mark your task done.
#  coder:
#    profile: coder            # hermes profile; one running session per profile
#    after: [research]         # waits; pinged with research's summary when it is done
#    from: main                # branch off this ref (default: the main checkout's HEAD)
#    setup: pip install -e .   # runs in the new worktree before the agent starts
#    task: Implement the endpoint described in data/usage.md.
#  reviewer:
#    agent: claude             # a session may run another agent than the default
#    on_commit: coder          # pinged with each commit on coder's branch
#    may: [spawn, stop]        # powers over other sessions (default: only over itself)
#    task: Review each commit from coder.

# Any other command-line agent: bullpen cannot know its prompt, so it types notes
# into its pane only with `deliver: type`; fs_reads records the files it opens.
#sessions:
#  helper:
#    agent: aider --no-auto-commits
#    deliver: type
#    fs_reads: true
#    task: Keep the changelog up to date.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    init = subparsers.add_parser("init", help="create .bullpen/ and a commented bullpen.yaml")
    init.set_defaults(handler=init_room)

    join = subparsers.add_parser(
        "register", help="add a session run outside bullpen (prints its identity variables)")
    join.add_argument("name", metavar="NAME", help="the session's name")
    join.add_argument("--agent", metavar="CMD", help="what runs in it (for display)")
    join.add_argument("--json", action="store_true", help="print {name, token, home} as JSON")
    join.set_defaults(handler=register_session)


def init_room(args: argparse.Namespace) -> int:
    root = main_worktree()
    with room() as current:  # creates .bullpen/, the exclude line and the database
        home = current.home
    prepare_home(home)
    config = root / CONFIG_NAME
    if config.exists():
        print(f"room ready in {home}; kept the existing {config.name}")
    else:
        config.write_text(CONFIG_TEMPLATE)
        print(f"room ready in {home}; wrote {config.name} (edit it, then run bullpen up)")
    return 0


def register_session(args: argparse.Namespace) -> int:
    from board import authority

    with room() as current, authority.privileged(current.conn, current.caller,
                                                 authority.Power.REGISTER, args.name):
        if not current.caller.is_operator:  # no grant makes a session register others
            from board.errors import Refused
            raise Refused("only the operator can register sessions")
        token = sessions.register(current.conn, args.name, agent=args.agent,
                                  machine=machines.claim(current.conn, current.home))
        home = str(current.home)
    if args.json:
        print_json({"name": args.name, "token": token, "home": home})
    else:
        print(f"export BULLPEN_HOME={shlex.quote(home)} BULLPEN_SESSION={args.name}"
              f" BULLPEN_TOKEN={token}")
    return 0
