"""`bullpen doctor`: check the store, the lock and coordinator, tmux, worktrees and agent
hooks; print what is wrong and the command that fixes it (exit 1 if anything is)."""

from __future__ import annotations

import argparse

from tui.cli.output import print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    doctor = subparsers.add_parser(
        "doctor", help="check the room and say how to fix what is wrong")
    doctor.add_argument("--json", action="store_true", help="print a JSON array of findings")
    doctor.set_defaults(handler=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    from board.home import room_home
    from workers.room.control import RoomControl

    findings = RoomControl.doctor(room_home())
    if args.json:
        print_json([finding.to_json() for finding in findings])
    else:
        for finding in findings:
            print(f"{'ok  ' if finding.ok else 'FAIL'}  {finding.area:<11} {finding.what}")
            if not finding.ok and finding.fix:
                print(f"      {'':<11} fix: {finding.fix}")
        bad = sum(not finding.ok for finding in findings)
        print("all good" if not bad else f"{bad} problem(s) found")
    return 0 if all(finding.ok for finding in findings) else 1
