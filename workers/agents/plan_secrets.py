"""Secrets out of a shared plan: every secret-looking value becomes a named reference.

A plan (`bullpen plan export`) carries agents' config files to another person. What
looks like a secret is replaced by `${NAME}`, which Hermes expands from its environment
(its profile's `.env` is loaded into it), and listed, so the partner knows what to
provide. Secret-looking means either:

- a value under a key named like a secret: `api_key`, `apiKey`, `key`, `auth`,
  `Authorization`, `Cookie`, and any key with a word holding `token`, `secret` or `pass`
  (`GITHUB_TOKEN`, `client_secret`, `MY_SERVICE_PASS`; not `max_tokens`, `bypass`, nor a
  key ending in `_env`, `_file`, `_type`…, whose value names a variable, a file or a
  kind), or an existing `${BULLPEN_SECRET_…}` reference (bullpen's own, which only this
  machine can fill);
- a value that looks like one whatever its key: `sk-…` / `ghp_…` / `xoxb-…` / `AKIA…` /
  `AIza…` / `hf_…` keys, JWTs, `Bearer …` credentials, URLs with a password in them
  (only the password becomes a reference, `${NAME_PASSWORD}`), an `Authorization:` or
  `Cookie:` header inside a command (`${NAME_AUTHORIZATION}`), the value of a
  `--token=…`-style argument (`${NAME_TOKEN}`) and, in an argument list, the item after
  `--token` / `--client-secret` / `--password`.

`${OTHER}` references already in the file are kept and listed too: the partner must
provide those as well. Text files carried as they are (SOUL.md, skills) are only
checked (`secrets_in_text`): a plan holding one is refused, never silently edited.
"""

from __future__ import annotations

import re

from board.records import record

SECRET_KEY = re.compile(r"(?:^|_)(?:api_?key|key|token|secret|password|passwd|credentials?)$")
NOT_SECRET_KEY = re.compile(r"(?:_env|_file|_path|_name|_names|_url_env|_type|_mode|_count"
                            r"|_limit|_budget|_ttl|_timeout|_length|_size|_method)$")
SECRET_WORDS = frozenset({"auth", "authorization", "cookie", "cookies", "credential",
                          "credentials"})
NOT_PASS = frozenset({"bypass", "compass", "surpass", "passthrough", "passive", "passage"})
# A header that carries a credential, inside a command or an argument.
HEADER = re.compile(r"(?i)\b(authorization|proxy-authorization|cookie|x-api-key|api-key"
                    r"|x-auth-token|private-token|x-access-token)(\s*:\s*)"
                    r"(?:(bearer|basic|token|digest)(\s+))?(?!\$)([^'\"\\\n]+)")
SCHEME = re.compile(r"(?i)^(bearer|basic|token|digest)(\s+)(?!\$\{)\S")
FLAG = re.compile(r"^--?([A-Za-z][\w-]*)$")
FLAG_VALUE = re.compile(r"(?<![\w-])(--?([A-Za-z][\w-]*)=)(?![$<{])([^\s'\"]+)")
PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")
SECRET_VALUE = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"(?:sk|rk|pk)-[A-Za-z0-9_\-]{12,}"  # OpenAI, Anthropic (sk-ant-), OpenRouter (sk-or-)
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"  # Slack
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google
    r"|hf_[A-Za-z0-9]{20,}"  # Hugging Face
    r"|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{5,}"  # a JWT
    r")")
# A credential after "Bearer"/"Basic" has a digit in it ("Bearer YOUR_KEY" is a placeholder).
BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+)(?=\S*\d)([A-Za-z0-9._~+/=\-]{12,})")
URL_PASSWORD = re.compile(r"([a-z][a-z0-9+.\-]*://[^/\s:@]*:)(?!\$\{)([^@/\s]+)(@)",
                          re.IGNORECASE)
REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}")
BULLPEN_REFERENCE = "BULLPEN_SECRET_"
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


@record(frozen=True)
class Secret:
    """One value the partner must provide: the variable's `name` and `where` it is used
    (`config.yaml: model.api_key`)."""

    name: str
    where: str


