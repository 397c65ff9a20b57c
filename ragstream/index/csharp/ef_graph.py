"""Entity Framework mappings settled across files, once every reference is linked.

A file sees only part of an entity's mapping: the DbContext names it (`DbSet<T> Invoices`), a
configuration class in another file says `builder.ToTable("Invoice")`, its base class lives in a
third. `settle_ef_mappings` (run by `graph_build.build_graph` last) applies EF Core's rules:

- An explicit mapping (`[Table]`, `ToTable`) beats the convention one (DbSet property or class
  name, attrs `mapping="by_convention"`, `guess=True`): the conventional MAPS_TO is removed, and so is the EXTERNAL node it
  alone pointed to.
- A property mapped to a column by name (`Property(x => x.P).HasColumnName("col")`, or
  `[Column("col")]` on the property) gets a MAPS_TO from the entity to that COLUMN node, attrs
  `property`, when the table's node has it.
- The code configuring an entity (an `IEntityTypeConfiguration<T>`'s `Configure`, a model-building
  method's `Entity<T>(...)`) REFERENCES each table the entity maps to once settled, `ToTable` or
  not (attrs `via` of the configuration, `entity`; `guess`, `mapping="by_convention"` where the
  entity's table is EF's convention), and its `HasColumnName` columns are mapped as above on
  that table (same marks): a configuration without `ToTable` still says where its columns are.
- A table that no SQL or migration creates, but the model maps an entity to, is a TABLE node
  of its own (`via="ef_model"`, a guess), not an EXTERNAL name.
- An owned type (`OwnsOne(o => o.ShippingAddress)`, a `Component`) is stored in its owner's
  table: the property's type gets a MAPS_TO to each table of the entity owning the property
  (`via="owned_type"`, `owner`), when it maps to no table of its own; from the `members` that
  `ef_configured` records on the mapping code's REFERENCES to its entity.
- Table per hierarchy, EF's default: an entity whose only mapping is a convention, and whose
  base type (or a base of it) is mapped, maps to that base's table instead (attrs `via="tph"`,
  `base`). Not when the hierarchy says `UseTptMappingStrategy()` / `UseTpcMappingStrategy()`:
  each type then keeps its own table. An entity here is a type with a MAPS_TO, or one that a
  DbContext or configuration REFERENCES (EF maps only the types its model names).

`link_dbset_properties` (run once every mapping is in, `table_by_name` ones too) then gives each
`DbSet<T>` property (`{ get; set; }` or `=> Set<T>()`) a MAPS_TO to each table its entity maps to:
the property is the context's handle on that table, so dropping the table breaks it, and a
mapping answer names it with the table (attrs `via="dbset"`, `entity`; a guess where the entity's
mapping is one).
"""
from __future__ import annotations

from collections import Counter

import networkx as nx

from ragstream.index.csharp.ef import CONFIGURATION_METHODS
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Node, node_id


TABLE_PER_TYPE = frozenset({"tpt", "tpc"})
# How an ORM model maps an entity (a DbContext or `[Table]` say no `via`); a Dapper row type's
# mapping names the tables its query reads, not a table of the model.
MODEL_MAPPINGS = frozenset({None, "entity_type_configuration", "automapping_override", "automapping", "mapping_class",
                            "tph"})


def settle_ef_mappings(graph: nx.MultiDiGraph) -> Counter:
    """Explicit mappings over conventions, TPH subclasses onto their base's table, then the
    columns that mappings name; the edges added, by type (the resolver's coverage counts)."""
    for source in _mapped_types(graph):
        edges = _maps_to(graph, source)
        if any(not _conventional(attrs) for _, attrs in edges):
            for target, attrs in edges:
                if _conventional(attrs):
                    _remove_edge(graph, source, target)
    # Bases first, so a subclass of a subclass finds its base's settled table.
    for entity in sorted(_entities(graph), key=lambda node: _by_depth(graph, node)):
        _map_to_base_table(graph, entity)
    added = Counter({"MAPS_TO": _map_columns(graph)})
    _model_tables(graph)
    added.update(_link_configurations(graph))
    added["MAPS_TO"] += _map_owned_types(graph)
    return added


def mapped_by_depth(graph: nx.MultiDiGraph) -> list[str]:
    """The nodes with a MAPS_TO, bases before the types deriving from them."""
    return sorted(_mapped_types(graph), key=lambda node: _by_depth(graph, node))


