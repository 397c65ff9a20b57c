"""Redaction of credential-looking strings, before any text is parsed, chunked or embedded.

Known token shapes are matched by their published prefixes; generic assignments
(`password = "..."`, `Password=...;` in connection strings, `user:pass@` in URLs) keep the key
and lose the value. Redaction never changes the number of lines, so line spans stay exact.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

REDACTED = "[REDACTED]"


@dataclass(frozen=True)
class SecretPattern:
    name: str
    regex: re.Pattern[str]
    group: int = 0  # the group that holds the secret; 0 = the whole match
    # Literals one of which every match contains (checked case-insensitively when `folded`):
    # a text without any of them is not scanned, which keeps redaction cheap on large trees.
    hints: tuple[str, ...] = ()
    folded: bool = False
    languages: tuple[str, ...] | None = None  # only in files of these languages (None: all)

    def may_match(self, text: str, folded_text: str) -> bool:
        haystack = folded_text if self.folded else text
        return not self.hints or any(h in haystack for h in self.hints)


_KEY_WORDS = ("api_key", "api-key", "apikey", "secret", "access_token", "access-token",
              "auth_token", "auth-token", "token", "password", "passwd", "pwd", "private_key",
              "private-key")
_KEY_WORDS_RE = r"(?:api[_-]?key|apikey|secret(?:[_-]?key)?|access[_-]?token|auth[_-]?token|token|passw(?:or)?d|pwd|client[_-]?secret|private[_-]?key)"

PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern("private_key_block", re.compile(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S),
        hints=("PRIVATE KEY-----",)),
    SecretPattern("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), hints=("AKIA", "ASIA")),
    SecretPattern("github_token", re.compile(
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b"),
        hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    SecretPattern("openai_key", re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"), hints=("sk-",)),
    SecretPattern("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), hints=("xox",)),
    SecretPattern("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), hints=("AIza",)),
    SecretPattern("stripe_key", re.compile(r"\b(?:sk|rk)_live_[0-9A-Za-z]{16,}\b"), hints=("_live_",)),
    SecretPattern("jwt", re.compile(
        r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), hints=("eyJ",)),
    # Password=...; / Pwd=... inside a connection string: after a quote or `;`, up to `;`/quote.
    SecretPattern("connection_string_password", re.compile(
        r"(?i)(?<=[;\"'])[ \t]*(?:password|pwd)[ \t]*=[ \t]*([^;'\"\s][^;'\"\n]*)"), group=1,
        hints=("password", "pwd"), folded=True),
    # scheme://user:password@host
    SecretPattern("url_credentials", re.compile(
        r"\b[a-z][a-z0-9+.-]{0,20}://[^/\s:@'\"]+:([^@\s'\"/]+)@"), group=1, hints=("://",)),
    # key = "value" / key: 'value' / "key": "value" with a value of 8+ characters, where the
    # name ends in a key word (OPENAI_API_KEY, db.password). Matching starts at the key word.
    SecretPattern("assigned_secret", re.compile(
        rf"(?i){_KEY_WORDS_RE}(?!\w)[\"']?\s*[:=]\s*[rbuf]?[\"']([^\"'\s]{{8,}})[\"']"), group=1,
        hints=_KEY_WORDS, folded=True),
    # Config and text files (YAML, INI, .cfg, .toml, docs): `db_password: hunter2 prod` or
    # `aws_secret_access_key = AKIA...`, quoted or not, up to the end of the line. Code is left
    # to the patterns above: there `password = get_password()` is not a secret.
    SecretPattern("config_secret", re.compile(
        r"(?im)^[ \t]*[\w.-]*(?:passw(?:or)?d|pwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
        r"|auth[_-]?token|access[_-]?token)[\w.-]*[\"']?[ \t]*[:=][ \t]*([^\s#;].{5,}?)[ \t]*$"), group=1,
        hints=("pass", "pwd", "secret", "key", "token"), folded=True, languages=("text",)),
)


# Changes whenever a pattern changes: cached parse results made under other patterns are redone.
REDACTION_VERSION = hashlib.sha1("|".join(f"{p.name}={p.regex.pattern}" for p in PATTERNS).encode()).hexdigest()[:12]


def redact(text: str, language: str) -> tuple[str, list[str]]:
    """Return text with secrets replaced, and the name of the pattern behind each replacement."""
    fired: list[str] = []
    folded = text.lower()
    for pattern in PATTERNS:
        if pattern.languages is not None and language not in pattern.languages:
            continue
        if pattern.may_match(text, folded):
            text = pattern.regex.sub(lambda m, p=pattern: _replace(m, p, fired), text)
    return text, fired


def _replace(match: re.Match[str], pattern: SecretPattern, fired: list[str]) -> str:
    whole = match.group(0)
    if match.group(pattern.group) == REDACTED:  # an earlier pattern got there first
        return whole
    fired.append(pattern.name)
    start = match.start(pattern.group) - match.start(0)
    end = match.end(pattern.group) - match.start(0)
    secret = whole[start:end]
    # Keep the line count of multi-line secrets (private keys), so spans stay exact.
    return whole[:start] + REDACTED + "\n" * secret.count("\n") + whole[end:]
