"""StatusTracker: evidence to agent state, driven by a fake clock (no tmux, no sleeps)."""

from __future__ import annotations

from dataclasses import replace

from workers.agents.kinds import adapter_for
from workers.coordinator.delivery import hold_reason
from workers.coordinator.status import HookReport, PaneStatus, Status, StatusTracker
from workers.tmux.panes import PaneSnapshot


class FakeClock:
    """A clock the test advances by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def snap(content: str | None, *, dead: bool = False, status: int | None = None,
         signal: int | None = None, lines: tuple[str, ...] = (),
         pane_id: str = "%1", in_front: bool | None = True, command: str = "agent",
         alternate: bool = False) -> dict[str, PaneSnapshot]:
    """One-pane snapshot dict with `content` standing in for the hash; `lines` is the
    screen, with the cursor at the end of its last line."""
    cursor_y = max(len(lines) - 1, 0)
    shot = PaneSnapshot(pane_id=pane_id, pid=10, dead=dead, dead_status=status,
                        current_command=command, title="a", width=80, height=24,
                        content_hash=content, last_lines=lines, dead_signal=signal,
                        screen=lines, cursor_x=len(lines[-1]) if lines else 0,
                        cursor_y=cursor_y, in_front=in_front, alternate=alternate)
    return {pane_id: shot}


def tracker() -> tuple[StatusTracker, FakeClock]:
    clock = FakeClock()
    return StatusTracker(idle_after=1.5, clock=clock, wall=clock), clock


def test_first_sight_is_starting_then_idle_after_the_debounce() -> None:
    t, clock = tracker()
    assert t.update(snap("h1"))["%1"].status is Status.STARTING
    clock.now += 1.0
    assert t.update(snap("h1"))["%1"].status is Status.STARTING
    clock.now += 0.5
    idle = t.update(snap("h1"))["%1"]
    assert (idle.status, idle.since) == (Status.IDLE, 101.5)


def test_change_resets_the_debounce() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 2
    assert t.update(snap("h1"))["%1"].status is Status.IDLE
    clock.now += 0.1
    assert t.update(snap("h2"))["%1"].status is Status.WORKING
    clock.now += 1.4
    assert t.update(snap("h2"))["%1"].status is Status.WORKING
    clock.now += 0.1
    assert t.update(snap("h2"))["%1"].status is Status.IDLE


def test_since_is_kept_while_the_status_holds() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 2
    first = t.update(snap("h1"))["%1"]
    clock.now += 5
    assert t.update(snap("h1"))["%1"].since == first.since == 102.0


def test_a_question_is_needs_input_at_once_with_the_question_as_reason() -> None:
    t, clock = tracker()
    lines = ("Run `rm build/`?", "Do you want to proceed? (y/n)")
    status = t.update(snap("h1", lines=lines))["%1"]
    assert status.status is Status.NEEDS_INPUT
    assert status.prompt == status.reason == "Do you want to proceed? (y/n)"
    clock.now += 10
    assert t.update(snap("h1", lines=lines))["%1"].status is Status.NEEDS_INPUT


def test_a_question_anywhere_on_a_tui_screen_is_found() -> None:
    """Claude's permission prompt: the question is far above the last lines."""
    t, _ = tracker()
    lines = ("● Bash(rm -rf build)", "", " Bash command", "   rm -rf build", "",
             " Do you want to proceed?", " ❯ 1. Yes", "   2. No", "", "", "",
             " Esc to cancel · Tab to amend")
    status = t.update(snap("h1", lines=lines), {"%1": adapter_for("claude")})["%1"]
    assert (status.status, status.reason) == (Status.NEEDS_INPUT, "Do you want to proceed?")


