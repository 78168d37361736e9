"""What each agent kind needs from bullpen: how it is launched, its hooks and its profile.

`command` (the agent command of a session, its environment and set-up step), `hermes`
(Hermes profiles: MCP server, shell hooks, launch), `hermes_memory` (a Hermes memory
provider backed by the notebook) and `claude` (Claude Code's hook settings and MCP entry).
"""