def _snake(key: str) -> str:
    """`apiKey` -> `api_key`, `API-Key` -> `api_key`."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key)
    return re.sub(r"[^a-z0-9]+", "_", spaced.lower()).strip("_")


def _secret_word(word: str) -> bool:
    """Whether one word of a key's name makes it a secret's: `auth`, `cookie`, a word
    holding `secret` or `token` (not `tokens`, a count), or `pass` (not `bypass`)."""
    if word in SECRET_WORDS or "secret" in word:
        return True
    if "token" in word:
        return word != "tokens" and not word.startswith("tokeniz")
    return (word.startswith("pass") or word.endswith("pass")) and word not in NOT_PASS


def is_secret_key(key: str) -> bool:
    """Whether a value under `key` is a secret by its name."""
    snake = _snake(key)
    if NOT_SECRET_KEY.search(snake):
        return False
    return bool(SECRET_KEY.search(snake)) or any(map(_secret_word, snake.split("_")))


def reference_name(path: tuple[str, ...], provider: str | None = None) -> str:
    """The variable standing for the secret at `path`: a key that is already a variable
    name keeps it (`GITHUB_TOKEN`); a model's key is named by its provider
    (`OPENROUTER_API_KEY`); otherwise the path (`MODEL_API_KEY`)."""
    last = path[-1] if path else "SECRET"
    if ENV_NAME.match(last):
        return last
    if (provider and provider not in ("custom", "auto") and len(path) >= 2
            and path[-2] == "model" and _snake(last) in ("api_key", "apikey", "key")):
        return f"{_snake(provider).upper()}_API_KEY"
    parts = [_snake(part) for part in path if not part.isdigit()] or ["secret"]
    return "_".join(parts).upper()


def _scrub_text(value: str, name: str) -> str:
    """`value` with each secret-looking part replaced by `${name}`."""
    value = URL_PASSWORD.sub(lambda m: f"{m.group(1)}${{{name}_PASSWORD}}{m.group(3)}",
                             value)  # the partner gives the password, not the whole URL
    value = HEADER.sub(lambda m: _header_reference(m, name), value)
    value = FLAG_VALUE.sub(lambda m: f"{m.group(1)}${{{name}_{_snake(m.group(2)).upper()}}}"
                           if is_secret_key(m.group(2)) else m.group(0), value)
    value = BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}${{{name}}}", value)
    return SECRET_VALUE.sub(f"${{{name}}}", value)


def _header_reference(match: re.Match, name: str) -> str:
    """`Authorization: token SECRET` -> `Authorization: token ${NAME_AUTHORIZATION}`."""
    header, colon, scheme, space, credential = match.groups()
    if "$" in credential:  # a reference (or a shell variable) already stands there
        return match.group(0)
    trailing = credential[len(credential.rstrip()):]
    return (f"{header}{colon}{scheme or ''}{space or ''}"
            f"${{{name}_{_snake(header).upper()}}}{trailing}")


def scrub(document: object, where: str) -> tuple[object, list[Secret]]:
    """`document` (parsed YAML or JSON) with every secret-looking value replaced by a
    `${NAME}` reference, and the secrets the references stand for (`where`: the file's
    name, for the list)."""
    found: dict[str, Secret] = {}
    model = document.get("model") if isinstance(document, dict) else None
    provider = model.get("provider") if isinstance(model, dict) else None
    provider = provider if isinstance(provider, str) else None

    def note(name: str, path: tuple[str, ...]) -> None:
        found.setdefault(name, Secret(name, f"{where}: {'.'.join(path)}"))

    def walk(node: object, path: tuple[str, ...]) -> object:
        if isinstance(node, dict):
            return {key: leaf(value, (*path, str(key))) for key, value in node.items()}
        if isinstance(node, list):
            return [argument(node, index, path) or leaf(item, (*path, str(index)))
                    for index, item in enumerate(node)]
        return node

    def argument(items: list, index: int, path: tuple[str, ...]) -> str | None:
        """The reference for the item after `--token` in an argument list, else None."""
        flag = FLAG.match(items[index - 1]) if index and isinstance(items[index - 1],
                                                                      str) else None
        value = items[index]
        if flag is None or not is_secret_key(flag.group(1)) or not isinstance(value, str) \
                or value.startswith("-") or REFERENCE.fullmatch(value.strip()):
            return None
        name = f"{reference_name((*path, str(index)), provider)}_{_snake(flag.group(1)).upper()}"
        note(name, (*path, str(index)))
        return f"${{{name}}}"

    def leaf(value: object, path: tuple[str, ...]) -> object:
        if isinstance(value, (dict, list)):
            return walk(value, path)
        name = reference_name(path, provider)
        secret_key = is_secret_key(path[-1])
        if isinstance(value, bool) or value is None or value == "":
            return value
        if isinstance(value, (int, float)):
            if secret_key:
                note(name, path)
                return f"${{{name}}}"
            return value
        if not isinstance(value, str):
            return value
        references = REFERENCE.findall(value)
        if any(ref.startswith(BULLPEN_REFERENCE) for ref in references):
            note(name, path)  # bullpen's own stand-in: only this machine can fill it
            return f"${{{name}}}"
        if secret_key and not REFERENCE.fullmatch(value.strip()):
            note(name, path)
            scheme = SCHEME.match(value)  # `Authorization: Bearer …` keeps its scheme
            return f"{scheme.group(1)}{scheme.group(2)}${{{name}}}" if scheme \
                else f"${{{name}}}"
        scrubbed = _scrub_text(value, name)
        for ref in REFERENCE.findall(scrubbed):  # the new ones and those already there
            note(ref, path)
        return scrubbed

    return walk(document, ()), list(found.values())


def secrets_in_text(text: str) -> list[int]:
    """The line numbers (1-based) of `text` holding something that looks like a secret."""
    return [number for number, line in enumerate(text.splitlines(), 1)
            if SECRET_VALUE.search(line) or URL_PASSWORD.search(line)
            or BEARER.search(line) or PRIVATE_KEY.search(line)
            or any(_credential_like(match.group(5)) for match in HEADER.finditer(line))
            or any(is_secret_key(match.group(2)) and _credential_like(match.group(3))
                   for match in FLAG_VALUE.finditer(line))]


def _credential_like(value: str) -> bool:
    """A value in prose or a script that is a credential, not a placeholder: 8 or more
    characters with a digit, not a `$VARIABLE` or `<your token>`."""
    value = value.strip()
    return len(value) >= 8 and any(c.isdigit() for c in value) and value[0] not in "$<{"


def literal_values(document: object) -> list[str]:
    """Every string of at least 8 characters in a parsed document (auth.json, a config's
    secrets): what must never appear in an exported file."""
    if isinstance(document, dict):
        return [text for value in document.values() for text in literal_values(value)]
    if isinstance(document, list):
        return [text for item in document for text in literal_values(item)]
    return [document] if isinstance(document, str) and len(document) >= 8 else []


def changed_strings(before: object, after: object) -> list[str]:
    """The strings of `before` that `scrub` replaced in `after` (same shape), at least 8
    characters long: the literal secrets a file held."""
    if isinstance(before, dict) and isinstance(after, dict):
        return [text for key, value in before.items()
                for text in changed_strings(value, after.get(key))]
    if isinstance(before, list) and isinstance(after, list):
        return [text for old, new in zip(before, after, strict=False)
                for text in changed_strings(old, new)]
    if isinstance(before, str) and before != after and len(before) >= 8:
        return [before]
    if isinstance(before, (int, float)) and not isinstance(before, bool) and before != after:
        return [str(before)] if len(str(before)) >= 6 else []
    return []


def env_file(text: str) -> dict[str, str]:
    """The variables of a dotenv file (`NAME=value`, `export NAME=value`, quotes
    dropped)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, value = line.removeprefix("export ").split("=", 1)
        name = name.strip()
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            found[name] = value.strip().strip("'\"")
    return found