def test_claude_permission_hook_words_the_question() -> None:
    """Claude's PermissionRequest hook names the tool and its target: that is the reason
    the needs-you strip and `ls` show, not the screen's generic "Do you want to proceed?"."""
    t, clock = tracker()
    lines = (" Bash command", "   git commit -am wip", "", " Do you want to proceed?",
             " ❯ 1. Yes", "   2. No", " Esc to cancel · Tab to amend")
    asked = "Claude asks to use Bash (git commit -am wip)"
    hooks = {"%1": HookReport("needs_input", at=clock.now, question=asked)}
    status = t.update(snap("h1", lines=lines), {"%1": adapter_for("claude")}, hooks)["%1"]
    assert (status.status, status.reason) == (Status.NEEDS_INPUT, asked)
    stale = {"%1": HookReport("working", at=clock.now, question=asked)}
    clock.now += 1
    assert t.update(snap("h1", lines=lines), {"%1": adapter_for("claude")},
                    stale)["%1"].reason == "Do you want to proceed?"


def test_old_answered_questions_above_the_prompt_are_history() -> None:
    t, clock = tracker()
    lines = ("Proceed? (y/n)", "y", "ok", "working on it", "done", "agent>")
    t.update(snap("h1", lines=lines))
    clock.now += 2
    assert t.update(snap("h1", lines=lines))["%1"].status is Status.IDLE


CLAUDE_IDLE = ("─" * 40, "❯\u00a0", "─" * 40, "  ? for shortcuts")
CLAUDE_BUSY = ("❯ say hi", "", "✢ Photosynthesizing…", "─" * 40, "❯\u00a0", "─" * 40,
               "  esc to interrupt")


def test_empty_prompt_held_still_beats_a_stale_working_hook() -> None:
    """After Esc, Claude's Stop hook never fires: the screen says idle."""
    t, clock = tracker()
    claude = {"%1": adapter_for("claude")}
    hooks = {"%1": HookReport("working", at=clock.now)}
    assert t.update(snap("h1", lines=CLAUDE_IDLE), claude, hooks)["%1"].status \
        is not Status.IDLE
    clock.now += 1.6
    assert t.update(snap("h1", lines=CLAUDE_IDLE), claude, hooks)["%1"].status is Status.IDLE


def test_changing_output_contradicts_an_idle_hook() -> None:
    t, clock = tracker()
    claude = {"%1": adapter_for("claude")}
    hooks = {"%1": HookReport("idle", at=clock.now)}
    for step in range(5):
        clock.now += 0.5
        state = t.update(snap(f"h{step}", lines=CLAUDE_IDLE), claude, hooks)["%1"]
        assert state.status is not Status.IDLE
    busy = t.update(snap("busy", lines=CLAUDE_BUSY), claude, hooks)["%1"]
    assert busy.status is Status.WORKING
    clock.now += 10
    assert t.update(snap("busy", lines=CLAUDE_BUSY), claude, hooks)["%1"].status \
        is Status.WORKING  # a spinner is busy however still the capture happens to be


def test_unrecognised_still_screen_of_a_known_agent_is_unknown_not_idle() -> None:
    t, clock = tracker()
    hermes = {"%1": adapter_for("hermes")}
    t.update(snap("h1", lines=("some output",)), hermes)
    clock.now += 40  # past the start-up allowance
    state = t.update(snap("h1", lines=("some output",)), hermes)["%1"]
    assert state.status is Status.UNKNOWN


def test_another_program_in_front_is_never_idle() -> None:
    t, clock = tracker()
    lines = ("NAME", "     less - opposite of more", ":")
    t.update(snap("h1", lines=lines, in_front=False, command="less"))
    clock.now += 5
    state = t.update(snap("h1", lines=lines, in_front=False, command="less"))["%1"]
    assert (state.status, state.reason) == (Status.UNKNOWN, "less in front")
    alternate = t.update(snap("h1", lines=lines, alternate=True, command="vim"),
                         {"%1": adapter_for("bash")})["%1"]
    assert alternate.status is not Status.IDLE


