"""Workers: one agent session = one process in one tmux pane, and the daemon that serves them.

Sub-packages, each owning one responsibility:
`tmux` (the room's tmux server, pane snapshots, typing, text cleaning, layout),
`room` (bullpen.yaml, spawn/stop/restart, up/down/ls), `coordinator` (the per-room
daemon: status, delivery, pings, the watcher), `agents` (what each agent kind needs:
launch, hooks, profiles), `surfaces` (the MCP server and the hook entry point, peers of
the CLI) and `demo` (the scripted three-agent story).
"""
