"""Secrets carried by URLs: a password (or a bare token) in the user-info part, a webhook whose
path is its own credential, a secret-named query parameter (Azure SAS `sig=`, `?api_key=`).

Shapes: gitleaks slack-webhook-url, microsoft-teams-webhook, discord (trufflehog
discordwebhook), detect-secrets BasicAuthDetector (`scheme://user:password@`).
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from ragstream.redact.keys import holds_secret
from ragstream.redact.values import is_placeholder, looks_secret

# scheme://user:password@host, or scheme://token@host (password group empty). A password may hold
# `/` and `@` (unescaped, as people write them): it runs to the last `@` that a host follows; a
# user may be an e-mail address (smtps://me@mail.example:password@smtp.example).
_USERINFO = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://(?:((?:[^\s/:@'\"<>`]+@(?=[\w-]+\.[\w.-]+:))?[^\s/:@'\"<>`]*):([^\s'\"<>`]+)|([^\s/:@'\"<>`]{20,}))"
                       r"@(?=[\w.-]+(?::\d+)?(?:[/?#\s'\"<>`),;]|$))")
_PORT_PATH = re.compile(r"\d+(?:/|$)")  # host:8443/a/b@c: a port and a path, no password
_WEBHOOK = re.compile(
    r"hooks\.slack\.com/(?:services|workflows|triggers)/([\w+/-]{20,120})"
    r"|discord(?:app)?\.com/api/webhooks/(\d+/[\w-]{20,100})"
    r"|\.webhook\.office\.com/webhookb2/([\w@/-]{40,300})"
    r"|/(?:webhooks?|hooks)/(?:[\w-]{1,40}/)*?([\w-]{24,200})(?=[\s/'\"`<>)?#]|$)")
_QUERY = re.compile(r"[?&]([\w.-]{1,60})=([^&#\s\"'<>`)]+)")
_ENCODED_QUERY = re.compile(r"%(?:26|3[Ff])([\w.-]{1,60})%3[Dd]((?:(?!%26)[^&#\s\"'<>`)%])+)")  # ?a=b URL-encoded


def find(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, rule name) of every credential in a URL of `text`."""
    if "://" in text:
        for match in _USERINFO.finditer(text):
            password, token = match.group(2), match.group(3)
            if password is not None and not is_placeholder(password) and len(password) >= 3 \
                    and not _PORT_PATH.match(password):
                yield match.start(2), match.end(2), "url_password"
            elif token is not None and looks_secret(token):
                yield match.start(3), match.end(3), "url_token"
    if "hook" in text:
        for match in _WEBHOOK.finditer(text):
            group = next(i for i in range(1, 5) if match.group(i) is not None)
            if group < 4 or looks_secret(match.group(4)):
                yield match.start(group), match.end(group), "webhook_url"
    if "=" in text or "%3" in text:
        for regex in (_QUERY, _ENCODED_QUERY):
            for match in regex.finditer(text):
                if holds_secret(match.group(1), match.group(2)):
                    yield match.start(2), match.end(2), "url_query_secret"
