"""Whether a key name says its value is a secret: `DB_PASSWORD`, `AccountKey`, `x-api-key`,
`client_secret`, `@rmtpassword`, `Authorization`; not `max_tokens`, `tokenizer`,
`password_field` or `AWS_ACCESS_KEY_ID` (an id, whose value a shape rule judges).

The key words follow detect-secrets' KeywordDetector denylist and gitleaks' generic-api-key
keywords, matched on the name's parts (snake, kebab, dotted and camel case) rather than as
substrings, so `passenger` or `secretary` are not secret-named.
"""
from __future__ import annotations

import re

from ragstream.redact.values import looks_random, looks_secret

_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_WORDS = frozenset({"password", "passwd", "pwd", "pw", "pass", "passphrase", "secret", "token", "apikey",
                    "authorization", "credential", "credentials", "creds", "sig", "accountkey", "accesskey", "secretkey",
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


# How "password" is abbreviated, misspelt or fused in names: PSWD, PSSWRD, PASWORD, paasword,
# passworsd, MYSQLPASS, dbpass (bypass, compass and the like are words of their own).
_PASSWORD_SPELLING = re.compile(r"p(?:a{1,2}|@)?s{1,2}w(?:[o0]?r)?s?d$|(?<!by|om|ur|er|es)pass$")
# Names that only suggest a secret: `*_key`, `aeskey`, `*_api`, `signature`, `authentication`. A
# value under one is judged as a random string (`values.looks_random`), not by shape alone.
_SUGGESTIVE = ("key", "keys", "api", "signature", "authentication", "license", "licence")
# A public key or token is published on purpose; a record's key names a column or a field.
_PUBLIC = frozenset({"public", "pub", "pubkey", "publickey", "publishable"})
_RECORD_KEY = frozenset({"foreign", "primary", "sort", "partition", "cache", "hot", "lookup", "map", "row", "composite",
                         "unique", "idempotency", "dedup", "dedupe", "hash", "index", "group", "routing", "shard",
                         "entity", "bucket", "object", "dict", "hotkey", "shortcut", "keyboard", "natural"})


def _secret_word(word: str) -> bool:
    # plurals of passwords only (`numTokens`, `listSecrets`, `StoreSecrets` name collections)
    singular = word[:-1] if word.endswith(("words", "wds")) else word
    return (singular in _WORDS or singular.endswith(_ENDINGS) or bool(_PASSWORD_SPELLING.search(singular))
            or word.startswith("secret") and not word.startswith("secretar") and word[-1] != "s")  # secrete


def is_secret_key(name: str) -> bool:
    """Whether a value assigned to `name` is meant to be a secret."""
    if name.lower() in _WORDS:  # also the words `parts` cannot split (contraseña, пароль)
        return True
    words = parts(name)
    if not words or words[-1] in _NOT_VALUE or _PUBLIC.intersection(words):
        return False
    return any(_secret_word(w) for w in words) or any(pair in _PAIRS for pair in zip(words, words[1:]))


def is_suggestive_key(name: str) -> bool:
    """Whether `name` suggests a secret without saying so (`softlayer_key`, `AESKEY`, `gi_api`,
    `key_wrap`): its last or first word does, its last word names no property of a key (`key_id`),
    and no word says the key is public or a record's key (`foreignKey`)."""
    words = parts(name)
    return (bool(words) and (words[-1].endswith(_SUGGESTIVE) or words[0].endswith(_SUGGESTIVE))
            and words[-1] not in _NOT_VALUE and _PUBLIC.isdisjoint(words) and _RECORD_KEY.isdisjoint(words[-2:-1]))


_USER_PASSWORD = re.compile(r"[\w.@-]{1,40}:[^\s:]{6,}")


def holds_secret(name: str, value: str) -> bool:
    """Whether `value`, assigned to `name`, is a secret: any secret-shaped value under a
    secret-named key, a random one under a suggestive key."""
    if is_secret_key(name) and _USER_PASSWORD.fullmatch(value):  # CURLOPT_USERPWD "user:password"
        value = value.split(":", 1)[1]
    return (is_secret_key(name) and looks_secret(value)) or (is_suggestive_key(name) and looks_random(value))
