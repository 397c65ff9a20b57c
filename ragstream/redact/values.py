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
_PLACEHOLDER = re.compile(
    r"\$\{|\{\{|%\(\w+\)|\{\w*\}|^\{|\{[A-Za-z_][\w.]*\(|^<[^>]*>$|^\$\w+$|^%\w+%$|\*{3}|(?i:x{4}|\.\.\.)|"
    r"(?i:environ|getenv|process\.env|env\()|^(?i:none|null|nil|true|false|undefined)$|\$\(|EXAMPLE")
_REFERENCE = re.compile(r"[A-Za-z_@$][\w$]*(?:(?:\.|::|->|:)[A-Za-z_$][\w$]*)+(?:\(\))?")  # settings.DB_PASSWORD
# A segment no name has (rmu2nxm13uri40bmck): letters and 3 or more digits, 10 characters or more.
_RANDOM_PART = re.compile(r"(?<![a-z\d])(?=(?:[a-z]*\d){3})(?=\d*[a-z])[a-z\d]{10,}", re.I)
_WORDS = re.compile(r"[A-Za-z]+(?:[ _.\-/][A-Za-z]+)*")  # Bearer, password_hash, client-secret
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][\w.]+)?")
_PATH = re.compile(r"(?:\.{0,2}/|~/|[A-Za-z]:\\|[a-zA-Z][\w+.-]*://)\S*|[\w.-]+(?:/[\w.-]+)+\.\w{1,5}")
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
            or _PATH.fullmatch(value) or _REGEX.search(value) or _DATE.match(value) or _OPTION.fullmatch(value):
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
