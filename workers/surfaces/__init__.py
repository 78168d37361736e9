"""The room's verbs offered to agents, peers of the command line.

`mcp_server` (`bullpen mcp`: the verbs as MCP tools over stdio, acting as one session) and
`hooks` (`bullpen hook …`: what Hermes and Claude Code call at their turn boundaries and
after each tool).
"""
