"""The protocols of model replies, parsed strictly.

The router's one line (the rule-based router and a model write the same line, and the same
parser reads both):

    [SEMANTIC:] <query>    [SEMANTIC_RERANK:] <query>    [BM25:] <query>
    [HYBRID:] <query>      [DIRECT:] <why no search is needed>

The answer: `[Answer:] ...` or `[Requesting data on:] ...`. The shaper, gate and condenser
reply one JSON object each.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ragstream.errors import ProtocolError

# prefix -> (retrieval_mode, rerank)
ROUTES = {
    "SEMANTIC": ("semantic", "none"),
    "SEMANTIC_RERANK": ("semantic", "keyword_rerank"),
    "BM25": ("bm25", "none"),
    "HYBRID": ("hybrid", "none"),
    "DIRECT": ("direct", "none"),
}
_LINE = re.compile(r"\[([A-Z0-9_]+):\][ \t]*(.*)")


@dataclass(frozen=True)
class RoutePlan:
    mode: str  # semantic | bm25 | hybrid | direct
    rerank: str
    query: str  # for DIRECT: the reason no search is needed


def format_route(prefix: str, query: str) -> str:
    return f"[{prefix}:] {' '.join(query.split())}"


def parse_route(line: str) -> RoutePlan:
    """The plan in one router line; anything but exactly one known prefix line is an error."""
    text = line.strip()
    if "\n" in text:
        raise ProtocolError("the router must answer with exactly one line", where="route")
    match = _LINE.fullmatch(text)
    if match is None:
        raise ProtocolError(f"no routing prefix in {text[:80]!r}; expected one of "
                            f"{[f'[{p}:]' for p in ROUTES]}", where="route")
    prefix, query = match.groups()
    if prefix not in ROUTES:
        raise ProtocolError(f"unknown routing prefix [{prefix}:]", where="route")
    if not query.strip():
        raise ProtocolError(f"[{prefix}:] needs a query after it", where="route")
    mode, rerank = ROUTES[prefix]
    return RoutePlan(mode, rerank, query.strip())


# The answering model's reply starts with exactly one of these markers.
ANSWER_MARKER = "[Answer:]"
REQUEST_MARKER = "[Requesting data on:]"
MARKERS = (ANSWER_MARKER, REQUEST_MARKER, *(f"[{prefix}:]" for prefix in ROUTES))
_MARKERS = re.compile("(?:" + "|".join(re.escape(m) for m in sorted(MARKERS, key=len, reverse=True)) + ")[ \t]*")


@dataclass(frozen=True)
class AnswerReply:
    kind: str  # answer | request
    text: str  # the answer, or what more evidence is wanted; markers removed


def parse_answer(reply: str) -> AnswerReply:
    """The answer or the request for more data in a reply; no marker first is an error."""
    text = reply.strip()
    for marker, kind in ((ANSWER_MARKER, "answer"), (REQUEST_MARKER, "request")):
        if text.startswith(marker):
            body = strip_markers(text[len(marker):]).strip()
            if not body:
                raise ProtocolError(f"{marker} needs text after it", where="answer")
            return AnswerReply(kind, body)
    raise ProtocolError(f"the reply must start with {ANSWER_MARKER} or {REQUEST_MARKER}, not {text[:60]!r}",
                        where="answer")


class AnswerStream:
    """Passes on an `[Answer:]` reply's text as it streams, without markers; withholds anything
    else (a request for data, or a malformed reply that will be asked for again). A marker may
    arrive split across pieces, and the spaces after one are dropped with it, so text from the
    last `[` on waits while it could still be a marker; an empty piece ends the stream. What is
    passed on adds up to exactly the parsed answer's text."""

    def __init__(self, sink: Callable[[str], None]):
        self.sink = sink
        self.received = ""  # everything since the first marker
        self.sent = 0  # characters of the cleaned text passed on
        self.state = "undecided"  # -> passing | withholding

    def __call__(self, piece: str) -> None:
        if self.state == "withholding":
            return
        self.received += piece
        if self.state == "undecided":
            text = self.received.lstrip()
            if text.startswith(ANSWER_MARKER):
                self.state, self.received = "passing", text[len(ANSWER_MARKER):].lstrip()
            elif not (ANSWER_MARKER.startswith(text) and piece):
                self.state = "withholding"
                return
        stable = self.received
        held = stable.rfind("[")
        if piece and held != -1 and _could_be_marker(stable[held:]):
            stable = stable[:held]
        # stripped like the parsed answer; trailing spaces wait for the text that follows them
        cleaned = strip_markers(stable).strip()
        if len(cleaned) > self.sent:
            self.sink(cleaned[self.sent:])
            self.sent = len(cleaned)


def _could_be_marker(tail: str) -> bool:
    """Whether `tail` may still grow into a marker, or is one with only spaces after it."""
    return any(marker.startswith(tail) or tail.rstrip(" \t") == marker for marker in MARKERS)


def strip_markers(text: str) -> str:
    """`text` without any protocol marker: markers never reach the user."""
    return _MARKERS.sub("", text)


def plain_text(reply: str, where: str) -> str:
    """A free-text reply (a translation, a summary, format rules): markers removed, not empty."""
    text = strip_markers(reply).strip()
    if not text:
        raise ProtocolError("the reply is empty", where=where)
    return text


def parse_json_object(reply: str, where: str) -> dict[str, Any]:
    """The one JSON object in a reply (a ```json fence around it is tolerated)."""
    text = reply.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    try:
        data = json.loads(fenced.group(1) if fenced else text)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
                            where=where) from exc
    if not isinstance(data, dict):
        raise ProtocolError(f"expected a JSON object, got {type(data).__name__}", where=where)
    return data


def string_list(data: Mapping[str, Any], key: str, where: str) -> list[str]:
    """`data[key]` as a list of strings (missing = empty); anything else is an error."""
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProtocolError(f"{key!r} must be a list of strings", where=where)
    return [v.strip() for v in value if v.strip()]
