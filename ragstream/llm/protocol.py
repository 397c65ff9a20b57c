"""The router's one-line prefix protocol, parsed strictly: the rule-based router and a model
write the same line, and the same parser reads both.

    [SEMANTIC:] <query>    [SEMANTIC_RERANK:] <query>    [BM25:] <query>
    [HYBRID:] <query>      [DIRECT:] <why no search is needed>
"""
from __future__ import annotations

import re
from dataclasses import dataclass

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
