"""Secrets that only their surroundings give away: a YAML block scalar or an XML element under a
secret-named key, a libpq DSN or an ODBC `PWD={...}` inside a string, a command line
(`--requirepass X`, `mysql -pX`, `sshpass -p X`), a credentials pair in prose, a `Cookie:`
header, a private key encoded in base64, and a value split over concatenated string literals.

Each finder judges the value with the same `keys` and `values` rules as a plain assignment, so a
placeholder or a reference stays. Shapes follow CredSweeper's rules (`cmd_password`,
`doc_*` pairs, `CURL`/`sshpass` rules, `LS0tLS1CRUdJTi` PEM in base64) and gitleaks'
`generic-api-key` XML and concatenation cases, rewritten here.
"""
from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator

from ragstream.redact import tokens
from ragstream.redact.keys import holds_secret, is_secret_key, is_suggestive_key
from ragstream.redact.values import is_placeholder, looks_secret

Span = tuple[int, int, str]

_BLOCK_SCALAR = re.compile(r"(?m)^([ \t]*)(?:- )?[\"']?([\w.@$-]+)[\"']?[ \t]*:[ \t]*(?:&[\w-]+[ \t]+)?[|>][-+0-9]*"
                           r"[ \t]*(?:#[^\n]*)?\n((?:\1[ \t]+[^\n]*(?:\n|$)|[ \t]*\n)+)")
# An element's text on one line, or on lines of one word each (a token wrapped at a width).
_XML_ELEMENT = re.compile(r"<([\w.:-]+)(?:[ \t][^<>\n]*)?>[ \t]*\n?[ \t]*([^<>\s][^<>\n]*?"
                          r"(?:[ \t]*\n[ \t]*[^<>\s]+){0,40})[ \t]*\n?[ \t]*</\1>")
_DSN_PASSWORD = re.compile(r"(?i)(?:^|(?<=[\s\"']))(?:password|passwd|pwd)[ \t]*=[ \t]*([^\s'\"{,)]+)(?=[\s'\"]|$)")
_DSN_SIBLING = re.compile(r"(?i)(?:^|[\s\"'])(?:host|hostaddr|dbname|user|port|sslmode)=[^\s,)]")
_ODBC_BRACED = re.compile(r"(?i)\b(?:pwd|password)[ \t]*=[ \t]*\{((?:[^}\n]|\}\})+)\}")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")
_FLAG = re.compile(r"(?:^|(?<=[\s\"'\[,(]))--?([A-Za-z][\w-]*)(?:=|[ \t]+)(?:(['\"])([^'\"\n]+)\2|([^\s'\"`|;&<>()]+))")
_MYSQL = re.compile(r"\bmysql(?:dump|admin|import|show|check|slap)?\b[^\n|;&]*?[ \t]-p(['\"]?)([^\s'\"]+)\1")
_SSHPASS = re.compile(r"\bsshpass\b[^\n|;&]*?[ \t]-p[ \t]*(['\"]?)([^\s'\"]+)\1")
_REDIS_CLI = re.compile(r"\bredis-cli\b[^\n|;&]*?[ \t]-a[ \t]+(['\"]?)([^\s'\"]+)\1")
_DOCKER_LOGIN = re.compile(r"\b(?:docker|podman|helm[ \t]+registry)[ \t]+login\b[^\n|;&]*?[ \t]-p[ \t]+(['\"]?)([^\s'\"]+)\1")
# A user flag and a password flag on one command line, in either order (sqlcmd -U sa -P ...,
# psexec -u u -p ..., bcp ... -P ... -U ...), and Windows' `net use ... /user:name password`.
_USER_FLAG = r"-(?:u|U|-user(?:name)?)[ \t]+[^\s|;&]+"
_FLAG_PAIR = re.compile(rf"(?:^|[ \t]){_USER_FLAG}[^\n|;&]*?[ \t]-[pP][ \t]+(['\"]?)([^\s'\"|;&]+)\1"
                        rf"|(?:^|[ \t])-[pP][ \t]+(['\"]?)([^\s'\"|;&]+)\3(?=[^\n|;&]*?[ \t]{_USER_FLAG})")
