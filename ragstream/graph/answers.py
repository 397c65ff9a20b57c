"""The graph's answer to a list, impact, mapping or flow question: the question read (`questions.py`),
then the graph walked (`relations.py`).
"""
from __future__ import annotations

import re

from collections.abc import Callable, Iterable

import networkx as nx

from ragstream.graph.action_verbs import acted_on, asked_actions, asked_http_verbs, said_actions
from ragstream.graph.lengths import VALIDATES, length_holders, length_properties
from ragstream.graph.mappings import entities_in_words, mapping_answer, mapping_classes, mapping_of
from ragstream.graph.named import (Named, named_node, columns_in_words, link_tables_in_words, procedures_in_words,
                                  says_several_tables, tables_in_words, undeclared_columns)
from ragstream.graph.phrases import subjects_in_phrases
from ragstream.graph.questions import (supposes_schema_change, asked_face, asked_kinds, asked_operations, asked_relations, asked_start,
                                       asked_subject_words, asked_verbs, asked_words, asks_about_length, asks_for_classes, asks_for_raw_sql,
                                       asks_what_is_stored,
                                       asks_for_tables, asks_for_writes, main_subjects, question_shape,
                                       without_namesake_types)
from ragstream.graph.stand_ins import is_constructor
from ragstream.test_paths import in_tests
from ragstream.graph.relations import (CONFIGURES, DATA_EDGES, TABLE_KINDS, GraphAnswer, Path, around_request, around_saves, by_relevance,
                                       data_carriers, entity_changes, entry_methods, impact_of, related, side_calls,
                                       sql_runners, table_paths, undeclared_column_impact)


def answer_from_graph(graph: nx.MultiDiGraph, question: str, named: list[Named], entry_hits: list[str],
                      text_of: Callable[[list[str]], dict[str, str]]) -> GraphAnswer | None:
    """The graph's answer to a list, impact, mapping or flow question, or None when the question is
    none of these or names nothing its shape needs. `entry_hits` (search hits, best first)
    give a flow question its entry point when it names none; `text_of` fetches node texts
    (under the caller's filters) for a column's impact."""
    shape = question_shape(question)
    if shape == "flow":
        entries = [n.id for n in named if n.kind in ("METHOD", "FUNCTION")] \
            or entry_points(graph, entry_hits, question)
        paths = flow_paths(graph, entries, question)
        changes = entity_changes(graph, paths)
        calls = [call for call in side_calls(graph, paths) if call.id not in {c.id for c in changes}]
        return GraphAnswer("flow", named, ("CALLS", "READS", "WRITES"), paths=paths, calls=calls, changes=changes,
                           carriers=data_carriers(graph, paths),
                           around=[*around_saves(graph, paths, changes), *around_request(graph, paths)]) \
            if paths else None
    if shape == "impact" and asks_about_length(question) and not any(n.kind in ("COLUMN", "PROPERTY") for n in named):
        # "shorten titles to 100 characters": the properties, and where else their length is written
        lengths = length_properties(graph, question)
        items = [item for p in lengths for item in length_holders(graph, p.id, text_of)]
        if items:
            return GraphAnswer("impact", lengths, DATA_EDGES, by_relevance(graph, items, asked_words(question),
                                                                           (CONFIGURES, VALIDATES), entry_hits))
    if shape == "list" and not named and asks_for_raw_sql(question):  # "which classes run raw SQL queries"
        return GraphAnswer("list", [], ("READS", "WRITES"), by_relevance(
            graph, sql_runners(graph), asked_words(question), ("runs SQL", "READS", "WRITES"), entry_hits, running=True))
    named = asked_subjects(graph, question, shape, named) or searched_subjects(graph, entry_hits, shape, question) \
        or (changed_behaviour(graph, entry_hits, question) if shape == "impact" and not supposes_schema_change(question) else [])
    if shape not in ("list", "impact", "mapping") or not named:
        return None
    subjects = main_subjects(named)
    words = asked_words(question)
    if shape == "mapping":
        if all(s.kind in TABLE_KINDS for s in subjects):  # "tables such as technology_stack and user_activity": each of them
            subjects = [*subjects, *(t for t in tables_in_words(graph, question) if t.id not in {s.id for s in subjects})]
        items = mapping_answer(graph, subjects, words)
        return GraphAnswer("mapping", subjects, ("MAPS_TO",), items) if items else None
    if shape == "impact":
        # a column named on a table that declares none (a shadow key): that column's impact, not the table's
        undeclared = [(t, c) for t, c in undeclared_columns(graph, question) if t in {s.id for s in subjects}]
        subjects = [s for s in subjects if s.id in {t for t, _ in undeclared}] if undeclared else subjects
        items = [item for t, c in undeclared for item in undeclared_column_impact(graph, t, c, text_of)] or \
            [item for s in subjects for item in impact_of(graph, s, text_of)]
        return GraphAnswer("impact", subjects, DATA_EDGES, by_relevance(graph, items, words, DATA_EDGES, entry_hits))
    relations = asked_relations(question)
    subjects = without_namesake_types(subjects)
    wants_tables = asks_for_tables(question)
    operations = asked_operations(question) if "WRITES" in relations else frozenset()
    items = [item for s in subjects for item in related(graph, s, relations, wants_tables, operations)]
    if asks_for_classes(question) and not wants_tables and set(relations) & {"READS", "WRITES"}:
        items += [item for s in subjects if s.kind in TABLE_KINDS for item in mapping_classes(graph, s.id)]
    if asks_what_is_stored(question):  # "which class is stored in T, and ...": T's mapping is listed too
        items = [*(item for s in subjects if s.kind in TABLE_KINDS for item in mapping_of(graph, s, words)), *items]
    kinds = asked_kinds(question) if not wants_tables else ()
    if kinds:
        items = [item for item in items if graph.nodes[item.id].get("kind") in kinds]
    return GraphAnswer("list", subjects, relations, by_relevance(graph, items, words, relations, entry_hits, running=True))


