"""`bullpen task …`: the status board from the command line."""

from __future__ import annotations

import argparse
import sys

from board import tasks
from board.models import Task
from board.vocabulary import TASK_STATUSES, TaskStatus
from tui.cli.context import record_id, room
from tui.cli.output import one_line, print_json, print_table


def register(subparsers: argparse._SubParsersAction) -> None:
    task = subparsers.add_parser("task", help="the status board: add, move, claim, finish tasks")
    verbs = task.add_subparsers(dest="verb", metavar="VERB", required=True)

    add = verbs.add_parser("add", help="add a task")
    add.add_argument("title", metavar="TITLE", help="what to do, in one line")
    add.add_argument("--body", metavar="B", default="", help="details")
    add.add_argument("--assign", metavar="S", help="the session that should do it")
    add.add_argument("--after", metavar="ID", type=record_id, action="append", default=[],
                     help="wait for this task to be done (repeatable)")
    add.add_argument("--json", action="store_true", help="print the new task as JSON")
    add.set_defaults(handler=add_task)

    ls = verbs.add_parser("ls", help="list tasks")
    # Plain strings: argparse shows choices by their repr.
    ls.add_argument("--status", choices=[status.value for status in TASK_STATUSES],
                    action="append", help="only these statuses")
    ls.add_argument("--mine", action="store_true", help="only tasks assigned to me")
    ls.add_argument("--json", action="store_true", help="print a JSON array of tasks")
    ls.set_defaults(handler=list_tasks)

    show = verbs.add_parser("show", help="one task with body, links, comments and summary")
    show.add_argument("id", metavar="ID", type=record_id, help="the task's id")
    show.add_argument("--json", action="store_true", help="print the task as JSON")
    show.set_defaults(handler=show_task)

    move = verbs.add_parser("move", help="move a task to another status")
    move.add_argument("id", metavar="ID", type=record_id, help="the task's id")
    move.add_argument("status", metavar="STATUS", help=", ".join(TASK_STATUSES))
    move.set_defaults(handler=move_task)

    claim = verbs.add_parser("claim", help="take a ready task (default: the next one for me)")
    claim.add_argument("id", metavar="ID", type=record_id, nargs="?",
                       help="the task to take (default: the next ready one for you)")
    claim.add_argument("--json", action="store_true", help="print the claimed task as JSON")
    claim.set_defaults(handler=claim_task)

    done = verbs.add_parser("done", help="finish a task, with a handoff summary")
    done.add_argument("id", metavar="ID", type=record_id, help="the task's id")
    done.add_argument("--summary", metavar="TEXT", help="what the next session needs to know")
    done.set_defaults(handler=finish_task)

    block = verbs.add_parser("block", help="mark a task blocked, saying why")
    block.add_argument("id", metavar="ID", type=record_id, help="the task's id")
    block.add_argument("reason", metavar="REASON", nargs="+",
                       help="why it cannot go on (words are joined)")
    block.set_defaults(handler=block_task)

    comment = verbs.add_parser("comment", help="comment on a task")
    comment.add_argument("id", metavar="ID", type=record_id, help="the task's id")
    comment.add_argument("text", metavar="TEXT", nargs="+", help="the comment (words are joined)")
    comment.set_defaults(handler=comment_task)

    assign = verbs.add_parser("assign", help="assign a task to a session ('-' to unassign)")
    assign.add_argument("id", metavar="ID", type=record_id, help="the task's id")
    assign.add_argument("session", metavar="SESSION", help="a session name, or '-' for nobody")
    assign.set_defaults(handler=assign_task)

    link = verbs.add_parser("link", help="make CHILD wait for PARENT (cycles are refused)")
    link.add_argument("parent", metavar="PARENT", type=record_id, help="the task to finish first")
    link.add_argument("child", metavar="CHILD", type=record_id, help="the task that waits for it")
    link.set_defaults(handler=link_tasks)

    graph = verbs.add_parser("graph", help="the plan as a picture: who waits on whom",
                             description="Tasks from parents to children, each with its"
                             " status and assignee (ASCII when not printing to a terminal).")
    graph.add_argument("--ascii", action="store_true", help="ASCII connectors even on a terminal")
    graph.set_defaults(handler=show_graph)