_MYSQL_TOOL = re.compile(r"[^\n]*\bmysql")
_NET_USE = re.compile(r"(?i)\bnet[ \t]+use\b[^\n|;&]*?/user:[^\s/]+[ \t]+(?!/)([^\s|;&`'\",]+)")
# A table whose header names a secret column: Markdown (`| user | password |`) or CSV.
_HEADER_CHARS = r"[\w .|,*`\"'-]*"  # a header holds names and delimiters: a line of code fails fast
_HEADER_LINE = re.compile(rf"(?im)^{_HEADER_CHARS}(?:pass|pwd|secret|token|key|cred){_HEADER_CHARS}$")
_COLUMN_NAME = re.compile(r"[\w .-]{0,40}")
_MARKDOWN_RULE = re.compile(r"\s*\|?[\s:|-]+\|?\s*")  # |---|:---:|
_PAIR = re.compile(r"(?i)\b(?:credentials?|creds|logins?|log[ \t]+in[ \t]+with|user(?:name)?[ \t]*(?:and|/)[ \t]*"
                   r"password)\b[^\n`'\"]{0,40}?[`'\"]?([^\s`'\"/:]+?)[`'\"]?(?:[ \t]+/[ \t]+|:(?=\S))"
                   r"[`'\"]?([^\s`'\"]+?)[`'\"]?(?=[.,;)]?(?:\s|$))")  # user / password, user:password
_COOKIE = re.compile(r"(?i)\b(?:set-)?cookie[\"']?[ \t]*[:,=][ \t]*[\"']?([^\n'\"]+)")  # also {"Cookie": "..."}
_COOKIE_VALUE = re.compile(r"[\w.-]+=([^;\s'\"]+)")
_ENCODED_PEM = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]+={0,2}")
_LITERAL = r"\"[^\"\n\\]*\"|'[^'\n\\]*'"
_CHAIN = re.compile(rf"(?:{_LITERAL})(?:[ \t]*[+.&]?[ \t]*(?:\n[ \t]*)?(?:{_LITERAL}))+")
_KEY_BEFORE = re.compile(r"([\w.$@-]+)[\"']?[ \t]*(?::=|=|:)[ \t]*\(?[ \t]*$")
# A list of 8+ bytes (`{0x35, 0x34, ...}`, `[]byte{333, 9, ...}`) after a secret-named identifier.
_BYTE = r"(?:0[xX][0-9a-fA-F]{1,2}|\d{1,3})"
_BYTES = re.compile(rf"[{{\[][ \t]*({_BYTE}(?:[ \t]*,[ \t]*(?:\\?\n[ \t]*)?{_BYTE}){{7,}})")
_IDENT = re.compile(r"[A-Za-z_][\w]*")
# A JSON Web Key's private members (RFC 7518: d, p, q, dp, dq, qi; k of a symmetric key).
_JWK_PRIVATE = re.compile(r"\"(?:d|p|q|dp|dq|qi|k)\"[ \t]*:[ \t]*\"([\w-]{16,})\"")
# Bundler's credentials for a gem server, set through the environment: BUNDLE_GEMS__EXAMPLE__COM=user:password
_BUNDLER = re.compile(r"\bBUNDLE_[A-Z0-9_]*__[A-Z0-9]+[\"']?[ \t]*[:=][ \t]*[\"']?[^\s:\"']+:([^\s\"'`;&,)]+)")
_SECURE_STRING = re.compile(r"(?i)ConvertTo-SecureString\b([^\n|;]*)")
_ARGUMENT = re.compile(r"""\\?(["'])(.*?)\\?\1|(\S+)""")
# The value compared with a secret-named name, written first: if ("..." == password)
_COMPARED = re.compile(r"""(["'])([^"'\n]{6,})\1[ \t]*(?:===?|!==?)[ \t]*([A-Za-z_$][\w.$]*)""")
# A setting's constant and its value as consecutive arguments: setopt(h, CURLOPT_PASSWORD, "...")
_SETTING_ARGUMENT = re.compile(r"""\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)[ \t]*,[ \t]*(["'])([^"'\n]+)\2""")
# A default or a fallback given where a secret is read: getenv("X", "..."), .get("X") or "..."
_FALLBACK = re.compile(r"""(?:\bor\b|\?\?|\|\|)[ \t]*(["'])([^"'\n]{6,})\1"""
                       r"""|\b(?:getenv|environ\.get|GetEnvironmentVariable|env)\([ \t]*(["'])([\w.-]+)\3[ \t]*,[ \t]*(["'])([^"'\n]{6,})\5""")
