"""How an object is stored, from the graph: the answer to "how is X mapped / stored / linked in
the database".

An ORM's mapping of an entity lives in several places the graph links (`index/csharp/ef.py`,
`ef_configured.py`, `ef_graph.py`): the tables the entity maps to (MAPS_TO), the code that
configures it (an `IEntityTypeConfiguration<T>.Configure`, a `ClassMap<T>` constructor, a
method taking EF's `ModelBuilder`: REFERENCES with `via`), the DbContext that holds it (`DbSet<T>`
and the context's model-building methods: `OnModelCreating` and the helpers that take its
builder), the properties the question names, and the types those hold (a value object, an owned
type, a navigation to another mapped entity, with their own mapping code and tables), and the
join tables its mapping names for its collections. A value
object asked about directly ("how are ProjectName values stored") is answered through the
entities whose properties hold it and the converters that convert it. Items come in that
order: the mapping code and the entity's tables before its DbSet, its properties after them.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import networkx as nx

from ragstream.graph.named import MAX_NAMED_BY_WORD, Named, named_node, stems
from ragstream.graph.relations import CONFIGURES, TABLE_KINDS, Related, resolution_of
from ragstream.index.csharp.ef_graph import property_type
from ragstream.keyword_tokens import identifier_parts, keyword_tokens

# How the configuring code's REFERENCES to an entity were made (`ef`, `ef_configured`).
# `data_reader`: a method filling the entity from a data reader's columns (`index/csharp/data_records`)
CONFIGURING_VIAS = frozenset({"entity_type_configuration", "mapping_class", "model_builder", "data_reader"})
# Mapping classes whose whole mapping is the class (a `ClassMap<T>` constructor, a converter): the
# class is named with its methods.
CLASS_IS_MAPPING = frozenset({"mapping_class", "value_converter"})
MODEL_BUILDERS = frozenset({"ModelBuilder", "DbModelBuilder"})


def mapping_of(graph: nx.MultiDiGraph, subject: Named, words: Collection[str]) -> list[Related]:
    """How `subject` (a table or a type) is stored: its entities' mapping code, tables, DbSets, the
    asked properties and the types they hold; for a type mapped to no table, the entities holding it."""
    asked = set(words)
    if subject.kind in TABLE_KINDS:
        entities = sorted(s for s, _, k, d in graph.in_edges(subject.id, keys=True, data=True)
                          if k == "MAPS_TO" and graph.nodes[s].get("kind") == "TYPE" and d.get("via") != "owned_type")
        items = [Related(t, "MAPS_TO", subject.id, "static") for t in entities]
    elif subject.kind == "TYPE" and _tables(graph, subject.id):
        entities, items = [subject.id], []
    elif subject.kind == "TYPE":
        return _unique([i for i in _held_value(graph, subject.id, asked) if i.id != subject.id])
    else:
        return []
    for entity in entities:
        items += _entity_mapping(graph, entity, asked)
    return _unique([i for i in items if i.id != subject.id])


def mapping_classes(graph: nx.MultiDiGraph, table: str) -> list[Related]:
    """The classes that map the entities stored in `table` (a `ClassMap<T>`, an
    `IEntityTypeConfiguration<T>`): what "which classes read or write T" names beside the code
    that runs the queries, since the ORM reads and writes the rows as they say."""
    entities = [s for s, _, k in graph.in_edges(table, keys=True)
                if k == "MAPS_TO" and graph.nodes[s].get("kind") == "TYPE"]
    return _unique([Related(source, "maps table", table, resolution_of(data), via=data.get("via") or "")
                    for entity in sorted(entities) for source, _, key, data in sorted(graph.in_edges(entity, keys=True, data=True))
                    if key == "REFERENCES" and data.get("via") in CONFIGURING_VIAS
                    and graph.nodes[source].get("kind") == "TYPE"])


def entities_in_words(graph: nx.MultiDiGraph, question: str) -> list[Named]:
    """The mapped entities a mapping question names in plain words ("how is an order linked to
    its addresses" -> `Order`, `Address`): types mapped to a table whose name's words (split at
    case, stemmed) the question says in a row, each name's types only when at most
    MAX_NAMED_BY_WORD share it; the most words first."""
    said = f" {' '.join(stems(question))} "
    by_words: dict[str, list[str]] = {}
    for node, data in graph.nodes(data=True):
        if data.get("kind") == "TYPE" and data.get("name") and any(
                d.get("via") != "owned_type" for _, d in _tables(graph, node)):
            words = " ".join(stems(" ".join(identifier_parts(data["name"].rsplit(".", 1)[-1]))))
            if words and f" {words} " in said:
                by_words.setdefault(words, []).append(node)
    chosen = [node for words in sorted(by_words, key=lambda w: (-len(w.split()), said.index(f" {w} ")))
              if len(by_words[words]) <= MAX_NAMED_BY_WORD for node in sorted(by_words[words])]
    return [named_node(graph, node, "words") for node in chosen]


def _entity_mapping(graph: nx.MultiDiGraph, entity: str, asked: set[str], depth: int = 0) -> list[Related]:
    """The entity's tables, the code configuring it by name, its DbSets, the asked properties and
    (one level down) what they hold, the properties whose column the mapping renames, then the code that builds the whole model (`OnModelCreating`
    applying every configuration, methods registering entities by a base type)."""
    items = [Related(t, "MAPS_TO", entity, resolution_of(d), via=d.get("via") or "")
             for t, d in _tables(graph, entity)]
    items += _join_tables(graph, entity)
    items += configuring_code(graph, entity)
    items += _dbsets(graph, entity)
    for prop in asked_properties(graph, entity, asked):
        items.append(Related(prop, "maps column", entity, "static"))
        held = property_type(graph, prop)
        if held and held != entity and depth == 0:
            items.append(Related(held, "type of", prop, "static"))
            items += _entity_mapping(graph, held, asked, depth + 1) if _tables(graph, held) else \
                [*configuring_code(graph, held), *_converters(graph, held)]
            if any(d.get("via") == "owned_type" for _, d in _tables(graph, held)):  # its properties: the owner's columns
                items += [Related(p, "maps column", held, "inferred") for p in _columns_of(graph, held)]
        items += _referenced_tables(graph, entity, prop)
    items += [Related(p, "maps column", entity, "static") for p in _renamed_columns(graph, entity)]
    return items + (_model_code(graph, entity) if depth == 0 else [])


def _held_value(graph: nx.MultiDiGraph, value: str, asked: set[str]) -> list[Related]:
    """A type no table maps (a value object, a strongly typed id): the converters that convert
    it, the properties of mapped entities that hold it, those entities' configuring code and
    tables, then the code building their model."""
    items = _converters(graph, value)
    holders = [p for p in _holding_properties(graph, value) if _tables(graph, graph.nodes[p].get("parent") or "")]
    for prop in holders:
        entity = graph.nodes[prop]["parent"]
        # the code naming the property (`Property(p => p.Name).HasConversion(...)`) before the entity's other mapping code
        short = graph.nodes[prop]["name"].rsplit(".", 1)[-1]
        code = configuring_code(graph, entity)
        items += [Related(prop, "holds", value, "static"), *(i for i in code if short in i.members), *code]
    for prop in holders:
        items += [Related(t, "MAPS_TO", prop, resolution_of(d), via=d.get("via") or "")
                  for t, d in _tables(graph, graph.nodes[prop]["parent"])]
    return items + [i for prop in holders for i in _model_code(graph, graph.nodes[prop]["parent"])]


@dataclass(frozen=True)
class _Code(Related):
    """Mapping code, with the entity's properties it names."""

    members: frozenset[str] = frozenset()


