"""Every dashboard action once: key, title and help, for bindings, help screen and palette."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Command:
    """An action of the main screen, reachable by key, help screen and command palette."""

    action: str  # the action's name (action_<name>) on the group's widget
    keys: str  # comma-separated Textual keys; the first is the one displayed
    title: str
    help: str
    group: str  # board | sessions | global: the widget whose keys these are
    show: bool = True  # listed in the footer
    key_display: str | None = None
    label: str | None = None  # the footer's shorter word (80 columns hold the footer)
    # Opens a form: the key is bound with priority, so the app itself runs the action and
    # holds the keys typed after it until the form has the focus (else a fast burst went
    # to the board beneath: H moved the card, e toggled the flips).
    form: bool = False


COMMANDS: tuple[Command, ...] = (
    Command("move_left", "shift+left,H", "Move left", "Move the card to the previous"
            " column, collapsed ones too (tasks.move)", "board", key_display="⇧←",
            label="Left", form=True),
    Command("move_right", "shift+right,L", "Move right", "Move the card to the next"
            " column, collapsed ones too (tasks.move)", "board", key_display="⇧→",
            label="Right", form=True),
    Command("new_task", "n", "New", "Add a task (title, assignee, after)", "board", form=True),
    Command("assign", "a", "Assign", "Assign the card to a session ('-' for nobody)", "board",
            show=False, form=True),
    Command("details", "enter", "Details", "Body, parents, children, comments, summary",
            "board", show=False),
    Command("done", "d", "Done", "Finish the card with a handoff summary", "board", form=True),
    Command("block", "b", "Block", "Mark the card blocked, with a reason", "board",
            show=False, form=True),
    Command("archive", "x", "Archive", "Move the card to archived", "board", show=False),
    Command("comment", "c", "Comment", "Comment on the card (shown in its details)",
            "board", show=False, form=True),
    Command("focus_session", "f", "Focus pane", "Move tmux focus to the session's pane",
            "sessions", label="Focus"),
    Command("details_session", "enter", "Detail", "The session's task, status and why,"
            " changed files, diff, inbox and notebook", "sessions"),
    Command("zoom_session", "z", "Zoom pane", "Zoom the session's tmux pane", "sessions",
            label="Zoom"),
    Command("land_session", "L", "Land", "Land the session's branch on the base branch:"
            " asks first, builds and checks it aside (land.check), shows the check's"
            " lines, then what landed or why not", "sessions"),
    Command("spawn_session", "s", "Spawn", "Start a new session (name, agent, task)",
            "sessions", form=True),
    Command("stop_session", "t", "Stop", "Stop the session (its worktree stays)", "sessions"),
    Command("restart_session", "r", "Restart", "Restart the session", "sessions"),
    Command("remove_session", "D", "Remove", "Stop and forget the session and remove its"
            " worktree (asks first; its branch stays, dirty work is refused)", "sessions"),
    Command("next_panel(1)", "tab", "Next panel", "Focus the next panel: needs you (when"
            " shown), sessions, board, notes, watcher", "global", show=False),
    Command("next_panel(-1)", "shift+tab", "Previous panel", "Focus the previous panel",
            "global", show=False),
    Command("panel('sessions')", "1", "Sessions", "Focus the sessions table", "global",
            show=False),
    Command("panel('board')", "2", "Board", "Focus the board (the column used last, or"
            " the first with cards)", "global", show=False),
    Command("panel('stream')", "3", "Notes", "Focus the note stream (narrow: in the"
            " watcher's place again)", "global", show=False),
    Command("panel('watcher')", "4", "Watcher", "Focus the watcher (narrow: in the notes'"
            " place)", "global", show=False),
    Command("next_need", "g", "Next need", "Go to the next thing that waits on you"
            " (enter there: its pane or card)", "global", label="Needs"),
    Command("compose", "m", "Note", "Send a note to the selected session", "global", form=True),
    Command("compose_all", "M", "Note all", "Send a note to every session", "global",
            show=False, form=True),
    Command("filter_stream", "slash", "Filter", "Show only the selected session's notes"
            " (again: show all)", "global", show=False),
    Command("graph", "G", "Plan graph", "The task graph: who waits on whom, by status",
            "global", show=False),
    Command("toggle_flips", "e", "Status flips", "Show or hide sessions' status changes in"
            " the note stream", "global", show=False),
    Command("toggle_preview", "p", "Preview", "Show or hide the pane preview", "global",
            show=False),
    Command("app.help", "question_mark", "Help", "Keys and actions", "global"),
)


def commands_in(group: str) -> list[Command]:
    """The commands of one group, in declaration order."""
    return [command for command in COMMANDS if command.group == group]


def bindings_for(group: str) -> list[BindingType]:
    """Bindings for a group's commands, aimed at the actions of the widget that declares
    them (the board, the sessions table, or the screen for the global group)."""
    return [Binding(command.keys, command.action, command.label or command.title,
                    show=command.show, key_display=command.key_display,
                    priority=command.form, id=f"{group}.{command.action}")
            for command in commands_in(group)]