_TARGET = re.compile(r"([A-Za-z_$][\w.$]*)[\"']?[ \t]*(?::?=|:)(?!=)")


def find(text: str) -> Iterator[Span]:
    """(start, end, rule name) of every secret that its context gives away in `text`."""
    folded = text.lower()
    for needles, finder in _FINDERS:
        if not needles or any(n in folded for n in needles):
            yield from finder(text)


def _block_scalars(text: str) -> Iterator[Span]:
    for match in _BLOCK_SCALAR.finditer(text):
        body = match.group(3).rstrip()
        if is_secret_key(match.group(2)) and body.strip():
            start = match.start(3) + len(body) - len(body.lstrip())
            yield start, match.start(3) + len(body), "yaml_block_secret"


def _xml_elements(text: str) -> Iterator[Span]:
    for match in _XML_ELEMENT.finditer(text):
        body = match.group(2)
        value = "".join(body.split()).strip("\"'") if "\n" in body else body
        one_word_lines = all(" " not in line.strip() for line in body.splitlines())
        if ("\n" not in body or one_word_lines) and holds_secret(match.group(1).rsplit(":", 1)[-1], value):
            yield match.start(2), match.end(2), "xml_element_secret"


def _dsn(text: str) -> Iterator[Span]:
    for match in _DSN_PASSWORD.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line = text[line_start:line_end if line_end != -1 else len(text)]
        if _DSN_SIBLING.search(line) and not is_placeholder(match.group(1)) and len(match.group(1)) >= 3:
            yield match.start(1), match.end(1), "dsn_password"
    for match in _ODBC_BRACED.finditer(text):
        if not is_placeholder(match.group(1)) and not _IDENTIFIER.fullmatch(match.group(1)):
            yield match.start(1), match.end(1), "odbc_password"  # ({name}: an f-string's field, not a value)


def _command_lines(text: str) -> Iterator[Span]:
    for match in _FLAG.finditer(text):
        group = 3 if match.group(3) is not None else 4
        value = match.group(group)
        if is_secret_key(match.group(1)) and not value.startswith(("-", "$")) and _plausible(value):
            yield match.start(group), match.end(group), "command_line_secret"


def _tool_passwords(text: str) -> Iterator[Span]:
    for regex in (_MYSQL, _SSHPASS, _REDIS_CLI, _DOCKER_LOGIN):
        for match in regex.finditer(text):
            if _plausible(match.group(2)):
                yield match.start(2), match.end(2), "command_line_secret"


def _flag_pairs(text: str) -> Iterator[Span]:
    for match in _FLAG_PAIR.finditer(text):
        group = 2 if match.group(2) is not None else 4
        line_start = text.rfind("\n", 0, match.start()) + 1
        if _MYSQL_TOOL.match(text, line_start, match.start()):
            continue  # mysql -u root -p app: -p alone prompts, `app` is the database (`-pX` is _MYSQL's)
        if _plausible(match.group(group)) and not match.group(group).startswith("$"):
            yield match.start(group), match.end(group), "command_line_secret"
    for match in _NET_USE.finditer(text):
        if _plausible(match.group(1)) and not match.group(1).startswith(("$", "%")):
            yield match.start(1), match.end(1), "command_line_secret"


