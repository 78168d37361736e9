"""Which Hermes profile a launched command runs on, as Hermes 0.19 itself decides it."""

from __future__ import annotations

from pathlib import Path

import pytest

from workers.agents.hermes.profile_use import profile_in_use

ROOT = Path("/h")
ENV = {"HERMES_HOME": "/h", "HOME": "/home/u"}


@pytest.mark.parametrize(("agent", "profile", "name", "directory"), [
    ("hermes", "bullpen-a-123456", "bullpen-a-123456", "/h/profiles/bullpen-a-123456"),
    ("env X=1 hermes", "mine", "mine", "/h/profiles/mine"),  # bullpen adds its -p
    ("hermes -p coder", "bullpen-a-123456", "coder", "/h/profiles/coder"),
    ("hermes --profile coder --cli", None, "coder", "/h/profiles/coder"),
    ("hermes chat --profile=coder -q hi", None, "coder", "/h/profiles/coder"),
    ("/opt/bin/hermes -p default", "x", "default", "/h"),
    ("uvx --from hermes-agent hermes -p coder", None, "coder", "/h/profiles/coder"),
    ("HERMES_HOME=/h/profiles/coder hermes --cli", None, "coder", "/h/profiles/coder"),
    ("env HERMES_HOME=/o hermes -p x", None, "x", "/o/profiles/x"),
    ("HERMES_HOME=$HOME/.hermes/profiles/c hermes chat", None, "c",
     "/home/u/.hermes/profiles/c"),
    ("HERMES_HOME=/o hermes --cli", "mine", "default", "/o"),  # own words: Hermes picks
    ("hermes --cli", "mine", "default", "/h"),
    ("hermes -p NOT_VALID --cli", None, "default", "/h"),  # Hermes ignores such a name
    ("hermes -- -p coder", None, "default", "/h"),
])
def test_the_profile_in_use_is_read_from_the_command(
        agent: str, profile: str | None, name: str, directory: str) -> None:
    use = profile_in_use(agent, profile, ENV)
    assert (use.name, use.directory) == (name, Path(directory))


def test_the_active_profile_is_used_when_nothing_names_one(tmp_path: Path) -> None:
    (tmp_path / "active_profile").write_text("coder\n")
    use = profile_in_use("hermes --cli", None, {"HERMES_HOME": str(tmp_path)})
    assert (use.name, use.directory) == ("coder", tmp_path / "profiles" / "coder")