CONFIGURATIONS = frozenset({"entity_type_configuration", "automapping_override", "model_builder"})


def _link_configurations(graph: nx.MultiDiGraph) -> Counter:
    """REFERENCES from the code configuring an entity to the entity's settled tables, and the
    columns it names (`HasColumnName`) mapped there; the edges added, by type."""
    added: Counter = Counter()
    for source, entity, _, attrs in edges_of_type(graph, "REFERENCES"):
        if attrs.get("via") not in CONFIGURATIONS or graph.nodes[entity].get("kind") != "TYPE":
            continue
        code = configuring_code(graph, source)
        for table, mapping in _maps_to(graph, entity):
            if graph.nodes[table].get("kind") not in ("TABLE", "VIEW") or mapping.get("via") not in MODEL_MAPPINGS:
                continue
            marks = {"guess": True, "mapping": "by_convention"} if mapping.get("guess") else {}
            if not graph.has_edge(code, table, key="REFERENCES"):
                graph.add_edge(code, table, key="REFERENCES", type="REFERENCES", via=attrs["via"], entity=entity,
                               line=attrs.get("line", 0), resolution="inferred", **marks)
                added["REFERENCES"] += 1
            for prop, column in sorted((attrs.get("columns") or {}).items()):
                column_id = f"sql:{graph.nodes[table]['name']}.{column}|COLUMN"
                if graph.nodes.get(column_id, {}).get("kind") == "COLUMN" \
                        and not graph.has_edge(entity, column_id, key="MAPS_TO"):
                    graph.add_edge(entity, column_id, key="MAPS_TO", type="MAPS_TO", property=prop, via=attrs["via"],
                                   mapped_by=code, line=attrs.get("line", 0), resolution="inferred", **marks)
                    added["MAPS_TO"] += 1
    return added


def configuring_code(graph: nx.MultiDiGraph, source: str) -> str:
    """The `Configure` (`Override`) method of a configuration class (where its builder calls are), else `source`."""
    return next((child for _, child, key in sorted(graph.out_edges(source, keys=True)) if key == "DEFINES"
                 and graph.nodes[child].get("kind") == "METHOD"
                 and graph.nodes[child].get("name", "").rsplit(".", 1)[-1] in CONFIGURATION_METHODS.values()), source)


def _map_owned_types(graph: nx.MultiDiGraph) -> int:
    """Owned types onto their owner's tables (the `members` of a mapping's REFERENCES to its
    entity); how many edges that added."""
    added = 0
    for source, entity, _, attrs in edges_of_type(graph, "REFERENCES"):
        if not attrs.get("members") or graph.nodes[entity].get("kind") != "TYPE":
            continue
        line = {"line": attrs.get("line", 0), "mapped_by": source}
        for member, said in sorted(attrs["members"].items()):
            prop = declared_property(graph, entity, member)
            if prop is None:
                continue
            owned = property_type(graph, prop) if said.get("owned") else None
            if owned and not _maps_to(graph, owned):
                for target, _ in _maps_to(graph, entity):
                    if graph.nodes[target].get("kind") in ("TABLE", "VIEW"):
                        graph.add_edge(owned, target, key="MAPS_TO", type="MAPS_TO", via="owned_type", owner=entity,
                                       resolution="inferred", **line)
                        added += 1
    return added


DBSET_TYPES = frozenset({"DbSet", "IDbSet"})


def link_dbset_properties(graph: nx.MultiDiGraph) -> int:
    """MAPS_TO from each `DbSet<T>` property to the tables (and views) T maps to; how many edges
    that added. Not a Dapper row type's tables (those are its query's), nor an entity's guessed
    EXTERNAL name."""
    added = 0
    for prop, data in sorted(graph.nodes(data=True)):
        generic = (data.get("attrs") or {}).get("generic") or {}
        if data.get("kind") != "PROPERTY" or generic.get("generic") not in DBSET_TYPES:
            continue
        entity = property_type(graph, prop)
        for table, mapping in _maps_to(graph, entity) if entity else ():
            if graph.nodes[table].get("kind") in ("TABLE", "VIEW") and mapping.get("via") != "dapper_row_type":
                added += add_edge(graph, prop, table, "MAPS_TO", {
                    "line": data.get("start_line", 0), "resolution": "inferred", "via": "dbset", "entity": entity,
                    **({"guess": True} if mapping.get("guess") else {})})
    return added


