"""Whether a key name says its value is a secret: `DB_PASSWORD`, `AccountKey`, `x-api-key`,
`client_secret`, `@rmtpassword`, `Authorization`; not `max_tokens`, `tokenizer`,
`password_field` or `AWS_ACCESS_KEY_ID` (an id, whose value a shape rule judges).

The key words follow detect-secrets' KeywordDetector denylist and gitleaks' generic-api-key
keywords, matched on the name's parts (snake, kebab, dotted and camel case) rather than as
substrings, so `passenger` or `secretary` are not secret-named.
"""
from __future__ import annotations

import re

_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_WORDS = frozenset({"password", "passwd", "pwd", "pw", "pass", "passphrase", "secret", "token", "apikey",
                    "authorization", "credential", "credentials", "sig", "accountkey", "accesskey", "secretkey",
                    "privatekey", "clientsecret", "authtoken", "accesstoken", "bearer", "passcode", "auth",
                    "requirepass", "masterauth", "dockerconfigjson", "dockercfg",
                    # "password" in other languages (a sentence in a README or a commit message)
                    "passwort", "kennwort", "passe", "contraseña", "contrasena", "senha", "wachtwoord",
                    "lösenord", "losenord", "adgangskode", "salasana", "hasło", "haslo", "пароль", "parola",
                    "jelszó", "heslo", "şifre", "sifre", "contrasenya", "palavra-passe"})
_ENDINGS = ("password", "passwd", "pwd", "secret", "token", "apikey", "accesskey", "accountkey")
_PAIRS = frozenset({("api", "key"), ("access", "key"), ("account", "key"), ("auth", "key"), ("private", "key"),
                    ("secret", "key"), ("shared", "key"), ("master", "key"), ("encryption", "key"),
                    ("signing", "key"), ("client", "key"), ("app", "key"), ("subscription", "key"),
                    ("storage", "key"), ("service", "key"), ("sas", "key")})
# A name ending in one of these holds something about a secret, not the secret itself.
_NOT_VALUE = frozenset({"id", "url", "uri", "endpoint", "path", "file", "files", "dir", "name", "names", "type",
                        "length", "len", "count", "size", "min", "max", "field", "label", "prompt", "policy",
                        "pattern", "regex", "re", "format", "header", "env", "var", "hint", "expiry", "expires",
                        "ttl", "timeout", "error", "message", "msg", "enabled", "required", "version", "hash",
                        "salt", "algorithm", "mode", "kind", "source", "provider", "store", "manager", "class",
                        "column", "col", "table", "param", "parameter", "validator", "input", "placeholder"})


def parts(name: str) -> list[str]:
    """The lower-cased words of an identifier in any casing convention."""
    return [p.lower() for p in _PART.findall(name)]


def is_secret_key(name: str) -> bool:
    """Whether a value assigned to `name` is meant to be a secret."""
    if name.lower() in _WORDS:  # also the words `parts` cannot split (contraseña, пароль)
        return True
    words = parts(name)
    if not words or words[-1] in _NOT_VALUE:
        return False
    return (any(w in _WORDS or w.endswith(_ENDINGS) for w in words)
            or any(pair in _PAIRS for pair in zip(words, words[1:])))
