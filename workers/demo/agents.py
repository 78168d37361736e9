"""The demo's three built-in agents: research, coder and reviewer, with no LLM.

    python -m workers.demo.agents research|coder|reviewer [--pace SECONDS]

Each runs in its own pane like a chat agent: it asks for bracketed paste, prints a
prompt, reads what bullpen types (`[handoff #4 from bullpen] ...`, `[note #7 from coder]
...`), and acts with plain `bullpen`/`git` commands, printing each command and its output
so the panes tell the story. Standard library only; the `bullpen` on PATH is the room's.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from board.vocabulary import NoteKind

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
# One typed line may carry several notes: "[note #3 from coder re #2] text [alert #4 ...] ..."
HEADER = re.compile(r"\[(?P<kind>note|handoff|ping|alert|system|conflict) #(?P<id>\d+) from"
                    r" (?P<sender>[\w.-]+)(?: re #(?P<reply>\d+))?\] ")
READY = re.compile(r"task #(?P<task>\d+) is ready")
COMMIT = re.compile(r"(?P<author>[\w.-]+) committed (?P<sha>[0-9a-f]{7,40})")
SEE = re.compile(r"See: (?P<command>bullpen diff [\w.-]+ -- \S+)")
SENT = re.compile(r"note (?P<id>\d+) to ")
HANDOFF = re.compile(r"Handoff from (?P<who>[\w.-]+) \(task #\d+ [^)]*\): (?P<summary>.*?)"
                     r"(?: ⏎|$)")

USAGE = """# /users usage (last 30 days)

| client      | calls/day | wants |
|-------------|-----------|-------|
| web app     |       712 | JSON  |
| mobile app  |       287 | JSON  |
| partner API |       181 | JSON  |
| old reports |        24 | XML   |

