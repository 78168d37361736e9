"""Codex CLI's adapter: its screen (`screen`), plus how a pane starts it (`launch`).

Codex has no hook bullpen relies on (its hooks run only once the user trusts each), so
the defaults hold for hooks and missed reads: notes are typed at its empty composer.
The room's command policy becomes Codex execpolicy rules (`rules`). What it spent is read
from its own session files (`usage`).
"""

from __future__ import annotations

from pathlib import Path

from board.models import Session
from workers.agents.adapter import Capabilities, Launch, SpendReading
from workers.agents.codex.screen import CodexScreen
from workers.agents.command_line import takes_flags


class CodexAdapter(CodexScreen):
    says_version = True

    def serves_mcp(self, agent: str, session: Session) -> bool:
        return takes_flags(agent)  # launch_command adds the MCP server to such a command

    def launch_command(self, agent: str, launch: Launch) -> str:
        """`agent` with bullpen's MCP server, without Codex's background server, resuming
        the session's last conversation in its worktree unless the launch is fresh."""
        if not takes_flags(agent):
            return agent
        from workers.agents.codex import launch as codex_launch
        from workers.agents.codex import rules

        session = launch.session
        resume = None if launch.fresh or not session.worktree else \
            codex_launch.last_conversation(session.worktree, session.created_at)
        if session.worktree:
            rules.write_rules(Path(session.worktree), launch.deny)
        return codex_launch.codex_command(agent, resume=resume,
                                          rules_root=bool(session.worktree))

    def read_spend(self, home: Path, session: Session, state: dict) -> SpendReading | None:
        from workers.agents.codex import usage

        return usage.read_spend(session, state)

    def enforces_deny(self, agent: str) -> str | None:
        return "its execpolicy rules (prefix patterns only)" if takes_flags(agent) else None

    def capabilities(self, agent: str, version: str | None) -> Capabilities:
        """The same for every release seen (the tested ones): spend from its
        own records, the deny list through its own mechanism; a hook's context kept
        across a resume is not checked, so not claimed."""
        return Capabilities(notes_at_turn=self.has_hooks, deny=self.enforces_deny(agent),
                            spend="codex session files")

    def deny_gaps(self, agent: str, deny: tuple[str, ...]) -> list[str]:
        from workers.agents.codex.rules import untranslated

        return untranslated(deny) if takes_flags(agent) else []


ADAPTER = CodexAdapter
