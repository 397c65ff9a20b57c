"""Secrets hidden under an encoding: HTML entities (`password: &quot;...&quot;` in a page or a
draw.io file), string escapes (`"#define\\tpassword\\t\\"...\\""` written inside a literal),
and base64 (a config or a key encoded whole, a private key in DER with no PEM armour).

Each encoded part is decoded and searched again with the same finders (`search`), and what is
found is mapped back onto the original text: the span of the encoded characters it came from,
or, for base64, the whole encoded run (a secret inside it cannot be cut out of it). Shapes follow
CredSweeper's depth scan (base64, HTML and escape decoding before its rules), rewritten here.
"""
from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Callable, Iterator

Span = tuple[int, int, str]
Search = Callable[[str], list[Span]]

_ENTITY = re.compile(r"&(?:#\d{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z]{2,8});")
# Quotes and tabs escaped: what hides a key from its value (`\n` before a token is `tokens`' job).
_ESCAPE = re.compile(r"\\[t\"']")
_ESCAPED = {"\\t": "\t", '\\"': '"', "\\'": "'"}
# A run of base64 of 40+ characters, or a block of such lines (a key wrapped at 64 columns).
_BASE64 = re.compile(r"(?<![\w+/=])[A-Za-z0-9+/]{40,}={0,2}(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/]{4,}={0,2})*(?![\w+/=])")
_PRINTABLE = re.compile(rb"[\t\n\r\x20-\x7e]*")


def find(text: str, search: Search, depth: int = 0) -> Iterator[Span]:
    """Spans of `text` whose decoded form holds a secret. `depth`: how many decodings deep this
    text already is (one more layer is decoded: `&amp;lt;` is two)."""
    if depth > 1:
        return
    if "&" in text:
        yield from _decoded_lines(text, _ENTITY, html.unescape, search, depth)
    if "\\" in text:
        yield from _decoded_lines(text, _ESCAPE, _ESCAPED.__getitem__, search, depth)
    for match in _BASE64.finditer(text):
        if _base64_holds_secret(match.group(), search, depth):
            yield match.start(), match.end(), "encoded_secret"


def _decoded_lines(text: str, encoded: re.Pattern[str], decode: Callable[[str], str], search: Search,
                   depth: int) -> Iterator[Span]:
    """Each line holding an encoded character, decoded and searched; spans mapped back."""
    for line in re.finditer(r"[^\n]*", text):
        if not encoded.search(line.group()):
            continue
        plain: list[str] = []
        starts: list[int] = []  # for each decoded character, where its source starts and ends
        ends: list[int] = []
        at = line.start()
        for match in encoded.finditer(line.group()):
            for offset, char in enumerate(line.group()[at - line.start():match.start()]):
                plain.append(char)
                starts.append(at + offset)
                ends.append(at + offset + 1)
            decoded = decode(match.group())
            plain.append(decoded)
            starts.extend([line.start() + match.start()] * len(decoded))
            ends.extend([line.start() + match.end()] * len(decoded))
            at = line.start() + match.end()
        for offset, char in enumerate(text[at:line.end()]):
            plain.append(char)
            starts.append(at + offset)
            ends.append(at + offset + 1)
        decoded_line = "".join(plain)
        for start, end, rule in [*search(decoded_line), *find(decoded_line, search, depth + 1)]:
            if end > start:
                yield starts[start], ends[end - 1], rule


def _base64_holds_secret(run: str, search: Search, depth: int) -> bool:
    packed = "".join(run.split())
    try:
        data = base64.b64decode(packed[:len(packed) // 4 * 4])
    except (binascii.Error, ValueError):
        return False
    if _der_private_key(data):
        return True
    head = data[:4096]
    if len(_PRINTABLE.match(head).group()) < len(head) * 0.95:  # type: ignore[union-attr]
        return False  # binary (an image, a certificate): nothing to read in it
    decoded = head.decode("ascii", "replace")
    return bool(search(decoded)) or any(True for _ in find(decoded, search, depth + 1))


def _der_private_key(data: bytes) -> bool:
    """DER with no armour: a SEQUENCE whose first element is the INTEGER 0 or 1, as a private key
    starts (PKCS#1, PKCS#8, SEC1); a certificate or a public key starts with a SEQUENCE instead."""
    if len(data) < 64 or data[0] != 0x30:
        return False
    at = 2 if data[1] < 0x80 else 2 + (data[1] & 0x7F)
    return data[at:at + 3] in (b"\x02\x01\x00", b"\x02\x01\x01")
