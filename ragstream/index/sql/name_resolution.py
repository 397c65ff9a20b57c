"""The last name resolution of SQL references, once every schema source is in.

A reference is linked when the resolver meets it; a table made later (by the EF model settling,
by an ORM's create-table call: `code_first_tables`) or named otherwise where it is defined
(another case, no schema, a naming convention) leaves it on an EXTERNAL SQL name. This pass
moves each edge into an EXTERNAL SQL name onto the one object of the graph that name means under
the database's identifier rules, tried in order (the first rule with exactly one match wins):

- `case`: the same qualified name, case aside (SQL Server and SQLite compare identifiers so);
- `default_schema`: a name without schema, or with a placeholder schema (`$(Schema)`), is the
  default schema's object of that name (`dbo`), else the one object so named in any schema;
- `naming_strategy`: under a snake-case naming strategy the project declares
  (`naming_strategies`), `technology_stack` is `TechnologyStack` (case and underscores aside).

A name qualified by a concrete schema matches only that schema. CALLS look for a PROCEDURE or
FUNCTION, other edges for a TABLE or VIEW. Several matches move nothing: the EXTERNAL node keeps
them as `candidates`. A moved edge says how: `resolution="inferred"`, `name_rule` (the rule),
`table_via` (how the object was made: `ef_model`, `code_first`, or `sql`), `external` (the name
as written). An EXTERNAL node left with no edge is removed.
"""
from __future__ import annotations

from collections import defaultdict

import networkx as nx

from ragstream.index.csharp.naming_strategies import loose_key, naming_strategy
from ragstream.index.sql.templates import DEFAULT_SCHEMA, has_placeholder

ROUTINES = ("PROCEDURE", "FUNCTION")
RELATIONS = ("TABLE", "VIEW")


def resolve_sql_names(graph: nx.MultiDiGraph) -> int:
    """Move edges into EXTERNAL SQL names onto the objects they mean; how many edges moved."""
    strategy = naming_strategy(graph)
    index = SqlNames(graph, strategy is not None)
    moved = 0
    for node, data in sorted(graph.nodes(data=True)):
        if data.get("kind") != "EXTERNAL" or data.get("language") != "sql":
            continue
        name = str(data.get("name", ""))
        for source, _, key, attrs in sorted(graph.in_edges(node, keys=True, data=True), key=lambda e: (e[0], e[2])):
            kinds = ROUTINES if key == "CALLS" else RELATIONS
            target, rule, candidates = index.match(name, kinds)
            if target is None:
                if candidates:
                    graph.nodes[node]["candidates"] = candidates
                continue
            if not graph.has_edge(source, target, key=key):
                graph.add_edge(source, target, key=key, **{
                    **attrs, "resolution": "inferred", "name_rule": rule, "external": name,
                    "table_via": (graph.nodes[target].get("attrs") or {}).get("via") or "sql"})
            graph.remove_edge(source, node, key=key)
            moved += 1
        if graph.degree(node) == 0:
            graph.remove_node(node)
    return moved


class SqlNames:
    """The graph's SQL objects by qualified name, by bare name, and by loose name."""

    def __init__(self, graph: nx.MultiDiGraph, loose: bool) -> None:
        self.graph = graph
        self.loose = loose
        self.qualified: dict[str, list[str]] = defaultdict(list)
        self.bare: dict[str, list[str]] = defaultdict(list)
        self.by_loose: dict[str, list[str]] = defaultdict(list)
        for node, data in sorted(graph.nodes(data=True)):
            if data.get("kind") not in (*ROUTINES, *RELATIONS) or data.get("language") != "sql":
                continue
            name = str(data.get("name", "")).lower()
            self.qualified[name].append(node)
            self.bare[name.rsplit(".", 1)[-1]].append(node)
            self.by_loose[loose_key(name.rsplit(".", 1)[-1])].append(node)

    def match(self, written: str, kinds: tuple[str, ...]) -> tuple[str | None, str, list[str]]:
        """(object, rule, []) for the one object `written` means, else (None, "", candidates)."""
        name = written.lower().strip("[]\"`")
        schema, _, bare = name.rpartition(".")
        concrete = bool(schema) and not has_placeholder(schema)
        rules = [("case", self.qualified.get(name, []))]
        if not concrete:  # the default schema first (SQL Server's `dbo`), then the one schema that has it
            rules.append(("default_schema", self.qualified.get(f"{DEFAULT_SCHEMA}.{bare}", [])))
            rules.append(("default_schema", self.bare.get(bare, [])))
            if self.loose:
                rules.append(("naming_strategy", self.by_loose.get(loose_key(bare), [])))
        for rule, found in rules:
            of_kind = sorted({node for node in found if self.graph.nodes[node].get("kind") in kinds})
            if len(of_kind) == 1:
                return of_kind[0], rule, []
            if len(of_kind) > 1:
                return None, "", of_kind
        return None, "", []