SEARCHED_SUBJECTS = 3  # the best search hits a mapping question that names nothing takes its subject from
SEARCHED_TABLES = 10  # the best search hits an impact question about a table it describes takes that table from
# a table the question describes in words: "rows in the user accounts table", "the table that stores received
# pings" (not "which table holds X", nor "which tables": there the table is what is asked, not the subject)
_A_TABLE = re.compile(r"\b(?:the|a|that|this)\s+(?:[\w/'-]+\s+){0,4}table\b", re.IGNORECASE)


def searched_subjects(graph: nx.MultiDiGraph, hits: list[str], shape: str | None, question: str) -> list[Named]:
    """A mapping question that names its subject in no words the graph knows ("which entity and
    table hold the site's configuration options") is about what the search found: the first
    table or mapped entity among the best hits (one: the rest of the hits may be its neighbours,
    not more subjects). So is a list question that asks about a table it names in words the graph
    does not know ("which methods update rows in the user accounts table": `roadkill_users`): the
    first table among the search's hits; an impact question about a table it describes ("the table
    that stores received webmentions": `Mention`), the first table among the best hits."""
    if shape in ("list", "impact") and _A_TABLE.search(question):
        searched = hits if shape == "list" else hits[:SEARCHED_TABLES]
        return next(([named_node(graph, hit, "table")] for hit in searched
                     if (graph.nodes.get(hit) or {}).get("kind") in TABLE_KINDS), [])
    if shape != "mapping":
        return []
    for hit in hits[:SEARCHED_SUBJECTS]:
        data = graph.nodes.get(hit) or {}
        if data.get("kind") in TABLE_KINDS:
            return [named_node(graph, hit, "table")]
        if data.get("kind") == "TYPE" and any(key == "MAPS_TO" and graph.nodes[t].get("kind") in TABLE_KINDS
                                              for _, t, key in graph.out_edges(hit, keys=True)):
            return [named_node(graph, hit, "class")]
    return []


