"""Redaction of credential-looking strings from every text that is indexed, stored or sent:
file contents before they are parsed, chunked or embedded, commit messages, questions,
conversation turns and model prompts.

Four finders report spans (known token shapes, URLs, secret-named assignments, secrets told by
their context), on the text and on its encoded parts decoded (`encodings`); overlapping
spans merge, and each is replaced by `[REDACTED]`, keeping quotes and keys around it so the
code still parses, and keeping line breaks so line spans stay exact. Deterministic: the same
text always gives the same output, and redacting twice changes nothing more.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from ragstream.redact import assignments, contexts, encodings, tokens, urls
from ragstream.redact.values import REDACTED

# The spans of a code file read as prose (group `prose`: comments, docstrings): there an unquoted
# value after a secret-named key counts, as in a text file. One-line string literals are matched
# too, and dropped, so a `#` or `//` inside one ("#fragment", "https://") starts no comment.
_DQ, _SQ = r'"(?:[^"\\\n]|\\.)*"', r"'(?:[^'\\\n]|\\.)*'"
_PROSE = {
    "python": re.compile(rf"(?P<prose>\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|#[^\n]*)|{_DQ}|{_SQ}"),
    "sql": re.compile(rf"(?P<prose>--[^\n]*|/\*[\s\S]*?\*/)|{_SQ}"),
    "csharp": re.compile(rf"(?P<prose>//[^\n]*|/\*[\s\S]*?\*/)|{_DQ}"),
    "razor": re.compile(rf"(?P<prose>//[^\n]*|/\*[\s\S]*?\*/|@\*[\s\S]*?\*@|<!--[\s\S]*?-->)|{_DQ}"),
}

# Changes whenever the redaction code changes: parse results cached under other rules are redone.
_RULE_MODULES = ("assignments", "contexts", "encodings", "keys", "redactor", "tokens", "urls", "values")
REDACTION_VERSION = hashlib.sha1(b"".join(
    (Path(__file__).parent / f"{name}.py").read_bytes() for name in _RULE_MODULES)).hexdigest()[:12]


def find_secrets(text: str, language: str = "text") -> list[tuple[int, int, str]]:
    """(start, end, rule name) of each secret in `text`, in order, overlaps merged. `language`:
    a parser name (python, sql, csharp, razor); anything else is read as prose throughout."""
    def search(part: str) -> list[tuple[int, int, str]]:
        return _find_plain(part, language)

    found = sorted({*search(text), *encodings.find(text, search)})
    merged: list[tuple[int, int, str]] = []
    for start, end, rule in found:
        if start >= end:
            continue
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
        else:
            merged.append((start, end, rule))
    return merged


def _find_plain(text: str, language: str) -> list[tuple[int, int, str]]:
    """The finders' spans on `text` as written (no decoding), unmerged."""
    prose_regex = _PROSE.get(language)
    prose = None if prose_regex is None else [m.span() for m in prose_regex.finditer(text) if m.group("prose")]
    return [*tokens.find(text), *urls.find(text), *assignments.find(text, prose), *contexts.find(text)]


def redact(text: str, language: str = "text") -> tuple[str, list[str]]:
    """`text` with every secret replaced, and the rule behind each replacement."""
    found = find_secrets(text, language)
    if not found:
        return text, []
    out, at = [], 0
    for start, end, _ in found:
        out += [text[at:start], REDACTED, "\n" * text.count("\n", start, end)]
        at = end
    out.append(text[at:])
    return "".join(out), [rule for _, _, rule in found]


def redact_text(text: str) -> str:
    """Free text (a question, an answer, a prompt) with every secret replaced."""
    return redact(text)[0]


def redact_path(path: str) -> str:
    """A repository path with any secret in its names replaced: the path is what chunks, outputs,
    the manifest and the parse cache store, so all of them get the same redacted form. Two paths
    differing only in their secrets stay two paths: the last marker carries a 6-hex digest of the
    original (24 bits, nothing a token could be recovered from)."""
    clean = redact(path)[0]
    if clean == path:
        return path
    at = clean.rindex(REDACTED)
    tag = hashlib.sha256(path.encode()).hexdigest()[:6]
    return f"{clean[:at]}{REDACTED[:-1]}~{tag}]{clean[at + len(REDACTED):]}"


def redact_value(value: Any) -> Any:
    """A JSON-shaped value (dicts, lists, strings, numbers) with every string in it redacted,
    keys too. Structured data is redacted before it is serialized: redacting its JSON text would
    cut escapes (the `\\` of `\\"`) and leave text that no longer parses."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {redact_text(str(k)): redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value

