"""The room's verbs offered to agents, peers of the command line.

`mcp_server` (`bullpen mcp`: the verbs as MCP tools over stdio, acting as one session),
`hooks` (`bullpen hook …`: what Hermes and Claude Code call at their turn boundaries and
after each tool) and `bash_reads` (the files a shell command read, from its text).
"""
