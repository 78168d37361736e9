"""Hermes Agent's adapter: its screen (`screen`), plus what bullpen does for it.

A spawn gives the session a profile set up for bullpen (its own `bullpen-<name>-<repo>`,
cloned from the default one, unless it — or its command's `-p` — names a profile already
set up); one process per profile on the machine (`sole_use`); a launch starts the
classic REPL on it (`launch`); doctor checks the profile still holds bullpen's MCP server
and hooks; what it spent is read from the profile's own session store (`usage`); its
shell-hook calls are read by `hooks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from board.errors import BadInput, Refused
from board.models import Session
from workers.agents.adapter import (
    Capabilities,
    Health,
    Launch,
    SoleUse,
    SpawnPlan,
    SpendReading,
)
from workers.agents.hermes.screen import HermesScreen
from workers.agents.hook_call import HookCall

TYPE_CHECKING = False  # not typing's: an agent's hook process imports this module
if TYPE_CHECKING:
    from workers.agents.plan_setup import ExportRequest, Installed, InstallRequest, Setup
    from workers.agents.pre_tool import Refusal


class HermesAdapter(HermesScreen):
    has_hooks = True  # pre_llm_call hands pending notes to the next model call
    says_version = True

    def serves_mcp(self, agent: str, session: Session) -> bool:
        return session.profile is not None  # a profile bullpen set up has its MCP server

    def launch_command(self, agent: str, launch: Launch) -> str:
        from workers.agents.hermes import launch as hermes_launch

        return hermes_launch.launch_command(agent, launch.session, launch.home, launch.env,
                                            launch.fresh, launch.deny)

    def enforces_deny(self, agent: str) -> str | None:
        """The way the installed release holds the list (its source probed), or None."""
        from workers.agents.hermes import releases
        from workers.tmux.layout import tool_path

        return releases.deny_mechanism(agent, tool_path())

    def capabilities(self, agent: str, version: str | None) -> Capabilities:
        from workers.agents.hermes import releases

        return releases.capabilities(version)

    def plan_spawn(self, name: str, profile: str | None, agent: str = "",
                   home: Path | None = None) -> SpawnPlan:
        """The profile changes the session needs (MCP server and hooks).

        The profile is `profile`, or the one the command names (`hermes -p coder`: the
        session is registered with it, so every check sees it). Without one, or with
        `auto`, the session gets its own `bullpen-<name>-<repo hash>` profile cloned from
        the default one. A named profile must already be set up: its changes are shown
        by `bullpen hermes setup` before anything is written."""
        from workers.agents.hermes import profile as hermes_profile
        from workers.agents.hermes.profile_use import named_profile

        named = named_profile(agent)
        if named is not None and profile not in (None, hermes_profile.AUTO, named):
            raise BadInput(f"--profile {profile} but the agent command runs hermes -p {named};"
                           " name the profile once")
        profile = named or profile
        plan = hermes_profile.prepare_profile(profile or hermes_profile.AUTO, name,
                                              hermes_profile.hermes_root(),
                                              room=home.parent if home else None)
        if profile not in (None, hermes_profile.AUTO) and plan.changed:
            raise Refused(f"hermes profile {profile!r} is not set up for bullpen yet;"
                          f" review and apply the changes with: bullpen hermes setup"
                          f" {profile}")
        made = plan.directory if plan.create and not plan.directory.exists() else None
        return SpawnPlan(plan.profile, made, lambda: hermes_profile.apply_plan(plan))

    def sole_use(self, agent: str, profile: str | None) -> SoleUse | None:
        """The profile directory the launched command runs on, as Hermes finds it
        (`-p`, `--profile`, `HERMES_HOME`, `active_profile`): one process each."""
        from workers.agents.hermes.profile_use import profile_in_use

        use = profile_in_use(agent, profile)
        return SoleUse(f"hermes profile {use.name!r}", use.directory)

    def health(self, home: Path, session: Session) -> list[Health]:
        """Whether the session's profile still holds bullpen's MCP server and hooks."""
        from workers.agents.hermes import config

        profile = session.profile or "default"
        if not config.is_set_up(profile, config.hermes_root()):
            return [Health(False, f"{session.name}: hermes profile {profile} lacks"
                           " bullpen's MCP server and hooks", f"bullpen hermes setup {profile}")]
        return [Health(True, f"{session.name}: hermes profile set up")]

    def read_spend(self, home: Path, session: Session, state: dict) -> SpendReading | None:
        from workers.agents.hermes import usage
        from workers.agents.hermes.profile_use import profile_in_use

        use = profile_in_use(session.agent or "hermes", session.profile)
        return usage.read_spend(session, use.directory, state)

    def kept_conversation(self, session: Session,
                          conversation: str) -> tuple[float, str] | None:
        """What the profile's state.db keeps of `conversation`: 0.17 and 0.18 keep only
        the typed lines, not what a hook added to a turn; 0.19 keeps both."""
        from board import foreign_stores
        from workers.agents.hermes import usage
        from workers.agents.hermes.profile_use import profile_in_use

        use = profile_in_use(session.agent or "hermes", session.profile)
        return foreign_stores.hermes_conversation(use.directory / usage.STORE, conversation)

    def read_hook(self, payload: Mapping[str, object], home: Path, session: str) -> HookCall:
        from workers.agents.hermes import hooks

        return hooks.read_hook(payload, home, session)

    def notes_reply(self, context: str) -> dict:
        from workers.agents.hermes import hooks

        return hooks.notes_reply(context)

    def deny_reply(self, refusal: Refusal) -> dict:
        from workers.agents.hermes import hooks

        return hooks.deny_reply(refusal)

    def export_setup(self, request: ExportRequest) -> Setup | None:
        """The profile's SOUL.md, skills and config (secrets as references)."""
        from workers.agents.hermes import plan

        return plan.export_setup(request)

    def install_setup(self, request: InstallRequest) -> Installed:
        """The plan's SOUL.md, skills and config in the session's profile, set up."""
        from workers.agents.hermes import plan

        return plan.install_setup(request)


ADAPTER = HermesAdapter
