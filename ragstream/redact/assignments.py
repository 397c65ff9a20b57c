"""Secrets told by the name they are given: `password = "..."`, `"client_secret": "..."`,
`Password { get; set; } = "..."`, `SET @pwd = '...'`, `Password=...;` in a connection string,
`Authorization: Bearer ...`, and in prose (text files, comments, commit messages) unquoted:
`export AWS_SECRET_ACCESS_KEY=...`, `# temp pw ...`, `old key was ...`.

In code only quoted values count: `password = get_password()` is code. Unquoted values count
where text is prose: a whole text file, and a code file's comments and docstrings (`prose`).
Every value must also look like a secret (`values.looks_secret`), so names, references and
placeholders stay. Shapes follow detect-secrets' KeywordDetector (quoted assignments per
language) and gitleaks' generic-api-key rule (key, operator, value, entropy).
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence

from ragstream.redact.keys import holds_secret, is_secret_key, parts
from ragstream.redact.values import is_placeholder, looks_passphrase, looks_secret

# Where a key word may sit; the whole key around it is then read and judged by `is_secret_key`.
_KEYWORDS = ("pass", "pw", "psw", "pssw", "pasw", "paas", "api", "licen", "secret", "token", "key", "auth", "cred", "sig", "bearer", "dockerc",
             # "password" in other languages (keys.py lists the words)
             "wort", "contras", "senha", "wachtw", "lösen", "losen", "adgang", "salasana", "hasł", "hasl",
             "пароль", "parol", "jelsz", "heslo", "şifre", "sifre")
_KEYWORD = re.compile("|".join(_KEYWORDS), re.I)
_KEY_CHARS = re.compile(r"[\w.@$-]*")
_KEY_PUNCTUATION = frozenset("_.@$-")
_WORD_BEFORE = re.compile(r"([A-Za-z]+)[ \t]$")
# What follows a key: its closing quote, maybe a C# property body, an operator, then the value.
_AFTER = re.compile(r"""
    (?P<close>\\*["'`]?|"")(?:\[\d{0,4}\])?                    # char secret[25] = ..., $secret[] = ...
    (?:
      (?P<op>[ \t]*
             (?:\{[^{}\n]{0,80}\}[ \t]*                               # C#: Password { get; set; } = ...
               |:[ \t]*[A-Za-z_][\w.\[\], |]{0,60}?[ \t]*(?==(?![=>]))  # Python: api_key: str = ...
               |[ \t]+[A-Za-z_]\w{0,30}(?:\([\w, ]{0,20}\))?[ \t]*(?==)  # SQL: DECLARE @pwd NVARCHAR(50) = ...
             )?
             (?:===?|!==?|:{1,3}=|\.=|=>|\?=|<-|[:=(,>|]|[ \t]value[ \t]*=)[ \t]*
             (?:(?:&[\w-]+|!!?[\w-]*)[ \t]+)?                                  # YAML: an anchor or a tag
             (?:[rRbBuUfFN]{1,2}(?=["'])|@(?=["']))?)
      |(?P<space>[ \t]+(?:(?:is|was|are|lautet|ist|est|es|é|è|er|är|on|jest|je)[ \t]*[:=]?[ \t]+|[=:][ \t]+)?)
    )
    (?:"(?P<dq>[^"\n]+)"|'(?P<sq>[^'\n]+)'|`(?P<bq>[^`\n]+)`|\\+"(?P<esc>[^"\\\n]+)\\+"  # \"...\": JSON in a string
       |""(?P<dd>[^"\n]+)""                                                  # ""...."": in a C# @"" or VB string
       |(?P<bare>[^\s"'`,;&<>()\[\]{}|]+)
       |(?:'{3}|"{3}|["'`])(?P<open>[^"'`\n\\]{16,})(?=\\?\r?(?:\n|\Z)))  # a literal going on over lines: its first line
""", re.X)
# In prose, words between a key and its value: `password for master: ...`, `Key(ANYSecret): ...`,
# `ANY_password,default: ...` (the name in brackets is judged too).
_QUALIFIER = re.compile(r"(?:[ \t]+(?:for|of|to|on)(?:[ \t]+[\w.@-]{1,30}){1,3}|[ \t]*\(([\w.-]{1,30})\)|,[\w-]{1,20})(?=[ \t]*[:=])")
_TO_SPACE = re.compile(r"(?:(?!</)[^\s\"'`])*")  # up to a space, a quote or an end tag
_CLOSERS = {")": "(", "]": "[", "}": "{"}
# Inside a connection string: after a `;`, up to the next `;` or the string's end; or right after
# the string's opening quote, up to a `;` (`"token = self._token"` is code in a string).
_CONNECTION_KEY = (r"(?:password|pwd|user[ _]?password|accountkey|sharedaccesskey|sharedaccesssignature|"
                   r"client[ _]?secret|secret|token)")
_CONNECTION_VALUE = r"([^;\"'\s(){}][^;\"'\n(){}]*?)"
_CONNECTION = re.compile(rf"(?im)(?<=;)[ \t]*{_CONNECTION_KEY}[ \t]*=[ \t]*{_CONNECTION_VALUE}[ \t]*(?=[;\"']|$)"
                         rf"|(?<=[\"']){_CONNECTION_KEY}={_CONNECTION_VALUE}(?=;)")
_AUTHORIZATION = re.compile(r"(?i)\b(?:proxy-)?authorization(?:[\"'`]?[ \t]*[:=]|[\"'`][ \t]*,)[ \t]*[\"'`]?[ \t]*"
                            r"(?:(?:bearer|basic|token|bot|negotiate|ntlm|kerberos|sharedkey|apikey|sso-key)[ \t]+)?"
                            r"([^\s\"'`,;<>()\[\]{}|]+)")
_BEARER = re.compile(r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)")
_POSITIONAL = re.compile(r"(?i)\b(?:NetworkCredential|HTTPBasicAuth|HTTPDigestAuth|BasicAuth|PasswordCredential|"
                         r"sp_addlogin|sp_addlinkedsrvlogin|auth[ \t]*=)[ \t]*\(?[ \t]*"
                         r"(?:(?:N?(['\"])[^'\"\n]*\1|NULL)[ \t]*,[ \t]*)+N?(['\"])([^'\"\n]{3,})\2")
# gitleaks curl-auth-user: -u user:password, --user "user":'password', an e-mail as the user or none
_CURL_USER = re.compile(r"(?:^|[ \t])(?:-u|--user)[ \t=]+[\"']?[^\s:\"']*[\"']?:[\"']?([^\s\"',;]+)")
_CURL_TOKEN_USER = re.compile(r"(?:^|[ \t])(?:-u|--user)[ \t=]+[\"']?([^\s:\"'$]{8,}):[\"']?(?=[\s\"']|$)")
_IDENTIFIED_BY = re.compile(r"(?i)\bidentified[ \t]+(?:with[ \t]+['\"]?\w+['\"]?[ \t]+)?(?:by|as)[ \t]+(?:password[ \t]+)?(?:'([^'\n]+)'|\"([^\"\n]+)\"|(\w+))")


def find(text: str, prose: Sequence[tuple[int, int]] | None) -> Iterator[tuple[int, int, str]]:
    """(start, end, rule name) of every secret that a name announces in `text`. `prose`: the
    spans read as prose (None: all of it)."""
    folded = text.lower()
    yield from _assigned(text, folded, prose)
    if "=" in text and any(w in folded for w in ("password", "pwd", "accountkey", "sharedaccess", "secret", "token")):
        for match in _CONNECTION.finditer(text):
            group = 1 if match.group(1) is not None else 2
            if not is_placeholder(match.group(group)):
                yield match.start(group), match.end(group), "connection_string_secret"
    if "authorization" in folded:
        for match in _AUTHORIZATION.finditer(text):
            if looks_secret(match.group(1)):
                yield match.start(1), match.end(1), "authorization_header"
    if "bearer" in folded:
        for match in _BEARER.finditer(text):
            if looks_secret(match.group(1)):
                yield match.start(1), match.end(1), "bearer_token"
    if any(w in folded for w in ("credential", "auth", "sp_add")):
        for match in _POSITIONAL.finditer(text):
            if not is_placeholder(match.group(3)):
                yield match.start(3), match.end(3), "positional_credential"
    if "curl" in folded:
        for match in _CURL_USER.finditer(text):
            if not is_placeholder(match.group(1)) and len(match.group(1)) >= 3:
                yield match.start(1), match.end(1), "curl_user_password"
        for match in _CURL_TOKEN_USER.finditer(text):  # -u "<api key>:": the key is the user
            if looks_secret(match.group(1)):
                yield match.start(1), match.end(1), "curl_user_password"
    if "identified" in folded:
        for match in _IDENTIFIED_BY.finditer(text):
            group = next(i for i in (1, 2, 3) if match.group(i) is not None)
            value = match.group(group)
            if (looks_secret(value) if group == 3 else not is_placeholder(value)):
                yield match.start(group), match.end(group), "sql_identified_by"


def _assigned(text: str, folded: str, prose: Sequence[tuple[int, int]] | None) -> Iterator[tuple[int, int, str]]:
    done = 0  # the end of the last key read: a key holding several key words is read once
    for at in _keyword_positions(text, folded):
        if at < done:
            continue
        begin = at
        while begin > at - 80 and begin > 0 and (text[begin - 1].isalnum() or text[begin - 1] in _KEY_PUNCTUATION):
            begin -= 1
        key_chars = _KEY_CHARS.match(text, at)
        assert key_chars is not None, "a `*` pattern matches, if only the empty string"
        end = key_chars.end()
        done = end
        key = text[begin:end].rstrip(".-")
        end = begin + len(key)
        if parts(key) in (["key"], ["token"]):  # "API key: ...", "access token = ...": the word before says
            before = _WORD_BEFORE.search(text, max(0, begin - 30), begin)
            key = f"{before.group(1)}_{key}" if before else key
        after = _AFTER.match(text, end)
        found = None if after is None else _judge(text, begin, key, after, prose)
        qualified = None if found else _QUALIFIER.match(text, end)
        if qualified and (prose is None or _inside(begin, prose)):  # password for master: ...
            after = _AFTER.match(text, qualified.end())
            names = (key, qualified.group(1)) if qualified.group(1) else (key,)
            found = next((f for f in (_judge(text, begin, name, after, prose) for name in names) if f), None) \
                if after and after.group("op") else None
        if found:
            yield found


def _keyword_positions(text: str, folded: str) -> list[int]:
    """Where a key word starts, in order: str.find on the lower-cased text is many times faster
    than a case-insensitive regex (which is kept for the rare text whose length lower() changes)."""
    if len(folded) != len(text):
        return [m.start() for m in _KEYWORD.finditer(text)]
    found: set[int] = set()
    for word in _KEYWORDS:
        at = folded.find(word)
        while at != -1:
            found.add(at)
            at = folded.find(word, at + 1)
    return sorted(found)


def _judge(text: str, begin: int, key: str, after: re.Match[str],
           prose: Sequence[tuple[int, int]] | None) -> tuple[int, int, str] | None:
    """The value's span when `key` and what follows it make an assignment of a secret."""
    group = next(g for g in ("dq", "sq", "bq", "esc", "dd", "bare", "open") if after.group(g) is not None)
    value = after.group(group)
    end = after.end(group)
    in_prose = prose is None or _inside(begin, prose)
    if group == "bare":
        stop = text[end:end + 1]
        if in_prose and stop in "{}()[]<>" and not (stop in "([" and (value[-1].isalnum() or value[-1] == "_")):
            # prose: a value holding brackets runs to the next space (not a call or an index: f(x), a[0])
            value = _trim(_TO_SPACE.match(text, after.start(group)).group())  # type: ignore[union-attr]
        elif value[-1] in ".,:":  # a sentence's punctuation, not the value's
            value = value.rstrip(".,:")
        end = after.start(group) + len(value)
        if not value:
            return None
    elif group == "open":  # the literal's other lines, up to its closing quote
        quote = text[after.start(group) - 1]
        closing = text.find(quote, end, end + 4096)
        end = closing if closing != -1 else end
    op = after.group("op")
    if key[0] == "$" and (op is None or group == "bare") or text[begin - 1:begin] in ("=", "$", "%"):
        return None  # $PWD, =token: a reference or a value, not a key ($token = "..." is one)
    if op is not None:
        operator = op.strip().rstrip("rRbBuUfFN@")
        if operator.endswith(",") and (after.group("close").lstrip("\\")[:1] not in ('"', "'") or group == "bare"
                                       or text[begin - 1:begin] not in ('"', "'")):
            return None  # f(password, "x"), ("master password", "x"): positional arguments, not a key and value
        if operator.endswith("(") and (group == "bare" or not is_secret_key(parts(key)[-1]) or op[0] in " \t"):
            return None  # SetPassword("x") is one; get_encoding("x") after a `tiktoken.` or "a token (x)" is not
        if operator.endswith(">") and not operator.endswith("=>") and text[begin - 1:begin] != "<":
            return None  # a comparison, unless it is <password>value</password>
        if group == "bare" and not in_prose:
            return None  # code: an unquoted value is an expression
        if not (holds_secret(key, value) or group != "bare" and operator[-1:] in "=:" and is_secret_key(key)
                and looks_passphrase(value)):
            return None
        return after.start(group), end, "assigned_secret" if group != "bare" else "prose_secret"
    if not in_prose:  # code: `password "..."` (a config line, SET, #define) only with a quoted value
        if group in ("dq", "sq") and is_secret_key(key) and looks_secret(value):
            return after.start(group), end, "assigned_secret"
        return None
    connected = after.group("space").strip() != ""
    if not (is_secret_key(key) or (connected and parts(key)[-1:] == ["key"])):
        return None  # "old key was ...": a bare `key` only with a connecting word
    if not looks_secret(value, strict=True):
        return None
    return after.start(group), end, "prose_secret"


def _trim(value: str) -> str:
    """A prose value without the sentence's punctuation or a closing bracket it only sits in."""
    while value and (value[-1] in ".,:;" or value[-1] in _CLOSERS
                     and value.count(_CLOSERS[value[-1]]) < value.count(value[-1])):
        value = value[:-1]
    return value


def _inside(position: int, spans: Sequence[tuple[int, int]]) -> bool:
    at = bisect_right(spans, position, key=lambda span: span[0])  # spans after the last one starting here
    return at > 0 and position < spans[at - 1][1]
