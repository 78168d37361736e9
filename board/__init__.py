"""The shared room: the store (SQLite, or PostgreSQL across machines) and its rules.

Every SQL statement of the product lives here (a test fails on one outside): sessions,
tasks, notes, notebooks, reads, alerts, events, authority and audit, plus read-only
views for the human's surfaces. `vocabulary` is the stdlib-only leaf of shared enums and
`errors` the one error root every package raises from. No tmux, git or Textual here.
"""
