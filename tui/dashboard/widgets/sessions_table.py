"""The sessions panel: one row per session with its status in words and colour, branch,
unread notes, spend (from its agent's own records; `?` when unknown, red at its budget)
and last activity, the room's total spend in its title; its keys ask the screen to act
on the selected session."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.message import Message

from board import spend, validate
from board.errors import BadInput
from tui.dashboard.commands import bindings_for
from tui.dashboard.feed import SessionRow
from tui.dashboard.format import age, agent_label, status_text
from tui.dashboard.prompt import Answer, Field, PromptScreen, open_form
from tui.dashboard.widgets.cell_cache import CellCachedTable

COLUMNS = ("session", "agent", "status", "branch", "chg", "unread", "spend", "active")
DELIVER_MODES = ("type", "inbox")  # as `bullpen spawn --deliver` takes them
MACHINE = "machine"  # shown once the room's sessions run on two machines or more


def spans_machines(rows: list[SessionRow]) -> bool:
    """Whether the sessions run on more than one machine (as `bullpen ls` decides)."""
    return len({row.session.machine for row in rows} - {None}) > 1


def deliver_refused(value: str) -> str | None:
    """Why `value` is not a way to deliver notes (as `spawn --deliver` takes them)."""
    if value.strip() in ("", *DELIVER_MODES):
        return None
    return f"deliver is {' or '.join(DELIVER_MODES)}, not {value.strip()!r}"


class SessionsTable(CellCachedTable):
    """Sessions as rows keyed by name; the cursor row is the selected session."""

    BINDINGS = bindings_for("sessions")

    @dataclass
    class FocusRequested(Message):
        """Move tmux focus to the session's pane."""

        name: str

    @dataclass
    class ZoomRequested(Message):
        name: str

    @dataclass
    class StopRequested(Message):
        name: str

    @dataclass
    class RestartRequested(Message):
        name: str

    @dataclass
    class RemoveRequested(Message):
        """Stop and forget the session (asked first; `bullpen rm`)."""

        name: str

    @dataclass
    class DetailsRequested(Message):
        name: str

    @dataclass
    class LandRequested(Message):
        """Land the session's branch on the base (asked first)."""

        name: str

    @dataclass
    class SpawnRequested(Message):
        name: str
        agent: str | None
        task: str | None
        deliver: str | None = None  # "type" or "inbox", as `spawn --deliver`

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.rows_by_name: dict[str, SessionRow] = {}
        self.shown_cells: dict[str, tuple[object, ...]] = {}  # as shown, by session name
        self.changed: dict[str, int | None] = {}
        self.shown_ages: dict[str, str] = {}
        self.columns_shown: tuple[str, ...] = COLUMNS
        self.shown_title = self.border_title = "sessions"

    def on_mount(self) -> None:
        for name in self.columns_shown:
            self.add_column(name, key=name)
        # "active" is an age: it changes with the clock, not only when the row does.
        self.set_interval(1.0, self.refresh_ages)

    def refresh_ages(self) -> None:
        """Redraw the "active" cells whose age text moved on (e.g. 4s → 5s)."""
        for name, row in self.rows_by_name.items():
            shown = age(row.session.last_activity)
            if self.shown_ages.get(name) != shown:
                self.shown_ages[name] = shown
                self._set_cell(name, "active", shown)

    @property
    def selected(self) -> str | None:
        """The session under the cursor."""
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return key.value

    def select(self, name: str) -> None:
        """Put the cursor on `name`'s row."""
        if name in self.rows_by_name:
            self.move_cursor(row=self.get_row_index(name), animate=False)

    def show(self, rows: list[SessionRow]) -> None:
        """Show `rows`: changed cells only when the sessions are the same, else redraw."""
        selected = self.selected
        wanted = (*COLUMNS, MACHINE) if spans_machines(rows) else COLUMNS
        if wanted != self.columns_shown:  # a second machine came (or the last one left)
            self.columns_shown = wanted
            self.clear(columns=True)
            for name in wanted:
                self.add_column(name, key=name)
            self.rows_by_name = {}
        if [row.session.name for row in rows] == list(self.rows_by_name):
            for row in rows:
                name = row.session.name
                if row == self.rows_by_name[name]:
                    continue
                cells = self._cells(row)
                self.update_changed(name, self.columns_shown, cells, self.shown_cells[name])
                self.shown_cells[name] = cells
            self.rows_by_name = {row.session.name: row for row in rows}
            self.show_title()  # the room's spend may have moved
            return
        self.rows_by_name = {row.session.name: row for row in rows}
        self.shown_cells = {row.session.name: self._cells(row) for row in rows}
        self.clear()
        for row in rows:
            self.add_row(*self.shown_cells[row.session.name], key=row.session.name)
        if selected is not None:
            self.select(selected)
        self.show_title()

    def show_title(self) -> None:
        """'sessions 3 · coder · room 12.3k tok $0.41': the count, the selected session
        and the room's spend (when any session's agent records it)."""
        selected = self.selected
        total = spend.room_total({name: row.spent for name, row in self.rows_by_name.items()})
        title = f"sessions {len(self.rows_by_name)}" + (
            f" · {selected}" if selected else "") + (
            f" · room {spend.short(total)}" if total.known else "")
        if title != self.shown_title:  # setting a title repaints the whole table
            self.shown_title = self.border_title = title

    def show_changed(self, counts: dict[str, int | None]) -> None:
        """Update the changed-files column for the sessions counted."""
        self.changed.update(counts)
        for name, count in counts.items():
            if name in self.rows_by_name:
                self._set_cell(name, "chg", "-" if count is None else str(count))

    def _set_cell(self, name: str, column: str, cell: object) -> None:
        """Change one cell (and what `show` compares against), if its text moved on."""
        index = self.columns_shown.index(column)
        cells = self.shown_cells[name]
        if cells[index] != cell:
            self.shown_cells[name] = (*cells[:index], cell, *cells[index + 1:])
            self.update_cell(name, column, cell, update_width=True)

    def _cells(self, row: SessionRow) -> tuple[object, ...]:
        session = row.session
        count = self.changed.get(session.name)
        unread = Text(str(row.unread), style="bold yellow") if row.unread else Text("0",
                                                                                   style="dim")
        branch = (session.branch or "-").removeprefix("bullpen/")
        # The coordinator stores the effective status (hook reports already win there,
        # except over an exited pane), so it is shown as it is.
        name = Text(session.name, style="bold")
        if row.conflicts:  # the radar predicts its work will not merge with theirs
            name.append(f" ⚠{len(row.conflicts)}", style="bold red")
        spent = Text(spend.short(row.spent), style="bold red" if row.over_budget else
                     "" if row.spent.known else "dim")
        cells = (name, agent_label(session.agent),
                 _status(row), branch, "-" if count is None else str(count),
                 unread, spent, age(session.last_activity))
        return (*cells, session.machine or "-") if MACHINE in self.columns_shown else cells

    # Key actions: each asks the screen (by message) for one runtime verb.

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Row actions need a session (their keys show dimmed otherwise)."""
        if action != "spawn_session" and action.endswith("_session") and self.is_mounted \
                and self.selected is None:
            return None
        return True

    def action_focus_session(self) -> None:
        if name := self.selected:
            self.post_message(self.FocusRequested(name))

    def action_zoom_session(self) -> None:
        if name := self.selected:
            self.post_message(self.ZoomRequested(name))

    def action_stop_session(self) -> None:
        if name := self.selected:
            self.post_message(self.StopRequested(name))

    def action_restart_session(self) -> None:
        if name := self.selected:
            self.post_message(self.RestartRequested(name))

    def action_remove_session(self) -> None:
        if name := self.selected:
            self.post_message(self.RemoveRequested(name))

    def action_details_session(self) -> None:
        if name := self.selected:
            self.post_message(self.DetailsRequested(name))

    def action_land_session(self) -> None:
        if name := self.selected:
            self.post_message(self.LandRequested(name))

    def _name_refused(self, name: str) -> str | None:
        """Why a new session may not be called `name` (said in the form, under it)."""
        try:
            validate.session_name(name.strip())
        except BadInput as error:
            return str(error)
        if name.strip() in self.rows_by_name:
            return f"there is a session {name.strip()!r} already"
        return None

    async def action_spawn_session(self) -> None:
        fields = [Field("name", "Name", placeholder="lower-case, e.g. tester",
                        check=self._name_refused),
                  Field("agent", "Agent command (optional)",
                        placeholder="default from bullpen.yaml"),
                  Field("task", "Task (optional)"),
                  Field("deliver", "Deliver notes: type or inbox (optional)",
                        placeholder="type: into the pane (needed for a generic agent)",
                        check=deliver_refused)]

        def spawn(answer: Answer) -> None:
            if answer["name"].strip():
                self.post_message(self.SpawnRequested(answer["name"].strip(),
                                                      answer["agent"].strip() or None,
                                                      answer["task"].strip() or None,
                                                      answer["deliver"].strip() or None))
        await open_form(self.app, PromptScreen("Spawn a session", fields), spawn)


def _status(row: SessionRow) -> Text:
    """The status in words, then what its agent's release cannot hold, in red."""
    shown = status_text(row.session.status)
    for lever in row.levers:
        shown.append(f" · {lever}", style="bold red")
    return shown
