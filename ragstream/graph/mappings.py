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
entities whose properties hold it and the converters that convert it. Beside the ORM's
mapping, the answer names what writers of mapping questions list with it: the keys relating
the asked entities, the kinds of an entity (mapped subtypes), the migration creating its table,
the base type declaring its columns, the hand-written code filling it from rows and the
procedures that code runs, its repositories, and (when asked) what converts it into other
objects. Items come in layers (`_Layers`), every subject's first layer before any subject's
second: the mapping code and tables, then what the question asks of them, then how the rows
are created and filled, then the rest.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

import networkx as nx

from ragstream.graph.guesses import is_guess
from ragstream.graph.named import MAX_NAMED_BY_WORD, Named, named_node, stems
from ragstream.graph.relations import CONFIGURES, TABLE_KINDS, Related, resolution_of
from ragstream.index.csharp.ef_graph import property_type
from ragstream.index.model import node_id
from ragstream.keyword_tokens import identifier_parts, keyword_tokens
from ragstream.test_paths import in_tests

# How the configuring code's REFERENCES to an entity were made (`ef`, `ef_configured`).
# `data_reader`: a method filling the entity from a data reader's columns (`index/csharp/data_records`)
CONFIGURING_VIAS = frozenset({"entity_type_configuration", "automapping_override", "mapping_class", "model_builder",
                              "data_reader"})
# Mapping classes whose whole mapping is the class (a `ClassMap<T>` constructor, a converter): the
# class is named with its methods.
CLASS_IS_MAPPING = frozenset({"mapping_class", "value_converter"})
MODEL_BUILDERS = frozenset({"ModelBuilder", "DbModelBuilder"})


def mapping_of(graph: nx.MultiDiGraph, subject: Named, words: Collection[str]) -> list[Related]:
    """How `subject` (a table or a type) is stored: its entities' mapping code and tables, the
    asked properties and keys, the code creating and filling its rows, then the rest (`_Layers`);
    for a type mapped to no table, the entities holding it."""
    return _unique([item for layer in _subject_layers(graph, subject, set(words), ()) for item in layer])


def mapping_answer(graph: nx.MultiDiGraph, subjects: list[Named], words: Collection[str]) -> list[Related]:
    """How each of the question's subjects is stored, their layers merged: every subject's
    mapping before any subject's keys, and so on (`_Layers`), so that a question about two
    entities names both mappings before the details of either; the keys are those relating
    each subject's entities to the others'."""
    asked = set(words)
    layers = [_subject_layers(graph, s, asked, _entities_of(graph, [o.id for o in subjects if o.id != s.id]))
              for s in subjects]
    return _unique([item for depth in range(LAYERS)
                    for layer in layers for item in layer[depth]])


@dataclass
class _Layers:
    """An entity's mapping in the order an answer names it: what the writers of mapping
    questions list first is the entity, its tables and the code mapping it; then what the
    question asks of it (its named properties and the types they hold, the keys relating it to
    the other entities asked about, the kinds of it the question names); then where its
    columns are declared and its tables created, the other kinds of it, the code filling it
    from rows and the code building the model; the rest after that."""

    mapping: list[Related] = field(default_factory=list)
    asked: list[Related] = field(default_factory=list)
    storage: list[Related] = field(default_factory=list)
    more: list[Related] = field(default_factory=list)

    def parts(self) -> list[list[Related]]:
        return [self.mapping, self.asked, self.storage, self.more]


LAYERS = len(_Layers().parts())


def _subject_layers(graph: nx.MultiDiGraph, subject: Named, asked: set[str], others: Collection[str]
                    ) -> list[list[Related]]:
    """`_Layers.parts` of a subject's entities, each layer the entities' in turn (a table's
    entities first), without the subject itself."""
    if subject.kind in TABLE_KINDS:
        entities = sorted(s for s, _, k, d in graph.in_edges(subject.id, keys=True, data=True)
                          if k == "MAPS_TO" and graph.nodes[s].get("kind") == "TYPE" and d.get("via") != "owned_type")
        leading = [Related(t, "MAPS_TO", subject.id, "static") for t in entities]
    elif subject.kind == "TYPE" and _tables(graph, subject.id):
        entities, leading = [subject.id], []
    elif subject.kind == "TYPE":
        return [[i for i in _held_value(graph, subject.id, asked) if i.id != subject.id], [], [], []]
    else:
        return [[], [], [], []]
    parts = [_entity_mapping(graph, entity, asked, set(others) - {entity}).parts() for entity in entities]
    merged = [[i for part in parts for i in part[depth] if i.id != subject.id] for depth in range(LAYERS)]
    merged[0] = [*leading, *merged[0]]
    return merged


