"""Follow-up questions: "and who calls it?" resolved against the previous turn of the conversation.

A follow-up refers back ("it", "this", "them", "and ...") instead of naming what it is about;
its subjects are the symbols the previous turn's answer cited (`extras.answer.citations`),
first one for "it", the first of its kind for "that function", "this table". A relation follow-up ("who calls it", "what does it call", "which tables
does it write", "what breaks if I change it", "where is it tested") is answered from the graph
around them; any other follow-up searches with their names added to the query. Pure
functions: the stages call them with the (filtered) graph, so a subject the caller may not see
is never reached.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import networkx as nx

from ragstream.graph.named import Named, named_node
from ragstream.graph.answers import flow_paths
from ragstream.graph.relations import (DATA_EDGES, TABLE_KINDS, GraphAnswer, Related, impact_of, in_tests, place_rank,
                                       related)
from ragstream.index.model import node_of

SUBJECT_KINDS = ("METHOD", "FUNCTION", "CLASS", "TYPE", "PROCEDURE", "TABLE", "VIEW", "TRIGGER", "PROPERTY")
MAX_SUBJECTS = 3
MAX_FOLLOW_UP_WORDS = 14  # a longer question says what it is about
# "it" refers back wherever it stands; "this"/"that" only as a pronoun or before a kind of code
# ("who calls that?", "this method"), not as a conjunction ("the code that writes invoices").
_REFERS_BACK = re.compile(r"\b(?:it|its|itself|them|they|their|the same)\b|\b(?:this|that|these|those)\b"
                          r"(?=\s*(?:[?.!,;]|$|ones?\b|methods?\b|functions?\b|class(?:es)?\b|procedures?\b|"
                          r"tables?\b|code\b))", re.IGNORECASE)
_OPENS_AS_FOLLOW_UP = re.compile(r"^\s*(?:and|also|so|then|what about|how about)\b", re.IGNORECASE)
_PLURAL = re.compile(r"\b(?:them|they|their|those|these)\b", re.IGNORECASE)
# "that function", "this table": the subject of that kind among those the previous turn cited
_KIND_WORDS = {"function": ("FUNCTION", "METHOD"), "method": ("METHOD", "FUNCTION"), "class": ("CLASS", "TYPE"),
               "type": ("TYPE", "CLASS"), "table": ("TABLE", "VIEW"), "view": ("VIEW", "TABLE"),
               "procedure": ("PROCEDURE",), "trigger": ("TRIGGER",), "property": ("PROPERTY",)}
_NAMED_KIND = re.compile(rf"\b(?:this|that|the same)\s+({'|'.join(_KIND_WORDS)})\b", re.IGNORECASE)
# Relation follow-ups, first match wins (label, pattern).
RELATIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("tests", re.compile(r"\btest(?:s|ed|ing)?\b", re.IGNORECASE)),
    ("impact", re.compile(r"\bwhat\s+(?:would\s+)?(?:breaks?|is affected)\b|\bimpact\b|\bif\s+(?:i|we|you)\s+"
                          r"(?:change|rename|remove|delete|drop|alter)\b", re.IGNORECASE)),
    ("callees", re.compile(r"\bwhat\s+(?:does|do|did)\s+(?:(?:this|that|the)\s+\w+|it|they|\S+)\s+call\b"
                           r"|\bcallees\b|\bwhat\s+(?:it|this|they)\s+calls?\b", re.IGNORECASE)),
    ("callers", re.compile(r"\b(?:who|what|which\s+\w+)\s+calls?\b|\bcallers?\b|\bcalled\s+(?:by|from)\b"
                           r"|\bwhere\s+(?:is|are)\s+\S+\s+(?:called|used)\b|\buses?\s+(?:it|this|that|them)\b",
                           re.IGNORECASE)),
    ("writes", re.compile(r"\b(?:writes?|modif\w+|inserts?|updates?|deletes?|saves?)\b", re.IGNORECASE)),
    ("reads", re.compile(r"\b(?:reads?|selects?|quer(?:y|ies)|loads?)\b", re.IGNORECASE)),
)


def refers_back(question: str) -> bool:
    """Whether the question leans on the previous turn instead of naming its subject."""
    words = question.split()
    return len(words) <= MAX_FOLLOW_UP_WORDS and bool(_REFERS_BACK.search(question)
                                                      or _OPENS_AS_FOLLOW_UP.search(question))


# What `relation_answer` answers: the follow-up relations, and the paths down to the tables.
RELATION_NAMES = (*(label for label, _ in RELATIONS), "flow")


def asked_relation(question: str) -> str | None:
    """callers, callees, writes, reads, impact or tests; None for any other question."""
    return next((label for label, pattern in RELATIONS if pattern.search(question)), None)


def cited_subjects(state_json: str | None) -> list[str]:
    """The nodes a stored turn's answer cited that can be a subject (code and database objects),
    in the answer's order, at most MAX_SUBJECTS."""
    if not state_json:
        return []
    cited = json.loads(state_json).get("extras", {}).get("answer", {}).get("citations", [])
    nodes = [node_of(c) for c in cited]
    return list(dict.fromkeys(n for n in nodes if _kind(n) in SUBJECT_KINDS))[:MAX_SUBJECTS]


