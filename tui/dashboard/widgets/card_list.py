"""One board column: a virtual list of cards that renders only the visible lines.

A column may hold thousands of tasks, so cards are not widgets: the column keeps task ids
and draws three lines per card on demand (Textual's line API): the title over two
lines, then the id, marks (⧗ waits on parents, ⊘ blocked, ◆ review, ⚠ conflict: a
predicted conflict; on a done card, whether its session's work landed: ✓ landed abc1234,
↑ ready to land), assignee and age. The marks are kept whole; the assignee and the age
give way to them in a narrow column.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from board.models import Task
from board.vocabulary import TaskStatus
from tui.dashboard.code_marks import CodeMark
from tui.dashboard.format import age, wrap_title

CARD_HEIGHT = 3
TITLE_LINES = 2
ID_STYLE = Style(bold=True)
META_STYLE = Style(dim=True)
WAIT_STYLE = Style(color="yellow")
BLOCK_STYLE = Style(color="red")
REVIEW_STYLE = Style(color="magenta")


class CardList(ScrollView, can_focus=True):
    """The cards of one status, with a cursor; bindings act on the highlighted card."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "cursor(-10)", "10 cards up", show=False),
        Binding("pagedown", "cursor(10)", "10 cards down", show=False),
        Binding("home", "cursor(-1000000)", "First card", show=False),
        Binding("end", "cursor(1000000)", "Last card", show=False),
        Binding("left,h", "neighbour(-1)", "Column left", show=False,
                tooltip="The previous column with cards"),
        Binding("right,l", "neighbour(1)", "Column right", show=False,
                tooltip="The next column with cards"),
    ]
    COMPONENT_CLASSES = {"card-list--cursor", "card-list--cursor-blurred"}
    DEFAULT_CSS = """
    CardList { overflow-x: hidden; }
    CardList > .card-list--cursor { background: $accent 60%; }
    CardList > .card-list--cursor-blurred { background: $panel-lighten-1; }
    """

    cursor: reactive[int] = reactive(0, always_update=True)

    @dataclass
    class Highlighted(Message):
        """The cursor landed on a card (or the column became empty: task_id None)."""

        card_list: CardList
        task_id: int | None

    @dataclass
    class Leave(Message):
        """The user asked to go to the neighbouring column (`step` -1 or 1)."""

        card_list: CardList
        step: int

    def __init__(self, status: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.status = status
        self.ids: list[int] = []
        self.tasks: dict[int, Task] = {}
        self.conflicted: frozenset[str] = frozenset()  # sessions the radar flags
        self.code: dict[str, CodeMark] = {}  # done cards: has their session's work landed?
        self._shown: tuple[object, ...] = ()  # the window `show` last drew (`_window`)

    def show(self, ids: list[int], tasks: dict[int, Task]) -> None:
        """Show these task ids (a shared sorted list), keeping the cursor on its card."""
        current = self.task_id
        self.ids, self.tasks = ids, tasks
        self._set_height(len(ids) * CARD_HEIGHT)
        if current is not None and current in tasks and tasks[current].status == self.status:
            index = bisect_left(ids, current)
        else:
            index = min(self.cursor, max(len(ids) - 1, 0))
        if index != self.cursor or self.task_id != current:  # else the same card: no news
            self.cursor = index
        # A card added past the window (the column's end, mostly) changes no line drawn.
        window = self._window()
        if window != self._shown:
            self._shown = window
            self.refresh()

    def _window(self) -> tuple[object, ...]:
        """What the visible lines are drawn from: the cursor and the cards in view, each
        with its age as shown."""
        first = int(self.scroll_y) // CARD_HEIGHT
        cards = [self.tasks.get(task_id)
                 for task_id in self.ids[first:first + self.size.height // CARD_HEIGHT + 2]]
        return (first, self.cursor, self.has_focus,
                *((card, age(card.updated_at)) for card in cards if card is not None))

    def _set_height(self, lines: int) -> None:
        """Grow or shrink the scrollable height. Setting `virtual_size` lays out the whole
        screen again (a redraw of every panel, the most a new card cost); only the
        scrollbar's length changes here unless the bar comes or goes, which does need a
        layout (as ScrollView keeps its own virtual size through layouts, this holds)."""
        size = Size(1, lines)
        if size == self.virtual_size:
            return
        if not self.is_mounted or not self.size:
            self.virtual_size = size
            return
        self.set_reactive(CardList.virtual_size, size)
        self._scroll_update(size)  # a bar that comes or goes asks for the layout itself

    @property
    def task_id(self) -> int | None:
        """The highlighted card's task id."""
        if 0 <= self.cursor < len(self.ids):
            return self.ids[self.cursor]
        return None

    def select(self, task_id: int) -> bool:
        """Put the cursor on `task_id` if this column holds it."""
        index = bisect_left(self.ids, task_id)
        if index < len(self.ids) and self.ids[index] == task_id:
            self.cursor = index
            return True
        return False

    @property
    def visible_row(self) -> int:
        """The cursor's card counted from the top of the visible window."""
        return max(self.cursor - int(self.scroll_y) // CARD_HEIGHT, 0)

    def row_at(self, visible_row: int) -> int:
        """The card index shown `visible_row` cards from the top of the window."""
        return int(self.scroll_y) // CARD_HEIGHT + visible_row

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.ids) - 1)) if self.ids else 0

    def watch_cursor(self, value: int) -> None:
        if self.ids:
            self.scroll_to_region(Region(0, value * CARD_HEIGHT, 1, CARD_HEIGHT),
                                  animate=False, immediate=True)
        self.refresh()
        self.post_message(self.Highlighted(self, self.task_id))

    def action_cursor(self, step: int) -> None:
        self.cursor += step

    def action_neighbour(self, step: int) -> None:
        self.post_message(self.Leave(self, step))

    def on_focus(self) -> None:
        self.refresh()
        self.post_message(self.Highlighted(self, self.task_id))

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        line = event.y + int(self.scroll_y)
        if 0 <= line < len(self.ids) * CARD_HEIGHT:
            self.cursor = line // CARD_HEIGHT

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        index, part = divmod(int(self.scroll_y) + y, CARD_HEIGHT)
        if index >= len(self.ids):
            return Strip.blank(width, base)
        task = self.tasks[self.ids[index]]
        if part < TITLE_LINES:
            lines = wrap_title(task.title, width, TITLE_LINES)
            segments = [Segment(lines[part])] if part < len(lines) else []
        else:
            segments = self._meta_line(task, width)
        style = base
        if index == self.cursor:
            component = "card-list--cursor" if self.has_focus else "card-list--cursor-blurred"
            style = base + self.get_component_rich_style(component)
        strip = Strip(segments)
        if strip.cell_length > width:
            strip = Strip([*strip.crop(0, max(width - 1, 0)), Segment("…")])
        return strip.apply_style(style).adjust_cell_length(width, style)

    def _meta_line(self, task: Task, width: int) -> list[Segment]:
        """`#2 ↑ ready to land @coder 5m`: the id and the card's marks stay whole; the
        assignee and the age are left out, in that order from the end, when the width
        does not hold them (only a mark's own detail is ever cut)."""
        marks: list[Segment] = []
        if task.status == TaskStatus.RUNNING and task.assignee in self.conflicted:
            marks.append(Segment(" ⚠ conflict", BLOCK_STYLE))
        mark = self.code.get(task.assignee or "") if task.status == TaskStatus.DONE else None
        if mark is not None:
            marks.append(Segment(f" {mark.symbol} {mark.text}", Style.parse(mark.style)))
        if task.waiting:
            waits = ",".join(f"#{parent}" for parent in task.parents)
            marks.append(Segment(f" ⧗{waits}", WAIT_STYLE))
        elif task.status == TaskStatus.BLOCKED:
            marks.append(Segment(f" ⊘ {task.block_reason or ''}".rstrip(), BLOCK_STYLE))
        elif task.status == TaskStatus.REVIEW:
            marks.append(Segment(" ◆", REVIEW_STYLE))
        segments = [Segment(f"#{task.id}", ID_STYLE), *marks]
        room = width - sum(segment.cell_length for segment in segments)
        for extra in (Segment(f" @{task.assignee}" if task.assignee else " -", META_STYLE),
                      Segment(f" {age(task.updated_at)}", META_STYLE)):
            if extra.cell_length > room:
                break
            segments.append(extra)
            room -= extra.cell_length
        return segments
