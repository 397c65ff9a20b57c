"""Code-aware keyword tokenisation, shared by the BM25 index and BM25 queries.

`getUserName` and `get_user_name` both yield `get`, `user`, `name` and the whole identifier,
so a query can match either the exact identifier (rare, high weight) or its words. Words are
reduced to their English stem (Snowball, via PyStemmer), so "popping" in a question meets
`pop` in code and "retried" meets `retry`; a compound identifier is also kept whole, unstemmed.
"""
from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
STOPWORDS = frozenset(
    "a an and are as at be but by for from has have in into is it its of on or that the their "
    "then there these this to was were will with".split()
)
_STEMMER = Stemmer.Stemmer("english")


def keyword_tokens(text: str) -> list[str]:
    """Lower-case tokens: each identifier whole, plus its snake_case and camelCase parts, stemmed."""
    tokens: list[str] = []
    for word in _IDENTIFIER.findall(text):
        tokens.extend(word_tokens(word))
    return tokens


@lru_cache(maxsize=200_000)
def word_tokens(word: str) -> tuple[str, ...]:
    """Tokens of one identifier (memoised: a code base repeats its identifiers constantly)."""
    whole = word.lower().strip("_")
    if not whole or whole in STOPWORDS:
        return ()
    parts = identifier_parts(word)
    if len(parts) > 1 or (parts and parts[0] != whole):
        return (whole, *dict.fromkeys(_STEMMER.stemWord(p) for p in parts if len(p) > 1 and p not in STOPWORDS))
    return (_STEMMER.stemWord(whole),) if len(whole) > 1 else ()


def identifier_parts(word: str) -> list[str]:
    """The lower-case snake_case and camelCase parts of an identifier, as written."""
    return [p.lower() for piece in word.split("_") for p in _CAMEL.findall(piece)]
