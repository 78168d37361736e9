"""`bullpen questions` and `bullpen answer`: what the agents ask, and the human's answer.

Both go through the room façade (`RoomControl.questions`, `RoomControl.answer`): the
screen is read again at the moment of answering, and a question that changed since it
was listed is refused (exit 2) with nothing typed. Only the operator answers.
"""

from __future__ import annotations

import argparse

from tui.cli.output import one_line, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    listing = subparsers.add_parser(
        "questions", help="what the sessions that need you ask, with their choices and ids")
    listing.add_argument("--json", action="store_true", help="print a JSON array of questions")
    listing.set_defaults(handler=list_questions)

    answer = subparsers.add_parser(
        "answer", help="answer a session's question with one of its choices (operator only)",
        description="Type CHOICE (its number or its label) into SESSION's question, only"
                    " while the same question is on its screen and it still needs input;"
                    " otherwise nothing is typed and the exit status is 2. Audited.")
    answer.add_argument("session", metavar="SESSION", help="the session that asks")
    answer.add_argument("choice", metavar="CHOICE",
                        help="the choice's number (as bullpen questions lists it) or label")
    answer.add_argument("--question", metavar="ID",
                        help="the question's id from bullpen questions: refused if the"
                             " session now asks anything else (default: what it asks now)")
    answer.set_defaults(handler=answer_question)


def _control():  # noqa: ANN202 - imported lazily (tmux)
    from tui.cli.session_commands import _control as control

    return control()


def list_questions(args: argparse.Namespace) -> int:
    asked = _control().questions()
    if args.json:
        print_json([question.to_json() for question in asked])
        return 0
    if not asked:
        print("no session is asking anything")
    for question in asked:
        print(f"{question.session}  [{question.id}]  {one_line(question.question, 100)}")
        for line in question.context:
            if line != question.question:
                print(f"    {one_line(line, 100)}")
        for index, choice in enumerate(question.choices):
            mark = "❯" if index == question.selected else " "
            print(f"  {mark} {choice.number}  {one_line(choice.label, 100)}")
        if not question.choices:
            print(f"    answer it in the pane: bullpen attach {question.session}")
    return 0


def answer_question(args: argparse.Namespace) -> int:
    done = _control().answer(args.session, args.choice, args.question)
    asked = done.question
    print(f"answered {asked.session}'s question {asked.id} ({one_line(asked.question, 60)})"
          f" with {done.choice.number} {done.choice.label}")
    if not done.taken:
        print(f"the question is still on {asked.session}'s screen; see bullpen questions")
    return 0
