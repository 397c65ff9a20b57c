"""The tables, mapped entities and procedures a question speaks of in its own words, matched by
the words of their names.

A writer who does not know an object's identifier still says its words, but not as the
identifier strings them together: "manager invitations" for `ManagerInvite` (a derived form),
"a Plex TV episode row" for `PlexEpisode` (other words between the parts), "the table that logs
each request" for `RequestLog` (another order, a verb), "playlists" for `PlayList` (one word for
the compound). A name is matched when every word of it (split at case and `_`, stemmed; with
or without a module prefix, and a procedure's last part after `_`) is said within a short window
of the question's content words, in any order, or as one compound word; a stem matches another
that it begins, two letters short at most, so that derived forms meet ("registration" and
"register"). How much a match says is the IDF of its words over the candidates' names: a word
most names share ("user", "item") names none of them on its own. Among matches sharing words of
the question the one covering the most words wins; one span of words names at most
MAX_NAMED_BY_WORD objects, none when more tie. Names of one word are left to `named`'s cues.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

import networkx as nx

from ragstream.graph.named import MAX_NAMED_BY_WORD, Named, named_node, stems
from ragstream.graph.relations import TABLE_KINDS
from ragstream.index.symbols import without_template_copies
from ragstream.keyword_tokens import identifier_parts, keyword_tokens

# A one-word name ("Issue", "Collection") is named by a plain word only where the question calls
# it a table (`named.tables_in_words`): one word of a question is too weak a sign of its subject.
MIN_WORDS = 2
EXTRA_WORDS = 3  # content words a name's words may have between them in the question
DERIVED_LETTERS = 2  # letters a stem may have beyond another it begins and still be that word
MIN_DERIVED_STEM = 5  # shorter stems match only whole: "use" is no prefix of "user"
# The least specific a match may be: its words' IDF summed at least that of a word shared by one
# name in SPECIFIC_SHARE (a single word as common as that names nothing by itself).
SPECIFIC_SHARE = 100
MIN_SHARED = 3  # ... or by this many names, in a small graph


# Plain words for what code names with one word of its own: "sign-in attempts" are `LoginAttempt`s,
# "configuration options" `Setting`s, "photos" `Image`s. The code's word is said beside the plain one
# (neither replaces the other: a `SignInLog` still meets "sign-in").
IDENTIFIER_WORDS = (
    (re.compile(r"\b(?:sign(?:ed|ing|s)?[\s-]?in|log(?:ged|ging|s)?[\s-]in|log[\s-]?on)s?\b", re.IGNORECASE), "login"),
    (re.compile(r"\b(?:sign(?:ed|ing|s)?[\s-]?out|log(?:ged|ging|s)?[\s-]out|log[\s-]?off)s?\b", re.IGNORECASE), "logout"),
    (re.compile(r"\bsign(?:ed|ing|s)?[\s-]ups?\b", re.IGNORECASE), "registration"),
    (re.compile(r"\be-mails?\b", re.IGNORECASE), "email"),
    (re.compile(r"\b(?:options|preferences|configuration\s+values?)\b", re.IGNORECASE), "settings"),
    (re.compile(r"\b(?:pictures?|photos?)\b", re.IGNORECASE), "image"),
)


def with_identifier_words(question: str) -> str:
    """The question with the code's word said after each plain phrase for it (`IDENTIFIER_WORDS`)."""
    for pattern, word in IDENTIFIER_WORDS:
        question = pattern.sub(rf"\g<0> {word}", question)
    return question


@dataclass(frozen=True)
class _Candidate:
    node: str
    words: tuple[str, ...]  # the stems of one reading of its name
    compound: str  # that reading as one word, stemmed: `PlayList` is "playlist"


@dataclass(frozen=True)
class _Match:
    node: str
    span: frozenset[int]  # positions of the question's content words it covers
    score: float


def subjects_in_phrases(graph: nx.MultiDiGraph, question: str) -> list[Named]:
    """The tables, views, mapped entities and procedures the question says in words, in the
    order it says them (see the module's doc)."""
    said = stems(with_identifier_words(question))
    if not said:
        return []
    candidates = _candidates(graph)
    shared = _shares(candidates)
    total = len({c.node for c in candidates})
    if not total:
        return []
    least = math.log(total / max(MIN_SHARED, total / SPECIFIC_SHARE))
    best: dict[str, _Match] = {}
    for candidate in (c for c in candidates if len(c.words) >= MIN_WORDS):
        span = _span(candidate, said)
        if span is None:
            continue
        score = sum(math.log(total / shared[w]) for w in set(candidate.words))
        if score >= least and (candidate.node not in best or len(span) > len(best[candidate.node].span)):
            best[candidate.node] = _Match(candidate.node, span, score)
    chosen = _chosen(list(best.values()))
    return [named_node(graph, m.node, "words") for m in sorted(chosen, key=lambda m: (min(m.span), m.node))]


