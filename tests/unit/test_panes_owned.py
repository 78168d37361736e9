from workers.tmux.panes import PaneSnapshot, owned


def snap(pane_id: str, session: str) -> PaneSnapshot:
    return PaneSnapshot(pane_id=pane_id, pid=1, dead=False, dead_status=None,
                        current_command="cat", title=session, width=80, height=24,
                        content_hash=None, session=session)


def test_a_remembered_pane_id_counts_only_while_it_is_the_sessions_pane() -> None:
    # After a tmux server restart, %1 (alice's pane before) is now the coordinator's.
    snapshots = {"%0": snap("%0", "dashboard"), "%1": snap("%1", ""),
                 "%2": snap("%2", "alice")}
    assert owned(snapshots, "%1", "alice") is None
    assert owned(snapshots, "%2", "alice") == snapshots["%2"]
    assert owned(snapshots, "%2", "bob") is None
    assert owned(snapshots, None, "alice") is None
    assert owned(snapshots, "%9", "alice") is None