def configuring_code(graph: nx.MultiDiGraph, entity: str) -> list[_Code]:
    """The code that configures the entity by name: a configuration class's methods (and the
    class, where the class is the mapping), model-building methods naming it."""
    items: list[_Code] = []
    for source, _, key, data in sorted(graph.in_edges(entity, keys=True, data=True)):
        via = data.get("via")
        if key != "REFERENCES" or via not in CONFIGURING_VIAS:
            continue
        named = frozenset(data.get("members") or ())
        if graph.nodes[source].get("kind") == "METHOD":
            items.append(_Code(source, CONFIGURES, entity, resolution_of(data), via=via, members=named))
        else:
            items += [_Code(m, CONFIGURES, entity, "static", via=via, members=named)
                      for m in _members(graph, source, "METHOD")]
            if via in CLASS_IS_MAPPING:
                items.append(_Code(source, CONFIGURES, entity, "static", via=via, members=named))
    return items


def _model_code(graph: nx.MultiDiGraph, entity: str) -> list[Related]:
    """The code building the model the entity is part of: the model-building methods of the
    DbContexts holding it (`OnModelCreating`, which applies every configuration); for an entity
    no DbContext names, the model-building methods that register it by a base type
    (`modelBuilder.Entity(type)` over `typeof(EntityBase)`), with that base."""
    contexts = _holding_contexts(graph, entity)
    items = [Related(m, CONFIGURES, entity, "inferred", via="model_builder")
             for context in contexts for m in _model_building_methods(graph, context)]
    for base in [] if contexts else _bases(graph, entity):
        registering = sorted(s for s, _, k, d in graph.in_edges(base, keys=True, data=True)
                             if k == "REFERENCES" and d.get("registers") == "subtypes")
        items += [Related(m, CONFIGURES, entity, "inferred", via="model_builder") for method in registering
                  for m in [method, *_model_building_methods(graph, graph.nodes[method].get("parent") or "")]]
        if registering:
            items.append(Related(base, "base registered", entity, "inferred", via="model_builder"))
    return items


