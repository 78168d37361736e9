"""Claude Code's adapter: its screen (`screen`), plus what bullpen does for it.

A launch passes the session's settings (hooks, bullpen's MCP tools allowed) and MCP
config with `--settings` and `--mcp-config`, resuming its last conversation; doctor
checks those files; reads its per-tool HTTP hook missed while no coordinator ran are
read back from Claude's transcript, and so is what it spent (`usage`); its hook calls
are read by `hooks`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from board.identity import hook_key
from board.models import Session
from board.vocabulary import IdentityVariable
from workers.agents import agent_files
from workers.agents.adapter import Capabilities, Health, Launch, SpendReading
from workers.agents.claude.screen import ClaudeScreen
from workers.agents.command_line import takes_flags
from workers.agents.hook_call import HookCall

TYPE_CHECKING = False  # not typing's: an agent's hook process imports this module
if TYPE_CHECKING:
    from workers.agents.plan_setup import ExportRequest, Installed, InstallRequest, Setup
    from workers.agents.pre_tool import Refusal


class ClaudeAdapter(ClaudeScreen):
    has_hooks = True  # UserPromptSubmit pulls pending notes into the prompt's turn
    says_version = True

    def serves_mcp(self, agent: str, session: Session) -> bool:
        return takes_flags(agent)  # launch_command adds the MCP server to such a command

    def launch_command(self, agent: str, launch: Launch) -> str:
        """`agent` with the session's settings and MCP config (after its own words) and
        the conversation to resume; the per-tool hook's key in the environment."""
        if not takes_flags(agent):
            return agent  # a pipeline or list: the flags would land on the wrong program
        from workers.agents.claude import plan, settings

        name = launch.session.name
        files = settings.launch_files(launch.home, name)
        extra = plan.prepare_launch(launch.home, name, files.settings)  # a team plan's
        launch.env[IdentityVariable.HOOK_KEY] = hook_key(launch.token)  # not the token
        return settings.claude_command(agent, files,
                                       settings.resume_id(launch.home, name, launch.fresh),
                                       extra)

    def health(self, home: Path, session: Session) -> list[Health]:
        """Whether the session's launch files hold bullpen's hooks and MCP server."""
        from workers.agents.claude import settings

        name = session.name
        if not takes_flags(session.agent or ""):
            return [Health(False, f"{name}: Claude runs without bullpen's hooks (its command"
                           " is not one program)", f"bullpen stop {name}, then spawn it"
                           " again with a plain claude command")]
        problem = settings.launch_problem(settings.session_files(home, name))
        if problem:
            return [Health(False, f"{name}: {problem}", f"bullpen restart {name}")]
        return [Health(True, f"{name}: Claude hooks in place")]

    def missed_reads(self, home: Path, session: Session,
                     after: Callable[[], float]) -> dict[str, float]:
        """The reads in the tool calls Claude's transcript holds after `after()`."""
        from workers.agents.claude import transcript
        from workers.agents.claude.tool_reads import claude_read_paths

        conversation = agent_files.read_value(home, session.name, agent_files.CONVERSATION)
        found = transcript.transcript_path(conversation or "")
        if found is None:
            return {}
        read_at: dict[str, float] = {}
        for use in transcript.tool_uses(found, after()):
            for path in claude_read_paths(use.tool, use.tool_input, use.cwd):
                read_at[path] = max(use.at, read_at.get(path, 0.0))
        return read_at

    def read_spend(self, home: Path, session: Session, state: dict) -> SpendReading | None:
        from workers.agents.claude import usage

        return usage.read_spend(home, session, state)

    def enforces_deny(self, agent: str) -> str | None:
        return "its PreToolUse hook" if takes_flags(agent) else None

    def capabilities(self, agent: str, version: str | None) -> Capabilities:
        """The same for every release seen (the tested ones): spend from its
        own records, the deny list through its own mechanism; a hook's context kept
        across a resume is not checked, so not claimed."""
        return Capabilities(notes_at_turn=self.has_hooks, deny=self.enforces_deny(agent),
                            spend="claude transcript")

    def read_hook(self, payload: Mapping[str, object], home: Path, session: str) -> HookCall:
        from workers.agents.claude import hooks

        def deny() -> tuple[str, ...]:  # asked only for a shell command
            from workers.agents import command_policy

            return command_policy.stored(home, session)

        return hooks.read_hook(payload, deny)

    def per_tool_hook(self, payload: Mapping[str, object]) -> bool:
        from workers.agents.claude import hooks

        return payload.get("hook_event_name") == hooks.PER_TOOL

    def notes_reply(self, context: str) -> dict:
        from workers.agents.claude import hooks

        return hooks.notes_reply(context)

    def deny_reply(self, refusal: Refusal) -> dict:
        from workers.agents.claude import hooks

        return hooks.deny_reply(refusal)

    def export_setup(self, request: ExportRequest) -> Setup | None:
        """Claude's settings (without bullpen's), CLAUDE.md, agents and skills."""
        from workers.agents.claude import plan

        return plan.export_setup(request)

    def install_setup(self, request: InstallRequest) -> Installed:
        """The plan's Claude setup beside the session's launch files."""
        from workers.agents.claude import plan

        return plan.install_setup(request)


ADAPTER = ClaudeAdapter