def declared_property(graph: nx.MultiDiGraph, entity: str, member: str) -> str | None:
    """The PROPERTY node `member` of the entity or of its nearest base that declares it."""
    seen, queue = set(), [entity]
    while queue:
        node = queue.pop(0)
        prop = node_id("csharp", f"{graph.nodes[node]['name']}.{member}", "PROPERTY")
        if prop in graph:
            return prop
        seen.add(node)
        queue += [base for base in _bases(graph, node) if base not in seen]
    return None


def property_type(graph: nx.MultiDiGraph, prop: str) -> str | None:
    """The repository's TYPE node a property holds: its declared type or a collection's element
    (the first qualified guess that exists), else the one type of that name (a namespace the
    file does not name: C# 10's `global using`)."""
    attrs = graph.nodes[prop].get("attrs", {})
    generic = attrs.get("generic") or {}
    guesses = [*attrs.get("returns", ()), *(g for entities in generic.get("entities", ()) for g in entities)]
    found = next((t for t in (node_id("csharp", g, "TYPE") for g in guesses) if t in graph), None)
    if found or not guesses:
        return found
    short = f".{guesses[-1].rsplit('.', 1)[-1]}|TYPE"
    named = [n for n in graph if n.startswith("cs:") and n.endswith(short)]
    return named[0] if len(named) == 1 else None


def _model_tables(graph: nx.MultiDiGraph) -> None:
    """A table no SQL script or migration creates is still a table when the EF model maps an
    entity to it (`EnsureCreated()` makes it from the model): its EXTERNAL stand-in becomes a
    TABLE node, `dbo` when no schema is named, on the entity's declaration line, marked a
    guess with `via="ef_model"`. Code reading or writing the entity then reaches a table, and
    so does hand-written SQL naming it (Dapper on the same database), linked before the model
    settled: `name_resolution` moves it there once every schema source is in."""
    for source, target, _, attrs in edges_of_type(graph, "MAPS_TO"):
        node = graph.nodes[target]
        if node.get("kind") != "EXTERNAL" or node.get("language") != "sql" \
                or graph.nodes[source].get("kind") != "TYPE" or attrs.get("via") not in MODEL_MAPPINGS:
            continue
        name = node["name"] if "." in node["name"] else f"dbo.{node['name']}"
        table = node_id("sql", name, "TABLE")
        if table not in graph:
            entity = graph.nodes[source]
            graph.add_node(table, **vars(Node(
                id=table, kind="TABLE", language="sql", name=name, path=entity.get("path", ""),
                start_line=entity.get("start_line", 0), end_line=entity.get("start_line", 0),
                signature=f"table {name} (from the EF model of {entity['name']})",
                attrs={"via": "ef_model", "guess": True, "entity": source})))
        graph.remove_edge(source, target, key="MAPS_TO")
        graph.add_edge(source, table, key="MAPS_TO", **attrs)
        if graph.degree(target) == 0:
            graph.remove_node(target)


def _conventional(attrs: dict) -> bool:
    """A mapping by naming convention (other guesses, such as a Dapper row type, are evidence
    of another kind and stay beside an explicit mapping)."""
    return attrs.get("mapping") == "by_convention"


def _map_columns(graph: nx.MultiDiGraph) -> int:
    """MAPS_TO from an entity to each COLUMN its mapping names, attrs `property`: by the fluent
    API (`Property(x => x.P).HasColumnName("col")`, the mapping's `columns`) or by an attribute
    on the property (`[Column("col")] P`, the property's `column`): what answers "which C#
    property maps to column Y". How many edges that added."""
    added = 0
    for source, target, _, attrs in edges_of_type(graph, "MAPS_TO", ordered=False):
        if graph.nodes[target].get("kind") not in ("TABLE", "VIEW"):
            continue
        columns = dict(attrs.get("columns") or {})
        if attrs.get("via") in MODEL_MAPPINGS:
            columns.update(_annotated_columns(graph, source))
        for prop, column in columns.items():
            column_id = f"sql:{graph.nodes[target]['name']}.{column}|COLUMN"
            if graph.nodes.get(column_id, {}).get("kind") == "COLUMN":
                graph.add_edge(source, column_id, key="MAPS_TO", type="MAPS_TO", property=prop,
                               via=attrs.get("via"), line=attrs.get("line", 0),
                               resolution="static")
                added += 1
    return added