def _print_task(task: Task, as_json: bool) -> None:
    if as_json:
        print_json(task.to_json())
        return
    print(f"task {task.id}: {task.title}")
    print(f"  status {task.status}, assignee {task.assignee or '-'}")
    if task.parents:
        print(f"  after {', '.join(map(str, task.parents))}")
    if task.children:
        print(f"  before {', '.join(map(str, task.children))}")
    if task.block_reason and task.status == TaskStatus.BLOCKED:
        print(f"  blocked: {task.block_reason}")
    if task.body:
        print(f"  {task.body}")
    if task.summary:
        print(f"  summary: {task.summary}")
    for comment in task.comments:
        print(f"  [{comment.author}] {comment.body}")


def add_task(args: argparse.Namespace) -> int:
    with room() as current:
        task = tasks.add(current.conn, current.caller, args.title, body=args.body,
                         assignee=args.assign, after=args.after)
    if args.json:
        print_json(task.to_json())
    else:
        print(f"task {task.id} {task.status}")
    return 0


def list_tasks(args: argparse.Namespace) -> int:
    with room() as current:
        found = tasks.list_tasks(current.conn, statuses=args.status,
                                 assignee=current.caller.name if args.mine else None)
    if args.json:
        print_json([task.to_json() for task in found])
    elif not found:
        print("no tasks")
    else:
        print_table(["id", "status", "assignee", "after", "title"],
                    [(t.id, t.status, t.assignee, ",".join(map(str, t.parents)) or None,
                      one_line(t.title, 70)) for t in found])
    return 0


def show_task(args: argparse.Namespace) -> int:
    with room() as current:
        _print_task(tasks.get(current.conn, args.id), args.json)
    return 0


def move_task(args: argparse.Namespace) -> int:
    with room() as current:
        task = tasks.move(current.conn, current.caller, args.id, args.status)
    print(f"task {task.id} {task.status}")
    return 0


def claim_task(args: argparse.Namespace) -> int:
    with room() as current:
        task = tasks.claim(current.conn, current.caller, args.id)
    if args.json:
        print_json(task.to_json())
    else:
        print(f"task {task.id} running: {task.title}")
    return 0


def finish_task(args: argparse.Namespace) -> int:
    with room() as current:
        task, released = tasks.done(current.conn, current.caller, args.id, args.summary)
    print(f"task {task.id} done")
    for child in released:
        print(f"task {child.id} ready{' for ' + child.assignee if child.assignee else ''}")
    return 0


def block_task(args: argparse.Namespace) -> int:
    with room() as current:
        task = tasks.block(current.conn, current.caller, args.id, " ".join(args.reason))
    print(f"task {task.id} blocked")
    return 0


def comment_task(args: argparse.Namespace) -> int:
    with room() as current:
        comment = tasks.comment(current.conn, current.caller, args.id, " ".join(args.text))
    print(f"comment {comment.id} on task {args.id}")
    return 0


def assign_task(args: argparse.Namespace) -> int:
    assignee = None if args.session == "-" else args.session
    with room() as current:
        task = tasks.assign(current.conn, current.caller, args.id, assignee)
    print(f"task {task.id} assigned to {task.assignee or 'nobody'}")
    return 0


def link_tasks(args: argparse.Namespace) -> int:
    with room() as current:
        task = tasks.link(current.conn, current.caller, args.parent, args.child)
    print(f"task {task.id} waits for {args.parent} ({task.status})")
    return 0


def show_graph(args: argparse.Namespace) -> int:
    from board import views
    from tui.graph import ASCII, UNICODE, graph_lines

    ascii_only = args.ascii or not sys.stdout.isatty()
    with room() as current:
        cards = views.all_cards(current.conn)
    lines = graph_lines(cards, ascii_only=ascii_only)
    for line in lines:
        print(line.text(ASCII if ascii_only else UNICODE))
    if not lines:
        print("no tasks yet; add one with: bullpen task add TITLE", file=sys.stderr)
    return 0
