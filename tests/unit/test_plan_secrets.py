"""What a shared plan counts as a secret, and what it names the reference."""

from __future__ import annotations

from workers.agents.plan_secrets import scrub, secrets_in_text


def names(document: dict) -> set[str]:
    return {secret.name for secret in scrub(document, "config.yaml")[1]}


def test_secret_keys_become_references_named_by_key_provider_or_path() -> None:
    config = {"model": {"provider": "openrouter", "api_key": "anything-at-all"},
              "auxiliary": {"vision": {"apiKey": "k-123"}},
              "env": {"SLACK_BOT_TOKEN": "abc"}, "client_secret": "s", "password": 123456}
    scrubbed, found = scrub(config, "config.yaml")
    assert scrubbed == {"model": {"provider": "openrouter", "api_key": "${OPENROUTER_API_KEY}"},
                        "auxiliary": {"vision": {"apiKey": "${AUXILIARY_VISION_API_KEY}"}},
                        "env": {"SLACK_BOT_TOKEN": "${SLACK_BOT_TOKEN}"},
                        "client_secret": "${CLIENT_SECRET}", "password": "${PASSWORD}"}
    assert {secret.where for secret in found} >= {"config.yaml: model.api_key"}


def test_settings_that_only_sound_like_secrets_stay() -> None:
    config = {"max_tokens": 4096, "show_token_analytics": True, "redact_secrets": True,
              "api_key_env": "OPENAI_API_KEY", "token_file": "~/.t", "api_key": "",
              "model": {"api_key": "${ALREADY_MINE}"}}
    scrubbed, found = scrub(config, "config.yaml")
    assert scrubbed == config
    assert [secret.name for secret in found] == ["ALREADY_MINE"]  # still to provide


def test_values_shaped_like_keys_are_caught_under_any_key() -> None:
    config = {"args": ["--key", "sk-ant-api03-abcdefghijklmnop"],
              "headers": {"Authorization": "Bearer abc123def456ghi789"},
              "url": "https://bob:pa55word@example.com/x",
              "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
              "note": "Bearer YOUR_API_KEY_HERE", "mine": "${BULLPEN_SECRET_MODEL__API_KEY}"}
    scrubbed, _found = scrub(config, "config.yaml")
    assert scrubbed == {"args": ["--key", "${ARGS}"],
                        "headers": {"Authorization": "Bearer ${HEADERS_AUTHORIZATION}"},
                        "url": "https://bob:${URL_PASSWORD}@example.com/x", "jwt": "${JWT}",
                        "note": "Bearer YOUR_API_KEY_HERE", "mine": "${MINE}"}


def test_text_files_are_checked_line_by_line() -> None:
    text = "Use the tests.\nexport OPENAI_API_KEY=sk-proj-0123456789abcdef\nok\n"
    assert secrets_in_text(text) == [2]
    assert secrets_in_text("curl -H 'Authorization: Bearer $TOKEN' https://x/y\n") == []
    assert secrets_in_text("postgres://app:${DB_PASSWORD}@db/app\n") == []