def _join_tables(graph: nx.MultiDiGraph, entity: str) -> list[Related]:
    """The join tables the entity's mapping names for its collections (`HasManyToMany(x => x.Tags).Table("TagItem")`)."""
    named = [said["table"] for s, _, k, d in sorted(graph.in_edges(entity, keys=True, data=True)) if k == "REFERENCES"
             for said in (d.get("members") or {}).values() if said.get("table")]
    return [Related(t, "MAPS_TO", entity, "static", via="join_table") for name in named
            for t in (f"sql:{name}|TABLE", f"sql:dbo.{name}|TABLE") if t in graph]


def _dbsets(graph: nx.MultiDiGraph, entity: str) -> list[Related]:
    """The DbContext properties holding the entity (`DbSet<Order> Orders`)."""
    short = graph.nodes[entity].get("name", "").rsplit(".", 1)[-1]
    return [Related(p, "holds", entity, "static") for context in _holding_contexts(graph, entity)
            for p in _members(graph, context, "PROPERTY") if short in _generic_arguments(graph, p)]


def _holding_contexts(graph: nx.MultiDiGraph, entity: str) -> list[str]:
    return sorted(s for s, _, k in graph.in_edges(entity, keys=True)
                  if k == "REFERENCES" and graph.nodes[s].get("attrs", {}).get("ef_role") == "dbcontext")


def _model_building_methods(graph: nx.MultiDiGraph, type_id: str) -> list[str]:
    """The type's methods that take EF's model builder (`OnModelCreating(ModelBuilder)` and its helpers)."""
    return [m for m in _members(graph, type_id, "METHOD")
            if MODEL_BUILDERS & {p.rsplit(".", 1)[-1] for p in graph.nodes[m].get("attrs", {}).get("parameters", ())}]


def asked_properties(graph: nx.MultiDiGraph, entity: str, asked: set[str]) -> list[str]:
    """The entity's properties whose names share the question's words ("colour", "shipping
    address"), the entity's own name's words aside ("order" names the order, not `OrderItems`),
    most shared words first."""
    words = asked - set(keyword_tokens(graph.nodes[entity].get("name", "").rsplit(".", 1)[-1]))
    shared = {p: len(words & set(keyword_tokens(graph.nodes[p]["name"].rsplit(".", 1)[-1])))
              for p in _columns_of(graph, entity)}
    return sorted((p for p in shared if shared[p]),
                  key=lambda p: (-shared[p], len(identifier_parts(graph.nodes[p]["name"].rsplit(".", 1)[-1]))))