def test_text_in_the_input_line_is_reported() -> None:
    t, clock = tracker()
    lines = ("─" * 40, "❯\u00a0half typed", "─" * 40)
    t.update(snap("h1", lines=lines), {"%1": adapter_for("claude")})
    clock.now += 2
    state = t.update(snap("h1", lines=lines), {"%1": adapter_for("claude")})["%1"]
    assert (state.status, state.input_text) == (Status.IDLE, "half typed")


def test_dead_pane_is_exited_with_its_code() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 0.3
    status = t.update(snap("h2", dead=True, status=3))["%1"]
    assert (status.status, status.since, status.exit_code) == (Status.EXITED, 100.3, 3)
    assert isinstance(status, PaneStatus)


def test_killed_pane_reports_128_plus_signal_once_reaped() -> None:
    t, clock = tracker()
    early = t.update(snap("h1", dead=True))["%1"]
    assert (early.status, early.exit_code) == (Status.EXITED, None)
    clock.now += 0.1
    assert t.update(snap("h1", dead=True, signal=9))["%1"].exit_code == 137


def test_missing_capture_keeps_the_last_hash() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 1
    t.update(snap(None))
    clock.now += 1
    assert t.update(snap("h1"))["%1"].status is Status.IDLE


def test_vanished_panes_are_forgotten() -> None:
    t, clock = tracker()
    t.update(snap("h1"))
    clock.now += 2
    assert t.update({}) == {}
    assert t.update(snap("h1"))["%1"].status is Status.STARTING


def test_panes_are_tracked_independently() -> None:
    t, clock = tracker()
    both = {**snap("a1", pane_id="%1"), **snap("b1", pane_id="%2")}
    t.update(both)
    clock.now += 2
    statuses = t.update({**snap("a1", pane_id="%1"), **snap("b2", pane_id="%2")})
    assert statuses["%1"].status is Status.IDLE
    assert statuses["%2"].status is Status.STARTING  # still changing, never settled


def test_a_pane_read_again_when_its_adapter_becomes_known() -> None:
    """The first tick may see a new pane before its session names it: once the shell's
    adapter is known, the same screen is read again (its prompt, not 'nothing')."""
    t, clock = tracker()
    lines = ("bash-5.2# ",)
    t.update(snap("h1", lines=lines))
    clock.now += 2
    state = t.update(snap("h1", lines=lines), {"%1": adapter_for("bash")})["%1"]
    assert state.status is Status.IDLE


def test_a_screen_never_recognised_after_start_up_names_the_release() -> None:
    """A release whose screen changed: no prompt, spinner or question since its start.
    Still or changing, past the start-up time it is unknown, naming its version."""
    t, clock = tracker()
    claude = adapter_for("claude")
    claude.version = "9.9.9"
    lines = ("Claude Code v9.9.9", "", "  ask me anything  >>")
    assert t.update(snap("h1", lines=lines), {"%1": claude})["%1"].status is Status.STARTING
    clock.now += t.startup + 1
    for content in ("h1", "h2"):  # held still, then drawing something new
        state = t.update(snap(content, lines=lines), {"%1": claude})["%1"]
        assert state.status is Status.UNKNOWN
        assert state.reason == ("bullpen cannot read claude 9.9.9's screen; notes wait"
                                " — tested: " + ", ".join(claude.tested_versions))


def test_a_prompt_seen_once_is_no_unreadable_release() -> None:
    t, clock = tracker()
    claude = adapter_for("claude")
    rule = "─" * 40
    t.update(snap("h1", lines=(rule, "❯ ", rule)), {"%1": claude})
    clock.now += t.startup + 1
    state = t.update(snap("h2", lines=("something else",)), {"%1": claude})["%1"]
    assert not (state.reason or "").startswith("bullpen cannot read"), state


