"""Whether a value assigned to a secret-named key is itself a secret, or a word, a reference,
a placeholder or a number that only sits where a secret could.

A key name alone says little (`password_hash = "bcrypt"`, `TOKEN_TYPE = "Bearer"`,
`password = settings.DB_PASSWORD`); the value's shape decides: letters mixed with digits or
symbols, and enough Shannon entropy that it is not a repeated pattern. Gitleaks' generic rule
and detect-secrets' KeywordDetector make the same call with entropy and placeholder filters.
"""
from __future__ import annotations

import math
import re
from collections import Counter

REDACTED = "[REDACTED]"

# ${VAR}, {{ var }}, %(name)s, {0}, <your-key>, $VAR, %VAR%, ***, xxxx, os.environ[...], env("X")
# A template counts only when well formed (`${NAME}`, `{{ name }}`, `{0}`): a value that merely
# holds braces (`m{{h}o)p${e]...`) is a password with symbols, not a template.
_PLACEHOLDER = re.compile(
    r"\$\{[\w.:?=-]+\}|\{\{[^{}]*\}\}|\{%[^{}]*%\}|%\(\w+\)|(?<!\{)\{\w*\}(?!\})|^\{|\{[A-Za-z_][\w.]*\(|^<[^>]*>$|"
    r"^\$\w+$|^%\w+%$|\*{3}|(?i:x{4}|\.\.\.)|"
    r"(?i:environ|getenv|process\.env|env\()|^(?i:none|null|nil|true|false|undefined)$|\$\([\w -]*\)|EXAMPLE")
_REFERENCE = re.compile(r"[A-Za-z_@$][\w$]*(?:(?:\.|::|->|:)[A-Za-z_$][\w$]*)+(?:\(\))?")  # settings.DB_PASSWORD
# A segment no name has: letters and 3 or more digits, 10 characters or more (rmu2nxm13uri40bmck),
# or two runs of digits between letters (bat47Fy4; a name has one: `utf8Encoder`, `sha256Hash`).
_RANDOM_PART = re.compile(r"(?<![a-z\d])(?=(?:[a-z]*\d){3})(?=\d*[a-z])[a-z\d]{10,}"
                          r"|[a-z]+\d+[a-z]+\d|\d+[a-z]+\d+[a-z]", re.I)
_WORDS = re.compile(r"[A-Za-z]+(?:[ _.\-/][A-Za-z]+)*")  # Bearer, password_hash, client-secret
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][\w.]+)?")
_PATH = re.compile(r"(?:\.{0,2}/|~/|[A-Za-z]:\\|[a-zA-Z][\w+.-]*://)\S*|[\w.-]+(?:/[\w.-]+)+\.\w{1,5}")
# A path segment no file or folder is named: 16+ characters of base64 mixing cases and digits.
_RANDOM_SEGMENT = re.compile(r"(?<![^/])(?=[^/]*\d)(?=[^/]*[a-z])(?=[^/]*[A-Z])[A-Za-z0-9+=_-]{16,}(?![^/])")
_FORMAT = re.compile(r"%[sdrf]|\{[^}\s]*\}")
_REGEX = re.compile(r"\\[bdswBDSWAZ]|\(\?[:=!<i]|\[[^\]]*-[^\]]*\][*+?{]")  # a pattern's source, not a value
_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_OPTION = re.compile(r"--[A-Za-z][A-Za-z-]*|-[A-Za-z]")  # --top-k: a command-line option, not its value


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def _classes(value: str) -> int:
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))


# Words that stand where a password goes in examples: `user:password@host`, auth=("user", "pass")
_PLACEHOLDER_WORDS = frozenset({"password", "passwd", "pass", "pwd", "pw", "secret", "token", "changeme", "user",
                                "username", "test", "example", "dummy", "fake", "foo", "bar"})


def is_placeholder(value: str) -> bool:
    """A template, reference, marker or example word standing where a secret would be."""
    return (REDACTED in value or value.lower() in _PLACEHOLDER_WORDS or bool(_PLACEHOLDER.search(value))
            or bool(_FORMAT.fullmatch(value)))