def _renamed_columns(graph: nx.MultiDiGraph, entity: str) -> list[str]:
    """The entity's properties whose column the mapping names (`[Column("CourseID")] Id`,
    `Property(p => p.Note).HasColumnName("Remark")`)."""
    fluent = {d["property"] for _, _, k, d in graph.out_edges(entity, keys=True, data=True)
              if k == "MAPS_TO" and d.get("property")}
    return [p for p in _columns_of(graph, entity)
            if graph.nodes[p].get("attrs", {}).get("column") or graph.nodes[p]["name"].rsplit(".", 1)[-1] in fluent]


def _referenced_tables(graph: nx.MultiDiGraph, entity: str, prop: str) -> list[Related]:
    """The tables a navigation property leads to: the targets of its owner's tables' foreign keys
    on the property's column or its `Id` column (`BillingAddress` -> `BillingAddressId` ->
    the addresses' table)."""
    short = graph.nodes[prop]["name"].rsplit(".", 1)[-1].lower()
    return [Related(target, "FOREIGN_KEY", prop, resolution_of(d), via=d.get("via") or "")
            for table, _ in _tables(graph, entity)
            for _, target, k, d in sorted(graph.out_edges(table, keys=True, data=True))
            if k == "FOREIGN_KEY" and graph.nodes[target].get("kind") in TABLE_KINDS
            and {short, f"{short}id"} & {c.lower() for c in d.get("columns", ())}]


def _converters(graph: nx.MultiDiGraph, value: str) -> list[Related]:
    return [Related(s, "converts", value, resolution_of(d), via="value_converter")
            for s, _, k, d in sorted(graph.in_edges(value, keys=True, data=True))
            if k == "REFERENCES" and d.get("via") == "value_converter"]


def _holding_properties(graph: nx.MultiDiGraph, value: str) -> list[str]:
    """The properties whose declared type is `value`."""
    short = graph.nodes[value].get("name", "").rsplit(".", 1)[-1]
    return sorted(n for n, data in graph.nodes(data=True) if data.get("kind") == "PROPERTY"
                  and data.get("attrs", {}).get("type", "").rstrip("?") == short and property_type(graph, n) == value)


def _tables(graph: nx.MultiDiGraph, node: str) -> list[tuple[str, dict]]:
    return [(t, d) for _, t, k, d in sorted(graph.out_edges(node, keys=True, data=True))
            if k == "MAPS_TO" and graph.nodes[t].get("kind") in TABLE_KINDS] if node in graph else []


def _bases(graph: nx.MultiDiGraph, node: str) -> list[str]:
    """Every base type of `node` in the repository, nearest first."""
    found: list[str] = []
    queue = [node]
    while queue:
        for _, base, key in graph.out_edges(queue.pop(0), keys=True):
            if key == "INHERITS" and graph.nodes[base].get("kind") == "TYPE" and base not in found:
                found.append(base)
                queue.append(base)
    return found


def _members(graph: nx.MultiDiGraph, type_id: str, kind: str) -> list[str]:
    return sorted(t for _, t, k in graph.out_edges(type_id, keys=True)
                  if k == "DEFINES" and graph.nodes[t].get("kind") == kind) if type_id in graph else []


def _columns_of(graph: nx.MultiDiGraph, type_id: str) -> list[str]:
    """The type's instance properties: what an ORM may store (a static `Colour.Blue` is no column)."""
    return [p for p in _members(graph, type_id, "PROPERTY")
            if "static" not in graph.nodes[p].get("attrs", {}).get("modifiers", ())]


def _generic_arguments(graph: nx.MultiDiGraph, prop: str) -> set[str]:
    """The simple names of a property's type arguments (`DbSet<Order>`: Order)."""
    generic = graph.nodes[prop].get("attrs", {}).get("generic") or {}
    return {guesses[-1].rsplit(".", 1)[-1] for guesses in generic.get("entities", []) if guesses}


def _unique(items: list[Related]) -> list[Related]:
    """Each node once, where it first comes."""
    kept: dict[str, Related] = {}
    for item in items:
        kept.setdefault(item.id, item)
    return list(kept.values())