83% of calls parse the text answer as JSON by hand.
"""

APP_WITH_JSON = '''import json


def handler(format: str = "text"):
    """GET /users: plain text by default, JSON with ?format=json."""
    if format == "json":
        return json.dumps({"version": "v1"})
    return "v1"
'''

README_NOTE = "\n## /users\n\n`GET /users?format=json` answers JSON (see src/app.py).\n"


@dataclass(frozen=True)
class Message:
    """One note as typed into the pane."""

    kind: str
    id: int
    sender: str
    reply_to: int | None
    text: str


def split_notes(line: str) -> list[Message]:
    """The notes in one typed line, in order (text up to the next header)."""
    heads = list(HEADER.finditer(line))
    found = []
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(line)
        reply = head["reply"]
        found.append(Message(head["kind"], int(head["id"]), head["sender"],
                             int(reply) if reply else None, line[head.end():end].strip()))
    return found


@dataclass
class Agent:
    """The shared loop: read typed lines, split them into notes, hand each to `on_note`."""

    name: str
    pace: float = 0.0
    memory: dict[str, str] = field(default_factory=dict)

    def say(self, text: str) -> None:
        print(f"\n» {self.name}: {text}", flush=True)

    def run(self, *argv: str, quiet: bool = False) -> str:
        """Run a command as this session, echo it and its output; return its stdout."""
        time.sleep(self.pace)  # only so a human can follow the panes
        print(f"$ {' '.join(argv)}", flush=True)
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        output = (done.stdout + done.stderr).rstrip()
        if output and not quiet:
            print("  " + output.replace("\n", "\n  "), flush=True)
        if done.returncode:
            print(f"  [exit {done.returncode}]", flush=True)
        return done.stdout

    def start(self) -> None:
        """What the agent does before any input."""

    def on_note(self, note: Message) -> None:
        """React to one note typed into the pane."""

    def loop(self) -> int:
        """Read typed lines until end of input; each is shown once, without paste marks."""
        terminal = sys.stdin.isatty() and sys.stdout.isatty()
        saved = _quiet_terminal() if terminal else None
        try:
            self.start()
            while True:
                sys.stdout.write(f"{self.name}> ")
                sys.stdout.flush()
                raw = sys.stdin.readline()
                if not raw:
                    return 0
                line = raw.rstrip("\r\n").replace(PASTE_START, "").replace(PASTE_END, "")
                print(line, flush=True)
                for note in split_notes(line):
                    self.on_note(note)
        finally:
            if saved is not None:
                _restore_terminal(saved)


def _quiet_terminal() -> list:
    """Ask for bracketed paste and stop the terminal echoing input (we print it clean)."""
    import termios

    saved = termios.tcgetattr(sys.stdin)
    quiet = termios.tcgetattr(sys.stdin)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(sys.stdin, termios.TCSANOW, quiet)
    sys.stdout.write("\x1b[?2004h")
    return saved


def _restore_terminal(saved: list) -> None:
    import termios

    sys.stdout.write("\x1b[?2004l")
    sys.stdout.flush()
    termios.tcsetattr(sys.stdin, termios.TCSANOW, saved)


class Research(Agent):
    """Gathers usage data: notebook (one entry private), data/usage.md, done with summary."""

    def start(self) -> None:
        self.say("waiting for my task")

    def on_note(self, note: Message) -> None:
        ready = READY.search(note.text) if note.kind == NoteKind.HANDOFF else None
        if not ready:
            return
        task = ready["task"]
        self.say(f"my turn: task #{task}. Gathering /users usage data.")
        self.run("bullpen", "task", "claim", task)
        self.run("bullpen", "notebook", "write", "--tag", "usage", "/users: 1,204 calls a day;"
                 " 83% of callers want JSON, 2% XML. Details in data/usage.md.")
        self.run("bullpen", "notebook", "write", "--private", "Hunch: we could drop XML"
                 " entirely. Not proven; keeping this to myself.")
        self.say("writing data/usage.md in my worktree and committing it")
        Path("data").mkdir(exist_ok=True)
        Path("data/usage.md").write_text(USAGE)
        self.run("git", "add", "data/usage.md")
        self.run("git", "commit", "-q", "-m", "Usage data for /users")
        self.run("bullpen", "task", "done", task, "--summary", "83% of /users callers want"
                 " JSON: add ?format=json. Data: data/usage.md on branch bullpen/research.")
        self.say("done; bullpen hands my summary to whoever waits on me")


class Coder(Agent):
    """Waits for research, reads its data, notes the reviewer, commits, answers alerts."""

    def start(self) -> None:
        self.say("my task waits for research's; nothing to do until I am pinged")

    def on_note(self, note: Message) -> None:
        ready = READY.search(note.text) if note.kind == NoteKind.HANDOFF else None
        if ready:
            self.implement(ready["task"], note.text)
        elif note.kind == NoteKind.ALERT and (see := SEE.search(note.text)):
            self.say(f"alert #{note.id}: a file I read changed under me — looking")
            self.run(*see["command"].split())
            self.say("README now documents format=json; my code stands")
        elif note.kind == NoteKind.NOTE and note.reply_to:
            self.say(f"{note.sender} answered my note #{note.reply_to}: {note.text}")

    def implement(self, task: str, handoff: str) -> None:
        given = HANDOFF.search(handoff)
        self.say(f"pinged with task #{task}; "
                 + (f"{given['who']} handed off: {given['summary']}" if given else "no handoff"))
        self.run("bullpen", "task", "claim", task)
        self.say("reading research's data and the README")
        self.run("git", "show", "bullpen/research:data/usage.md")
        self.run("bullpen", "read", "data/usage.md", "README.md")
        self.run("bullpen", "notebook", "write", "Plan: handler(format='json') in"
                 " src/app.py; plain text stays the default for the 2% XML/text users.")
        sent = self.run("bullpen", "note", "send", "reviewer", "Adding ?format=json to"
                        " /users in src/app.py; please check the text default is unchanged.")
        if match := SENT.search(sent):
            self.memory["note"] = match["id"]
        self.say("editing src/app.py and committing")
        Path("src").mkdir(exist_ok=True)
        Path("src/app.py").write_text(APP_WITH_JSON)
        self.run("git", "commit", "-q", "-am", "Add a JSON format to /users")
        self.run("bullpen", "task", "done", task, "--summary", "handler(format='json')"
                 " answers JSON; committed on bullpen/coder.")


class Reviewer(Agent):
    """Pinged by the coder's commits: reads the diff and notebook, answers, documents."""

    def on_note(self, note: Message) -> None:
        if note.kind == NoteKind.HANDOFF and (ready := READY.search(note.text)):
            self.memory["task"] = ready["task"]
            self.run("bullpen", "task", "claim", ready["task"])
            self.say("I review coder's commits; waiting for one")
        elif note.kind == NoteKind.NOTE and note.sender == "coder":
            self.memory["quote"] = str(note.id)
            self.say(f"coder's note #{note.id}: {note.text}")
        elif note.kind == NoteKind.PING and (commit := COMMIT.search(note.text)):
            self.review(commit["author"], commit["sha"])

    def review(self, author: str, sha: str) -> None:
        self.say(f"pinged: {author} committed {sha}. Reviewing.")
        self.run("bullpen", "diff", author)
        self.run("bullpen", "notebook", "read", author)
        self.say("research's notebook, as I see it (its private entry stays hidden):")
        self.run("bullpen", "notebook", "read", "research")
        self.say("documenting the new format in README.md (the coder read it earlier)")
        readme = Path("README.md")
        readme.write_text(readme.read_text() + README_NOTE)
        quote = self.memory.get("quote")
        self.run("bullpen", "note", "send", "coder", *(["--reply-to", quote] if quote else []),
                 f"Reviewed {sha[:8]}: JSON path is right and text stays the default."
                 " I documented format=json in README.md.")
        if task := self.memory.get("task"):
            self.run("bullpen", "task", "done", task, "--summary",
                     f"Approved {sha[:8]}; README documents ?format=json.")
        self.say("review done")


AGENTS: dict[str, Callable[..., Agent]] = {
    "research": Research, "coder": Coder, "reviewer": Reviewer}


def main(argv: list[str] | None = None) -> int:
    """Run one built-in agent in this terminal until its input ends."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("role", choices=sorted(AGENTS))
    parser.add_argument("--pace", type=float, default=0.0,
                        help="seconds to pause before each command, for watching")
    args = parser.parse_args(argv)
    return AGENTS[args.role](args.role, pace=args.pace).loop()


if __name__ == "__main__":
    sys.exit(main())
