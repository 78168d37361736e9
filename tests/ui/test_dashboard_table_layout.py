"""A table sized by its rows lays the screen out again only when its height can change:
below its cap a new row grows it, held at its cap (the watcher's 100 alerts in a panel
of a dozen lines) a new row only moves the scrollbar (tui/dashboard/widgets/cell_cache.py).
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical

from tests.ui.helpers import wait_for
from tui.dashboard.widgets.cell_cache import CellCachedTable

CAP = 8  # the box's lines: the table's max-height (100%) holds it there


class TableApp(App[None]):
    CSS = "#box { height: 8; }"

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield CellCachedTable(id="table")


async def _layouts_while_adding(rows_before: int) -> tuple[int, int, int]:
    """Layouts of the screen while one row is added to a table of `rows_before` rows,
    and the table's height before and after."""
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(CellCachedTable)
        table.add_column("path", key="path")
        for number in range(rows_before):
            table.add_row(f"file{number}.py", key=str(number))
        await wait_for(pilot, lambda: table.virtual_size.height == rows_before + 1,
                       what="the rows measured")
        await pilot.pause()
        height = table.size.height
        screen = app.screen
        layouts = []
        original = screen._refresh_layout

        def counting(*args: object, **kwargs: object) -> None:
            layouts.append(1)
            original(*args, **kwargs)  # type: ignore[arg-type]

        screen._refresh_layout = counting  # type: ignore[method-assign]
        table.add_row("new.py", key="new")
        await wait_for(pilot, lambda: table.virtual_size.height == rows_before + 2,
                       what="the new row measured")
        await pilot.pause()
        await pilot.pause()
        return len(layouts), height, table.size.height


async def test_a_table_below_its_cap_grows_with_a_new_row() -> None:
    layouts, before, after = await _layouts_while_adding(2)
    assert (before, after) == (3, 4)  # the header and its rows
    assert layouts >= 1


async def test_a_table_held_at_its_cap_is_not_laid_out_again_for_a_new_row() -> None:
    layouts, before, after = await _layouts_while_adding(20)
    assert before == after == CAP
    assert layouts == 0


async def test_a_column_keeps_its_width_when_its_widest_cell_narrows() -> None:
    """A status flipping 'working' → 'idle' → 'working' (several a second under load)
    does not narrow its column (each narrowing measured the whole column and repainted
    the whole table); a wider cell still widens it."""
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(CellCachedTable)
        table.add_column("st", key="st")
        table.add_row("working", key="a")
        table.add_row("idle", key="b")
        column = table.columns[next(iter(table.columns))]
        await wait_for(pilot, lambda: column.content_width == 7, what="the rows measured")
        table.update_cell("a", "st", "idle", update_width=True)
        await wait_for(pilot, lambda: not table._updated_cells, what="the cell measured")
        assert column.content_width == 7
        table.update_cell("b", "st", "needs input", update_width=True)
        await wait_for(pilot, lambda: column.content_width == 11, what="the column widened")


async def test_a_cell_showing_a_text_it_showed_before_is_not_drawn_again() -> None:
    """A status flipping back (a new Text each time, equal to one drawn before) takes
    its drawing from the cache; a text never shown there is drawn."""
    from rich.text import Text
    from textual.widgets import DataTable

    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(CellCachedTable)
        table.add_column("status", key="status")
        table.add_row(Text("working", style="bold green"), key="a")
        await wait_for(pilot, lambda: table.virtual_size.height == 2, what="the row measured")
        await pilot.pause()
        drawn: list[str] = []
        original = DataTable._render_cell

        def counting(self: DataTable, row_index: int, *args: object, **kwargs: object):
            if row_index >= 0:
                drawn.append(str(self.get_row_at(row_index)[0]))
            return original(self, row_index, *args, **kwargs)  # type: ignore[arg-type]

        DataTable._render_cell = counting  # type: ignore[method-assign]
        try:
            for status in ("idle", "working", "idle", "done"):
                table.update_cell("a", "status", Text(status, style="bold green"))
                await wait_for(pilot, lambda shown=status: shown in table.render_line(1).text,
                               what=f"{status!r} shown")
        finally:
            DataTable._render_cell = original  # type: ignore[method-assign]
        assert drawn == ["idle", "done"]