def looks_secret(value: str, *, strict: bool = False) -> bool:
    """Whether `value` (assigned to a secret-named key) has a secret's shape. `strict` is for
    values after a mere space in prose (`# temp pw ...`), where a word could follow instead."""
    if len(value) < 6 or (strict and len(value) < 8) or value != value.strip():
        return False  # "Bearer " + token: a prefix being joined, not a value
    if is_placeholder(value) or _FORMAT.search(value) and len(value) < 24:
        return False
    if len(value) > 400:
        return not any(c.isspace() for c in value)  # a session token, a key in base64: redacted whole
    if _REFERENCE.fullmatch(value) and not _RANDOM_PART.search(value) or _VERSION.fullmatch(value) \
            or _PATH.fullmatch(value) and not _RANDOM_SEGMENT.search(value) or _REGEX.search(value) \
            or _DATE.match(value) or _OPTION.fullmatch(value):
        return False
    bits = entropy(value)
    if _WORDS.fullmatch(value):  # letters only: random mixed case passes, words do not
        upper = sum(c.isupper() for c in value) / sum(c.isalpha() for c in value)
        return len(value) >= 16 and bits >= 3.5 and 0.2 <= upper <= 0.8 and " " not in value
    if value.isdigit():
        return len(value) >= 12  # a numeric token; ports, ids, timeouts and PINs are shorter
    if " " in value.strip():
        return False  # prose or a message: a password with spaces is not told apart from text
    classes = _classes(value)
    if strict:
        return (classes >= 3 and bits >= 2.5) or (classes >= 2 and len(value) >= 12 and bits >= 3.0)
    return (classes >= 2 and bits >= 2.0) or (len(value) >= 16 and bits >= 3.0)


_LICENSE = re.compile(r"[A-Z0-9]{4,8}(?:-[A-Z0-9]{4,8}){3,7}")  # ZAQWS-XCDER-...: a product key
# base64 (URL-safe, URL-encoded), hex: no dots, colons or spaces
_TOKEN_CHARS = re.compile(r"(?:[A-Za-z0-9+/_-]|%[0-9A-F]{2})+(?:={1,2}|%3D){0,2}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def looks_random(value: str) -> bool:
    """Whether `value` is a random string, not a word, name, hash of a word or sentence: for keys
    whose name only suggests a secret (`*_key`, `*_api`, `signature`), where a setting's ordinary
    value (`sort_key = "created_at"`, `<add key="webpages:Enabled"`) must stay. A UUID counts (API
    keys are often UUIDs), and so does a product key."""
    if len(value) < 16 or is_placeholder(value):
        return False
    if _UUID.fullmatch(value) or _LICENSE.fullmatch(value):
        return True
    if not _TOKEN_CHARS.fullmatch(value) or not looks_secret(value) or _WORDS.fullmatch(value):
        return False
    pieces = re.split(r"[-_]+", value.rstrip("="))
    return (any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and entropy(value) >= 3.0
            and (len(pieces) == 1 or any(len(p) >= 12 and not p.isalpha() and not p.isdigit() for p in pieces))
            and _ascending_pairs(value) < 0.5)


def _ascending_pairs(value: str) -> float:
    """The share of neighbours that follow each other in the alphabet: 0123...abcd is no secret."""
    return sum(ord(b) - ord(a) == 1 for a, b in zip(value, value[1:])) / max(1, len(value) - 1)


_PASSPHRASE = re.compile(r"[a-z0-9]+(?: [a-z0-9]+){2,7}")
_PROMPT_WORDS = frozenset({"password", "passphrase", "secret", "token", "key", "enter", "your", "please", "the",
                           "is", "not", "invalid", "required", "must", "confirm", "new", "old", "current"})


def looks_passphrase(value: str) -> bool:
    """A quoted passphrase: three to eight lower-case words (`correct horse battery staple`), none
    of which a prompt or a message would hold (`enter your password`, `is required`)."""
    return len(value) >= 12 and bool(_PASSPHRASE.fullmatch(value)) and _PROMPT_WORDS.isdisjoint(value.split())
