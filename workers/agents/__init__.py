"""What each agent kind needs from bullpen: one folder per kind, shared pieces beside them.

Per kind: `claude/`, `hermes/`, `codex/`, `aider/` (its screen reader, how a pane starts
it, its files, transcript or memory). Shared: `adapter` (the protocol every kind
implements), `kinds` (the one registry: which adapter a command gets, wrappers looked
through), `readers/` (generic programs, shells, questions, full-screen pieces), `launch`
(a session's pane command and environment), `tool_input` and `bash_reads` (which files a
tool call or shell command names), `agent_files` (what bullpen keeps per agent outside
the worktree), `bullpen_command` (the absolute `bullpen` hooks and MCP entries run) and
`framing` (how a note reads to an agent). Never imports the coordinator.
"""