def resolve(question: str, previous_turn_id: int | None, previous_state: str | None) -> dict[str, Any] | None:
    """The follow-up record (`extras.history.follow_up`): the previous turn, the subjects the
    question refers to ("it": the first one) and the relation it asks; None when it is no
    follow-up or the previous turn cited nothing."""
    if previous_turn_id is None or not refers_back(question):
        return None
    subjects = cited_subjects(previous_state)
    kind = _NAMED_KIND.search(question)
    if kind:  # "that function": the first cited subject of that kind, when there is one
        kinds = _KIND_WORDS[kind[1].lower()]
        subjects = sorted(subjects, key=lambda s: _kind(s) not in kinds)
    if not subjects:
        return None
    if not _PLURAL.search(question):
        subjects = subjects[:1]
    return {"turn": previous_turn_id, "subjects": subjects, "relation": asked_relation(question)}


def short_name(node: str) -> str:
    """`py:pkg.mod.Class.method|METHOD` -> `Class.method` (a table keeps its schema)."""
    name = node.split(":", 1)[-1].split("|", 1)[0]
    parts = name.split(".")
    kind = _kind(node)
    keep = 2 if kind in ("METHOD", "PROPERTY") or (kind in ("TABLE", "VIEW", "PROCEDURE") and len(parts) > 1) else 1
    return ".".join(parts[-keep:])


def relation_answer(graph: nx.MultiDiGraph, subjects: Sequence[str], relation: str,
                    text_of: Callable[[list[str]], dict[str, str]]) -> GraphAnswer | None:
    """The graph's answer to a relation follow-up about `subjects` (those in the graph), or to
    `flow`: the paths from them down to the tables they read or write."""
    named = [named_node(graph, s, "follow-up") for s in subjects if s in graph]
    if not named:
        return None
    if relation == "flow":
        return GraphAnswer("flow", named, ("CALLS", "READS", "WRITES"), paths=flow_paths(graph, subjects))
    items: list[Related] = []
    for subject in named:
        items += _related(graph, subject, relation, text_of)
    unique = {i.id: i for i in items}.values()
    # production code first, tests after it (the answer groups and labels them), then by place
    return GraphAnswer("list", named, (relation,),
                       sorted(unique, key=lambda i: (in_tests(graph, i.id), place_rank(graph, i.id))))


def _related(graph: nx.MultiDiGraph, subject: Named, relation: str,
             text_of: Callable[[list[str]], dict[str, str]]) -> list[Related]:
    node = subject.id
    if relation == "callers":
        return _edges(graph.in_edges(node, keys=True, data=True), ("CALLS",), node, "calls it", source_side=True)
    if relation == "callees":
        return _edges(graph.out_edges(node, keys=True, data=True), ("CALLS",), node, "called by it", source_side=False)
    if relation in ("writes", "reads"):
        edge = "WRITES" if relation == "writes" else "READS"
        # a table's items are the code that reads or writes it; code's, the tables it reads or writes
        label = _DATA_LABELS[relation, subject.kind in TABLE_KINDS]
        return [replace(item, relation=label) for item in related(graph, subject, (edge,))]
    if relation == "impact":
        return impact_of(graph, subject, text_of)
    return _tests_of(graph, node)


_DATA_LABELS = {("writes", False): "written by it", ("reads", False): "read by it",
                ("writes", True): "writes it", ("reads", True): "reads it"}


def _tests_of(graph: nx.MultiDiGraph, node: str) -> list[Related]:
    """Code in test files that calls, references or imports `node`, directly or through one
    caller (a test of the method that calls it)."""
    edges = (*DATA_EDGES, "IMPORTS")
    direct = _edges(graph.in_edges(node, keys=True, data=True), edges, node, "tests it", source_side=True)
    found = [i for i in direct if in_tests(graph, i.id)]
    for caller in (i for i in direct if not in_tests(graph, i.id)):
        found += [replace(i, indirect=True)
                  for i in _edges(graph.in_edges(caller.id, keys=True, data=True), edges, node, "tests it", True)
                  if in_tests(graph, i.id)]
    return list({i.id: i for i in found}.values())


def _edges(edges, types: tuple[str, ...], subject: str, label: str, source_side: bool) -> list[Related]:
    out = []
    for source, target, edge_type, data in sorted(edges, key=lambda e: (e[0], e[1], e[2])):
        if edge_type in types:
            out.append(Related(source if source_side else target, label, subject, data.get("resolution", "static"),
                               via=data.get("via") or ""))
    return out


def _kind(node: str) -> str:
    return node.rsplit("|", 1)[-1].split("#", 1)[0] if "|" in node else ""
