"""The watcher panel: change alerts, newest first, with how far each reached its reader."""

from __future__ import annotations

from rich.text import Text

from board.views import AlertRow
from tui.dashboard.format import DELIVERY_STYLES, clock
from tui.dashboard.needs import UNSEEN_ALERT_STATES
from tui.dashboard.widgets.cell_cache import CellCachedTable

COLUMNS = ("path", "reader", "state", "changed by", "when")


class WatcherTable(CellCachedTable):
    """Alerts: which file, changed by whom, who had read it, and whether they know."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.shown_title = self.border_title = "watcher"
        self.shown_rows: list[AlertRow] | None = None

    def on_mount(self) -> None:
        for name in COLUMNS:
            self.add_column(name, key=name)

    def show(self, rows: list[AlertRow]) -> None:
        """Show `rows` (already newest first): the same alerts as before update their
        changed cells only, others rebuild the table (the rows are read again whenever
        any note moves on, and a rebuild draws every visible cell again)."""
        if rows == self.shown_rows:
            return
        old, self.shown_rows = self.shown_rows, rows
        if old is not None and [row.alert.id for row in old] == [row.alert.id for row in rows]:
            for row, before in zip(rows, old, strict=True):
                if row != before:
                    self.update_changed(str(row.alert.id), COLUMNS, cells(row), cells(before))
        else:
            self.clear()
            for row in rows:
                self.add_row(*cells(row), key=str(row.alert.id))
        waiting = sum(1 for row in rows if row.state in UNSEEN_ALERT_STATES)
        title = f"watcher {len(rows)}" + (f" · {waiting} not told" if waiting else "")
        if title != self.shown_title:  # setting a title repaints the whole table
            self.shown_title = self.border_title = title


def cells(row: AlertRow) -> tuple[object, ...]:
    """An alert's cells: path (+ more), reader, state, changed by (@commit), time."""
    alert = row.alert
    path = alert.path + (f" +{len(alert.paths) - 1}" if len(alert.paths) > 1 else "")
    who = alert.changed_by + (f" @{alert.commit[:7]}" if alert.commit else "")
    return (path, alert.session, Text(row.state, style=DELIVERY_STYLES.get(row.state, "")),
            who, clock(alert.created_at)[:5])
