"""The column each property of an EF entity is stored in: PROPERTY -MAPS_TO-> COLUMN.

EF Core and EF6 store every mapped scalar property of an entity in the column of its own name
in the entity's table. Run by `graph_build.build_graph` after `ef_graph.settle_ef_mappings` has
settled the entities' tables (explicit over convention, TPH onto the base's table), over each
type with a model mapping (`ef_graph.MODEL_MAPPINGS`) to a TABLE or VIEW, bases first (an
inherited property's edge names the base's entity). Per property, the first rule that applies:

- `[NotMapped]`, `Ignore(p => p.P)`, static, non-public, or read-only (no `set`/`init`) and named
  by no mapping call: no column (EF's conventions map public read-write properties only).
- `[Column("x")]` (`via="column_attribute"`) or `Property(p => p.P).HasColumnName("x")`
  (`via="has_column_name"`): column `x` only, never the column of the property's own name.
- A navigation (its type, or a collection's element, is an entity of the model) is no column.
- An owned type (`OwnsOne(o => o.Address)`, or a type marked `[Owned]` / `[ComplexType]`) is no
  column itself: the owned type's properties are, as `Address_Street` (EF Core's and EF6's
  naming), or their own `[Column]` name.
- Otherwise the column of the property's name (`via="ef_convention"`, `mapping="by_convention"`),
  compared without case as SQL Server does.

Inherited properties are stored in the table of each entity inheriting them (TPH: the base's
table). Each edge says `entity` (whose table), `via`, `resolution`, and `guess` when the entity's
table itself is EF's convention. Only COLUMN nodes that SQL or a migration declares are linked:
a table known only from the model gets no COLUMN nodes made up from the properties (a rename of
a property there is still answered from the property and its users, and made-up columns would
double every property in search and lists).
"""
from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from ragstream.index.csharp.ef_graph import MODEL_MAPPINGS, mapped_by_depth, property_type
from ragstream.index.model import node_id

CONFIGURING = frozenset({"entity_type_configuration", "automapping_override", "model_builder", "mapping_class"})
NOT_STORED = frozenset({"Ignore"})
OWNED_SEPARATOR = "_"  # EF Core's owned-type column: `Owner_Property`
OWNED_ATTRIBUTES = frozenset({"Owned", "OwnedAttribute", "ComplexType", "ComplexTypeAttribute"})


def link_property_columns(graph: nx.MultiDiGraph) -> int:
    """MAPS_TO from each mapped property of the model's entities to its column in their tables;
    how many edges that added."""
    added = 0
    for entity in mapped_by_depth(graph):
        tables = [(table, attrs) for _, table, key, attrs in graph.out_edges(entity, keys=True, data=True)
                  if key == "MAPS_TO" and attrs.get("via") in MODEL_MAPPINGS
                  and graph.nodes[table].get("kind") in ("TABLE", "VIEW")]
        if not tables:
            continue
        chain = with_bases(graph, entity)
        said = _members_said(graph, chain)
        named = _named_columns(graph, chain)
        for table, mapping in tables:
            columns = _columns_of(graph, table)
            if not columns:
                continue
            marks = {"guess": True} if mapping.get("guess") else {}
            for prop, column, via in _stored(graph, chain, said, named):
                target = columns.get(column.lower())
                if target and not graph.has_edge(prop, target, key="MAPS_TO"):
                    convention = {"mapping": "by_convention"} if via == "ef_convention" else {}
                    graph.add_edge(prop, target, key="MAPS_TO", type="MAPS_TO", via=via, entity=entity,
                                   line=graph.nodes[prop].get("start_line", 0),
                                   resolution="inferred" if convention else "static", **convention, **marks)
                    added += 1
    return added


def _stored(graph: nx.MultiDiGraph, chain: list[str], said: dict[str, dict], named: dict[str, str]
            ) -> Iterator[tuple[str, str, str]]:
    """(property node, column name, via) for each property of the entity (and its bases) EF stores."""
    seen: set[str] = set()
    for owner in chain:
        for prop in declared_properties(graph, owner):
            short = graph.nodes[prop]["name"].rsplit(".", 1)[-1]
            if short in seen:  # a subclass's `new` property hides its base's
                continue
            seen.add(short)
            attrs = graph.nodes[prop].get("attrs") or {}
            told = said.get(short, {})
            if attrs.get("not_mapped") or told.get("configured") in NOT_STORED or not _mappable(attrs, short in said):
                continue
            if attrs.get("column"):
                yield prop, str(attrs["column"]), "column_attribute"
            elif short in named:
                yield prop, named[short], "has_column_name"
            elif told.get("owned") or _marked_owned(graph, prop):
                yield from _owned_columns(graph, prop, short)
            elif not _navigation(graph, prop, attrs):
                yield prop, short, "ef_convention"