def _entities_of(graph: nx.MultiDiGraph, nodes: Collection[str]) -> set[str]:
    """The mapped entities among `nodes`, a table standing for the entities mapped to it."""
    found = {n for n in nodes if n in graph and graph.nodes[n].get("kind") == "TYPE" and _tables(graph, n)}
    return found | {s for n in nodes if n in graph and graph.nodes[n].get("kind") in TABLE_KINDS
                    for s, _, k in graph.in_edges(n, keys=True)
                    if k == "MAPS_TO" and graph.nodes[s].get("kind") == "TYPE"}


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


def _entity_mapping(graph: nx.MultiDiGraph, entity: str, asked: set[str], others: Collection[str] = (),
                    depth: int = 0) -> _Layers:
    """The entity's `_Layers`. Mapping: its tables (a read model's, filled from more than
    MAX_ENTITY_TABLES, in More) and join tables, the code configuring it by
    name or registering its table, and the code building its model when nothing else maps it.
    Asked: the asked properties with (one level down) the types they hold, their tables and
    mapping code, the tables a navigation leads to; the keys relating it to `others`; its
    mapped subtypes the question names; the code reading its rows when reading is asked. Storage: the model-building code, its other mapped
    subtypes, the code creating its tables, the code filling it from a data reader, the
    view's own table behind a view, the nearest base type declaring columns, its DbSets. More:
    the held types' other mapping, a view's other tables, the renamed columns, its repositories
    and, when the question speaks of converting, what converts it into other objects."""
    tables = [Related(t, "MAPS_TO", entity, resolution_of(d), via=d.get("via") or "") for t, d in _tables(graph, entity)]
    # a type filled from many tables is a query's result (a read model joining them), not an entity stored
    # in each: its tables come last, after how the asked ones are stored and read
    stored_in = tables if len(tables) <= MAX_ENTITY_TABLES else []
    layers = _Layers(list(stored_in))
    layers.more += [t for t in tables if t not in stored_in]
    code = [*configuring_code(graph, entity), *_registering_code(graph, entity)]
    layers.mapping += [*_join_tables(graph, entity), *code]
    model = _model_code(graph, entity) if depth == 0 else []
    (layers.storage if code else layers.mapping).extend(model)
    for prop in asked_properties(graph, entity, asked):
        layers.asked.append(Related(prop, "maps column", entity, "static"))
        held = property_type(graph, prop)
        if held and held != entity and depth == 0:
            layers.asked.append(Related(held, "type of", prop, "static"))
            if _tables(graph, held):
                inner = _entity_mapping(graph, held, asked, (), depth + 1)
                layers.asked += inner.mapping
                layers.more += [i for part in inner.parts()[1:] for i in part]
            else:
                layers.asked += [*configuring_code(graph, held), *_converters(graph, held)]
            if any(d.get("via") == "owned_type" for _, d in _tables(graph, held)):  # its properties: the owner's columns
                layers.asked += [Related(p, "maps column", held, "inferred") for p in _columns_of(graph, held)]
        layers.asked += _referenced_tables(graph, entity, prop)
    layers.asked += _keys(graph, entity, others, asks_for_keys=bool(KEY_WORDS & asked))
    if (READ_WORDS & asked or ROWS_AS_OBJECTS <= asked) and depth == 0:  # "which methods load them", "rows ... objects"
        layers.asked += _reading_code(graph, entity, asked)
    kinds = _mapped_subtypes(graph, entity) if depth == 0 else []
    named_kinds = [k for k in kinds if _shared_words(graph, k, asked - _name_words(graph, entity))]
    for kind in kinds:
        (layers.asked if kind in named_kinds else layers.more if depth else layers.storage).extend(_kind(graph, kind))
    if depth == 0:
        own_tables, other_tables = _view_tables(graph, entity)
        layers.storage += [*_creating_code(graph, entity), *_filling_code(graph, entity, asked), *own_tables,
                           *_column_bases(graph, entity)[:1]]
        layers.more += other_tables
    layers.storage += _dbsets(graph, entity)
    layers.more += [Related(p, "maps column", entity, "static") for p in _renamed_columns(graph, entity)]
    if depth == 0:
        layers.more += [*_repositories(graph, entity), *(_object_mappings(graph, entity, asked) if CONVERSION_WORDS & asked else [])]
    return layers


