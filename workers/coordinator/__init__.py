"""The coordinator: one process per room that watches, dispatches and delivers.

`process` (the `bullpen coordinator` process), `lock` (one coordinator per room, and its
state for `ls`), `loop` (the daemon: tails the store's events, polls panes), `guard`
(store faults retried, bad items skipped), `presence` (its machine in a multi-machine
room), `status` (each pane's state from snapshots and hook reports), `delivery` (typing
pending notes into panes that can take them), `pings` (board events turned into
exactly-once pings), `catch_up` (commits made while no coordinator ran), `watcher` and
`change_filter` (file changes routed to the sessions that read them) and `fs_reads`
(opt-in read detection for agents without hooks).
"""
