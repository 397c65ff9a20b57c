"""Exception, warning and error types: what an error report names and quotes. Their definitions
match a report by construction, yet a fix rarely changes them -- mentions leave them out and
hybrid search scales their scores down, except for a type the question names: then it is what
the question is about."""
from __future__ import annotations

import re

from ragstream.index.model import Chunk

SYMPTOM_SUFFIXES = ("Error", "Exception", "Warning")
_BASES = re.compile(r"\((.*)\)")
_WORD = re.compile(r"[A-Za-z_]\w*")


def symptom_types(chunks: list[Chunk]) -> frozenset[str]:
    """Qualified names of the Python classes that are exception types: named so, or deriving
    from one (bases matched by name, through any depth of the index's own classes)."""
    bases = {c.symbol: base_names(c.metadata.get("signature", "")) for c in chunks
             if c.kind == "CLASS" and c.metadata.get("language") == "python"}
    own_name = {symbol: symbol.rsplit(".", 1)[-1] for symbol in bases}
    symptomatic = {name for name in own_name.values() if name.endswith(SYMPTOM_SUFFIXES)}
    while True:  # one round per level of inheritance
        found = {own_name[symbol] for symbol, names in bases.items() if own_name[symbol] not in symptomatic
                 and any(n in symptomatic or n.endswith(SYMPTOM_SUFFIXES) for n in names)}
        if not found:
            return frozenset(symbol for symbol in bases if own_name[symbol] in symptomatic)
        symptomatic |= found


def base_names(signature: str) -> list[str]:
    """The base classes' own names in a `class Name(a.Base, Other, metaclass=M)` signature."""
    match = _BASES.search(signature)
    if not match:
        return []
    return [base.strip().rsplit(".", 1)[-1] for base in match.group(1).split(",") if "=" not in base and base.strip()]


def question_words(question: str) -> frozenset[str]:
    """The identifier-shaped words of a question, as written."""
    return frozenset(_WORD.findall(question))


def defines_symptom(chunk: Chunk, symptoms: frozenset[str], named: frozenset[str] = frozenset()) -> bool:
    """Whether a chunk is the definition, or a method, of an exception type that is not among
    the `named` words."""
    owner = {"CLASS": chunk.symbol, "METHOD": chunk.symbol.rsplit(".", 1)[0]}.get(chunk.kind, "")
    return owner in symptoms and owner.rsplit(".", 1)[-1] not in named