# What a question asking how the rows are read says ("which class are rows of T mapped to, and which
# methods load them"): the code reading them into the entity is asked with its mapping.
READ_WORDS = frozenset(keyword_tokens("load read query fetch select"))
ROWS_AS_OBJECTS = frozenset(keyword_tokens("row object"))  # "how are rows of T mapped to C# objects": read into them
MAX_READERS = 4  # the entity's readers named: the rest are more of the same reads


def _reading_code(graph: nx.MultiDiGraph, entity: str, asked: set[str]) -> list[Related]:
    """The application's methods reading the entity's tables: a read naming the entity (an ORM's
    or micro-ORM's type argument, `Query<SqlJob>`) first, then those sharing the question's words,
    then those called the most (the reads the application uses)."""
    reads = {s: d for table, _ in _tables(graph, entity)
             for s, _, k, d in graph.in_edges(table, keys=True, data=True)
             if k == "READS" and not is_guess(d) and graph.nodes[s].get("kind") == "METHOD" and not in_tests(graph, s)}
    ranked = sorted(reads, key=lambda s: (reads[s].get("entity") != entity, -len(_shared_words(graph, s, asked)),
                                          -len(_callers(graph, s)), s))
    return [Related(s, "READS", entity, resolution_of(reads[s]), via=reads[s].get("via") or "") for s in ranked[:MAX_READERS]]


# What a question about keys says ("what are their keys", "how are they keyed", "the foreign
# key"): the entity's key properties are asked. Not "identity": ASP.NET Identity is a name.
KEY_WORDS = frozenset(keyword_tokens("key primary foreign"))


def _keys(graph: nx.MultiDiGraph, entity: str, others: Collection[str], asks_for_keys: bool) -> list[Related]:
    """The properties carrying the entity's relationships to the `others` asked about: its
    navigations to them and the properties named by its tables' foreign-key columns to their
    tables; when the question asks for keys, also its primary-key properties and the
    properties of every foreign key of its tables."""
    props = _declared_columns(graph, entity)
    by_name = {graph.nodes[p]["name"].rsplit(".", 1)[-1].lower(): p for p in props}
    other_tables = {t for o in others for t, _ in _tables(graph, o)}
    found = [p for p in props if property_type(graph, p) in others]
    for table, _ in _tables(graph, entity):
        if asks_for_keys:
            found += [by_name[c.lower()] for c in graph.nodes[table].get("attrs", {}).get("primary_key") or ()
                      if c.lower() in by_name]
        found += [by_name[c.lower()] for _, target, k, d in sorted(graph.out_edges(table, keys=True, data=True))
                  if k == "FOREIGN_KEY" and (asks_for_keys or target in other_tables)
                  for c in d.get("columns", ()) if c.lower() in by_name]
    return [Related(p, "key", entity, "static") for p in dict.fromkeys(found)]


def _registering_code(graph: nx.MultiDiGraph, entity: str) -> list[Related]:
    """The methods that made the entity's MAPS_TO edges (a table registry's `Map()`, a method
    filling it from a data reader): its `mapped_by` or `by`."""
    code = [d.get("mapped_by") or d.get("by") for _, _, k, d in sorted(graph.out_edges(entity, keys=True, data=True))
            if k == "MAPS_TO"]
    return [Related(m, CONFIGURES, entity, "inferred", via="registry") for m in dict.fromkeys(code)
            if m and m in graph and graph.nodes[m].get("kind") == "METHOD"]


def _mapped_subtypes(graph: nx.MultiDiGraph, entity: str) -> list[str]:
    """The types deriving from the entity (at any depth) that an ORM maps: the kinds of it,
    stored in its table or in tables of their own."""
    found: list[str] = []
    queue = [entity]
    while queue:
        for sub, _, key in sorted(graph.in_edges(queue.pop(0), keys=True)):
            if key == "INHERITS" and graph.nodes[sub].get("kind") == "TYPE" and sub not in found and _tables(graph, sub):
                found.append(sub)
                queue.append(sub)
    return found


def _kind(graph: nx.MultiDiGraph, kind: str) -> list[Related]:
    """A mapped subtype: its mapping code and tables, then the type."""
    return [*configuring_code(graph, kind), *(Related(t, "MAPS_TO", kind, resolution_of(d), via=d.get("via") or "")
                                             for t, d in _tables(graph, kind)), Related(kind, "subtype", kind, "static")]


