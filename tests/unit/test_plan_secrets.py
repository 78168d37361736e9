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
    assert scrubbed == {"args": ["--key", "${ARGS_KEY}"],
                        "headers": {"Authorization": "Bearer ${HEADERS_AUTHORIZATION}"},
                        "url": "https://bob:${URL_PASSWORD}@example.com/x", "jwt": "${JWT}",
                        "note": "Bearer YOUR_API_KEY_HERE", "mine": "${MINE}"}


def test_text_files_are_checked_line_by_line() -> None:
    text = "Use the tests.\nexport OPENAI_API_KEY=sk-proj-0123456789abcdef\nok\n"
    assert secrets_in_text(text) == [2]
    assert secrets_in_text("curl -H 'Authorization: Bearer $TOKEN' https://x/y\n") == []
    assert secrets_in_text("postgres://app:${DB_PASSWORD}@db/app\n") == []


def test_keys_headers_and_arguments_that_carry_credentials_become_references() -> None:
    config = {"env": {"MY_SERVICE_PASS": "plain words"}, "auth": "user:pw",
              "headers": {"Cookie": "sid=abc", "Authorization": "token abc"},
              "hook": "curl -H 'Authorization: token abcdef' -H \"Cookie: a=b; c=d\" x",
              "args": ["--token=abc", "--client-secret", "val", "--verbose", "--pass", "-v"],
              "kept": "curl -H 'Authorization: Bearer ${MINE}' --token=$GH x",
              "bypass": "yes", "max_output_tokens": 4096, "auth_type": "oauth",
              "tokenizer": "cl100k", "passthrough": "stdin"}
    scrubbed, found = scrub(config, "c.yaml")
    assert scrubbed == {
        "env": {"MY_SERVICE_PASS": "${MY_SERVICE_PASS}"}, "auth": "${AUTH}",
        "headers": {"Cookie": "${HEADERS_COOKIE}",
                    "Authorization": "token ${HEADERS_AUTHORIZATION}"},
        "hook": "curl -H 'Authorization: token ${HOOK_AUTHORIZATION}'"
                " -H \"Cookie: ${HOOK_COOKIE}\" x",
        "args": ["--token=${ARGS_TOKEN}", "--client-secret", "${ARGS_CLIENT_SECRET}",
                 "--verbose", "--pass", "-v"],
        "kept": "curl -H 'Authorization: Bearer ${MINE}' --token=$GH x",
        "bypass": "yes", "max_output_tokens": 4096, "auth_type": "oauth",
        "tokenizer": "cl100k", "passthrough": "stdin"}
    assert {"HOOK_AUTHORIZATION", "HOOK_COOKIE", "ARGS_TOKEN", "MINE"} <= {
        secret.name for secret in found}


def test_text_files_holding_a_private_key_header_credential_or_token_argument() -> None:
    assert secrets_in_text("-----BEGIN OPENSSH PRIVATE KEY-----\n") == [1]
    assert secrets_in_text("curl -H 'Authorization: token 0a1b2c3d4e5f'\n") == [1]
    assert secrets_in_text("Cookie: sid=9f8e7d6c5b\n") == [1]
    assert secrets_in_text("tool --password=hunter2hunter2\n") == [1]
    assert secrets_in_text("tool --token=$GITHUB_TOKEN --password=<yours>\n") == []
    assert secrets_in_text("Authorization: Bearer YOUR_KEY_HERE\n") == []
