"""The shared room: one SQLite store for sessions, tasks, notes, notebooks, reads and alerts.

No tmux, git or Textual here: everything above builds on these plain functions.
"""
