"""The room's verbs offered to agents, peers of the command line.

`mcp_server` (`bullpen mcp`: the verbs as MCP tools over stdio, acting as one session),
`hooks` (what Hermes and Claude Code call at their turn boundaries and after each tool),
`hook_entry` (`bullpen hook …`: the lean process that forwards to the coordinator's hook
server or runs `hooks` itself), `hook_server` (the same hooks over HTTP on 127.0.0.1,
served beside the coordinator).
"""