def _column_bases(graph: nx.MultiDiGraph, entity: str) -> list[Related]:
    """The entity's base types in the repository that declare instance properties, nearest
    first: its columns are declared there too."""
    return [Related(b, "base", entity, "static") for b in _bases(graph, entity) if _columns_of(graph, b)]


def _creating_code(graph: nx.MultiDiGraph, entity: str) -> list[Related]:
    """The migrations creating the entity's tables (a migration's `Up`; of a FluentMigrator
    class, the method holding the edge's line), not those dropping them."""
    found: list[Related] = []
    for table, _ in _tables(graph, entity):
        for source, _, k, d in sorted(graph.in_edges(table, keys=True, data=True)):
            if k == "REFERENCES" and d.get("operation") == "create_table" and not d.get("reverts"):
                found += [Related(m, "creates", table, resolution_of(d), via=d.get("via") or "")
                          for m in _enclosing_methods(graph, source, d.get("line") or 0)]
    return found


def _enclosing_methods(graph: nx.MultiDiGraph, source: str, line: int) -> list[str]:
    """`source` when it is a method; of a type, its method around `line`, else all of them."""
    if graph.nodes[source].get("kind") == "METHOD":
        return [source]
    methods = _members(graph, source, "METHOD")
    around = [m for m in methods if graph.nodes[m].get("start_line", 0) <= line <= graph.nodes[m].get("end_line", -1)]
    return around or methods


def _view_tables(graph: nx.MultiDiGraph, entity: str) -> tuple[list[Related], list[Related]]:
    """The tables the entity's views read, where the rows it is filled from are stored: the
    view's own table first (the one whose name shares the entity's words with the fewest
    others: `Issue` -> `BugNet_Issues`, not `BugNet_IssueVotes`), then the others."""
    tables = [Related(t, "READS", view, resolution_of(d)) for view, _ in _tables(graph, entity)
              if graph.nodes[view].get("kind") == "VIEW"
              for _, t, k, d in sorted(graph.out_edges(view, keys=True, data=True))
              if k == "READS" and graph.nodes[t].get("kind") == "TABLE"]
    words = _name_words(graph, entity)
    sharing = [t for t in tables if words & _name_words(graph, t.id)]
    own = sorted(sharing, key=lambda t: len(_name_words(graph, t.id) - words))[:1]
    return own, [t for t in tables if t not in own]


MAX_ENTITY_TABLES = 2  # an entity stored in more tables than this is a read model joining them
MAX_FILLING_CALLERS = 2  # the callers of a data-reader method named: the rest are more of the same load


def _filling_code(graph: nx.MultiDiGraph, entity: str, asked: set[str]) -> list[Related]:
    """Hand-written data access filling the entity: the methods calling the code that reads it
    from a data reader's columns, up to those that run the SQL, with the procedures they run.
    Those loading one object first (returning the entity itself, not a list of it), then those
    sharing the question's words, then those called the most (the load the application uses)."""
    readers = [s for s, _, k, d in graph.in_edges(entity, keys=True, data=True)
               if k == "REFERENCES" and d.get("via") == "data_reader" and graph.nodes[s].get("kind") == "METHOD"]
    found: list[Related] = []
    for reader in sorted(readers):
        between = [c for c in _callers(graph, reader) if not _procedures(graph, c)][:MAX_FILLING_CALLERS]
        running = [c for c in [*_callers(graph, reader), *(cc for c in between for cc in _callers(graph, c))]
                   if _procedures(graph, c)]
        running = sorted(dict.fromkeys(running), key=lambda c: (not _returns(graph, c, entity),
                                                                -len(_shared_words(graph, c, asked)),
                                                                -len(_callers(graph, c)), c))[:MAX_FILLING_CALLERS]
        found += [Related(c, "fills", entity, "static", indirect=True) for c in between]
        found += [r for c in running for r in (Related(c, "fills", entity, "static", indirect=True),
                                                *(Related(p, "runs", c, "static", indirect=True)
                                                  for p in _procedures(graph, c)))]
    return found


def _returns(graph: nx.MultiDiGraph, method: str, entity: str) -> bool:
    """Whether the method's declared return type is the entity (one of the guesses of its name)."""
    short = graph.nodes[entity].get("name", "").rsplit(".", 1)[-1]
    return any(r.rsplit(".", 1)[-1] == short for r in graph.nodes[method].get("attrs", {}).get("returns", ()))


