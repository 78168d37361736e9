"""The coordinator: one process per room that watches, dispatches and delivers.

`loop` (the daemon: tails the store's events, polls panes, holds the single-instance
lock), `status` (each pane's state from snapshots and hook reports), `delivery` (typing
pending notes into panes that can take them), `pings` (board events turned into
exactly-once pings), `watcher` and `change_filter` (file changes routed to the sessions
that read them) and `fs_reads` (opt-in read detection for agents without hooks).
"""
