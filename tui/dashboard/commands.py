"""Every dashboard action once: key, title and help, for bindings, help screen and palette."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class Command:
    """An action of the main screen, reachable by key, help screen and command palette."""

    action: str  # the screen's action name (action_<name>)
    keys: str  # comma-separated Textual keys; the first is the one displayed
    title: str
    help: str
    group: str  # board | sessions | global
    show: bool = True  # listed in the footer
    key_display: str | None = None


COMMANDS: tuple[Command, ...] = (
    Command("move_left", "shift+left,H", "Move left", "Move the card to the previous"
            " column (tasks.move)", "board", key_display="⇧←"),
    Command("move_right", "shift+right,L", "Move right", "Move the card to the next"
            " column (tasks.move)", "board", key_display="⇧→"),
    Command("new_task", "n", "New", "Add a task (title, assignee, after)", "board"),
    Command("assign", "a", "Assign", "Assign the card to a session ('-' for nobody)", "board"),
    Command("details", "enter", "Details", "Body, parents, children, comments, summary",
            "board"),
    Command("done", "d", "Done", "Finish the card with a handoff summary", "board"),
    Command("block", "b", "Block", "Mark the card blocked, with a reason", "board"),
    Command("archive", "x", "Archive", "Move the card to archived", "board"),
    Command("comment", "c", "Comment", "Comment on the card (shown in its details)",
            "board", show=False),
    Command("focus_session", "f,enter", "Focus pane", "Move tmux focus to the session's pane",
            "sessions"),
    Command("zoom_session", "z", "Zoom pane", "Zoom the session's tmux pane", "sessions"),
    Command("spawn_session", "s", "Spawn", "Start a new session (name, agent, task)",
            "sessions"),
    Command("stop_session", "t", "Stop", "Stop the session (its worktree stays)", "sessions"),
    Command("restart_session", "r", "Restart", "Restart the session", "sessions"),
    Command("compose", "m", "Note", "Send a note to the selected session", "global"),
    Command("compose_all", "M", "Note all", "Send a note to every session", "global",
            show=False),
    Command("filter_stream", "slash", "Filter", "Show only the selected session's notes"
            " (again: show all)", "global"),
    Command("toggle_preview", "p", "Preview", "Show or hide the pane preview", "global",
            show=False),
    Command("help", "question_mark", "Help", "Keys and actions", "global"),
)


def commands_in(group: str) -> list[Command]:
    """The commands of one group, in declaration order."""
    return [command for command in COMMANDS if command.group == group]


def bindings_for(group: str) -> list[Binding]:
    """Bindings for a group's commands, aimed at the screen's actions."""
    return [Binding(command.keys, f"screen.{command.action}", command.title,
                    show=command.show, key_display=command.key_display,
                    id=f"{group}.{command.action}")
            for command in commands_in(group)]


def display_key(command: Command) -> str:
    """The keys as a person reads them: 'shift+←  H'."""
    names = {"shift+left": "shift+←", "shift+right": "shift+→", "slash": "/",
             "question_mark": "?", "enter": "enter"}
    return "  ".join(names.get(key, key) for key in command.keys.split(","))