def _tables(text: str) -> Iterator[Span]:
    """The cells under a secret-named column header, row by row until the table ends (a blank
    line or a row with another number of cells)."""
    for header in _HEADER_LINE.finditer(text):
        line = header.group()
        delimiter = "|" if line.count("|") >= 2 else "," if line.count(",") >= 1 else None
        if delimiter is None:
            continue
        names = _cells(line, delimiter)
        plain = [name.strip().strip("*`\"'") for _, name in names]
        if len(plain) < 2 or not all(name and _COLUMN_NAME.fullmatch(name) for name in plain):
            continue  # a header names its columns; `def f(password, user):` is code
        columns = [i for i, name in enumerate(plain) if is_secret_key(name)]
        if not columns:
            continue
        at = header.end() + 1
        while at < len(text):
            end = text.find("\n", at)
            end = len(text) if end == -1 else end
            row = text[at:end]
            if delimiter == "|" and _MARKDOWN_RULE.fullmatch(row) and "-" in row:
                at = end + 1
                continue
            cells = _cells(row, delimiter)
            if not row.strip() or len(cells) != len(names):
                break
            for column in columns:
                start, cell = cells[column]
                value = cell.strip().strip("`\"'")
                if looks_secret(value, strict=True):
                    offset = at + start + cell.find(value)
                    yield offset, offset + len(value), "table_secret"
            at = end + 1


def _cells(line: str, delimiter: str) -> list[tuple[int, str]]:
    """(offset, text) of each cell of a table row (a Markdown row's outer pipes dropped)."""
    cells, at = [], 0
    for part in line.split(delimiter):
        cells.append((at, part))
        at += len(part) + 1
    if delimiter == "|" and line.strip().startswith("|"):
        cells = cells[1:]
    if delimiter == "|" and line.strip().endswith("|"):
        cells = cells[:-1]
    return cells


def _pairs(text: str) -> Iterator[Span]:
    for match in _PAIR.finditer(text):
        if _plausible(match.group(2)):
            yield match.start(2), match.end(2), "credentials_pair"


def _cookies(text: str) -> Iterator[Span]:
    for header in _COOKIE.finditer(text):
        for match in _COOKIE_VALUE.finditer(header.group(1)):
            if len(match.group(1)) >= 8 and not is_placeholder(match.group(1)):
                at = header.start(1) + match.start(1)
                yield at, at + len(match.group(1)), "cookie"


