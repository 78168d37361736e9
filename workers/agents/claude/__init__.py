"""Claude Code: its screen (`screen`), the settings and MCP config a launch passes it
(`settings`), its own transcript (`transcript`) and the files a tool call read
(`tool_reads`). Imports nothing itself: the hook process must stay light."""
