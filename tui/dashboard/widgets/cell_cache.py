"""A DataTable that draws a cell again only when that cell changed.

Textual's DataTable keys its cell renders by one table-wide update count, so a single
`update_cell` draws every cell again (through Rich, ~0.5 ms each): the sessions table,
updated a few times a second under load, was most of the dashboard's drawing time.
This keeps each cell's lines, keyed by its text, place, style, width and cursor state:
a cell that shows again what it showed before (a status flipping back, an age or an
unread count coming round) is not drawn again. It wraps DataTable._render_cell
(Textual is pinned in pyproject.toml; tests/ui cover every table it draws).

A cell update also repaints only its row: Textual repaints the whole table (every line
through the border and style pipeline again, ~5 ms for the sessions panel), and the
sessions table updates a few cells a few times a second under load.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Self

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region
from textual.render import measure
from textual.widgets import DataTable
from textual.widgets._data_table import default_cell_formatter
from textual.widgets.data_table import ColumnKey, RowKey

KEEP = 4096  # cell renders kept; past that the cache starts again


def text_key(value: object) -> object:
    """What a text cell's drawing depends on: equal keys draw alike (None: the cell is
    another renderable, known only by its identity)."""
    if isinstance(value, str):
        return value
    if isinstance(value, Text):
        return (value.plain, tuple(value.spans), value.style, value.justify, value.overflow,
                value.no_wrap, value.end, value.tab_size)
    return None


class CellCachedTable(DataTable):
    """DataTable with cell renders cached per cell, not per table update; `j`/`k` move
    its cursor as the arrows do (as in every list of the dashboard)."""

    BINDINGS = [Binding("up,k", "cursor_up", "Up", show=False),
                Binding("down,j", "cursor_down", "Down", show=False)]

    _sizing = False  # inside `_update_dimensions` (a class default: refresh runs early)
    _updating: RowKey | None = None  # inside `update_cell`: the row whose cell it sets

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._cells_drawn: dict[tuple[object, ...], tuple[object, list[list[Segment]]]] = {}

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False) -> list[list[Segment]]:
        if column_index < 0:  # row labels (these tables have none): as Textual does
            return super()._render_cell(row_index, column_index, base_style, width, cursor,
                                        hover)
        column_key = self._column_locations.get_key(column_index)
        row_key = self._row_locations.get_key(row_index) if row_index >= 0 else None
        if column_key is None or (row_key is None and row_index >= 0):  # not ours to keep
            return super()._render_cell(row_index, column_index, base_style, width, cursor,
                                        hover)
        if row_key is None:  # the header: its label
            value, height = self.columns[column_key].label, self.header_height
        else:
            value, height = self._data[row_key][column_key], self.rows[row_key].height
        content = text_key(value)
        key = (row_key, column_key, row_index, base_style, width, cursor, hover,
               self._show_hover_cursor, self.show_cursor, self._pseudo_class_state, height,
               content)
        drawn = self._cells_drawn.get(key)
        # The same text drawn before (a status flipping back, an age or a count coming
        # round again), or else the very value drawn (kept alive here).
        if drawn is not None and (content is not None or drawn[0] is value):
            return drawn[1]
        lines = super()._render_cell(row_index, column_index, base_style, width, cursor,
                                     hover)
        if len(self._cells_drawn) >= KEEP:
            self._cells_drawn.clear()
        self._cells_drawn[key] = (value, lines)
        return lines

    def update_changed(self, row_key: str, columns: Sequence[str], cells: Sequence[object],
                       shown: Sequence[object]) -> None:
        """Update the cells of row `row_key` that differ from what it shows (each update
        draws the table again); a cell wider than its column's first text widens it."""
        for column, cell, was in zip(columns, cells, shown, strict=True):
            if cell != was:
                self.update_cell(row_key, column, cell, update_width=True)

    def update_cell(self, row_key: RowKey | str, column_key: ColumnKey | str,
                    value: object, *, update_width: bool = False) -> None:
        """Set one cell; only its row is repainted (a wider column repaints it all,
        in `_update_column_widths`)."""
        self._updating = RowKey(row_key) if isinstance(row_key, str) else row_key
        try:
            super().update_cell(row_key, column_key, value, update_width=update_width)
        finally:
            self._updating = None

    def _update_column_widths(self, updated_cells: set[Any]) -> None:
        """Widen each column an updated cell no longer fits; a column never narrows on
        an update, as on add_row. Textual measured the whole column again for each cell
        that got narrower and narrowed it: the sessions table's status, unread and age
        cells flip both ways several times a second under load, and each flip measured
        ten cells through Rich and repainted the whole table."""
        console = self.app.console
        widened = False
        for row_key, column_key in updated_cells:
            column, row = self.columns.get(column_key), self.rows.get(row_key)
            if column is None or row is None:
                continue
            cell = default_cell_formatter(self._data[row_key][column_key],
                                          wrap=row.height != 1, height=row.height)
            width = measure(console, cell, 1)
            if width > column.content_width:
                column.content_width = width
                widened = True
        if widened:
            # Textual keys its row renders by update count only: a row drawn between
            # the update and this idle (a busy dashboard) kept its old column widths
            # ('working' cut to 'workin').
            self._require_update_dimensions = True
            self._update_count += 1
            self.refresh()

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Textual sets the table's virtual size here, and that lays out the whole screen
        (a redraw of every panel) whenever a column widens or a row comes. Only a table
        sized by its rows (height: auto) needs that for a new height, unless it is held
        at its cap; otherwise only the scrollbars follow (a bar that comes or goes asks
        for the layout itself)."""
        before = self.virtual_size
        self._sizing = True
        try:
            super()._update_dimensions(new_rows)
        finally:
            self._sizing = False
        after = self.virtual_size
        if after == before:
            return
        height = self.styles.height
        # A table already taller than its cap (max-height) keeps its size as it grows:
        # the watcher's 100 alerts laid the screen out (~20 ms) for each new alert.
        visible = self.scrollable_content_region.height
        capped = before.height > visible and after.height >= visible
        if height is not None and height.is_auto and after.height != before.height \
                and not capped:
            self.refresh(layout=True)
        else:
            self._scroll_update(after)
            self.refresh()

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if self._sizing:  # the virtual size moved: `_update_dimensions` decides
            layout = False
        if self._updating is not None and not regions and not layout:
            row_index = self._row_locations.get(self._updating)
            if row_index is not None:  # its row only; off screen, nothing to paint
                region = self._get_row_region(row_index)
                if not self.window_region.overlaps(region):
                    return self
                regions = (region.translate(-self.scroll_offset),)
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def clear(self, columns: bool = False) -> CellCachedTable:
        self._cells_drawn.clear()
        super().clear(columns)
        return self

    def notify_style_update(self) -> None:
        self._cells_drawn.clear()
        super().notify_style_update()
