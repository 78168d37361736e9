"""The sessions panel: one row per session with status colour, branch, unread notes."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from tui.dashboard.commands import bindings_for
from tui.dashboard.feed import SessionRow
from tui.dashboard.format import agent_label, clock, status_text

COLUMNS = ("session", "agent", "status", "branch", "chg", "unread", "active")


class SessionsTable(DataTable):
    """Sessions as rows keyed by name; the cursor row is the selected session."""

    BINDINGS = bindings_for("sessions")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.rows_by_name: dict[str, SessionRow] = {}
        self.changed: dict[str, int | None] = {}
        self.border_title = "sessions"
        self.border_subtitle = "? help · ^p commands"

    def on_mount(self) -> None:
        for name in COLUMNS:
            self.add_column(name, key=name)

    @property
    def selected(self) -> str | None:
        """The session under the cursor."""
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return key.value

    def show(self, rows: list[SessionRow]) -> None:
        """Show `rows`: changed cells only when the sessions are the same, else redraw."""
        selected = self.selected
        if [row.session.name for row in rows] == list(self.rows_by_name):
            for row in rows:
                if row != self.rows_by_name[row.session.name]:
                    for column, cell in zip(COLUMNS, self._cells(row), strict=True):
                        self.update_cell(row.session.name, column, cell)
            self.rows_by_name = {row.session.name: row for row in rows}
            return
        self.rows_by_name = {row.session.name: row for row in rows}
        self.clear()
        for row in rows:
            self.add_row(*self._cells(row), key=row.session.name)
        self.border_title = f"sessions {len(rows)}"
        if selected in self.rows_by_name:
            self.move_cursor(row=self.get_row_index(selected), animate=False)

    def show_changed(self, counts: dict[str, int | None]) -> None:
        """Update the changed-files column for the sessions counted."""
        self.changed.update(counts)
        for name, count in counts.items():
            if name in self.rows_by_name:
                self.update_cell(name, "chg", "-" if count is None else str(count))

    def _cells(self, row: SessionRow) -> tuple[object, ...]:
        session = row.session
        count = self.changed.get(session.name)
        unread = Text(str(row.unread), style="bold yellow") if row.unread else Text("0",
                                                                                   style="dim")
        branch = (session.branch or "-").removeprefix("bullpen/")
        # The coordinator stores the effective status (hook reports already win there,
        # except over an exited pane), so it is shown as it is.
        return (Text(session.name, style="bold"), agent_label(session.agent),
                status_text(session.status),
                branch, "-" if count is None else str(count), unread,
                clock(session.last_activity))