def test_the_agent_itself_on_an_alternate_screen_is_read_a_child_is_in_front() -> None:
    """Hermes draws on the normal screen; if its own process (in front) shows an
    alternate screen, that screen is read, not taken for another program."""
    t, clock = tracker()
    hermes = adapter_for("hermes")
    lines = ("something hermes drew",)
    t.update(snap("h1", lines=lines, alternate=True), {"%1": hermes})
    clock.now += 2
    own = t.update(snap("h1", lines=lines, alternate=True), {"%1": hermes})["%1"]
    assert not (own.reason or "").endswith(" in front"), own
    t.forget("%1")
    t.update(snap("h1", lines=lines, alternate=True, in_front=False, command="less"),
             {"%1": hermes})
    clock.now += 2
    child = t.update(snap("h1", lines=lines, alternate=True, in_front=False, command="less"),
                     {"%1": hermes})["%1"]
    assert child.status is Status.UNKNOWN and child.reason == "less in front"


def test_what_a_human_left_on_a_generic_programs_cursor_line_is_its_input() -> None:
    """A generic program (`deliver: type`): text a human typed (a key reached the pane
    just before the line changed) stays input long after the keyboard went quiet; the
    program's own rewrites and new lines are not input."""
    generic = adapter_for("python3 agent.py", "type")
    t, clock = tracker()

    def tick(content: str, lines: tuple[str, ...], key_at: float | None = None) -> PaneStatus:
        shots = snap(content, lines=lines)
        shot: PaneSnapshot = replace(shots["%1"], key_at=key_at)
        return t.update({"%1": shot}, {"%1": generic})["%1"]

    out = ("got: hello", "[exit 0]")
    tick("h1", (*out, "agent>"))
    clock.now += 2.0
    assert tick("h1", (*out, "agent>")).input_text is None  # the program's prompt, idle
    typed_at = clock.now
    tick("h2", (*out, "agent> half typed"), key_at=typed_at)
    clock.now += 5.0  # the human left it there: the keyboard has been quiet for 5 s
    left = tick("h2", (*out, "agent> half typed"), key_at=typed_at)
    assert (left.status, left.input_text) == (Status.IDLE, "half typed")
    assert hold_reason(generic, left, key_at=typed_at, now=clock.now) == "human typing"
    cleared_at = clock.now
    tick("h1", (*out, "agent>"), key_at=cleared_at)  # Ctrl-U
    clock.now += 5.0
    empty = tick("h1", (*out, "agent>"), key_at=cleared_at)
    assert empty.input_text is None
    assert hold_reason(generic, empty, key_at=cleared_at, now=clock.now) is None
    # The program rewriting its own line, no key near it, is no human's text.
    tick("h3", (*out, "agent> ready"))
    clock.now += 2.0
    assert tick("h3", (*out, "agent> ready")).input_text is None
    # A new line (the rows above changed) starts afresh.
    tick("h4", (*out, "agent> ready", "got: x", "agent>"))
    clock.now += 2.0
    assert tick("h4", (*out, "agent> ready", "got: x", "agent>")).input_text is None


def test_a_resize_redraw_is_not_work() -> None:
    """An attach from a smaller terminal, a zoom or a layout change redraws the pane:
    neither a flip to working (an event, a line in the stream) nor activity."""
    t, clock = tracker()
    prompt = ("agent> ",)
    t.update(snap("h1", lines=prompt))
    clock.now += 2
    idle = t.update(snap("h1", lines=prompt))["%1"]
    assert idle.status is Status.IDLE
    for size, redrawn in (((100, 30), "h2"), ((80, 24), "h3")):  # zoomed, then back
        clock.now += 0.5
        resized = {"%1": replace(snap(redrawn, lines=prompt)["%1"], width=size[0],
                                 height=size[1])}
        now = t.update(resized)["%1"]
        assert (now.status, now.since) == (Status.IDLE, idle.since)  # no event
        clock.now += 0.5
        redraw_late = {"%1": replace(resized["%1"], content_hash=redrawn + "'")}
        assert t.update(redraw_late)["%1"].status is Status.IDLE  # the redraw a tick late
    clock.now += 3
    assert t.update(snap("h4", lines=prompt))["%1"].status is Status.WORKING  # real output
