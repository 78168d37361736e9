"""Workers: one agent session = one tmux pane.

The tmux layer here is pure tmux (no store, no git) so it can be reused and tested alone:
`tmux` (the room's server, launching and addressing panes by id), `panes` (one-call
snapshots of every pane), `status` (working / idle / needs input / exited from
snapshots), `sanitize` (note text made safe to type) and `keyboard` (typing a line into
a pane). The coordinator wires them to the store.
"""
