"""Codex CLI: its screen (`screen`) and how a pane starts it with bullpen's MCP server
(`launch`). Imports nothing itself."""
