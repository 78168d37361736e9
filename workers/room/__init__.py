"""The room's sessions as the human manages them: `bullpen.yaml`, spawn/stop/restart, up/down/ls.

`config` (the validated `bullpen.yaml`), `spawn` (one session: worktree, store record,
pane), `lifecycle` (bringing the whole room up and down, listing it) and `runtime` (the
session verbs over tmux and git that the dashboard calls from thread workers).
"""
