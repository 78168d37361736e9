"""The preview: the bottom of the selected session's pane, as last captured."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class Preview(Widget):
    """Shows the last lines of a pane capture that fit; no markup is interpreted."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session: str | None = None
        self.text = ""
        self.border_title = "preview"

    def show(self, session: str, text: str) -> None:
        """Display `text` captured from `session`'s pane (redraws only when it changed)."""
        if session == self.session and text == self.text:
            return
        self.session, self.text = session, text
        self.border_title = f"preview · {session}"
        self.refresh()

    def render(self) -> Text:
        if self.session is None:
            return Text("select a session to preview its pane", style="dim")
        lines = self.text.rstrip("\n").splitlines()
        visible = lines[-max(self.size.height, 1):]
        return Text("\n".join(visible), no_wrap=True, overflow="ellipsis")
