"""The room's sessions as the human manages them: `bullpen.yaml`, spawn/stop/restart, up/down/ls.

`control` is the façade: `RoomControl`, the one object the CLI, the dashboard and the demo
call for every session verb (and the one pane-ownership rule). Behind it: `config` (the
validated `bullpen.yaml`), `spawn` (one session: worktree, store record, pane) and
`lifecycle` (bringing the whole room up and down, listing it, starting the coordinator).
"""
