"""Tables a code-first ORM other than EF creates from a class: TABLE, COLUMN and MAPS_TO nodes
shaped like EF's model tables (`ef_graph._model_tables`).

ServiceStack OrmLite creates one table per POCO: `db.CreateTable<T>()`,
`db.CreateTableIfNotExists<T>()`, `db.DropAndCreateTable<T>()`, and their non-generic forms on
`typeof(T)` (`db.CreateTable(false, typeof(T))`, `db.CreateTables(true, typeof(A), typeof(B))`).
Its documented rules: the table is the class's `[Alias("x")]`, else the class name through the
dialect's naming strategy (`naming_strategies`: PostgreSQL's is lowercase_underscore), in the
`[Schema("s")]` schema, else the default one; each public settable property, its bases' included,
is a column named by its `[Alias]` or the strategy, except `[Ignore]` / `[Reference]` ones; a
`[References(typeof(T))]` / `[ForeignKey(typeof(T))]` property is a FOREIGN_KEY to T's table.

What is made: the TABLE (when no SQL script or migration made it) with `via="code_first"`,
`created_by` (the creating method) and `naming` (the strategy applied, if any); a COLUMN per
column; MAPS_TO from the class to the table and from each property to its column (`via="code_first"`,
`mapped_by`, `resolution` "static" when an `[Alias]` names it, "inferred" when the convention does).
OrmLite maps any class by its name, so a class of the same short name that maps nowhere else
(a migration's nested copy of the service model's POCO) maps there too, as a guess
(`via="code_first_namesake"`, `entity`). A class whose `[Alias]` names a table some other source
made (an EF migration's `AspNetUsers`) maps to it (`via="orm_alias"`).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.ef_columns import declared_properties, with_bases
from ragstream.index.csharp.naming_strategies import naming_strategy, stored_name
from ragstream.index.model import Node, Reference, node_id
from ragstream.index.sql.name_resolution import RELATIONS, SqlNames
from ragstream.index.sql.templates import DEFAULT_SCHEMA
from ragstream.index.symbols import SymbolTable

CREATE_TABLE_CALLS = frozenset({
    "CreateTable", "CreateTableIfNotExists", "DropAndCreateTable", "CreateTables", "CreateTableIfNotExistsAsync",
    "CreateTableAsync", "DropAndCreateTables", "CreateTablesIfNotExists"})


def link_code_first_tables(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> Counter:
    """The tables each create-table call on a repository type makes; the edges added, by type."""
    strategy = naming_strategy(graph)
    added: Counter = Counter()
    created: dict[str, str] = {}  # entity -> table
    for ref in sorted(refs, key=lambda r: (r.source, r.line)):
        call = ref.attrs.get("call") or {}
        if call.get("member") not in CREATE_TABLE_CALLS or ref.source not in graph:
            continue
        for guesses in [*(call.get("type_arguments") or ()), *(call.get("typeof_arguments") or ())]:
            found = symbols.first("csharp", guesses, ("TYPE",))
            if found is not None and found.id not in created:
                created[found.id] = _create_table(graph, found.id, ref, strategy, added)
    for entity, table in sorted(created.items()):
        added["MAPS_TO"] += _map_namesakes(graph, symbols, entity, table)
        added["FOREIGN_KEY"] += _foreign_keys(graph, symbols, entity, table, created)
    added["MAPS_TO"] += _map_aliased(graph)
    return added


def _map_aliased(graph: nx.MultiDiGraph) -> int:
    """MAPS_TO from each class whose `[Alias("T")]` names a table another source made (an EF
    migration's `AspNetUsers`) and that maps nowhere else: OrmLite reads and writes it there."""
    names = SqlNames(graph, loose=False)
    added = 0
    for node, data in sorted(graph.nodes(data=True)):
        attrs = data.get("attrs") or {}
        if data.get("kind") != "TYPE" or not attrs.get("alias") \
                or any(key == "MAPS_TO" for _, _, key in graph.out_edges(node, keys=True)):
            continue
        written = f"{attrs['schema']}.{attrs['alias']}" if attrs.get("schema") else attrs["alias"]
        table, rule, _ = names.match(written, RELATIONS)
        if table is not None:
            graph.add_edge(node, table, key="MAPS_TO", type="MAPS_TO", via="orm_alias", alias=attrs["alias"],
                           name_rule=rule, line=data.get("start_line", 0), resolution="static")
            added += 1
    return added


def _create_table(graph: nx.MultiDiGraph, entity: str, ref: Reference, strategy: str | None,
                  added: Counter) -> str:
    """The entity's table (made when missing), its columns and the MAPS_TO onto them."""
    data = graph.nodes[entity]
    attrs = data.get("attrs") or {}
    short = data["name"].rsplit(".", 1)[-1].split("<", 1)[0]
    name = f"{attrs.get('schema') or DEFAULT_SCHEMA}.{attrs.get('alias') or stored_name(short, strategy)}"
    table = node_id("sql", name, "TABLE")
    naming = None if attrs.get("alias") else strategy
    marks = {"naming": naming} if naming else {}
    if table not in graph:
        graph.add_node(table, **vars(Node(
            id=table, kind="TABLE", language="sql", name=name, path=data.get("path", ""),
            start_line=data.get("start_line", 0), end_line=data.get("start_line", 0),
            signature=f"table {name} (created from {data['name']} by {ref.attrs['call']['member']})",
            attrs={"via": "code_first", "entity": entity, "created_by": ref.source, **marks})))
    how = {"via": "code_first", "mapped_by": ref.source, "line": ref.line,
           "resolution": "inferred" if naming else "static", **marks}
    if not graph.has_edge(entity, table, key="MAPS_TO"):
        graph.add_edge(entity, table, key="MAPS_TO", type="MAPS_TO", **how)
        added["MAPS_TO"] += 1
    seen: set[str] = set()
    for owner in with_bases(graph, entity):
        for prop in declared_properties(graph, owner):
            prop_attrs = graph.nodes[prop].get("attrs") or {}
            member = graph.nodes[prop]["name"].rsplit(".", 1)[-1]
            if member in seen or not _stored(prop_attrs):
                continue
            seen.add(member)
            column = prop_attrs.get("alias") or stored_name(member, strategy)
            column_id = node_id("sql", f"{name}.{column}", "COLUMN")
            if column_id not in graph:
                graph.add_node(column_id, **vars(Node(
                    id=column_id, kind="COLUMN", language="sql", name=f"{name}.{column}", path=data.get("path", ""),
                    start_line=graph.nodes[prop].get("start_line", 0), end_line=graph.nodes[prop].get("start_line", 0),
                    parent=table, signature=f"{column} (from {graph.nodes[prop]['name']})",
                    attrs={"via": "code_first", "property": prop})))
                graph.add_edge(table, column_id, key="DEFINES", type="DEFINES")
                added["DEFINES"] += 1
            if not graph.has_edge(prop, column_id, key="MAPS_TO"):
                column_how = {**how, "resolution": "static" if prop_attrs.get("alias") or not strategy else "inferred"}
                graph.add_edge(prop, column_id, key="MAPS_TO", type="MAPS_TO", entity=entity, **column_how)
                added["MAPS_TO"] += 1
    return table


def _stored(attrs: dict) -> bool:
    """OrmLite stores a public, settable, instance property not marked `[Ignore]` / `[Reference]`."""
    modifiers = attrs.get("modifiers") or ()
    return "public" in modifiers and "static" not in modifiers and not attrs.get("read_only") \
        and not attrs.get("orm_ignored")


def _map_namesakes(graph: nx.MultiDiGraph, symbols: SymbolTable, entity: str, table: str) -> int:
    """MAPS_TO (a guess) from each other type of the entity's short name that maps nowhere."""
    added = 0
    short = graph.nodes[entity]["name"].rsplit(".", 1)[-1]
    for namesake in symbols.short("csharp", short, ("TYPE",)):
        if namesake.id == entity or namesake.id not in graph \
                or any(key == "MAPS_TO" for _, _, key in graph.out_edges(namesake.id, keys=True)):
            continue
        graph.add_edge(namesake.id, table, key="MAPS_TO", type="MAPS_TO", via="code_first_namesake", entity=entity,
                       line=namesake.start_line, resolution="inferred", guess=True)
        added += 1
    return added


def _foreign_keys(graph: nx.MultiDiGraph, symbols: SymbolTable, entity: str, table: str,
                  created: dict[str, str]) -> int:
    """FOREIGN_KEY from the table to the table of each `[References(typeof(T))]` property's T."""
    added = 0
    for owner in with_bases(graph, entity):
        for prop in declared_properties(graph, owner):
            referenced = (graph.nodes[prop].get("attrs") or {}).get("references")
            target = symbols.first("csharp", referenced, ("TYPE",)) if referenced else None
            other = created.get(target.id) if target is not None else None
            if other is None or graph.has_edge(table, other, key="FOREIGN_KEY"):
                continue
            column = next((c for _, c, key in graph.out_edges(prop, keys=True) if key == "MAPS_TO"
                           and graph.nodes[c].get("kind") == "COLUMN" and graph.nodes[c].get("parent") == table), None)
            columns = [graph.nodes[column]["name"].rsplit(".", 1)[-1]] if column else []
            graph.add_edge(table, other, key="FOREIGN_KEY", type="FOREIGN_KEY", via="code_first", columns=columns,
                           property=prop, line=graph.nodes[prop].get("start_line", 0), resolution="static")
            added += 1
    return added
