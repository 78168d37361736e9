"""Workers: one agent session = one process in one tmux pane, and the daemon that serves them.

Sub-packages, each owning one responsibility, stacked one way (import-linter enforces it:
demo, surfaces -> room -> coordinator -> agents -> tmux):
`tmux` (the room's tmux server, pane snapshots, typing, text cleaning, layout),
`room` (bullpen.yaml, spawn/stop/restart, up/down/ls, and `room.control`, the one façade
every surface calls), `coordinator` (the per-room daemon: agent state, delivery, pings,
the watcher), `agents` (one adapter per agent kind: launch, hooks, screens, profiles),
`surfaces` (the MCP server and the hook entry point, peers of the CLI) and `demo` (the
scripted three-agent story).
"""
