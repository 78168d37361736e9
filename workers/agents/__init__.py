"""What each agent kind needs from bullpen: how it is launched, its hooks, its screens.

`adapter` (the protocol every kind implements) with `kinds` (which adapter a command
gets) and `screens/` (one screen reader per kind); `command` (a session's launch command
and environment); `hermes`, `hermes_files` and `hermes_memory` (Hermes profiles, secrets
and a notebook-backed memory provider); `claude` (Claude Code's settings and MCP entry);
`claude_transcript` (the tool calls Claude itself recorded); `tool_reads` and `bash_reads`
(which files a tool call or shell command read); `agent_files` (what bullpen keeps per
agent outside the worktree) and `bullpen_command` (the absolute `bullpen` path hooks and
MCP entries run). Never imports the coordinator.
"""
