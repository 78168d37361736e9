"""The Codex CLI the tests run: `@openai/codex` from npm, pinned, installed once into the
shared test cache (`tests.installs.cache_dir`) and reused by later runs. The package
brings its native binary as an npm dependency (`@openai/codex-linux-x64`), so nothing else
is downloaded. A test that needs it is skipped, with the reason, only when npm is missing
or the install fails.

`codex_home` writes the `config.toml` a user pointing Codex at their own Responses
endpoint would have, plus what keeps it off the network: no update check, no analytics,
no plugin / app / marketplace sync, no model discovery, no background server. The one
call Codex (0.169.0, 0.171.0) makes with no switch to stop it (its start-up announcement,
raw.githubusercontent.com) is sent to a proxy on 127.0.0.1 that refuses it
(`codex_env`), and the scripted server is reached directly (`NO_PROXY`).
"""

from __future__ import annotations

from pathlib import Path

from tests.installs import Lane, install_npm_cli, lane_version, newest_npm_version, pinned_version

PACKAGE = "@openai/codex"
CODEX_VERSION = pinned_version("codex")  # newest lane: npm, at test time
API_KEY = "sk-bullpen-codex-test-0123456789"
KEY_VARIABLE = "BULLPEN_TEST_CODEX_KEY"
MODEL = "stub-model"
# Features of 0.169 and 0.171 that reach chatgpt.com or github.com at start-up, or start helpers.
OFFLINE_FEATURES = ("plugins", "remote_plugin", "plugin_sharing", "apps", "in_app_updates",
                    "tool_suggest", "skill_mcp_dependency_install", "daemon_auto_start",
                    "image_generation", "browser_use", "browser_use_external",
                    "computer_use", "in_app_browser", "api_key_model_discovery")


def codex_version(lane: Lane) -> str:
    """The Codex CLI version `lane` runs."""
    return lane_version(lane, "codex", newest_npm_version(PACKAGE), "the Codex CLI")


def install_codex(version: str = CODEX_VERSION) -> Path:
    """The directory holding the `codex` executable; skips if it cannot be had."""
    return install_npm_cli(PACKAGE, version, "codex", "the Codex CLI")


def codex_env(trap_port: int) -> dict[str, str]:
    """The key Codex sends to the scripted server, and a proxy on 127.0.0.1 (`trap_port`,
    which refuses) for anything that is not the scripted server."""
    proxy = f"http://127.0.0.1:{trap_port}"
    return {KEY_VARIABLE: API_KEY, "HTTPS_PROXY": proxy, "HTTP_PROXY": proxy,
            "ALL_PROXY": proxy, "NO_PROXY": "127.0.0.1,localhost"}


def codex_home(home: Path, base_url: str, trusted: list[Path]) -> Path:
    """`~/.codex/config.toml` for the scripted provider at `base_url`, with `trusted`
    projects (and their git worktrees) accepted; returns the Codex home."""
    codex = home / ".codex"
    codex.mkdir(parents=True, exist_ok=True)
    lines = [f'model = "{MODEL}"', 'model_provider = "scripted"',
             "check_for_update_on_startup = false", "",
             "[model_providers.scripted]", 'name = "scripted"', f'base_url = "{base_url}"',
             f'env_key = "{KEY_VARIABLE}"', 'wire_api = "responses"', "",
             "[analytics]", "enabled = false", "", "[feedback]", "enabled = false", "",
             "[features]", *(f"{name} = false" for name in OFFLINE_FEATURES), ""]
    for path in trusted:
        lines += [f'[projects."{path}"]', 'trust_level = "trusted"', ""]
    (codex / "config.toml").write_text("\n".join(lines))
    return codex
