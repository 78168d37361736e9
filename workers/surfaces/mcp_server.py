"""`bullpen mcp`: the room's verbs as MCP tools, over stdio, acting as one session.

The identity is resolved once, at start, from BULLPEN_SESSION and BULLPEN_TOKEN; every
tool then calls the same board functions as the command line, so validation and privacy
are the same on both surfaces. A board error becomes an MCP tool error carrying its
one-line message; it never ends the server.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from board import alerts, chains, notebook, notes, reads, sessions, tasks
from board.db import describe_fault
from board.errors import BadInput, BullpenError, NotFound
from board.repo_paths import repo_relative
from board.room import Room
from board.vocabulary import ReadSource
from workers.agents import agent_files, framing
from workers.surfaces.mcp_stdio import serve_stdio
from workers.surfaces.mcp_tools import Protocol, Tool, ToolError
from workers.worktree_head import sender_head

SERVER_NAME = "bullpen"
INSTRUCTIONS = (
    "bullpen connects you with the other coding-agent sessions working on this repository."
    " Send them notes, read your inbox, keep a notebook (entries marked private are seen by"
    " you alone), take and finish tasks on the shared board, record the files you read so"
    " you are told when someone else changes them, and check your change alerts."
)


MAX_ID = 2**63 - 1


def _one_line(message: str) -> str:
    """The first line, with anything that cannot travel as UTF-8 JSON escaped (an error
    can quote the caller's own lone surrogate, and an unencodable reply is never sent)."""
    first = message.splitlines()[0] if message else "failed"
    return first.encode("utf-8", "backslashreplace").decode("utf-8")


def _dump(document: object) -> str:
    return json.dumps(document, ensure_ascii=False)


class BullpenTools:
    """The tools, bound to one open room and its caller. One call at a time touches the
    connection (the SDK runs synchronous tools in worker threads)."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self._lock = threading.Lock()

    def _call(self, action: Callable[[], object]) -> str:
        with self._lock:
            try:
                return _dump(action())
            except BullpenError as error:
                raise ToolError(_one_line(str(error))) from None
            except OverflowError:  # an id SQLite cannot hold (2**63 and up)
                raise ToolError(f"an id is too large; ids are below 2**63 ({MAX_ID + 1})"
                                ) from None
            except UnicodeError:
                raise ToolError("a value is not valid UTF-8 (a lone surrogate);"
                                " send UTF-8 text") from None
            except sqlite3.Error as error:
                raise ToolError(describe_fault(error)) from None

    def _session(self, action: str) -> str:
        caller = self.room.caller
        if caller.is_operator:
            raise BadInput(f"only a session can {action}; set BULLPEN_SESSION and BULLPEN_TOKEN")
        return caller.name

    def send_note(self, to: str, text: str, reply_to: int | None = None) -> str:
        """Send a note to a session, to 'operator' (the human) or to 'all'. Quote a note
        you answer by giving its id as reply_to."""
        def send() -> dict:
            note = notes.send(self.room.conn, self.room.caller, to, text, reply_to=reply_to,
                              sender_head=sender_head(self.room.conn, self.room.caller))
            # Its chain says whether the loop guard held it (state held, with the reason).
            return {**note.to_json(), "chain": chains.place(self.room.conn, note.id)}
        return self._call(send)

    def inbox(self) -> str:
        """Your unread notes, oldest first (reading marks them read)."""
        return self._call(lambda: [framing.for_agent(note)
                                   for note in notes.inbox(self.room.conn, self.room.caller)])

    def show_note(self, id: int) -> str:
        """One note you sent or received, whole, by its id (a typed note that was cut
        says `full text: bullpen note show ID`; this is that text)."""
        def show() -> dict:
            viewer = self.room.caller.name
            note = notes.visible(self.room.conn, viewer, id)
            if note is None:
                raise NotFound(f"note {id} does not exist or was not sent to {viewer}")
            return framing.for_agent(note)
        return self._call(show)

    def notebook_write(self, text: str, private: bool = False, tag: str | None = None) -> str:
        """Add an entry to your notebook. A private entry is returned to you alone."""
        return self._call(lambda: notebook.write_entry(
            self.room.conn, self.room.caller, text, private=private, tag=tag).to_json())

    def notebook_read(self, session: str | None = None) -> str:
        """Read notebook entries: one session's, or everyone's when session is omitted."""
        def read() -> list[dict]:
            if session and session != self.room.caller.name:
                sessions.require(self.room.conn, session)
            entries = notebook.read(self.room.conn, self.room.caller, session)
            return [entry.to_json() for entry in entries]
        return self._call(read)

    def notebook_search(self, query: str) -> str:
        """Full-text search over the notebook entries you may see, best match first."""
        return self._call(lambda: [entry.to_json() for entry in notebook.search(
            self.room.conn, self.room.caller, query)])

    def task_add(self, title: str, body: str = "", assign: str | None = None,
                 after: list[int] | None = None) -> str:
        """Add a task to the board, optionally assigned to a session and waiting for other
        tasks (after: their ids) to be done."""
        return self._call(lambda: tasks.add(self.room.conn, self.room.caller, title, body=body,
                                            assignee=assign, after=after or ()).to_json())

    def task_list(self) -> str:
        """Every task on the board with status, assignee and the tasks it waits for."""
        return self._call(lambda: [task.to_json() for task in tasks.list_tasks(self.room.conn)])

    def task_claim(self, id: int | None = None) -> str:
        """Take a ready task (the given one, or the next one assigned to you or unassigned)."""
        return self._call(lambda: tasks.claim(self.room.conn, self.room.caller, id).to_json())

    def task_done(self, id: int, summary: str | None = None) -> str:
        """Finish a task; the summary is handed to the sessions whose tasks it releases."""
        def finish() -> dict:
            task, released = tasks.done(self.room.conn, self.room.caller, id, summary)
            return {"task": task.to_json(), "released": [t.to_json() for t in released]}
        return self._call(finish)

    def task_block(self, id: int, reason: str) -> str:
        """Mark a task blocked, saying why."""
        return self._call(lambda: tasks.block(self.room.conn, self.room.caller, id,
                                              reason).to_json())

    def task_comment(self, id: int, text: str) -> str:
        """Comment on a task."""
        return self._call(lambda: tasks.comment(self.room.conn, self.room.caller, id,
                                                text).to_json())

    def record_read(self, paths: list[str]) -> str:
        """Record that you read these files (relative to your checkout), so you are alerted
        when another session changes them."""
        def record() -> dict:
            session = self._session("record reads")
            relative = repo_relative(paths, self._checkout(session))
            recorded = reads.record(self.room.conn, session, relative, source=ReadSource.MCP)
            return {"recorded": recorded, "paths": relative}
        return self._call(record)

    def alerts(self) -> str:
        """Files you read that another session changed since, newest first, each with the
        command that shows the change."""
        def listing() -> list[dict]:
            caller = self.room.caller
            found = (alerts.recent(self.room.conn) if caller.is_operator
                     else alerts.for_session(self.room.conn, caller.name))
            return [alert.to_json() for alert in found]
        return self._call(listing)

    def _checkout(self, session: str) -> Path:
        """Where relative paths start: the session's worktree, else the server's cwd."""
        known = sessions.get(self.room.conn, session)
        if known and known.worktree and Path(known.worktree).is_dir():
            return Path(known.worktree)
        return Path.cwd()


TOOL_NAMES = ("send_note", "inbox", "show_note", "notebook_write", "notebook_read",
              "notebook_search", "task_add", "task_list", "task_claim", "task_done", "task_block",
              "task_comment", "record_read", "alerts")


def build_server(room: Room) -> Protocol:
    """bullpen's verbs as MCP tools, acting as the room's caller."""
    tools = BullpenTools(room)
    return Protocol([Tool(name, getattr(tools, name)) for name in TOOL_NAMES],
                    SERVER_NAME, INSTRUCTIONS)


def serve(room: Room) -> None:
    """Serve the tools on stdin/stdout until the client closes the connection; a line
    that is not a request the server can take gets a JSON-RPC error instead."""
    def connected() -> None:
        if not room.caller.is_operator:  # the first note to it no longer waits for this
            agent_files.mark_mcp_connected(room.home, room.caller.name)

    serve_stdio(build_server(room), on_tools_listed=connected)