def _encoded_keys(text: str) -> Iterator[Span]:
    for match in _ENCODED_PEM.finditer(text):
        head = match.group()[:120]
        try:
            decoded = base64.b64decode(head[:len(head) // 4 * 4])
        except (binascii.Error, ValueError):
            continue
        if b"PRIVATE KEY" in decoded:
            yield match.start(), match.end(), "private_key_base64"


def _concatenations(text: str) -> Iterator[Span]:
    """A value split over literals joined by `+`, `.`, `&` or juxtaposition: judged joined, each
    literal's content redacted on its own (so the code keeps its quotes and still parses)."""
    for chain in _CHAIN.finditer(text):
        literals = [(m.start() + 1, m.end() - 1) for m in re.finditer(_LITERAL, chain.group())]
        joined = "".join(chain.group()[s:e] for s, e in literals)
        line_start = text.rfind("\n", 0, chain.start()) + 1
        key = _KEY_BEFORE.search(text, line_start, chain.start())
        if any(True for _ in tokens.find(joined)) or (key and holds_secret(key.group(1), joined)):
            for s, e in literals:
                if e > s:
                    yield chain.start() + s, chain.start() + e, "concatenated_secret"


def _byte_arrays(text: str) -> Iterator[Span]:
    for match in _BYTES.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        names = _IDENT.findall(text, line_start, match.start())
        if any(is_secret_key(name) or is_suggestive_key(name) for name in names):
            yield match.start(1), match.end(1), "byte_array_secret"


def _jwk_members(text: str) -> Iterator[Span]:
    for match in _JWK_PRIVATE.finditer(text):
        yield match.start(1), match.end(1), "jwk_private_member"


def _secure_strings(text: str) -> Iterator[Span]:
    """PowerShell `ConvertTo-SecureString [-String] "..." [-AsPlainText] [-Force]`: the first
    argument that is no flag is the password."""
    for match in _SECURE_STRING.finditer(text):
        for argument in _ARGUMENT.finditer(match.group(1)):
            group = 2 if argument.group(2) is not None else 3
            value = argument.group(group)
            if group == 3 and value.startswith(("-", "[")):
                continue  # a flag, or an optional one as documentation writes it
            if _plausible(value) and looks_secret(value) and not value.startswith("$"):
                at = match.start(1) + argument.start(group)
                yield at, at + len(value), "command_line_secret"
            break


def _bundler(text: str) -> Iterator[Span]:
    for match in _BUNDLER.finditer(text):
        if not is_placeholder(match.group(1)):
            yield match.start(1), match.end(1), "bundler_credentials"


def _comparisons(text: str) -> Iterator[Span]:
    for match in _COMPARED.finditer(text):
        if holds_secret(match.group(3).rsplit(".", 1)[-1], match.group(2)):
            yield match.start(2), match.end(2), "assigned_secret"


def _setting_arguments(text: str) -> Iterator[Span]:
    for match in _SETTING_ARGUMENT.finditer(text):
        if holds_secret(match.group(1), match.group(3)):
            yield match.start(3), match.end(3), "assigned_secret"


def _fallbacks(text: str) -> Iterator[Span]:
    for match in _FALLBACK.finditer(text):
        group = 2 if match.group(2) is not None else 6
        line_start = text.rfind("\n", 0, match.start()) + 1
        names = [m.group(1) for m in _TARGET.finditer(text, line_start, match.start())]
        if match.group(4):
            names.append(match.group(4))
        if any(holds_secret(name, match.group(group)) for name in names):
            yield match.start(group), match.end(group), "assigned_secret"



def _plausible(value: str) -> bool:
    """A value given on a command line or in a sentence: not a placeholder, and more than a word."""
    return len(value) >= 6 and not is_placeholder(value) and (looks_secret(value) or any(
        not c.isalpha() for c in value))


# (lower-cased literals one of which the text must hold for the finder to run; () runs it always)
_FINDERS: tuple[tuple[tuple[str, ...], Callable[[str], Iterator[Span]]], ...] = (
    ((": |", ": >", ":|", ":>"), _block_scalars),
    (("</",), _xml_elements),
    (("password=", "passwd=", "pwd=", "password =", "pwd ="), _dsn),
    (("--",), _command_lines),
    (("mysql", "sshpass", "redis-cli", " login"), _tool_passwords),
    ((" -p ", " -p\t", "net use"), _flag_pairs),
    (("pass", "pwd", "secret", "token", "key", "cred"), _tables),
    (("credential", "creds", "login", "log in", "user and password", "username and password", "user/password",
      "username/password"), _pairs),
    (("cookie",), _cookies),
    (("ls0tls1crudjt",), _encoded_keys),
    ((), _concatenations),
    (("0x", ", "), _byte_arrays),
    (('"kty"',), _jwk_members),
    (("convertto-securestring",), _secure_strings),
    (("bundle_",), _bundler),
    (("==", "!="), _comparisons),
    (("_",), _setting_arguments),
    (("getenv", "environ", "getenvironmentvariable", "env(", " or \"", " or '", "?? \"", "|| \"", "|| '"), _fallbacks),
)