def _mappable(attrs: dict, configured: bool) -> bool:
    """EF maps public read-write instance properties by convention; a mapping call maps others."""
    modifiers = set(attrs.get("modifiers") or ())
    if "static" in modifiers:
        return False
    return configured or ("public" in modifiers and not attrs.get("read_only"))


def _owned_columns(graph: nx.MultiDiGraph, prop: str, short: str) -> Iterator[tuple[str, str, str]]:
    """The owned type's properties, stored in the owner's table as `Owner_Property`."""
    owned = property_type(graph, prop)
    for inner in declared_properties(graph, owned) if owned else ():
        attrs = graph.nodes[inner].get("attrs") or {}
        if attrs.get("not_mapped") or not _mappable(attrs, False):
            continue
        if attrs.get("column"):
            yield inner, str(attrs["column"]), "column_attribute"
        else:
            yield inner, f"{short}{OWNED_SEPARATOR}{graph.nodes[inner]['name'].rsplit('.', 1)[-1]}", "ef_convention"


def _marked_owned(graph: nx.MultiDiGraph, prop: str) -> bool:
    """The property holds a type marked `[Owned]` (EF Core) or `[ComplexType]` (EF6, EF Core 8)."""
    held = property_type(graph, prop)
    return held is not None and bool(OWNED_ATTRIBUTES & set((graph.nodes[held].get("attrs") or {}).get("attributes", ())))


def _navigation(graph: nx.MultiDiGraph, prop: str, attrs: dict) -> bool:
    """The property holds an entity of the model, or a collection of one (`ICollection<Order>`)."""
    generic = attrs.get("generic") or {}
    held = [*attrs.get("returns", ()), *(g for entities in generic.get("entities", ()) for g in entities)]
    return any(_is_entity(graph, node_id("csharp", guess, "TYPE")) for guess in held)


def _is_entity(graph: nx.MultiDiGraph, node: str) -> bool:
    """A repository type the model maps to a table (or that a DbContext or configuration names)."""
    if graph.nodes.get(node, {}).get("kind") != "TYPE":
        return False
    return any(key == "MAPS_TO" for _, _, key in graph.out_edges(node, keys=True)) or any(
        key == "REFERENCES" and (graph.nodes[source].get("attrs") or {}).get("ef_role") in ("dbcontext", "configuration")
        for source, _, key in graph.in_edges(node, keys=True))


def _members_said(graph: nx.MultiDiGraph, chain: list[str]) -> dict[str, dict]:
    """{property: what a mapping call says of it} over the entity and its bases (`members`)."""
    found: dict[str, dict] = {}
    for entity in reversed(chain):  # the entity's own configuration wins over its base's
        for _, _, key, attrs in graph.in_edges(entity, keys=True, data=True):
            if key == "REFERENCES" and attrs.get("members"):
                found.update(attrs["members"])
    return found


def _named_columns(graph: nx.MultiDiGraph, chain: list[str]) -> dict[str, str]:
    """{property: column} that `HasColumnName` names, from the configurations and mappings of the chain."""
    found: dict[str, str] = {}
    for entity in reversed(chain):
        edges = [*((a for _, _, k, a in graph.in_edges(entity, keys=True, data=True)
                    if k == "REFERENCES" and a.get("via") in CONFIGURING)),
                 *(a for _, _, k, a in graph.out_edges(entity, keys=True, data=True) if k == "MAPS_TO")]
        for attrs in edges:
            found.update(attrs.get("columns") or {})
    return found


def _columns_of(graph: nx.MultiDiGraph, table: str) -> dict[str, str]:
    """{lower-case column name: COLUMN node} the table DEFINES."""
    return {graph.nodes[c]["name"].rsplit(".", 1)[-1].lower(): c for _, c, key in graph.out_edges(table, keys=True)
            if key == "DEFINES" and graph.nodes[c].get("kind") == "COLUMN"}


def declared_properties(graph: nx.MultiDiGraph, owner: str) -> list[str]:
    return sorted(p for _, p, key in graph.out_edges(owner, keys=True)
                  if key == "DEFINES" and graph.nodes[p].get("kind") == "PROPERTY")


def with_bases(graph: nx.MultiDiGraph, entity: str) -> list[str]:
    """The entity, then its repository base types nearest first."""
    chain, queue = [], [entity]
    while queue:
        node = queue.pop(0)
        if node in chain:
            continue
        chain.append(node)
        queue += sorted(base for _, base, key in graph.out_edges(node, keys=True)
                        if key == "INHERITS" and graph.nodes[base].get("kind") == "TYPE")
    return chain
