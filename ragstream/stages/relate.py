"""Stage 5a, relate: answer list, impact and flow questions from the graph's relations.

After the search, the objects the question names (a table, a column, a procedure, a method)
are found in the graph by name, under the caller's filters. A list question ("which procedures
write T") gets T's relations of the asked kind, complete and counted; an impact question
("what breaks if I rename column C of T") gets what reads, writes or maps T and names C, and
their callers; a flow question ("from the controller down to the tables") gets the paths from
its entry point (the method it names, else the best controller/handler method found) along the
calls to the tables. The answer's nodes (`views_by_stage["relate"]`) go before the search's
seeds when the graph is expanded, so their texts become the evidence, and its Markdown goes to
the prompt and the deterministic answer (`extras.relations`). For any other question the
objects it names go first, right after the search's best match, in the search's order: an exact
name outranks the rest of the search (a follow-up that names nothing puts the previous turn's
subjects first). "Who calls X" / "what does X call", and a follow-up's relation ("and who calls
it?", "which tables does it write", "where is it tested"), are answered from the graph around
X or the subjects. Without a graph answer the best hits follow (in the rerank's order: it read
their texts against the question), each followed by the tables it reads or writes, the best
method also by the procedures and tables its calls reach, a procedure among them by what runs it,
then the later hits an edge joins to them: where the code that was found keeps its data and what
makes it run (`graph/relations.with_their_tables`); for a question of no shape ("where is X done",
"how does X work") the best hits' neighbours go among those hits (what runs them, the same
operation a layer up or down, what they call or share a table with that the question names:
`graph/neighbourhood.among_hits`); after all of them what goes beside them (a
class's named methods, the best method's callers in its class, behaviours named for what is done,
a named table's described properties: `graph/beside.py`). The search's own fields are left
as they are, so re-running this stage gives the same result. No model is involved: this stage
is deterministic.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragstream.graph.beside import beside
from ragstream.graph.named import find_named
from ragstream.graph.answers import answer_from_graph
from ragstream.graph.neighbourhood import among_hits
from ragstream.graph.questions import asked_done, asked_words
from ragstream.graph.relations import connected_hits, procedure_context, with_their_tables
from ragstream.graph.stand_ins import named_by_types
from ragstream.graph.relations_view import graph_answer_data
from ragstream.retrieval.types import RetrievalBackend, check_scope
from ragstream.stages.action import QUESTION, SCOPE, Action
from ragstream.stages.follow_up import asked_relation, relation_answer
from ragstream.graph.guesses import graph_for
from ragstream.index.model import node_of
from ragstream.super_prompt import SuperPrompt

# List, impact and flow questions answered from the graph: part of the expand stage.
ACTIONS = (Action(
    "relate", "expand", lambda sp, rt, step, settings: run(sp, rt.backend, step, settings), ("ok", "no_entry_points"),
    reads=QUESTION | SCOPE | {"retrieval_hits", "retrieval_seed_nodes", "views_by_stage.retrieve", "extras.history"},
    writes=frozenset({"views_by_stage.relate", "extras.relations"})),)

TOUCHED_FROM_HITS = 3  # the best hits whose tables go with them
REACHED_FROM_BEST = 5  # the SQL objects the best method hit's calls reach, beside it
PROCEDURE_FROM_HITS = 5  # the best procedure among these search hits comes with what runs it and what it touches
CONNECTED_HITS = 2  # the other hits joined to the best ones by an edge, after them
NAMED_RELATIONS = ("callers", "callees")  # what a question that names its subject may ask without a follow-up
SUBJECT_KINDS_AS_SEEDS = ("TABLE", "VIEW", "PROCEDURE", "FUNCTION", "TYPE", "METHOD", "CLASS", "TRIGGER")


def run(sp: SuperPrompt, backend: RetrievalBackend, step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    check_scope(sp.repository, sp.branch)
    graph = graph_for(backend.graph(sp.repository, sp.branch, sp.retrieval_filters, sp.active_index), settings)
    question = sp.question_en or sp.question_raw
    named = find_named(graph, question)
    # the search's entry points in its order (retrieve's seeds; rerank's when a step skipped retrieve),
    # not every candidate retrieve kept for rerank
    hits = [node_of(i) for i in sp.views_by_stage.get("retrieve", [])] or [node_of(s) for s in sp.retrieval_seed_nodes]

    def text_of(ids: list[str]) -> dict[str, str]:
        return backend.fetch_texts(ids, sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)

    answer = answer_from_graph(graph, question, named, hits, text_of)
    searched = [node_of(hit["id"]) for hit in sp.retrieval_hits]
    follow = sp.extras.get("history", {}).get("follow_up") or {}
    asked = asked_relation(question)
    relation = follow.get("relation") or (asked if asked in NAMED_RELATIONS else None)
    if answer is None and relation:  # "who calls X", "and who calls it?": the graph around its subjects
        subjects = [n.id for n in named if n.kind in SUBJECT_KINDS_AS_SEEDS] or follow.get("subjects", [])
        answer = relation_answer(graph, subjects, relation, text_of) if subjects else None
    subjects_named = in_search_order([n.id for n in named if n.kind in SUBJECT_KINDS_AS_SEEDS], sp.retrieval_hits)
    # The search's best match leads what the question names: a short question's subject is its
    # best match anyway, and a bug report names its error class and every frame of its traceback.
    first = [*[node_of(s) for s in sp.retrieval_seed_nodes[:1]], *subjects_named] if subjects_named else \
        [s for s in follow.get("subjects", []) if s in graph]
    if answer is not None:
        first = answer.node_ids(graph)
    else:  # the tables the best hits read or write say where their data lives, whatever was asked
        # in the order the rerank gave the seeds: it read their texts against the question
        best = list(dict.fromkeys(node_of(s) for s in sp.retrieval_seed_nodes)) or hits
        words = asked_words(question)
        procedure = next((h for h in best[:PROCEDURE_FROM_HITS] if h in graph and graph.nodes[h].get("kind") == "PROCEDURE"),
                         None)
        # a question of no shape: what calls the best hits, what they call, what shares their tables
        with_tables = among_hits(graph, question, best, best[:TOUCHED_FROM_HITS],
                                 with_their_tables(graph, best[:TOUCHED_FROM_HITS], REACHED_FROM_BEST, words, searched),
                                 first)
        first = list(dict.fromkeys([
            *first, *with_tables,
            *([procedure, *procedure_context(graph, procedure, words, searched)] if procedure else []),
            *connected_hits(graph, best[:TOUCHED_FROM_HITS], searched[len(best):], CONNECTED_HITS)]))
        first = [*first, *beside(graph, first, words, asked_done(question))]
    record: dict[str, Any] = {"path": "deterministic", "named": [{"id": n.id, "kind": n.kind, "cue": n.cue}
                                                                 for n in named]}
    if answer is not None:
        record["answer"] = graph_answer_data(answer, graph)
        record["answer"]["node_ids"] = named_by_types(graph, record["answer"]["node_ids"])
    first = named_by_types(graph, first)
    sp.views_by_stage = {**sp.views_by_stage, "relate": first}
    sp.extras = {**sp.extras, "relations": record}
    return "ok" if first or sp.retrieval_seed_nodes else "no_entry_points"


def in_search_order(ids: list[str], hits: list[dict[str, Any]]) -> list[str]:
    """`ids` in the order the search ranked them, those it did not find after them in their own
    order: of the objects a question names, the search says which matter most."""
    rank: dict[str, int] = {}
    for position, hit in enumerate(hits):
        rank.setdefault(node_of(hit["id"]), position)
    return sorted(ids, key=lambda node: rank.get(node, len(hits)))


def graph_answer_markdown(sp: SuperPrompt) -> str:
    """The graph's answer this question got, as Markdown ("" when it got none)."""
    return sp.extras.get("relations", {}).get("answer", {}).get("markdown", "")


def graph_answer_ids(sp: SuperPrompt) -> list[str]:
    """The nodes the graph's answer names, in its order (`GraphAnswer.node_ids`: a column with its
    table, a flow's paths with their tables and calls)."""
    return list(sp.extras.get("relations", {}).get("answer", {}).get("node_ids", []))
