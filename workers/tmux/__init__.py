"""The room's tmux driver: pure tmux, no store and no git.

`server` (the room's own tmux server on a dedicated socket, panes addressed by id, typed
errors), `panes` (one-call snapshots of every pane), `layout` (where the dashboard, the
session panes and the hidden window sit), `sanitize` (untrusted text made safe to type)
and `keyboard` (typing a line into a pane: buffer, bracketed paste, separate Enter).
"""