def _annotated_columns(graph: nx.MultiDiGraph, entity: str) -> dict[str, str]:
    """{property: column} of the entity's properties that name their column (`[Column("col")]`)."""
    found = {}
    for _, prop, key in graph.out_edges(entity, keys=True):
        data = graph.nodes[prop]
        if key == "DEFINES" and data.get("kind") == "PROPERTY" and data.get("attrs", {}).get("column"):
            found[data["name"].rsplit(".", 1)[-1]] = data["attrs"]["column"]
    return found


def edges_of_type(graph: nx.MultiDiGraph, edge_type: str, ordered: bool = True) -> list[tuple[str, str, str, dict]]:
    """The graph's edges of one type, with keys and attributes, sorted (else in the graph's
    order): taken before a linker adds to the graph, and filtered before sorting, as sorting
    every edge of a large graph was most of settling a repository without EF."""
    found = [edge for edge in graph.edges(keys=True, data=True) if edge[2] == edge_type]
    return sorted(found) if ordered else found


def _mapped_types(graph: nx.MultiDiGraph) -> list[str]:
    return sorted({source for source, _, key in graph.edges(keys=True) if key == "MAPS_TO"})


def _maps_to(graph: nx.MultiDiGraph, source: str) -> list[tuple[str, dict]]:
    return [(target, attrs) for _, target, key, attrs in graph.out_edges(source, keys=True,
                                                                          data=True)
            if key == "MAPS_TO"]


def _remove_edge(graph: nx.MultiDiGraph, source: str, target: str) -> None:
    """The MAPS_TO edge, and its target when it was an EXTERNAL node nothing else uses."""
    graph.remove_edge(source, target, key="MAPS_TO")
    if graph.nodes[target].get("kind") == "EXTERNAL" and graph.degree(target) == 0:
        graph.remove_node(target)


def _entities(graph: nx.MultiDiGraph) -> set[str]:
    named = {target for source, target, key in graph.edges(keys=True) if key == "REFERENCES"
             and graph.nodes[source].get("attrs", {}).get("ef_role") in ("dbcontext",
                                                                          "configuration")}
    return {node for node in [*named, *_mapped_types(graph)]
            if graph.nodes[node].get("kind") == "TYPE"}


def _bases(graph: nx.MultiDiGraph, node: str) -> list[str]:
    return [base for _, base, key in graph.out_edges(node, keys=True)
            if key == "INHERITS" and graph.nodes[base].get("kind") == "TYPE"]


def _by_depth(graph: nx.MultiDiGraph, node: str) -> tuple[int, str]:
    return _depth(graph, node, set()), node


def _depth(graph: nx.MultiDiGraph, node: str, seen: set[str]) -> int:
    seen.add(node)
    bases = [base for base in _bases(graph, node) if base not in seen]
    return 1 + max((_depth(graph, base, seen) for base in bases), default=0)


def _map_to_base_table(graph: nx.MultiDiGraph, entity: str) -> None:
    """TPH: the entity's conventional mapping replaced by its nearest mapped base's."""
    own = _maps_to(graph, entity)
    if any(not _conventional(attrs) for _, attrs in own):
        return  # its own ToTable / [Table]: table per type
    seen, queue = {entity}, _bases(graph, entity)
    while queue:
        base = queue.pop(0)
        if base in seen:
            continue
        seen.add(base)
        mappings = [(t, a) for t, a in _maps_to(graph, base) if a.get("via") != "tph"] \
            or _maps_to(graph, base)
        if any(attrs.get("inheritance") in TABLE_PER_TYPE for _, attrs in mappings):
            return
        if mappings:
            for target, _ in own:
                _remove_edge(graph, entity, target)
            target, attrs = mappings[0]
            inherited = {"via": "tph", "base": base, "resolution": "inherited",
                         "line": attrs.get("line", 0)}
            if attrs.get("guess"):
                inherited.update(guess=True, mapping="by_convention")
            graph.add_edge(entity, target, key="MAPS_TO", type="MAPS_TO", **inherited)
            return
        queue.extend(_bases(graph, base))