def _callers(graph: nx.MultiDiGraph, method: str) -> list[str]:
    """The methods calling `method` in the application's code (not a test's)."""
    return sorted({s for s, _, k in graph.in_edges(method, keys=True)
                   if k == "CALLS" and graph.nodes[s].get("kind") == "METHOD" and not in_tests(graph, s)})


def _procedures(graph: nx.MultiDiGraph, method: str) -> list[str]:
    return sorted({t for _, t, k in graph.out_edges(method, keys=True)
                   if k == "CALLS" and graph.nodes[t].get("kind") == "PROCEDURE"})


# What a question about converting the entity into other objects says ("how is a row turned into
# what the API returns", "the DTO", "converted to the view model"): without it a conversion is
# one of many uses of the entity, not how it is stored.
CONVERSION_WORDS = frozenset(keyword_tokens("turned converted transformed returns dto api resource"))
MAX_OBJECT_MAPPINGS = 3  # the conversions of an entity named: a DTO per screen would crowd out the rest


def _object_mappings(graph: nx.MultiDiGraph, entity: str, asked: set[str]) -> list[Related]:
    """What turns the entity's objects into others (a DTO, an API resource) and back: an
    object-mapping profile's `CreateMap` between it and another type (REFERENCES with
    `mapped_by`, `index/csharp/object_mapping.py`), and static methods taking the entity as
    their one parameter and returning another type of the repository (`ToResource(this
    History model)`); each with the other type. Those sharing the question's words first."""
    mapped = [*((d, t) for _, t, k, d in graph.out_edges(entity, keys=True, data=True) if k == "REFERENCES"),
              *((d, s) for s, _, k, d in graph.in_edges(entity, keys=True, data=True) if k == "REFERENCES")]
    pairs = sorted((d["mapped_by"], other) for d, other in mapped
                   if d.get("via") == "object_mapping" and d.get("mapped_by") in graph)
    short = graph.nodes[entity].get("name", "").rsplit(".", 1)[-1]
    for method, data in sorted(graph.nodes(data=True)):
        attrs = data.get("attrs") or {}
        if data.get("kind") == "METHOD" and "static" in attrs.get("modifiers", ()) \
                and [p.rsplit(".", 1)[-1] for p in attrs.get("parameters", ())] == [short]:
            returned = next((t for t in (node_id("csharp", r, "TYPE") for r in attrs.get("returns", ())) if t in graph), None)
            if returned and returned != entity:
                pairs.append((method, returned))
    pairs = sorted(dict.fromkeys(pairs), key=lambda p: -len(_shared_words(graph, p[0], asked) | _shared_words(graph, p[1], asked)))
    return [r for method, other in pairs[:MAX_OBJECT_MAPPINGS]
            for r in (Related(method, "converts", entity, "inferred", via="object_mapping"),
                      Related(other, "converted to", entity, "inferred", via="object_mapping"))]


def _repositories(graph: nx.MultiDiGraph, entity: str) -> list[Related]:
    """The repository classes of the entity: classes deriving from a generic class of the
    repository with the entity as its type argument (`AppIndexerMapRepository :
    BasicRepository<AppIndexerMap>`); not a library's generic base (`IComparer<T>`,
    `IEntityTypeConfiguration<T>`), nor an interface."""
    name = graph.nodes[entity].get("name", "")
    found = []
    for node, data in sorted(graph.nodes(data=True)):
        attrs = data.get("attrs") or {}
        if data.get("kind") != "TYPE" or attrs.get("type_kind") == "interface":
            continue
        bases = {base.get("name") for base in attrs.get("generic_bases", ())
                 if any(name in guesses for guesses in base.get("arguments", ()))}
        if bases and any(k == "INHERITS" and graph.nodes[b].get("name", "").rsplit(".", 1)[-1] in bases
                         and graph.nodes[b].get("path") and graph.nodes[b].get("attrs", {}).get("type_kind") != "interface"
                         for _, b, k in graph.out_edges(node, keys=True)):
            found.append(Related(node, "repository of", entity, "static"))
    return found


def _shared_words(graph: nx.MultiDiGraph, node: str, asked: Collection[str]) -> set[str]:
    return set(asked) & _name_words(graph, node)


def _name_words(graph: nx.MultiDiGraph, node: str) -> set[str]:
    return set(keyword_tokens(graph.nodes[node].get("name", "").rsplit(".", 1)[-1]))


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


def _declared_columns(graph: nx.MultiDiGraph, entity: str) -> list[str]:
    """The entity's instance properties, those its base types declare after its own."""
    return [p for t in [entity, *_bases(graph, entity)] for p in _columns_of(graph, t)]


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