def changed_behaviour(graph: nx.MultiDiGraph, hits: list[str], question: str) -> list[Named]:
    """The code an impact question supposes changed when it names no object ("if deleting a user
    account were changed to a soft delete, what callers are affected and which tables lose rows"):
    among the best SEARCHED_BEHAVIOURS method hits (no test, no constructor), those whose name says
    the action the question speaks of (`said_actions`), the one stating the most writes first (the
    code that does the deleting, not the action calling it): its callers and what it writes are the
    impact."""
    actions = asked_actions(_CHANGE_SUPPOSED.sub(" ", question))
    methods = [h for h in hits[:SEARCHED_BEHAVIOURS] if (graph.nodes.get(h) or {}).get("kind") == "METHOD"
               and not in_tests(graph, h) and not is_constructor(graph, h)
               and said_actions(graph.nodes[h].get("name", "")) & actions]
    writes = {m: sum(1 for _, _, key in graph.out_edges(m, keys=True) if key == "WRITES") for m in methods}
    return [named_node(graph, m, "method") for m in sorted(methods, key=lambda m: -writes[m])[:1]] \
        if actions else []


SEARCHED_BEHAVIOURS = 5  # the best search hits an impact question naming nothing takes the changed code from
# the change an impact question supposes ("if deleting X were changed"): not the action it asks about
_CHANGE_SUPPOSED = re.compile(r"\b(?:were|was|is|are|be|been|gets?|got)\s+(?:\w+\s+)?(?:changed|modified|altered|replaced"
                              r"|rewritten|reworked|updated|renamed|dropped|removed)\b", re.IGNORECASE)


def asked_subjects(graph: nx.MultiDiGraph, question: str, shape: str | None, named: list[Named]) -> list[Named]:
    """What a list, impact or mapping question is about: the objects it names, else those it
    says in plain words (a table's, an impact's column or procedure, a mapping's entity)."""
    if shape in ("list", "impact", "mapping") and not named:
        # "the table that assigns customers to roles", else "which code writes todo items"
        named = link_tables_in_words(graph, question) or tables_in_words(graph, question)
        if shape == "impact":  # "the due date column of the issues table": that column of it
            named = columns_in_words(graph, named, question) or named or procedures_in_words(graph, question)
    elif shape in ("list", "impact", "mapping") and all(n.cue == "table" for n in named) \
            and says_several_tables(question):
        # "the system log and the customer activity log tables": `Log` named by its cue, and the
        # other tables said in words
        named = [*named, *(t for t in tables_in_words(graph, question) if t.id not in {n.id for n in named})]
    if shape == "mapping" and not named:
        named = entities_in_words(graph, question)  # "how is an order linked to its addresses"
    if shape in ("list", "impact", "mapping") and not named:  # "manager invitations": `ManagerInvite`
        named = subjects_in_phrases(graph, question)
    return named


def flow_paths(graph: nx.MultiDiGraph, entries: Iterable[str], question: str = "") -> list[Path]:
    """The paths from each entry down to the tables (`relations.table_paths`), those that name
    the question's words and end in the relation its verb asks for first (only those that write
    when what gets written is what it asks: `asks_for_writes`), then those writing with the
    operation it asks for ("creates": an INSERT); a delete goes on along the foreign keys that
    cascade."""
    return table_paths(graph, entries, asked_words(question), asked_verbs(question),
                       cascades="DELETE" in asked_http_verbs(question), writes_only=asks_for_writes(question),
                       operations=asked_operations(question))


def entry_points(graph: nx.MultiDiGraph, hits: list[str], question: str) -> list[str]:
    """The entry points of a flow question that names none, among and above the search hits
    (`relations.entry_methods`)."""
    return entry_methods(graph, hits, asked_subject_words(question), asked_http_verbs(question), asked_start(question),
                         asked_face(question), asked_actions(question), acted_on(question))
