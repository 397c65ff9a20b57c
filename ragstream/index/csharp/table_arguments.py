"""Tables a query builder is told by name: `queryBuilder.InsertInto("User", columns, parameters)`,
`SelectFrom("Page")`, `DeleteFrom("Message")`, `Update("Setting", ...)`.

An application that writes its SQL through a builder of its own (ScrewTurn Wiki's `QueryBuilder`,
a provider base shared by several engines) or a library's (SqlKata-like) names each statement's
table as a string argument and the statement by the builder method's name; no SQL string in the
calling method names the table, so the method that runs the statement reads or writes nothing.
A call whose name is a statement verb and the words builders add to it (`statement_of`: `Select`/`Count`
reads; `Insert`/`Update`/`Delete`/`Upsert`/`Merge`/`Truncate` writes; `SelectCountFrom`, `DeleteFromDb`) and passes a plain string literal
that is the name of a TABLE or VIEW of the graph (schema and case aside, one object so named)
makes the calling method READ or WRITE it: attrs `via="table_argument"`, `member` (the builder's
method), `resolution="inferred"`, `guess` (the statement is read from the method's name). A
literal naming no table (`Update("a message")`, a setting's key) makes nothing.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

import networkx as nx

from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference

# the verb, then only the words a builder's name adds to it (`SelectCountFrom`, `InsertInto`, `DeleteFromDb`,
# `InsertData`, `UpdateIncrement`, `...Async`): `SelectMenuItem` or `UpdateStatus` is no statement
_STATEMENT = re.compile(r"^(?:(Select|Count)|(Insert|Update|Delete|Upsert|Merge|Truncate))"
                        r"(?:Count)?(?:From|Into)?(?:Db|Data|Table|Rows?|Increment)?(?:Async)?$")


def statement_of(member: str) -> str | None:
    """READS or WRITES, as a builder method's name says its statement (`SelectCountFrom`: READS,
    `InsertInto`: WRITES); None for any other name (`Selected`, `SelectMenuItem`: no statement)."""
    found = _STATEMENT.match(member)
    return None if found is None else "READS" if found.group(1) else "WRITES"


def tables_by_name(graph: nx.MultiDiGraph) -> dict[str, list[str]]:
    """Lower-case table or view name without its schema -> the nodes so named."""
    found: dict[str, list[str]] = {}
    for node, data in graph.nodes(data=True):
        if data.get("kind") in ("TABLE", "VIEW"):
            found.setdefault(data.get("name", "").rsplit(".", 1)[-1].lower(), []).append(node)
    return found


def link_table_arguments(graph: nx.MultiDiGraph, refs: Iterable[Reference]) -> Counter:
    """READS / WRITES from each method to the tables the builder calls it makes name."""
    tables = tables_by_name(graph)
    added: Counter = Counter()
    for ref in refs:
        call = ref.attrs.get("call") or {}
        edge = statement_of(call.get("member", "")) if call.get("table_names") else None
        if edge is None or ref.source not in graph:
            continue
        for name in call["table_names"]:
            named = tables.get(name.rsplit(".", 1)[-1].lower(), [])
            if len(named) == 1:
                added[edge] += add_edge(graph, ref.source, named[0], edge, {
                    "line": ref.line, "resolution": "inferred", "via": "table_argument",
                    "member": call["member"], "guess": True})
    return added
