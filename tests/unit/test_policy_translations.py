"""The room's command policy as each agent kind holds it: Codex prefix rules, Hermes'
`approvals.deny` entries, and the refusals Hermes reports back."""

from __future__ import annotations

import json

from workers.agents.codex.rules import prefixes, rules_text, untranslated
from workers.agents.command_policy import FLOOR, patterns
from workers.agents.hermes import deny as hermes_deny


def test_prefix_patterns_become_codex_rules_and_the_rest_are_named() -> None:
    assert prefixes("npm publish*") == [["npm", "publish"]]
    assert prefixes("npm publish *") == [["npm", "publish"]]
    assert prefixes("make deploy") == [["make", "deploy"]]  # a prefix: it denies more
    assert prefixes("git push --force*") == [["git", "push", "--force"]]
    assert prefixes("docker run *--privileged*") is None  # a glob inside
    assert prefixes("*curl*") is None
    assert prefixes("git push *--force*") == [
        ["git", "push", ["--force", "--force-with-lease", "--force-if-includes"]]]
    assert untranslated(FLOOR) == ["git push * -f*"]
    text = rules_text(patterns(["docker run *--privileged*"]))
    assert "# not enforced in Codex (not a prefix): docker run *--privileged*" in text
    assert text.count("prefix_rule(") == len(FLOOR) - 1


def test_hermes_gets_each_pattern_whole_and_as_a_later_command() -> None:
    assert hermes_deny.hermes_patterns(["a*", "b"]) == ["a*", "*\na*", "b", "*\nb"]


def test_hermes_keeps_the_profiles_own_entries_and_replaces_bullpens(tmp_path) -> None:
    (tmp_path / "config.yaml").write_text("# mine\napprovals:\n  deny: ['mine*']\n")
    hermes_deny.write(tmp_path, ["old*"])
    hermes_deny.write(tmp_path, ["new*"])
    import yaml
    written = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert written["approvals"]["deny"] == ["mine*", "new*", "*\nnew*"]
    cleaned = hermes_deny.without_deny(written, hermes_deny.ours(tmp_path))
    assert cleaned == {"approvals": {"deny": ["mine*"]}}


def test_a_profile_without_approvals_keeps_its_comments(tmp_path) -> None:
    (tmp_path / "config.yaml").write_text("# my comment\nmodel: {default: m}\n")
    hermes_deny.write(tmp_path, ["x*"])
    assert (tmp_path / "config.yaml").read_text().startswith("# my comment\n")


def test_a_hermes_refusal_is_read_back_with_the_rooms_pattern() -> None:
    message = ("BLOCKED: this command matches the user-defined deny rule '*\ngit push"
               " *--force*' (approvals.deny in config.yaml). It cannot be executed")
    payload = {"hook_event_name": "post_tool_call", "tool_name": "terminal",
               "tool_input": {"command": "cd x && git push --force"},
               "extra": {"status": "error", "error_message": message,
                         "result": json.dumps({"error": message})}}
    denial = hermes_deny.refused_command(payload)
    assert denial is not None and denial.pattern == "git push *--force*"
    assert denial.command == "cd x && git push --force"
    other = dict(payload, extra={"status": "error", "error_message": "exit 1"})
    assert hermes_deny.refused_command(other) is None