def _candidates(graph: nx.MultiDiGraph) -> list[_Candidate]:
    """Each table, view, mapped entity and procedure under each reading of its name: whole, after
    a module prefix (`Piranha_ContentTranslations`), a procedure's last part (`BugNet_Issue_Delete`)."""
    found = []
    for node, data in graph.nodes(data=True):
        kind, name = data.get("kind"), data.get("name")
        if not name or not (kind in (*TABLE_KINDS, "PROCEDURE") or (kind == "TYPE" and _mapped(graph, node))):
            continue
        short = name.rsplit(".", 1)[-1]
        readings = [short, short.split("_", 1)[-1], *([short.rsplit("_", 1)[-1]] if kind == "PROCEDURE" else [])]
        for reading in dict.fromkeys(readings):
            parts = identifier_parts(reading)
            words = tuple(keyword_tokens(part)[0] for part in parts if keyword_tokens(part))
            compound = keyword_tokens("".join(parts))
            if words:
                found.append(_Candidate(node, words, compound[0] if compound else ""))
    return found


def _mapped(graph: nx.MultiDiGraph, node: str) -> bool:
    """Whether a type is an entity of its own table (an owned type's columns are its owner's)."""
    return any(key == "MAPS_TO" and graph.nodes[table].get("kind") in TABLE_KINDS and data.get("via") != "owned_type"
               for _, table, key, data in graph.out_edges(node, keys=True, data=True))


def _shares(candidates: list[_Candidate]) -> Counter[str]:
    """How many objects have each stem in a reading of their name."""
    by_node: dict[str, set[str]] = {}
    for c in candidates:
        by_node.setdefault(c.node, set()).update(c.words)
    return Counter(word for words in by_node.values() for word in words)


def _span(candidate: _Candidate, said: list[str]) -> frozenset[int] | None:
    """The question's positions saying all of the candidate's words closest together (within
    the window), or the one word saying them as a compound; None when it says them nowhere."""
    words = candidate.words
    if len(words) > 1:
        compound = next((i for i, stem in enumerate(said) if stem == candidate.compound), None)
        if compound is not None:
            return frozenset({compound})
    places = [[i for i, stem in enumerate(said) if _same_word(word, stem)] for word in words]
    if not all(places):
        return None
    best: frozenset[int] | None = None
    for start in places[0]:
        chosen = {start}
        for options in places[1:]:
            nearest = min(options, key=lambda p: (max(abs(p - q) for q in chosen), p))
            chosen.add(nearest)
        width = max(chosen) - min(chosen) + 1
        if len(chosen) == len(set(words)) and width <= len(chosen) + EXTRA_WORDS \
                and (best is None or width < max(best) - min(best) + 1):
            best = frozenset(chosen)
    return best


def _same_word(name_word: str, said: str) -> bool:
    """Whether a stem of a name's word and one the question says are the same word: equal, or one
    begins the other and is at most DERIVED_LETTERS shorter (`regist`/`registr`, `notif`/`notifi`)."""
    if name_word == said:
        return True
    short, long_ = sorted((name_word, said), key=len)
    return len(short) >= MIN_DERIVED_STEM and long_.startswith(short) and len(long_) - len(short) <= DERIVED_LETTERS


def _chosen(matches: list[_Match]) -> list[_Match]:
    """The matches that say the most: the widest span first (then the most specific); a match
    overlapping a span already taken is out, and a span more than MAX_NAMED_BY_WORD objects
    share names none of them (its words stay taken)."""
    by_span: dict[frozenset[int], list[_Match]] = {}
    for m in matches:
        by_span.setdefault(m.span, []).append(m)
    taken: set[int] = set()
    chosen: list[_Match] = []
    for span in sorted(by_span, key=lambda s: (-len(s), -max(m.score for m in by_span[s]), min(s))):
        if span & taken:
            continue
        taken |= span
        group = by_span[span]
        nodes = without_template_copies([m.node for m in group])
        if len(nodes) <= MAX_NAMED_BY_WORD:
            chosen += [m for m in group if m.node in nodes]
    return chosen
