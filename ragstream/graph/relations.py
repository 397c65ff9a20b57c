"""Relations the graph holds, walked: what relates to a node, what breaks when it changes, the
paths from an entry point down to the tables; from the edges, complete.

A table's incoming WRITES edges are the procedures that write to it; what reads, writes or maps
a table and names a column breaks when the column is renamed; the paths from an entry point
along CALLS to the tables it reads or writes show how something is saved. Search alone finds a
few of these; the graph holds all of them. Every item keeps how its edge was made, so a guess
(`by_name`) is shown as one. Pure functions over the (filtered) graph the caller hands in: a
node the caller may not see is never reached. The question is read elsewhere
(`questions.py`): here it is only the words and relations it asks for (`answers.py` joins the
two).
"""
from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx

from ragstream.graph.action_verbs import said_actions
from ragstream.graph.entry_faces import FRAMEWORK_FACES, JOB, counterpart, entry_face, framework_contract
from ragstream.graph.expansion import name_key
from ragstream.graph.named import Named
from ragstream.graph.stand_ins import declared_only, is_constructor
from ragstream.index.csharp.call_resolution import ancestors
from ragstream.index.csharp.calls import THIS
from ragstream.index.csharp.data_access import SAVES
from ragstream.index.csharp.ef_graph import MODEL_MAPPINGS, configuring_code
from ragstream.index.csharp.ef_migrations import FLUENT_VIA, VIA as EF_MIGRATION_VIA
from ragstream.index.dispatch import single_receiver
from ragstream.index.model import not_walked, runs_around
from ragstream.keyword_tokens import identifier_parts, keyword_tokens
from ragstream.test_paths import in_tests

TABLE_KINDS = ("TABLE", "VIEW")
ENQUEUED = "enqueued"  # a call a job library runs later (attrs `enqueued_by`, `index/csharp/job_handoffs`)
DATA_EDGES = ("READS", "WRITES", "MAPS_TO", "FOREIGN_KEY", "REFERENCES", "CALLS")
# calls from an entry point down to a table: a layered application goes controller -> repository
# -> an active record's template method -> its override -> a static service -> the configured
# provider -> the helper that runs the SQL, ten calls deep
MAX_FLOW_DEPTH = 10
MAX_ENTRY_DEPTH = 8  # calls between a search hit and an entry point above it (or a hit below one)
MAX_FLOW_PATHS = 12
MAX_FLOW_VISITS = 3000
_PLACE_ORDER: dict[str | None, int] = {"FILE": 1, "EXTERNAL": 2}
_MIGRATION_NESTING = 3  # a migration's member, or a member of a class nested in it, up to the migration
MIGRATION_VIAS = (EF_MIGRATION_VIA, FLUENT_VIA)  # a migration's schema operations (REFERENCES `via`)
STORED_IN = "stored in"  # the table a mapped property's column is in
CONFIGURES = "configures"  # the mapping code that configures a property
THROUGH_REPOSITORY = "calls a caller"  # calls (through an interface) the code that runs a table's procedure
ENTRY_SEARCH_HITS = 3  # the best method hits whose callers may hold a flow's entry point


@dataclass(frozen=True)
class Related:
    """One answer item: a node, how it relates to the subject, how that edge was made."""

    id: str
    relation: str  # WRITES, READS, ...; "names column" for a text match
    subject: str  # the named object's id
    resolution: str  # the edge's resolution (static, inferred, dispatch, by_name, ...) or "text"
    indirect: bool = False  # reached through one more hop (a caller of a writer, a procedure it runs)
    via: str = ""  # the construct that made the edge (its `via` attribute: type_argument, message, ...)

    @property
    def guess(self) -> bool:
        return "by_name" in self.resolution or "guess" in self.resolution


@dataclass(frozen=True)
class Path:
    nodes: tuple[str, ...]
    edges: tuple[str, ...]  # the edge type (and resolution when not static) between each pair

    @property
    def guess(self) -> bool:
        return any("by_name" in edge or "guess" in edge for edge in self.edges)

    @property
    def enqueued(self) -> bool:
        """The path crosses a job hand-off (`BackgroundJob.Enqueue(() => ..)`): a job does the rest later."""
        return any(ENQUEUED in edge for edge in self.edges)


@dataclass
class GraphAnswer:
    shape: str  # list | impact | mapping | flow
    subjects: list[Named]
    relations: tuple[str, ...] = ()  # the edge types asked about
    items: list[Related] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)
    calls: list[Related] = field(default_factory=list)  # a flow's first path's other calls (`side_calls`)
    # a flow's calls of methods of the entities its paths read or write (`entity_changes`)
    changes: list[Related] = field(default_factory=list)
    # the context members a flow's table accesses go through (`data_carriers`), each by its table
    carriers: list[Related] = field(default_factory=list)
    # what runs around a flow's saves: interceptors, the handlers of the events it raises (`around_saves`)
    around: list[Related] = field(default_factory=list)

    def node_ids(self, graph: nx.MultiDiGraph) -> list[str]:
        """Everything the answer ranks, subjects first (a column with its table), then items and
        path nodes in order, a method's other overloads last (`repeated_names_last`)."""
        ids = [i for s in self.subjects for i in (s.id, *([s.table] if s.table else []))]
        ids += [i.id for i in self.items]
        # a flow's side calls are shown, not ranked: as evidence they cost the paths' nodes and the
        # search's hits more than they gave (issue 36, docs/EVALUATION.md); the changes it makes
        # to the entities it saves are part of how it saves them
        ids += path_nodes([path.nodes for path in self.paths])
        ids += [change.id for change in self.changes]  # what runs before where the code names the table
        ids += [step.id for step in self.around]  # what the save runs, and the events it publishes
        ids += [carrier.id for carrier in self.carriers]
        return repeated_names_last(graph, list(dict.fromkeys(ids)))


def repeated_names_last(graph: nx.MultiDiGraph, ids: list[str]) -> list[str]:
    """`ids` with those whose name an earlier one has (another overload of a method: `M(int)`
    after `M(int,bool)`; a table in another schema) after all the others, each part in its
    order: a ranked answer names each method once before it names any twice, as a list of ten
    filled with one method's overloads says less than ten methods (issue 36)."""
    seen: set[tuple[str, str]] = set()
    first: list[str] = []
    repeated: list[str] = []
    for node in ids:
        name = name_key(graph, node) if node in graph else ("", node)
        (repeated if name in seen else first).append(node)
        seen.add(name)
    return [*first, *repeated]


def path_nodes(paths: Sequence[Sequence[str]]) -> list[str]:
    """The nodes of a flow's paths in their order, each path followed by the tables the other
    paths reach from its last method: a method's tables belong together, and one path per
    (method, table) would otherwise spread them over the whole answer."""
    ids: list[str] = []
    for nodes in paths:
        ids += [*nodes, *(other[-1] for other in paths if len(nodes) > 1 and len(other) > 1 and other[-2] == nodes[-2])]
    return list(dict.fromkeys(ids))


MAX_SIDE_CALLS = 5


def side_calls(graph: nx.MultiDiGraph, paths: Sequence[Path]) -> list[Related]:
    """What the first path's methods call besides the path, in the repository and not in tests:
    the domain methods a flow runs on its way to the tables (`order.AddItem(...)`,
    `instructor.UpdateDetails(...)`), which reach no table themselves. At most MAX_SIDE_CALLS:
    the methods of entities (types mapped to a table) first, then the others, each in the path's
    order; an interface's method a call was dispatched through gives way to its implementations;
    no guess, no constructor."""
    if not paths:
        return []
    on_paths = {node for path in paths for node in path.nodes}
    found: list[Related] = []
    for method in paths[0].nodes[:-1]:
        for _, target, key, data in sorted(graph.out_edges(method, keys=True, data=True)):
            resolution = resolution_of(data)
            if key != "CALLS" or target in on_paths or "guess" in resolution or "by_name" in resolution \
                    or not _domain_method(graph, target):
                continue
            found.append(Related(target, "CALLS", method, resolution, via=data.get("via") or ""))
    through = {item.via for item in found}
    entities = {item.id: _mapped(graph, graph.nodes[item.id].get("parent")) for item in found}
    return sorted(_unique([item for item in found if item.id not in through]),
                  key=lambda item: not entities[item.id])[:MAX_SIDE_CALLS]


def entity_changes(graph: nx.MultiDiGraph, paths: Sequence[Path]) -> list[Related]:
    """The methods of an entity that a path's method reads or writes (its data edges' `entity`)
    called from that method: the change a flow saves (`project.AddItem(item)` before
    `repository.UpdateAsync(project)`), which reaches no table itself. The data edge ties the
    call to the flow, so a call typed by a guess (what a library's repository returns) counts,
    shown as the guess it is; constructors and tests never."""
    on_paths = {node for path in paths for node in path.nodes}
    found: list[Related] = []
    for method in dict.fromkeys(node for path in paths for node in path.nodes[:-1]):
        edges = sorted(graph.out_edges(method, keys=True, data=True))
        entities = {data["entity"] for _, _, key, data in edges if key in ("READS", "WRITES") and data.get("entity")}
        found += _calls_into(graph, method, entities, on_paths)
    # and what those methods run of the same entities (`Handle` -> `UpdateDetails`), one level on
    found += [inner for change in list(found)
              for inner in _calls_into(graph, change.id, {graph.nodes[change.id].get("parent")}, on_paths)]
    return _unique(found)


def around_saves(graph: nx.MultiDiGraph, paths: Sequence[Path], changes: Sequence[Related]) -> list[Related]:
    """What runs around a flow's saves, which reaches no table of its own: each EF interceptor a
    path's method saves through (`via="interceptor"`), as the repository methods its hook runs
    (`AuditableEntityInterceptor.UpdateEntities`), else the hook itself; then the handlers of the
    domain events the paths' methods and their changes raise (`via="domain_event"`: `ToDoItem.
    MarkComplete` -> `ItemCompletedEmailNotificationHandler.Handle`), which the interceptor's
    dispatcher publishes; the dispatcher only when the flow raises one (else it publishes nothing
    of this flow's). In path order; nothing already on a path; no test."""
    on_paths = {node for path in paths for node in path.nodes}
    methods = list(dict.fromkeys([*(node for path in paths for node in path.nodes[:-1]), *(c.id for c in changes)]))
    handlers = [Related(handler, "handles", method, resolution_of(data), via="domain_event")
                for method in methods for _, handler, key, data in sorted(graph.out_edges(method, keys=True, data=True))
                if key == "CALLS" and data.get("via") == "domain_event"]
    hooks = [Related(hook, "runs around", method, resolution_of(data), via="interceptor")
             for method in methods for _, hook, key, data in sorted(graph.out_edges(method, keys=True, data=True))
             if key == "CALLS" and data.get("via") == "interceptor"]
    steps = [Related(step, hook.relation, hook.subject, hook.resolution, via=hook.via) for hook in _unique(hooks)
             for step in ([c.id for c in _calls_into(graph, hook.id, {graph.nodes[hook.id].get("parent")}, on_paths,
                                                     plain=True)] or [hook.id])]
    steps = [step for step in steps if handlers or not _dispatches(graph, step.id)]
    return [item for item in _unique([*steps, *handlers]) if item.id not in on_paths and not in_tests(graph, item.id)]


MAX_FILTER_CALLS = 3  # of what a filter's hook runs, the first few stated calls


def around_request(graph: nx.MultiDiGraph, paths: Sequence[Path]) -> list[Related]:
    """What runs around a flow's entry points: the ASP.NET filters (`via="request_filter"`: a
    filter attribute on the action or its controller, a page or action filter registered for
    every request), each hook followed by the repository methods it calls (`DbContextTransaction-
    PageFilter.OnPageHandlerExecutionAsync` -> `SchoolContext.CommitTransactionAsync`: the commit
    of a handler that never saves). In the entries' order; nothing on a path; no test."""
    on_paths = {node for path in paths for node in path.nodes}
    found: list[Related] = []
    for entry in dict.fromkeys(path.nodes[0] for path in paths):
        for _, hook, key, data in sorted(graph.out_edges(entry, keys=True, data=True)):
            if key != "CALLS" or data.get("via") != "request_filter":
                continue
            found.append(Related(hook, "runs around", entry, resolution_of(data), via="request_filter"))
            found += [Related(target, "CALLS", hook, resolution_of(call), via=call.get("via") or "")
                      for _, target, kind, call in sorted(graph.out_edges(hook, keys=True, data=True))
                      if kind == "CALLS" and _domain_method(graph, target)
                      and resolution_of(call) in ("static", "inferred")][:MAX_FILTER_CALLS]
    return [item for item in _unique(found) if item.id not in on_paths and not in_tests(graph, item.id)]


def _dispatches(graph: nx.MultiDiGraph, method: str) -> bool:
    """The method publishes collected domain events (`domain_events`: its `dispatcher` edges)."""
    return any(data.get("dispatcher") for _, _, data in graph.out_edges(method, data=True))


def data_carriers(graph: nx.MultiDiGraph, paths: Sequence[Path]) -> list[Related]:
    """What a path's last step reaches its table through, each with the table as its subject:
    the property (`db.Orders.Add(o)`: the context's `DbSet<Order> Orders`; the data edge's
    `property`) and the methods called on that line (`orders.Add(o)` on an `IRepository<Order>`:
    the repository's `Add`, as implemented; the method a write was forwarded through, `Add(object
    entity)`); and the unit of work a writing path's method saves
    (`SaveChangesAsync`, as implemented). Where the code names the table it never names in SQL,
    and where the write happens."""
    found = []
    for path in paths:
        if len(path.nodes) < 2:
            continue
        method, table = path.nodes[-2], path.nodes[-1]
        for key, data in sorted((graph.get_edge_data(method, table) or {}).items()):
            if key not in ("READS", "WRITES"):
                continue
            found += [Related(prop, f"{key} through", table, resolution_of(data), via=data.get("via") or "")
                      for prop in (_implemented(graph, data["property"]) if data.get("property") in graph else [])]
            found += [Related(callee, f"{key} through", table, resolution_of(call), via=call.get("via") or "")
                      for callee, call in _called(graph, method, (data.get("member"),), line=data.get("line"))]
            if data.get("forwarder") in graph:  # `Repository.Add(entry)`: the method that hands it to the ORM
                found.append(Related(data["forwarder"], f"{key} through", table, resolution_of(data), via="forwarded"))
            if key == "WRITES":
                found += [Related(callee, "saves", table, resolution_of(call))
                          for callee, call in _called(graph, method, SAVES)]
    return list({item.id: item for item in found}.values())


def _called(graph: nx.MultiDiGraph, method: str, names: Collection[str | None],
            line: int | None = None) -> list[tuple[str, dict]]:
    """The repository's production methods named one of `names` that `method` calls (on `line`,
    if given), with the call's edge data, as implemented: an interface method a call was
    dispatched through gives way to its implementations (a test's fake implements it too, and
    is never one of them)."""
    chosen = [(target, data) for _, target, key, data in graph.out_edges(method, keys=True, data=True)
              if key == "CALLS" and graph.nodes[target].get("path") and graph.nodes[target].get("kind") == "METHOD"
              and graph.nodes[target].get("name", "").rsplit(".", 1)[-1] in names
              and (line is None or data.get("line") == line) and not in_tests(graph, target)]
    through = {data.get("via") for _, data in chosen}
    return list({target: data for target, data in chosen if target not in through}.items())


def _implemented(graph: nx.MultiDiGraph, member: str) -> list[str]:
    """An interface's member as the types implementing the interface declare it (the context's
    `DbSet<Order> Orders` for `IShopContext.Orders`); the member itself when none does."""
    data = graph.nodes[member]
    owner, name = data.get("parent"), data.get("name", "").rsplit(".", 1)[-1]
    implementations = [child for child, _, key in graph.in_edges(owner, keys=True)
                       if key in ("IMPLEMENTS", "INHERITS") and not in_tests(graph, child)] if owner in graph else []
    found = [m for t in implementations for _, m, key in graph.out_edges(t, keys=True)
             if key == "DEFINES" and graph.nodes[m].get("kind") == data.get("kind")
             and graph.nodes[m].get("name", "").rsplit(".", 1)[-1] == name]
    return found or [member]


def _calls_into(graph: nx.MultiDiGraph, method: str, types: Collection[str | None], skip: Collection[str],
                plain: bool = False) -> list[Related]:
    """The calls from `method` to methods (not constructors, not tests) declared on `types`, and
    to their properties whose setters run code (`item.Done = true`: `via="setter"`); with
    `plain`, only calls the code states (no dispatch, no guess)."""
    return [Related(target, "CALLS", method, resolution_of(data), via=data.get("via") or "")
            for _, target, key, data in sorted(graph.out_edges(method, keys=True, data=True))
            if key == "CALLS" and target not in skip and target != method
            and graph.nodes[target].get("parent") in types
            and (_domain_method(graph, target) or data.get("via") == "setter")
            and not (plain and resolution_of(data) not in ("static", "inferred"))]


def _domain_method(graph: nx.MultiDiGraph, node: str) -> bool:
    """A method of the repository's own code: not a library's, not a test's, not a constructor
    (`Order.Order`: wiring)."""
    data = graph.nodes[node]
    return data.get("kind") == "METHOD" and bool(data.get("path")) and not in_tests(graph, node) \
        and not is_constructor(graph, node)


def by_relevance(graph: nx.MultiDiGraph, items: list[Related], words: Collection[str],
                 relations: tuple[str, ...], hits: list[str], running: bool = False) -> list[Related]:
    """Every item still, best first: production code before tests (which exercise the code
    rather than being it), the repository's code (also one hop further) before scripts (a seed
    script writing every table; with `running`, a list of the code that does what was asked as
    the application runs, a schema migration's code too: `place_rank`) and before what lies
    outside it (a library's function), direct
    before one more hop and that before two (`THROUGH_REPOSITORY`), a mapped property (and the
    table it is stored in) before the code, the asked relations in their order (`relations`), the
    mapping code configuring the property (it states the column's name, type and length) before
    code found otherwise, a write the code states before one guessed from an aggregate's
    collections (`via="aggregate"`: adding a member "writes" its votes only if it holds new ones),
    an entity mapped to a table before the DbSet property handling it (`via="dbset"`, named alike),
    then what the search ranked (`hits`,
    best first: it read the code and the question), then items whose names share the asked
    keyword tokens (`words`: "job details" -> `JobDetails`), then by id."""
    asked = set(words)
    order = {relation: n for n, relation in enumerate(("maps column", STORED_IN, *relations, CONFIGURES))}
    searched = {hit: rank for rank, hit in reversed(list(enumerate(hits)))}

    def key(item: Related) -> tuple:
        data = graph.nodes[item.id] if item.id in graph else {}
        shared = len(asked & set(keyword_tokens(data.get("name", item.id).rsplit(".", 1)[-1])))
        return (in_tests(graph, item.id), place_rank(graph, item.id, running), item.indirect, item.relation == THROUGH_REPOSITORY,
                order.get(item.relation, len(order)), item.via == "aggregate", item.via == "dbset",
                searched.get(item.id, len(hits)), -shared,
                item.id)

    return sorted(items, key=key)


def place_rank(graph: nx.MultiDiGraph, node: str, running: bool = False) -> int:
    """Where an answer item lies: 0 the repository's code, 1 a script that created or altered a
    table, 2 what is not defined in the repository (a library's function): lists go in that order.
    A migration's revert (`reverting_migration`: its `Down`, run only to roll it back) is such a
    script; with `running` (what the application's code does as it runs is asked: "which code
    writes T", "which tasks delete rows with SQL") so is all of a schema migration's code
    (`schema_migration`): it did that once, when it was applied. What breaks when a table or column
    changes keeps the migration's `Up` with the code: it declares the column, by its name and type."""
    if node not in graph:
        return 0
    script = schema_migration(graph, node) if running else reverting_migration(graph, node)
    return _PLACE_ORDER.get(graph.nodes[node].get("kind"), 0) or (1 if script else 0)


def reverting_migration(graph: nx.MultiDiGraph, node: str) -> bool:
    """`node` is a migration's method whose schema operations all revert it (the indexer marks
    `Down`'s `reverts=True`): it undoes what an earlier `Up` made, so it declares nothing."""
    operations = [data for _, _, key, data in graph.out_edges(node, keys=True, data=True)
                  if key == "REFERENCES" and data.get("via") in MIGRATION_VIAS]
    return bool(operations) and all(data.get("reverts") for data in operations)


def schema_migration(graph: nx.MultiDiGraph, node: str) -> bool:
    """`node` is a schema migration's code: a class the indexer read as one (`ef_role="migration"`:
    Entity Framework's `Migration`, a FluentMigrator `[Migration(n)]`) or a member of it. Like a
    script it creates, alters, drops or fills tables once, in a deployment's history, not as the
    application runs. The tables and columns a migration declares are the schema itself, not its code."""
    data = graph.nodes[node]
    if data.get("kind") in (*TABLE_KINDS, "COLUMN"):
        return False
    for _ in range(_MIGRATION_NESTING):
        if (data.get("attrs") or {}).get("ef_role") == "migration":
            return True
        parent = data.get("parent")
        if parent not in graph:
            return False
        data = graph.nodes[parent]
    return False


def related(graph: nx.MultiDiGraph, subject: Named, relations: tuple[str, ...],
            wants_tables: bool = False, operations: Collection[str] = ()) -> list[Related]:
    """What relates to `subject` by `relations`: a table's readers/writers (incoming edges, and the
    callers of those that are procedures: the code that runs them), a procedure's or method's tables
    (outgoing edges, with the procedures it runs), complete. With `operations` (INSERT, UPDATE,
    DELETE: "which procedures insert rows into T"), a table's writers known to write it otherwise
    only are left out (`written_as`)."""
    node = subject.id
    if subject.kind in TABLE_KINDS and not (wants_tables and relations != ("FOREIGN_KEY",)):
        items = _edges(graph.in_edges(node, keys=True, data=True), relations, node, source_side=True)
        if operations:
            items = [i for i in items if i.relation != "WRITES" or written_as(graph, i.id, node) & set(operations)
                     or not written_as(graph, i.id, node)]
        # the code that runs a procedure reading or writing the table reads or writes it too, one hop further
        procedures = [i for i in items if graph.nodes[i.id].get("kind") == "PROCEDURE"]
        runners = _callers(graph, procedures, node)
        return _unique([*items, *runners, *_repository_callers(graph, [*items, *runners], node)])
    items = _edges(graph.out_edges(node, keys=True, data=True), relations, node, source_side=False)
    for callee in _called_procedures(graph, node):  # EXEC of another procedure: its tables too
        items += [Related(i.id, i.relation, node, i.resolution, indirect=True, via=i.via)
                  for i in _edges(graph.out_edges(callee, keys=True, data=True), relations, node, source_side=False)]
    return _unique(items)


# How an ORM call writes (its method's verb), as SQL would; a merge or save is both an insert and an update.
_VERB_OPERATIONS = (("Add", "INSERT"), ("Insert", "INSERT"), ("Create", "INSERT"), ("Persist", "INSERT"),
                    ("Update", "UPDATE"), ("Attach", "UPDATE"), ("ExecuteUpdate", "UPDATE"), ("Remove", "DELETE"),
                    ("Delete", "DELETE"), ("ExecuteDelete", "DELETE"), ("BulkInsert", "INSERT"),
                    ("BulkUpdate", "UPDATE"), ("BulkDelete", "DELETE"), ("Clear", "DELETE"))
_IMPLIED = {"MERGE": {"INSERT", "UPDATE", "MERGE"}, "TRUNCATE": {"DELETE", "TRUNCATE"}}


def written_as(graph: nx.MultiDiGraph, writer: str, table: str) -> set[str]:
    """How `writer` writes `table`: the SQL statements' operations (`operations` of the WRITES
    edge: INSERT, UPDATE, DELETE, MERGE, TRUNCATE), else the ORM verb's (`member`: `Add` inserts,
    a tracked change updates); empty when unknown (a save, an aggregate's collection)."""
    data = (graph.get_edge_data(writer, table) or {}).get("WRITES") or {}
    found = set(data.get("operations") or ())
    if not found and data.get("via") == "change_tracking":
        found = {"UPDATE"}
    elif not found and data.get("member") and data.get("via") not in ("aggregate", "navigation"):
        found = {op for verb, op in _VERB_OPERATIONS if str(data["member"]).startswith(verb)}
    return {implied for op in found for implied in _IMPLIED.get(op, {op})}


def impact_of(graph: nx.MultiDiGraph, subject: Named,
              text_of: Callable[[list[str]], dict[str, str]]) -> list[Related]:
    """What breaks when `subject` is renamed or changed: for a column, every reader, writer and
    mapped type of its table whose code names the column, and its foreign keys; for a table,
    everything that reads, writes, maps or references it, and the callers of those; for a C#
    property an ORM maps to a column, that column's impact; for code, its callers,
    implementers and referrers."""
    if subject.kind == "PROPERTY":
        columns = property_columns(graph, subject.id)
        owner = graph.nodes[subject.id].get("parent")
        tables = [t for _, t, k in graph.out_edges(owner, keys=True) if k == "MAPS_TO"] if owner in graph else []
        # the table holding the property's column changes with it, as a column's table is cited with the column
        stored = [Related(t, STORED_IN, subject.id, "inferred") for t in tables if graph.nodes[t].get("kind") in TABLE_KINDS]
        twins = [Related(twin, "mapped from", subject.id, "by_name", via="object_mapping") for twin in mapped_twins(graph, subject.id)]
        twins += [*foreign_key_navigations(graph, subject.id), *configuring(graph, subject.id), *mapping_uses(graph, subject.id)]
        if not columns:  # a column no script declares: the code that names the property, by its tables
            naming = _naming(graph, tables, [subject.name.rsplit(".", 1)[-1]], subject.id, text_of)
            naming += property_users(graph, subject.id, text_of)
            return _unique([*stored, *twins, *naming, *_callers(graph, naming, subject.id)])
        return _unique([*(Related(column, "maps column", subject.id, "inferred") for column in columns), *stored, *twins,
                        *(item for column in columns for item in impact_of(graph, Named(
                            column, "COLUMN", graph.nodes[column]["name"], "column", graph.nodes[column].get("parent")),
                            text_of) if item.id != subject.id)])
    if subject.kind == "COLUMN":
        table = subject.table
        if table is None:  # a column whose table the caller may not see: nothing to follow
            return []
        column = subject.name.rsplit(".", 1)[-1]
        keys = [Related(other, "FOREIGN_KEY", subject.id, resolution_of(data), via=data.get("via") or "")
                for other, data in _foreign_keys_on(graph, table, column)]
        # the key's other side changes with it (`Orders.CustomerID` when `Customers.CustomerID` does),
        # and so do the properties filled from it (`Order.CustomerId`)
        other_side = [Related(other, "FOREIGN_KEY", subject.id, resolution_of(data), via=data.get("via") or "")
                      for other, data in _foreign_key_columns(graph, table, column)]
        other_side += [Related(item.id, "FOREIGN_KEY", subject.id, item.resolution, via="foreign_key")
                       for key in list(other_side) for item in _mapped_properties(
                           graph, graph.nodes[key.id]["parent"], key.id, graph.nodes[key.id]["name"].rsplit(".", 1)[-1])]
        mapped = _mapped_properties(graph, table, subject.id, column)
        # code names the column, or the property an ORM fills from it (`[Column("FirstName")] FirstMidName`)
        words = [column, *(graph.nodes[item.id]["name"].rsplit(".", 1)[-1] for item in mapped)]
        owners = {graph.nodes[item.id].get("parent") for item in mapped}  # a mapped property stands for its type
        naming = [item for item in _naming(graph, [table], words, subject.id, text_of) if item.id not in owners]
        naming += [user for item in mapped for user in property_users(
            graph, item.id, text_of, (graph.get_edge_data(item.id, subject.id, key="MAPS_TO") or {}).get("entity"))]
        twins = [Related(twin, "mapped from", item.id, "by_name", via="object_mapping") for item in mapped
                 for twin in mapped_twins(graph, item.id)]
        twins += [related for item in mapped for related in (
            *foreign_key_navigations(graph, item.id), *configuring(graph, item.id), *mapping_uses(graph, item.id))]
        twins += [related for item in other_side if graph.nodes[item.id].get("kind") == "PROPERTY"
                  for related in configuring(graph, item.id)]
        return _unique([*mapped, *other_side, *twins, *naming, *keys, *_callers(graph, naming, subject.id)])
    edges = (*DATA_EDGES, "IMPLEMENTS", "INHERITS") if subject.kind not in TABLE_KINDS else DATA_EDGES
    direct = _edges(graph.in_edges(subject.id, keys=True, data=True), edges, subject.id, source_side=True)
    if subject.kind in ("METHOD", "FUNCTION"):  # what a changed method does to the data changes with it
        direct += _edges(graph.out_edges(subject.id, keys=True, data=True), ("WRITES",), subject.id, source_side=False)
    if subject.kind in TABLE_KINDS:  # a join table no entity maps: the mapping code that names it,
        direct += joining(graph, subject.id)  # and the code that uses the navigations it stands for
        direct += [user for prop in join_navigations(graph, subject.id) for user in property_users(graph, prop, text_of)]
    return _unique([*direct, *_callers(graph, direct, subject.id), *_rows_written_to(graph, direct, subject.id)])


def _rows_written_to(graph: nx.MultiDiGraph, direct: list[Related], table_type: str) -> list[Related]:
    """The tables the procedures taking a table type as a parameter write (`CreatePayments
    @payments PaymentsTable READONLY` inserts its rows into `Payment`): a column added to the
    type is a column the rows bring to them."""
    procedures = [item.id for item in direct if graph.nodes[item.id].get("kind") == "PROCEDURE"
                  and any(d.get("role") == "parameter_type" for d in (graph.get_edge_data(item.id, table_type) or {}).values())]
    return [Related(table, "receives its rows", table_type, resolution_of(data), indirect=True)
            for procedure in procedures for _, table, key, data in sorted(graph.out_edges(procedure, keys=True, data=True))
            if key == "WRITES" and graph.nodes[table].get("kind") in TABLE_KINDS]


def undeclared_column_impact(graph: nx.MultiDiGraph, table: str, column: str,
                             text_of: Callable[[list[str]], dict[str, str]]) -> list[Related]:
    """What breaks when a column that no script or property declares is renamed (EF's shadow
    foreign key `ProjectId` of `ToDoItems`, made from `Project.Items`): the table's readers and
    writers whose SQL names it (in C#, a `ProjectId` is a property or a type of that name), their
    callers and those callers' callers, and for `XId` the collections of a
    mapped entity `X` that hold the table's entity (the relationship the key stands for, by EF's
    convention: a guess)."""
    naming = _naming(graph, [table], [column], table, text_of, sql_only=True)
    callers = _callers(graph, naming, table)
    # few name such a column (its SQL only), so their callers' callers too: the action sending the query
    return _unique([*naming, *_shadow_key_navigations(graph, table, column), *callers,
                    *_callers(graph, callers, table)])


def _shadow_key_navigations(graph: nx.MultiDiGraph, table: str, column: str) -> list[Related]:
    if len(column) <= 2 or not column.endswith("Id"):
        return []
    held = {s for s, _, k in graph.in_edges(table, keys=True) if k == "MAPS_TO" and graph.nodes[s].get("kind") == "TYPE"}
    principals = [n for n, data in graph.nodes(data=True) if data.get("kind") == "TYPE"
                  and data.get("name", "").rsplit(".", 1)[-1] == column[:-2] and _mapped(graph, n)]
    return [Related(m, "relationship of", table, "inferred, guess", via="fk_convention")
            for principal in sorted(principals) for _, m, k in sorted(graph.out_edges(principal, keys=True))
            if k == "DEFINES" and held & _held_types(graph, m)]


def configuring(graph: nx.MultiDiGraph, prop: str) -> list[Related]:
    """The mapping code that configures a property (`builder.Property(c => c.Name).HasMaxLength(100)`,
    FluentNHibernate's `Map(x => x.Name)`: its REFERENCES to the property's type name the property
    in `members`; an `IEntityTypeConfiguration`'s `Configure`, where its calls are): a change to
    the column changes what it says."""
    owner, name = graph.nodes[prop].get("parent"), graph.nodes[prop].get("name", "").rsplit(".", 1)[-1]
    if owner not in graph:
        return []
    return [Related(configuring_code(graph, source), CONFIGURES, prop, resolution_of(data), via=data.get("via") or "")
            for source, _, key, data in graph.in_edges(owner, keys=True, data=True)
            if key == "REFERENCES" and name in (data.get("members") or {})]


def mapping_uses(graph: nx.MultiDiGraph, prop: str) -> list[Related]:
    """The object mappings that read or fill a property in a member option (`ForMember(d => d.X,
    o => o.MapFrom(s => s.Category.CategoryName))`: REFERENCES `via="object_mapping"` to it)."""
    return [Related(source, "maps member", prop, resolution_of(data), via="object_mapping")
            for source, _, key, data in sorted(graph.in_edges(prop, keys=True, data=True))
            if key == "REFERENCES" and data.get("via") == "object_mapping"]


def joining(graph: nx.MultiDiGraph, table: str) -> list[Related]:
    """The mapping code that names `table` as the join table of a many-to-many relation
    (`HasManyToMany(x => x.Roles).Table("UserRoles")`: a `table` in its `members`)."""
    short = graph.nodes[table].get("name", "").rsplit(".", 1)[-1].lower()
    return [Related(source, "maps join table", table, resolution_of(data), via=data.get("via") or "")
            for source, _, key, data in graph.edges(keys=True, data=True)
            if key == "REFERENCES" and any(str(member.get("table", "")).rsplit(".", 1)[-1].strip("[]").lower() == short
                                           for member in (data.get("members") or {}).values())]


def join_navigations(graph: nx.MultiDiGraph, table: str) -> list[str]:
    """The navigation properties a many-to-many relation's mapping says `table` is the join table
    of (`HasManyToMany(x => x.Roles).Table("UserRoles")`: `User.Roles`)."""
    short = graph.nodes[table].get("name", "").rsplit(".", 1)[-1].lower()
    found = []
    for _, entity, key, data in graph.edges(keys=True, data=True):
        for member, facts in (data.get("members") or {}).items() if key == "REFERENCES" else ():
            prop = f"cs:{graph.nodes[entity].get('name', '')}.{member}|PROPERTY"
            if str(facts.get("table", "")).rsplit(".", 1)[-1].strip("[]").lower() == short and prop in graph:
                found.append(prop)
    return list(dict.fromkeys(found))


def _naming(graph: nx.MultiDiGraph, tables: list[str], words: list[str], subject: str,
            text_of: Callable[[list[str]], dict[str, str]], sql_only: bool = False) -> list[Related]:
    """The readers, writers and mappers of `tables` whose code (or inline SQL) names one of `words`;
    `sql_only`: C# code by its inline SQL alone."""
    users = [u for table in tables for u in _edges(graph.in_edges(table, keys=True, data=True), DATA_EDGES,
                                                     subject, source_side=True)]
    texts = text_of([u.id for u in users if not (sql_only and graph.nodes[u.id].get("language") == "csharp")])
    pattern = re.compile(rf"(?<![\w])(?:{'|'.join(map(re.escape, dict.fromkeys(words)))})(?![\w])", re.IGNORECASE)
    return [Related(u.id, "names column", subject, u.resolution, via=u.via) for u in users
            if pattern.search(texts.get(u.id, "")) or _names_in_attrs(graph, u.id, pattern)]


def property_users(graph: nx.MultiDiGraph, prop: str, text_of: Callable[[list[str]], dict[str, str]],
                   holder: str | None = None) -> list[Related]:
    """The methods that use an entity's property (`product.StockQuantity -= quantity`), found
    without typing every member access: those that hold the entity (read or write its table, or
    the table of an entity with a navigation to it: `cartItem.Product.StockQuantity`; or take or
    return it, or name it as a type argument of their signature: a projection over its query) and
    whose code accesses a member of that name (`.StockQuantity`). By name, so a
    guess (`via="member_name"`); tests, the entity's own code and the mapping code are left to
    the other relations. `holder`: the entity whose table stores a property it inherits
    (`AuditableEntity.LastModifiedBy` of `Order`), standing for the type that declares it."""
    declared, name = str(graph.nodes[prop].get("parent")), graph.nodes[prop].get("name", "").rsplit(".", 1)[-1]
    owner = holder if holder is not None and holder in graph else declared
    if not _mapped(graph, owner):
        return []
    short = graph.nodes[owner].get("name", "").rsplit(".", 1)[-1]
    navigations = _navigating_to(graph, owner)

    def table_users(types: Collection[str]) -> set[str]:
        tables = {t for h in types for _, t, key in graph.out_edges(h, keys=True)
                  if key == "MAPS_TO" and graph.nodes[t].get("kind") in TABLE_KINDS}
        return {source for table in tables for source, _, key in graph.in_edges(table, keys=True)
                if key in DATA_EDGES and graph.nodes[source].get("kind") == "METHOD"}
    users = table_users({owner})
    # a type argument of its signature (`Func<QueryOverProjectionBuilder<Entry>, ...> FromEntry()`, a projection)
    argument = re.compile(rf"[<,]\s*(?:[\w.]+\.)?{re.escape(short)}\s*[>,]")
    users |= {node for node, data in graph.nodes(data=True) if data.get("kind") == "METHOD" and data.get("language") == "csharp"
              and (short in {t.rsplit(".", 1)[-1].rstrip("?>").rsplit("<", 1)[-1] for t in
                             (data.get("attrs") or {}).get("parameters", ())}
                   or bool(argument.search(data.get("signature") or "")))}
    through = table_users(navigations) - users  # hold the entity only through a navigation: must name it
    names = sorted({nav for navs in navigations.values() for nav in navs})
    users = {u for u in users | through if graph.nodes[u].get("parent") not in (owner, declared) and not in_tests(graph, u)}
    texts = text_of(sorted(users))
    access = re.compile(rf"\.\s*{re.escape(name)}(?![\w(])")
    navigated = re.compile(rf"\.\s*(?:{'|'.join(map(re.escape, names))})(?!\w)") if names else None
    return [Related(u, "uses property", prop, "by_name", via="member_name") for u in sorted(users)
            if access.search(texts.get(u, "")) and (u not in through or bool(navigated and navigated.search(texts.get(u, ""))))]


def _navigating_to(graph: nx.MultiDiGraph, entity: str) -> dict[str, set[str]]:
    """The types with a property of `entity`'s type or a collection of it (a navigation)."""
    qualified = graph.nodes[entity].get("name", "")
    found: dict[str, set[str]] = {}
    for _, data in graph.nodes(data=True):
        attrs = data.get("attrs") or {}
        if data.get("kind") == "PROPERTY" and (qualified in attrs.get("returns", ()) or any(
                qualified in guesses for guesses in (attrs.get("generic") or {}).get("entities", ()))):
            found.setdefault(str(data.get("parent")), set()).add(data.get("name", "").rsplit(".", 1)[-1])
    return {t: navs for t, navs in found.items() if t not in (entity, "None")}


def foreign_key_navigations(graph: nx.MultiDiGraph, prop: str) -> list[Related]:
    """EF's foreign-key convention for a property `XId` of an entity: the navigation `X` beside it
    (whose type is the principal entity), else the principal entity named `X`; the principal's
    collections of the entity (the inverse navigation, `TodoList.Items` for `TodoItem.ListId`)
    and the principal's tables. Renaming the key changes the relationship they all stand for.
    A convention, so each is marked `via="fk_convention"`; only on an entity (a type that maps to
    a table)."""
    owner, name = graph.nodes[prop].get("parent"), graph.nodes[prop].get("name", "").rsplit(".", 1)[-1]
    if owner not in graph or len(name) <= 2 or not name.endswith("Id") \
            or not _mapped(graph, owner):
        return []  # only an entity's key is a relationship (a DTO's `CustomerId` is a copy)
    members = {graph.nodes[m].get("name", "").rsplit(".", 1)[-1]: m for _, m, k in graph.out_edges(owner, keys=True)
               if k == "DEFINES" and graph.nodes[m].get("kind") == "PROPERTY"}
    navigation = members.get(name[:-2])
    guesses = graph.nodes[navigation].get("attrs", {}).get("returns", ()) if navigation else \
        [graph.nodes[owner]["name"].rsplit(".", 1)[0] + "." + name[:-2]]
    principal = next((f"cs:{g}|TYPE" for g in guesses if f"cs:{g}|TYPE" in graph), None)
    if principal is None:
        return []
    inverse = [m for _, m, k in graph.out_edges(principal, keys=True) if k == "DEFINES" and owner in _held_types(graph, m)]
    tables = [t for _, t, k in graph.out_edges(principal, keys=True) if k == "MAPS_TO"]
    # the principal found by its name alone, with no navigation to say it, is a guess
    resolution = "inferred" if navigation else "inferred, guess"
    return [Related(node, "relationship of", prop, resolution, via="fk_convention")
            for node in [*([navigation] if navigation else []), *inverse, *tables]]


def _held_types(graph: nx.MultiDiGraph, prop: str) -> set[str]:
    """The TYPE ids a collection property may hold (`IList<TodoItem> Items`: its type argument)."""
    entities = (graph.nodes[prop].get("attrs", {}).get("generic") or {}).get("entities") or [[]]
    return {f"cs:{guess}|TYPE" for guess in entities[0]}


def mapped_twins(graph: nx.MultiDiGraph, prop: str) -> list[str]:
    """The properties an object mapper (AutoMapper, Mapster) fills from `prop` or into it: those of
    the same name on the types its owner is mapped to or from (`CreateMap<Department, Edit.Command>`:
    `Edit.Command.RowVersion`), a convention (an explicit `ForMember` may say otherwise)."""
    owner = graph.nodes[prop].get("parent")
    if owner not in graph:
        return []
    short = graph.nodes[prop]["name"].rsplit(".", 1)[-1].lower()
    others = {t for _, t, k, d in graph.out_edges(owner, keys=True, data=True)
              if k == "REFERENCES" and d.get("via") == "object_mapping"}
    others |= {s for s, _, k, d in graph.in_edges(owner, keys=True, data=True)
               if k == "REFERENCES" and d.get("via") == "object_mapping" and graph.nodes[s].get("kind") == "TYPE"}
    return sorted(p for other in others - {owner} for p in _properties(graph, other)
                  if graph.nodes[p]["name"].rsplit(".", 1)[-1].lower() == short)


def table_paths(graph: nx.MultiDiGraph, entries: Iterable[str], words: Collection[str] = (),
                verbs: Sequence[str] = (), cascades: bool = False, writes_only: bool = False,
                operations: Collection[str] = ()) -> list[Path]:
    """Paths from each entry along CALLS (dispatch included) to every table reached by READS or
    WRITES (also through procedures): the shortest path to each method, then one path per method
    and table it touches, so a table a side path (a cleanup) reaches first is still reached by
    the path asked about. A procedure a generic base composes from a subclass's type argument
    (`bound_by`) is followed only for a call on that subclass or a type it implements (the
    receiver a `receiver_type` edge says: `ICipherRepository.CreateAsync` runs `Cipher_Create`,
    not `Folder_Create`). A dispatch of a call made on a parameter (`query.Execute()` in
    `Find(IQuery query)`) is followed only to the implementations of the argument passed to it
    along the walk (`new EntryByNameQuery(..)`, also through forwarding calls; `_passed_arguments`),
    and one made on `this` in a base (`this.DataInsert()`) only to the override of the type the
    walk's call was made on (`post.Save()` on a `Post`: `Post.DataInsert`). A table access a
    generic type makes through its type parameter, bound by subclasses' base lists (`walk_bound`),
    is followed only once the walk has passed through one of those subclasses. A bus's send
    (`message_parameter`) is followed only to the handler of the message passed to it (also as a
    generic method's caller binds it: `host_parameter`, `bound_method_dispatch`), and a
    sender's direct edge to a handler is left for the way through the bus (`through`).
    At most MAX_FLOW_PATHS: by entry, then those crossing no job hand-off (`Path.enqueued`: the
    entry's own synchronous work before what a job does later) unless the asked words name the
    method handed off (a word its name has and the entry's lacks: "the scheduled cleanup" ->
    `CleanupService.Cleanup`), then those whose nodes name more of
    the asked keyword tokens (`words`: "results ... cached" -> `GetResults`, `CachedResults`),
    then those ending in the relation asked first (`verbs`, READS or WRITES: "saves" asks for
    the writes first; a cascade counts as a write), then those whose write is of an asked
    operation (`operations`: "creates" asks for an INSERT, so the provider's `InsertPost` comes
    before an update a side path makes; `written_as`), then shortest first, then paths without a
    guess, then in the order the code makes the calls (`call_order`: what runs first is told
    first, where the ids' alphabetical order said nothing); with `writes_only` ("which tables get written"), only the paths that write when some
    do. With `cascades` (a delete asked), a path that writes a table goes on to the tables
    whose foreign keys say `ON DELETE CASCADE` to it (`_cascades`)."""
    paths = [path for entry in dict.fromkeys(entries) if entry in graph for path in _walk_to_tables(graph, entry)]
    if cascades:  # a delete goes on in the database: the rows whose foreign keys cascade from it
        paths += [cascaded for path in paths for cascaded in _cascades(graph, path)]
    order = {entry: n for n, entry in enumerate(dict.fromkeys(entries))}
    asked = set(words)

    def shared(path: Path) -> int:
        return len(asked & {t for n in path.nodes[1:] for t in keyword_tokens(_short_name(graph, n))})

    def as_asked(path: Path) -> int:  # "saves" asks for the writes first, "loads" for the reads
        last = _last_relation(path)
        return verbs.index(last) if last in verbs else len(verbs)

    def not_as_operated(path: Path) -> bool:  # "creates" asks for the path that inserts
        if not operations:
            return False
        if path.edges[-1].startswith(CASCADE):  # the database deletes the rows that cascade
            return "DELETE" not in operations
        return not (path.edges[-1].startswith("WRITES")
                    and written_as(graph, path.nodes[-2], path.nodes[-1]) & set(operations))

    if writes_only:  # "which tables get written": the paths that write, when there are any
        paths = [p for p in paths if _last_relation(p) == "WRITES"] or paths
    def unasked_job(path: Path) -> bool:  # a job hand-off the question does not name
        if not path.enqueued:
            return False
        handed = next(n for n, edge in enumerate(path.edges) if ENQUEUED in edge) + 1
        named = set(keyword_tokens(_short_name(graph, path.nodes[handed]))) - set(keyword_tokens(_short_name(graph, path.nodes[0])))
        return not asked & named

    # a job's work comes after what the entry does itself (`job_handoffs`: it runs later, elsewhere),
    # unless the question names the job (a word of the method handed off that the entry's name lacks)
    paths.sort(key=lambda p: (order[p.nodes[0]], unasked_job(p), -shared(p), as_asked(p), not_as_operated(p), len(p.nodes), p.guess,
                              call_order(graph, p)))
    return paths[:MAX_FLOW_PATHS]


def call_order(graph: nx.MultiDiGraph, path: Path) -> tuple[tuple[int, str], ...]:
    """Each step of `path` as (the line of its call or table access in the caller, the node it
    reaches): of two paths that part at a method, the one whose call comes first in that
    method's code sorts first, as it runs first (the node's id decides between calls on one
    line, or where an edge has no line)."""
    def line(source: str, target: str) -> int:
        return min((data.get("line") or 0 for _, reached, key, data in graph.out_edges(source, keys=True, data=True)
                    if reached == target and key in ("CALLS", "READS", "WRITES")), default=0)
    return tuple((line(source, target), target) for source, target in zip(path.nodes, path.nodes[1:]))


def _last_relation(path: Path) -> str:
    """READS or WRITES: how a path reaches its table (a cascade deletes, so it writes)."""
    return path.edges[-1].split(" ", 1)[0].replace(CASCADE, "WRITES")


CASCADE = "CASCADE"  # the edge of a flow path from a deleted table to one whose foreign key cascades
MAX_CASCADE_DEPTH = 3


def _cascades(graph: nx.MultiDiGraph, path: Path) -> list[Path]:
    """The path extended to each table whose foreign key to the table it writes says `ON DELETE
    CASCADE`, and on from those (at most MAX_CASCADE_DEPTH tables further, no table twice)."""
    if not path.edges or not path.edges[-1].startswith("WRITES"):
        return []
    found, frontier = [], [path]
    for _ in range(MAX_CASCADE_DEPTH):
        frontier = [Path((*p.nodes, child), (*p.edges, f"{CASCADE} (on delete)"))
                    for p in frontier for child, _, key, data in sorted(graph.in_edges(p.nodes[-1], keys=True, data=True))
                    if key == "FOREIGN_KEY" and data.get("on_delete") == "CASCADE" and child not in p.nodes]
        found += frontier
    return found


def _bound_for(graph: nx.MultiDiGraph, bound_by: str | None, receiver: str | None) -> bool:
    """Whether an edge a subclass's type argument made (`bound_by`: `CipherRepository` binds
    `dbo.{T}_Create` to `dbo.Cipher_Create`) runs for a call on `receiver`'s type: the subclass is
    that type or one of its descendants. Without either, every binding may run."""
    if bound_by is None or receiver is None or bound_by == receiver:
        return True
    hierarchy = nx.subgraph_view(graph, filter_edge=lambda _s, _t, key: key in ("INHERITS", "IMPLEMENTS"))
    return bound_by in hierarchy and receiver in nx.descendants(hierarchy, bound_by)


def _binding_runs(graph: nx.MultiDiGraph, data: Mapping[str, Any], receiver: str | None,
                  passed: tuple[str, ...]) -> bool:
    """Whether an edge a subclass's type arguments made runs on this walk: one bound on the walk
    (`walk_bound`, `base_bindings`) once the walk has passed through one of its subclasses or a
    descendant of one (`passed`); else as `_bound_for` says for the receiver."""
    if data.get("walk_bound"):
        return any(_bound_for(graph, subclass, through) for subclass in data["bound_by"] for through in passed)
    return _bound_for(graph, data.get("bound_by"), receiver)


def _passing(graph: nx.MultiDiGraph, passed: tuple[str, ...], method: str, receiver: str | None) -> tuple[str, ...]:
    """The binding subclasses (`binds_type_parameters`, or a descendant of one) the walk has passed
    through, with the type `method` is declared in or called on, when it is one."""
    found = {t for t in (receiver, graph.nodes[method].get("parent")) if isinstance(t, str) and t in graph
             and any((graph.nodes[b].get("attrs") or {}).get("binds_type_parameters") for b in {t, *ancestors(graph, t)})}
    return tuple(sorted({*passed, *found})) if found - set(passed) else passed


# A method as the walk reaches it: with the types bound to those of its parameters that decide
# where its calls go (`_deciding`), by position, and the binding subclasses passed through
# (`_passing`); a method bound otherwise is walked again.
_State = tuple[str, tuple[tuple[int, tuple[str, ...]], ...], tuple[str, ...]]


def _walk_to_tables(graph: nx.MultiDiGraph, entry: str) -> list[Path]:
    """`table_paths` from one entry: breadth-first, the shortest path to each method (to each
    method with each binding of its deciding parameters), then one path per method and table."""
    start: _State = (entry, (), _passing(graph, (), entry, None))
    parent: dict[_State, tuple[_State, str] | None] = {start: None}
    receivers: dict[_State, str] = {}  # the receiver type a method was called on, when that binds it
    deciding: dict[str, frozenset[int]] = {}
    queue, touches = deque([(start, 0)]), []
    while queue and len(parent) < MAX_FLOW_VISITS:
        state, depth = queue.popleft()
        node, bound = state[0], dict(state[1])
        hosted, host_arguments = _hosted(graph, node), _host_arguments(graph, node)
        for _, target, edge_type, data in sorted(graph.out_edges(node, keys=True, data=True)):
            kind = graph.nodes[target].get("kind")
            if edge_type not in ("CALLS", "READS", "WRITES") or kind == "EXTERNAL" or runs_around(data) \
                    or data.get("through") in graph or data.get("host") \
                    or not _binding_runs(graph, data, receivers.get(state), state[2]) \
                    or not _dispatched_to_argument(graph, data, bound, target) \
                    or not _bound_at_host(data, bound, target):
                continue
            resolution = resolution_of(data)
            marks = [m for m in (resolution not in ("static", "inferred") and resolution,
                                 bool(data.get("enqueued_by")) and ENQUEUED) if m]
            how = f"{edge_type} ({', '.join(marks)})" if marks else edge_type
            if kind in TABLE_KINDS:
                touches.append((state, how, target))
                continue
            if target not in deciding:
                deciding[target] = _deciding(graph, target)
            passed = _passed_arguments(data, bound)
            if target in hosted:  # a generic host the caller's type arguments bind (`bound_dispatch`)
                passed[HOST_BOUND] = hosted[target]
            for parameter, types in host_arguments.get(target, {}).items():  # `bound_method_dispatch`
                passed.setdefault(parameter, types)
            reached: _State = (target, tuple(sorted((k, v) for k, v in passed.items()
                                                    if k in deciding[target] or k == HOST_BOUND)),
                               _passing(graph, state[2], target, single_receiver(data)))
            if reached not in parent:
                parent[reached] = (state, how)
                if (receiver := single_receiver(data)) is not None:
                    receivers[reached] = receiver
                if depth + 1 < MAX_FLOW_DEPTH:
                    queue.append((reached, depth + 1))
    found = (_path_to(parent, state, (how, table)) for state, how, table in dict.fromkeys(touches))
    return list(dict.fromkeys(Path(tuple(n if isinstance(n, str) else n[0] for n in path.nodes), path.edges)
                              for path in found))


# The walk's binding of a generic host's dispatch (`bound_dispatch`): "<interface method> <implementation>"
# of each implementation the caller's type arguments leave, kept where the other bindings are kept.
HOST_BOUND = -2


def _hosted(graph: nx.MultiDiGraph, method: str) -> dict[str, tuple[str, ...]]:
    """Each generic host `method` calls with type arguments that narrow the host's dispatch
    (`bound_dispatch`'s edges, attrs `host`), with the implementations they leave, by interface method."""
    found: dict[str, set[str]] = {}
    for _, target, data in graph.out_edges(method, data=True):
        if data.get("host") and "host_parameter" not in data:
            found.setdefault(data["host"], set()).add(f"{data['via']} {target}")
    return {host: tuple(sorted(pairs)) for host, pairs in found.items()}


def _host_arguments(graph: nx.MultiDiGraph, method: str) -> dict[str, dict[int, tuple[str, ...]]]:
    """The types `method` passes to the parameters of each generic method it calls whose sends
    they narrow (`bound_method_dispatch`'s edges, attrs `host_parameter`), by host and position."""
    found: dict[str, dict[int, set[str]]] = {}
    for _, _, data in graph.out_edges(method, data=True):
        if data.get("host") and "host_parameter" in data:
            found.setdefault(data["host"], {}).setdefault(data["host_parameter"], set()).add(data["bound"])
    return {host: {p: tuple(sorted(types)) for p, types in by.items()} for host, by in found.items()}


def _bound_at_host(data: Mapping[str, Any], bound: Mapping[int, tuple[str, ...]], target: str) -> bool:
    """Whether a generic host's dispatch edge runs for the caller that bound it (`HOST_BOUND`): to an
    implementation its type arguments leave, when they narrow that interface method at all. The
    caller's own edges past the host (attrs `host`) are not walked: the path goes through the host."""
    pairs = bound.get(HOST_BOUND)
    if not pairs or data.get("resolution") != "dispatch":
        return True
    vias = {pair.split(" ", 1)[0] for pair in pairs}
    return data.get("via") not in vias or f"{data['via']} {target}" in pairs


def _deciding(graph: nx.MultiDiGraph, method: str) -> frozenset[int]:
    """The parameters of `method` whose argument decides where its calls go: one a call is made on
    and dispatched (`receiver_parameter`), or one it forwards to another call (`forwards`)."""
    found = set()
    for _, _, data in graph.out_edges(method, data=True):
        if (data.get("resolution") == "dispatch" and data.get("receiver_parameter") is not None) \
                or data.get("receiver_parameter") == THIS:  # a call on `this` passes the object on
            found.add(data["receiver_parameter"])
        found.update(parameter for _, parameter in data.get("forwards", ()))
        if data.get("message_parameter") is not None:  # a bus: the message passed picks the handler
            found.add(data["message_parameter"])
    return frozenset(found)


def _passed_arguments(data: Mapping[str, Any], bound: Mapping[int, tuple[str, ...]]) -> dict[int, tuple[str, ...]]:
    """The types a call edge passes to its target's parameters, by position: what the caller's
    parameter it forwards was bound to (`forwards`), else the argument's own (`argument_types`:
    a parameter's declared type says less than what was passed to it); and the object it is
    called on (`THIS`): the subclass a base's method was called on (`receiver_type`: `post.Save()`
    on a `Post`), or the caller's own object passed on by a call on `this`."""
    passed = {position: tuple(types) for position, types in enumerate(data.get("argument_types", ())) if types}
    for position, parameter in data.get("forwards", ()):
        if parameter in bound:
            passed[position] = bound[parameter]
    if (receiver := single_receiver(data)) is not None:
        passed[THIS] = (receiver,)
    elif data.get("receiver_parameter") == THIS and THIS in bound:
        passed[THIS] = bound[THIS]
    return passed


def _dispatched_to_argument(graph: nx.MultiDiGraph, data: Mapping[str, Any], bound: Mapping[int, tuple[str, ...]],
                            target: str) -> bool:
    """Whether a dispatch edge of a call made on a parameter (`receiver_parameter`: `query.Execute()`
    in `Find(IQuery query)`) may run `target` for the argument the walk passed to that parameter:
    the implementation's type is the argument's, one of its bases, or one of its subtypes. Without
    a bound argument, every implementation may run; but a bus's send of an unknown message runs
    none of its several handlers the walk can name (`messages`: each a guess)."""
    message = data.get("message_parameter")
    if message is not None and message in bound:  # a bus's send: only the handler of what was passed
        return any(data["message"] == passed or data["message"] in ancestors(graph, passed)
                   for passed in bound[message])
    if message is not None:
        return not data.get("guess")
    parameter = data.get("receiver_parameter")
    if data.get("resolution") != "dispatch" or parameter is None or parameter not in bound:
        return True
    owner = graph.nodes[target].get("parent", "")
    return any(owner == passed or owner in ancestors(graph, passed) or passed in ancestors(graph, owner)
               for passed in bound[parameter])


TABLES_PER_HIT = 3  # a method touching more tables is broad (a page's controller): its tables say little one by one


def with_their_tables(graph: nx.MultiDiGraph, nodes: list[str], reach: int = 0, words: Collection[str] = (),
                      searched: Sequence[str] = ()) -> list[str]:
    """Each node followed by up to TABLES_PER_HIT of the tables and views it reads or writes
    (directly, or through a procedure it calls; `_touched_tables`, ranked by the asked keyword
    tokens `words` and the search's order `searched`): what a question about the
    data wants beside the code that was found; code the repository never calls itself (an
    interceptor, a pipeline behaviour) by where it is registered (`wired_in`). The first method
    also by what sends it its message (`senders`: the job or action a handler runs for), the
    behaviours around it the question names (`asked_around`), and by up to `reach` of the
    procedures and tables its calls reach further down (not those it touches itself), each with
    the method that runs it (`reached_data`):
    "where is the balance calculated" is answered by the method the search found best, the
    repository method it calls and the procedure and tables that do the calculating."""
    out = []
    first_method = next((n for n in nodes if n in graph and graph.nodes[n].get("kind") in ("METHOD", "FUNCTION")), None)
    for node in nodes:
        if node not in graph:
            continue
        out.append(node)
        around = asked_around(graph, node, words) if node == first_method else []
        out += [*(senders(graph, node) if node == first_method else []), *wired_in(graph, node),
                *(n for step in around for n in (step, *wired_in(graph, step)))]
        touched = _touched_tables(graph, node, searched, words)
        out += touched[:TABLES_PER_HIT]
        if node == first_method and reach:  # beyond the tables it touches itself
            out += reached_data(graph, node, reach, exclude={*out, *touched})
    return list(dict.fromkeys(out))


def _touched_tables(graph: nx.MultiDiGraph, node: str, hits: Sequence[str], words: Collection[str]) -> list[str]:
    """The tables and views `node` (or a procedure it calls) reads or writes, not a data script's
    (`model.not_walked`): those the asked
    keyword tokens (`words`) name first, then those among the search's `hits`, then those it
    writes, then by name."""
    touched: dict[str, bool] = {}  # table -> written
    for source in [node, *_called_procedures(graph, node)]:
        for _, table, key, data in graph.out_edges(source, keys=True, data=True):
            # a data script's rows (`not_walked`) say nothing of where the code's data lives
            if key in ("READS", "WRITES") and graph.nodes[table].get("kind") in TABLE_KINDS and not not_walked(data):
                touched[table] = touched.get(table, False) or key == "WRITES"
    rank = {hit: i for i, hit in enumerate(hits)}

    def order(table: str) -> tuple:
        named = bool(set(words) & set(keyword_tokens(_short_name(graph, table))))
        return (not named, rank.get(table, len(rank)), not touched[table], table)

    return sorted(touched, key=order)


PROCEDURE_KINDS = ("PROCEDURE", "FUNCTION")


def procedure_context(graph: nx.MultiDiGraph, procedure: str, words: Collection[str] = (),
                      searched: Sequence[str] = ()) -> list[str]:
    """What a procedure the search found works with, where the question asks where or how
    something is worked out: the repository methods that run it and what calls them (at most
    MAX_SENDERS each, production code), up to TABLES_PER_HIT of the tables it reads or writes
    (`_touched_tables`) and the SQL functions and procedures it calls ("where is the transfer
    allowance worked out": `GetAccountTransferAllowance`, run by
    `TransferRepository.GetTransferAllowance` for `GetTransferAllowanceQueryHandler.Handle`,
    reading `TransactionLine` and calling `GetPreviousFinancialYearDates`)."""
    def callers(node: str) -> list[str]:
        found = sorted({source for source, _, key, data in graph.in_edges(node, keys=True, data=True)
                        if key == "CALLS" and graph.nodes[source].get("language") != "sql" and not in_tests(graph, source)
                        and not declared_only(graph, source) and not runs_around(data)})
        return found if len(found) <= MAX_SENDERS else []

    runners = callers(procedure)
    called = sorted(t for _, t, key in graph.out_edges(procedure, keys=True)
                    if key == "CALLS" and graph.nodes[t].get("kind") in PROCEDURE_KINDS)
    return list(dict.fromkeys([*(n for runner in runners for n in (runner, *callers(runner))),
                               *_touched_tables(graph, procedure, searched, words)[:TABLES_PER_HIT], *called]))


CONNECTING_EDGES = frozenset({"CALLS", "READS", "WRITES", "MAPS_TO", "INHERITS", "IMPLEMENTS", "REFERENCES"})


def connected_hits(graph: nx.MultiDiGraph, best: Sequence[str], searched: Sequence[str], limit: int) -> list[str]:
    """Up to `limit` of the search's other hits (`searched`, in its order) that an edge joins to one
    of its `best` hits (a call either way, a table read or written, a mapping, a base type): of
    two hits the search ranked alike, the one the best code uses or is used by is more likely
    part of what was asked ("where is the distributed lock implemented": `Acquire` found first,
    `Release` and the connection's `AcquireDistributedLock` that calls it next). Not a test, a
    constructor (wiring) or an interface's member (its code is elsewhere)."""
    near = {n for b in best if b in graph
            for n in [*(t for _, t, k, d in graph.out_edges(b, keys=True, data=True) if k in CONNECTING_EDGES and not not_walked(d)),
                      *(s for s, _, k, d in graph.in_edges(b, keys=True, data=True) if k in CONNECTING_EDGES and not not_walked(d))]}
    return [hit for hit in dict.fromkeys(searched) if hit in near and hit not in best and not in_tests(graph, hit)
            and not is_constructor(graph, hit) and not declared_only(graph, hit)][:limit]


MAX_SENDERS = 2  # more senders (or registrations) than this and none of them says what starts the code


def wired_in(graph: nx.MultiDiGraph, node: str) -> list[str]:
    """The production methods that register the type of `node` (`node` itself, or the type that
    declares it: `REFERENCES` with `via="registration"`), when the repository never calls that
    type's code itself (only around a save or a send, or by a message): an interceptor or a
    pipeline behaviour runs because it is registered, and where is part of where it happens. At
    most MAX_SENDERS of them."""
    owner = node if graph.nodes[node].get("kind") == "TYPE" else graph.nodes[node].get("parent")
    if not isinstance(owner, str) or owner not in graph:
        return []
    members = [m for _, m, key in graph.out_edges(owner, keys=True) if key == "DEFINES"]
    if any(key == "CALLS" and not runs_around(data) and data.get("via") != "message" and not in_tests(graph, caller)
           and graph.nodes[caller].get("parent") != owner
           for member in members for caller, _, key, data in graph.in_edges(member, keys=True, data=True)):
        return []
    found = sorted({source for source, _, key, data in graph.in_edges(owner, keys=True, data=True)
                    if key == "REFERENCES" and data.get("via") == "registration" and not in_tests(graph, source)})
    return found if len(found) <= MAX_SENDERS else []


def senders(graph: nx.MultiDiGraph, method: str) -> list[str]:
    """The production methods that send `method` its message (a `dispatch` CALLS edge through a
    message: `_messageSession.Send(new ExpireAccountFundsCommand())` in a scheduled job), when
    there are at most MAX_SENDERS of them: what starts a handler belongs with it."""
    found = sorted({source for source, _, key, data in graph.in_edges(method, keys=True, data=True)
                    if key == "CALLS" and data.get("via") == "message" and not in_tests(graph, source)})
    return found if len(found) <= MAX_SENDERS else []


def asked_around(graph: nx.MultiDiGraph, method: str, words: Collection[str]) -> list[str]:
    """What runs around `method` when its message is sent (a mediator's pipeline behaviour, an
    interceptor: the `runs_around` edges its senders have for that message) and whose type the
    asked keyword tokens name: "how are contributor list results cached" -> `CachingBehavior.Handle`
    around `ListContributorsHandler.Handle`. The behaviours nobody asked about are left out: every
    handler has them."""
    found = []
    for sender, _, key, data in graph.in_edges(method, keys=True, data=True):
        if key != "CALLS" or data.get("via") != "message":
            continue
        found += [target for _, target, k, d in graph.out_edges(sender, keys=True, data=True)
                  if k == "CALLS" and runs_around(d) and d.get("message") == data.get("message")
                  and set(words) & set(keyword_tokens(_owner_name(graph, target)))]
    return sorted(set(found))


def _owner_name(graph: nx.MultiDiGraph, method: str) -> str:
    """The short name of the type that declares `method` (the method's own when it has none)."""
    parent = graph.nodes[method].get("parent")
    return _short_name(graph, parent if isinstance(parent, str) and parent in graph else method)


def reached_data(graph: nx.MultiDiGraph, method: str, limit: int, exclude: Collection[str] = ()) -> list[str]:
    """Up to `limit` of the SQL objects (procedures, tables, views) `method` reaches along its
    calls, in the order of its flow's paths (`table_paths`), not counting those in `exclude`;
    each first one of a path after the C# method that runs it (the repository method whose
    command names the procedure), unless that is `method` itself."""
    paths = [path.nodes for path in table_paths(graph, [method])]
    carriers: dict[str, str] = {}  # SQL object -> the C# method a path runs it from
    for nodes in paths:
        for before, node in zip(nodes[1:], nodes[2:]):
            if graph.nodes[node].get("language") == "sql" and graph.nodes[before].get("language") != "sql":
                carriers.setdefault(node, before)
    out: list[str] = []
    sql = [n for n in path_nodes(paths) if graph.nodes[n].get("language") == "sql" and n not in exclude]
    for node in sql[:limit]:
        out += [c for c in [carriers.get(node)] if c is not None and c not in exclude]
        out.append(node)
    return list(dict.fromkeys(out))


def _short_name(graph: nx.MultiDiGraph, node: str) -> str:
    return graph.nodes[node].get("name", node).rsplit(".", 1)[-1]


def _path_to(parent: Mapping[Any, tuple[Any, str] | None], node: Any, last: tuple[str, str] | None = None) -> Path:
    """The walk's path to `node`, then `last` (an edge and the node it leads to) when given."""
    nodes, edges = [node], []
    step = parent[node]
    while step is not None:
        previous, edge = step
        nodes.append(previous)
        edges.append(edge)
        step = parent[previous]
    nodes.reverse()
    edges.reverse()
    if last is not None:
        edges.append(last[0])
        nodes.append(last[1])
    return Path(tuple(nodes), tuple(edges))


def entry_methods(graph: nx.MultiDiGraph, hits: list[str], words: Collection[str],
                  http_verbs: Collection[str] = (), start: Collection[str] = (), face: str | None = None,
                  actions: Collection[str] = (), objects: Collection[str] = ()) -> list[str]:
    """Entry points of a flow when none is named: among the search hits that are methods, the
    methods upstream of the best of them that are HTTP entry points (attrs `entry`: an action, a
    page handler, a minimal API or an endpoint), members a framework calls (`framework_contract`:
    a queue processor's `ProcessResult` override; entry points only where no action, handler or
    job is among the candidates) or whose type the asked keyword tokens (`words`)
    name ("how does a worker fetch ..." -> `Worker.Execute`), and the entry points the question
    describes (`described_entries`: actions and message handlers the search missed). Those of a
    type saying most of the words the question starts its walk from come first (`start`: "walk me
    from the scheduled job to the tables" -> `ImportLevyDeclarationsJob.Run`; "from the mailbox
    reader" -> `MailboxReader`, not the `Mailboxes` page: a start the question names outweighs a
    verb read from its words), then entry points
    and methods of controllers, pages, handlers and of types the words name (an entry point whose HTTP verb is one the
    question asks for, `http_verbs`: "created" -> POST, before them all), then those of another
    verb last among them when an entry point of an asked verb is there to take their place (an
    application may purge with a PUT what the question calls deleted),
    then HTTP entry points and message handlers the question describes with more words (`entry_words`: the
    type's and the method's names, the parameters' types, the route, who may call it: "when a
    moderator saves a post in the admin editor" is `WikiAdminController.Edit(EntryRevision)`,
    moderators only, not `AdminController.Settings`), of those the ones whose name says the asked
    action, then those saying more of what the actions are done to (`objects`: "when a user ...
    confirms deleting a single bug" is `delete_bug`, not `delete_user`), and fewer words it does
    not ask, then those
    of a type the words name, then
    those upstream of more of the other hits (a flow is asked from the top down), then declared
    entry points, then those whose own name the words say ("created" -> `Create`), then search
    order. Where the question says what kind of entry point it starts at (`face`: "through the
    REST API", "from the web site's page") and the code says the first is of the other kind, the
    entry point of the asked kind over the same code takes its place (`counterpart`: the Web
    API's `Post` for the MVC site's `Create` whose route shares more words with the question).
    Asked for a job ("the background purge job"), the bodies of jobs above the hits or that
    the words name (`described_jobs`) come before all else: a controller calling the same
    code, of the verb the question's "delete" asks, is not the job."""
    # a constructor only wires its type (a handler's services, a request's fields): no flow starts there
    methods = [h for h in hits if graph.has_node(h) and graph.nodes[h].get("kind") in ("METHOD", "FUNCTION")
               and not is_constructor(graph, h)]
    outer = re.compile(r"(?:Controller|Page|PageModel|Handler|Endpoint|Endpoints)\.[^.]+$")
    asked = set(words)

    def entry_verb(method: str) -> str | None:
        return (graph.nodes[method].get("attrs", {}).get("entry") or {}).get("verb")

    def of_named_type(method: str) -> bool:
        return _of_named_type(graph, method, asked)

    upstream = [m for m in _callers_within(graph, methods[:ENTRY_SEARCH_HITS])
                if (of_named_type(m) or entry_verb(m)) and not is_constructor(graph, m)]
    if http_verbs:  # the actions of the asked verb above any hit: "delete" finds the page's OnPost
        upstream += [m for m in _callers_within(graph, methods) if entry_verb(m) in http_verbs]
    # the actions the question describes ("the finance transactions page for a month")
    candidates = list(dict.fromkeys([*methods, *upstream, *described_entries(graph, asked, http_verbs)]))
    if not any(entry_verb(h) or _dispatched_to(graph, h) for h in candidates):
        # no entry point near what the search found: those above the code that writes (reads) the
        # tables it found first ("when a user reports a problem with a movie": the `Issues` table,
        # written by the action that creates one)
        candidates += _entries_over_tables(graph, hits[:ENTRY_SEARCH_HITS], http_verbs)
    if http_verbs and not any(entry_verb(h) in http_verbs for h in candidates):
        # nothing of the asked verb near the hits: the actions of that verb on a type the words
        # name ("a new user registers through the user API ... from the controller": `UserController.Post`)
        candidates += [m for m in described_entries(graph, asked, http_verbs, named_types=True) if m not in candidates]
    if face in FRAMEWORK_FACES:  # the jobs (hub methods) above the hits and those the question describes, before any action
        candidates += [m for m in [*_callers_within(graph, methods), *described_jobs(graph, asked, face)]
                       if m not in candidates and entry_face(graph, m) == face]
    # what the question says of an entry point or a handler (of other methods, a word or two of the
    # question's object: "fetch the next job from the SQL Server queue" is no entry point of a queue)
    declared = declared_type_names(graph)
    jobs = {h for h in candidates if face in FRAMEWORK_FACES and entry_face(graph, h) == face}
    entries = {h: entry_words(graph, h, declared) for h in candidates
               if entry_verb(h) or _dispatched_to(graph, h) or h in jobs}
    callbacks: set[str] = set()
    if not entries:  # no action, handler or job near the hits: what the framework calls there (a queue's callback)
        candidates += [m for m in _callers_within(graph, methods[:ENTRY_SEARCH_HITS])
                       if m not in candidates and framework_contract(graph, m)]
        callbacks = {h for h in candidates if framework_contract(graph, h)}
        entries = {h: entry_words(graph, h, declared) for h in candidates if h in callbacks}
    downstream = {h: len(_called_from(graph, h) & (set(methods) - {h})) for h in candidates}

    def starts_here(method: str) -> int:
        """How many of the start's words the method's type says (`MailboxReader` says both of "the
        mailbox reader", the `Mailboxes` page one)."""
        parts = graph.nodes[method].get("name", "").split("(", 1)[0].rsplit(".", 2)
        return shared_words(start, {t for part in identifier_parts(parts[1]) for t in keyword_tokens(part)}) \
            if len(parts) == 3 else 0

    # an action of another verb goes last only when one of an asked verb is there to take its place:
    # "deleted for good" may be an app's PUT `Purge`, and then it is the action asked about
    asked_verb_found = any(entry_verb(h) in http_verbs for h in candidates)

    def says_action(hit: str) -> int:
        """Of entry points: 0 when the name says the action the question opens with (`CreateUserByName`
        for "adds a new user"), 2 when it says only another (`UpdateUserPassword`); 1 otherwise (a
        method below the entry points says what it does to the data, not what was asked of the
        application: "how does a worker fetch the next job" starts at the worker, not `FetchJob`)."""
        said = said_actions(graph.nodes[hit].get("name", "")) if hit in entries else frozenset()
        return 0 if said & set(actions) else 2 if said and actions else 1

    def rank(hit: str) -> tuple[bool, int, bool, bool, bool, int, int, int, int, bool, int, bool, bool]:
        name = graph.nodes[hit].get("name", "")
        verb = entry_verb(hit)
        other_verb = asked_verb_found and verb not in (None, "ANY") and verb not in http_verbs
        said = entries.get(hit, set())
        shared = shared_words(asked, said)
        # an entity's method is a step of a flow, not where it starts, whatever names its type
        named_type = of_named_type(hit) and not _mapped(graph, graph.nodes[hit].get("parent"))
        # where the question says the walk starts ("from the mailbox reader") outweighs the verb read
        # from its words ("... ends up as a new issue" is no POST of a page)
        return (bool(jobs) and hit not in jobs, -starts_here(hit), verb not in http_verbs,
                not (verb or outer.search(name) or named_type or hit in callbacks), other_verb, -shared, says_action(hit),
                -shared_words(objects, said),
                unasked_words(asked, said) if shared else 0, not of_named_type(hit), -downstream[hit], not verb,
                not asked & set(keyword_tokens(name.rsplit(".", 1)[-1])))

    ranked = sorted(candidates, key=rank)[:3]
    if ranked and shared_words(asked, entries.get(ranked[0], set())) >= MIN_DESCRIBING_WORDS:
        # the entry point the question describes is where the flow starts: another comes with it
        # only when described as well
        ranked = [hit for hit in ranked if rank(hit)[:8] == rank(ranked[0])[:8]]
    other = counterpart(graph, ranked[0], face, http_verbs) if ranked and face else None
    return [other, *(hit for hit in ranked[1:] if hit != other)] if other else ranked


MIN_DESCRIBING_WORDS = 3  # an entry point the question describes shares this many words with it


def _entries_over_tables(graph: nx.MultiDiGraph, hits: Sequence[str], http_verbs: Collection[str]) -> list[str]:
    """The entry points (actions, message handlers) above the code that writes the tables among
    `hits` (or reads them, when the question asks only to get something), nearest first, where
    the best hit is a table: the question describes the data, not the code."""
    if not hits or (graph.nodes.get(hits[0]) or {}).get("kind") not in TABLE_KINDS:
        return []  # the search found code first: the entry points are above it
    relations = ("READS", "WRITES") if http_verbs and set(http_verbs) <= {"GET"} else ("WRITES",)
    users = [source for hit in hits if (graph.nodes.get(hit) or {}).get("kind") in TABLE_KINDS
             for source, _, key in sorted(graph.in_edges(hit, keys=True)) if key in relations]
    return [m for m in dict.fromkeys([*users, *_callers_within(graph, users)])
            if (graph.nodes[m].get("attrs", {}).get("entry") or _dispatched_to(graph, m)) and not in_tests(graph, m)]


def described_jobs(graph: nx.MultiDiGraph, words: Collection[str], face: str = JOB) -> list[str]:
    """The bodies of the jobs (`entry_faces.JOB`; a hub's methods, `HUB`) whose type or own name
    the question's words name beyond what says it is a job ("the background purge job":
    `PurgeJob.ExecuteJob`, not every hosted service), most words first; the best ENTRY_SEARCH_HITS.
    When the words name none and the application has no more than ENTRY_SEARCH_HITS jobs, all of
    them: "which scheduled background tasks delete old data" asks for the jobs there are."""
    scored, jobs = [], []
    for node, data in graph.nodes(data=True):
        if data.get("kind") == "METHOD" and not in_tests(graph, node) and entry_face(graph, node) == face:
            jobs.append(node)
            said = {t for part in identifier_parts(".".join(data.get("name", "").split("(", 1)[0].rsplit(".", 2)[-2:]))
                    for t in keyword_tokens(part)} - _JOB_WORDS
            shared = shared_words(words, said)
            if shared:
                scored.append((-shared, node))
    if not scored and len(jobs) <= ENTRY_SEARCH_HITS:
        return sorted(jobs)
    return [node for _, node in sorted(scored)[:ENTRY_SEARCH_HITS]]


_JOB_WORDS = frozenset(keyword_tokens("job jobs task tasks service services hosted background worker execute run invoke async"
                                     " hub hubs signalr"))


def _of_named_type(graph: nx.MultiDiGraph, method: str, asked: Collection[str]) -> bool:
    """Whether the asked words name every word of the method's type (`UserController` in "from
    the controller ... the user API")."""
    parts = graph.nodes[method].get("name", "").split("(", 1)[0].rsplit(".", 2)
    type_words = {t for part in identifier_parts(parts[1]) for t in keyword_tokens(part)} if len(parts) == 3 else set()
    return bool(type_words) and type_words <= set(asked)


def described_entries(graph: nx.MultiDiGraph, words: Collection[str], http_verbs: Collection[str] = (),
                      named_types: bool = False) -> dict[str, int]:
    """The entry points of the asked verbs (any, when none is asked) that the question's words
    describe, with how many words they share (`entry_words`): HTTP entry points, and message
    handlers (the targets of a dispatched message: "when an account's payments are imported" is
    `ImportAccountPaymentsCommandHandler.Handle`, which no request reaches). The best
    ENTRY_SEARCH_HITS of those sharing at least MIN_DESCRIBING_WORDS (or, `named_types`, of an
    asked verb on a type the words name), those saying fewer words the question does not first:
    an entry point the search missed ("when an employer opens the finance transactions page for
    a given month") is still found."""
    asked = set(words)
    declared = declared_type_names(graph)
    scored = []
    for node, data in graph.nodes(data=True):
        entry = (data.get("attrs") or {}).get("entry")
        if entry and http_verbs and entry.get("verb") not in http_verbs:
            continue
        if (entry or _dispatched_to(graph, node)) and not in_tests(graph, node):
            said = entry_words(graph, node, declared)
            shared = shared_words(asked, said)
            if shared >= MIN_DESCRIBING_WORDS or (named_types and entry and http_verbs and _of_named_type(graph, node, asked)):
                # among as many shared words, the one saying least else (an action named for its
                # verb, `Post`, says nothing more than the verb the question asks)
                verb_named = set(keyword_tokens((entry or {}).get("verb") or ""))
                scored.append((-shared, unasked_words(asked, said - verb_named), node))
    return {node: -score for score, _, node in sorted(scored)[:ENTRY_SEARCH_HITS]}


def entry_words(graph: nx.MultiDiGraph, method: str, declared: Collection[str] = ()) -> set[str]:
    """What an entry point says of itself, as keyword tokens: its type's and its own name, the
    types of its parameters that the repository declares (`declared`: an `EntryRevision`, not a
    framework's `CancellationToken`), its route and who may call it (`[Authorize]` roles and
    policies)."""
    data = graph.nodes[method]
    attrs = data.get("attrs") or {}
    entry = attrs.get("entry") or {}
    parameters = [p for p in attrs.get("parameters", ()) if p.rstrip("?").split("<", 1)[0].rsplit(".", 1)[-1] in declared]
    texts = [*data.get("name", "").split("(", 1)[0].rsplit(".", 2)[-2:], entry.get("route") or "",
             *entry.get("who", ()), *parameters]
    return {t for text in texts for part in identifier_parts(text) for t in keyword_tokens(part)}


def declared_type_names(graph: nx.MultiDiGraph) -> set[str]:
    """The short names of the types the repository declares."""
    return {data.get("name", "").rsplit(".", 1)[-1] for _, data in graph.nodes(data=True)
            if data.get("kind") in ("TYPE", "CLASS") and data.get("path")}


MIN_PREFIX = 4  # "editor" meets `Edit`: a word of at least this many letters that begins another


def shared_words(asked: Collection[str], words: Collection[str]) -> int:
    """How many of the asked words `words` say, a word also meeting a longer or shorter form of it
    that it begins or that begins it ("editor" - `Edit`, "moderator" - `Moderators`)."""
    return sum(1 for a in asked if any(_meets(a, w) for w in words))


def unasked_words(asked: Collection[str], words: Collection[str]) -> int:
    """How many of `words` no asked word meets: what an entry point says that the question does not
    (`ImportAccountPaymentMetadata...` says "metadata", `ImportAccountPayments...` nothing more)."""
    return sum(1 for w in words if not any(_meets(a, w) for a in asked))


def _meets(a: str, w: str) -> bool:
    short, long = sorted((a, w), key=len)
    return a == w or (len(short) >= MIN_PREFIX and long.startswith(short))


def _dispatched_to(graph: nx.MultiDiGraph, method: str) -> bool:
    """A message or request handler: a dispatched call reaches it."""
    return graph.nodes[method].get("kind") == "METHOD" and any(
        key == "CALLS" and data.get("via") == "message"
        for _, _, key, data in graph.in_edges(method, keys=True, data=True))


def _callers_within(graph: nx.MultiDiGraph, starts: list[str]) -> list[str]:
    """The methods that reach `starts` along CALLS within MAX_ENTRY_DEPTH, nearest first."""
    depth = dict.fromkeys(starts, 0)
    queue = deque(starts)
    while queue and len(depth) < MAX_FLOW_VISITS:
        node = queue.popleft()
        if depth[node] >= MAX_ENTRY_DEPTH:
            continue
        for source, _, key, data in sorted(graph.in_edges(node, keys=True, data=True), key=lambda e: e[:3]):
            if key == "CALLS" and source not in depth and not runs_around(data):
                depth[source] = depth[node] + 1
                queue.append(source)
    return [n for n in depth if n not in starts]


def _called_from(graph: nx.MultiDiGraph, start: str) -> set[str]:
    """The methods `start` reaches along CALLS within MAX_ENTRY_DEPTH."""
    depth = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if depth[node] >= MAX_ENTRY_DEPTH:
            continue
        for _, target, key, data in graph.out_edges(node, keys=True, data=True):
            if key == "CALLS" and target not in depth and not runs_around(data):
                depth[target] = depth[node] + 1
                queue.append(target)
    return set(depth)


def resolution_of(data: Mapping[str, Any]) -> str:
    """How an edge was made; ", guess" added where a guess was carried on (a call dispatched to
    the implementations of a method that was itself found by name)."""
    resolution = data.get("resolution", "static")
    return f"{resolution}, guess" if data.get("guess") and resolution != "by_name" else resolution


def _edges(edges, types: tuple[str, ...], subject: str, source_side: bool) -> list[Related]:
    """The edges of `types`, as items."""
    out = []
    for source, target, edge_type, data in sorted(edges, key=lambda e: (e[0], e[1], e[2])):
        if edge_type in types:
            other = source if source_side else target
            out.append(Related(other, edge_type, subject, resolution_of(data), via=data.get("via") or ""))
    return out


def sql_runners(graph: nx.MultiDiGraph) -> list[Related]:
    """The C# methods that run SQL of their own (inline SQL the parser read: Dapper, ADO.NET,
    EF's `FromSqlRaw`) reaching a table or a procedure (a string that only reads like SQL, a
    route `"/Orders/Delete"`, reaches none), then the tables they read or write, one hop further."""
    runners = sorted(node for node, data in graph.nodes(data=True) if data.get("kind") == "METHOD"
                     and (data.get("attrs") or {}).get("inline_sql") and any(
                         graph.nodes[target].get("kind") in (*TABLE_KINDS, "PROCEDURE")
                         for _, target, edge in graph.out_edges(node, keys=True) if edge in ("READS", "WRITES", "CALLS")))
    items = [Related(node, "runs SQL", node, "static") for node in runners]
    items += [Related(table, edge, node, resolution_of(data), indirect=True, via=data.get("via") or "")
              for node in runners for _, table, edge, data in sorted(graph.out_edges(node, keys=True, data=True))
              if edge in ("READS", "WRITES") and graph.nodes[table].get("kind") in TABLE_KINDS]
    return _unique(items)


def _repository_callers(graph: nx.MultiDiGraph, items: list[Related], subject: str) -> list[Related]:
    """The code that calls a reader or writer of the table through the interface it implements
    (`IPayeRepository.CreatePayeScheme` in a command handler): the repository pattern's
    caller, which reads or writes through it. Only dispatched calls (a repository behind its
    interface), only outside tests; a caller of a procedure's runner is two hops away
    (`THROUGH_REPOSITORY`, after the one-hop items), and so is the dispatched caller of such a
    caller when that caller is reached from nothing else (`InMemoryBus.PublishEvent` calls
    `IEventStore.Save`, the one way to `SqlEventStore.Save`, which calls `IEventStoreRepository.Store`)."""
    methods = [i for i in items if graph.nodes[i.id].get("kind") == "METHOD" and not in_tests(graph, i.id)]
    found = [replace(caller, relation=THROUGH_REPOSITORY if item.indirect else caller.relation)
             for item in methods for caller in _callers(graph, [item], subject)
             if caller.resolution.startswith("dispatch") and not in_tests(graph, caller.id)]
    layered = [caller for caller in found if caller.relation != THROUGH_REPOSITORY]
    return found + [replace(caller, relation=THROUGH_REPOSITORY) for item in layered
                    for caller in _dispatched_callers(graph, item.id, subject)]


def _dispatched_callers(graph: nx.MultiDiGraph, method: str, subject: str) -> list[Related]:
    """The callers of `method` when all of them reach it through its interface (it has no other
    caller), outside tests."""
    callers = _callers(graph, [Related(method, "CALLS", subject, "static")], subject)
    if not callers or not all(c.resolution.startswith("dispatch") for c in callers):
        return []
    return [c for c in callers if not in_tests(graph, c.id)]


def _called_procedures(graph: nx.MultiDiGraph, node: str) -> list[str]:
    return [t for _, t, k in graph.out_edges(node, keys=True)
            if k == "CALLS" and graph.nodes[t].get("kind") == "PROCEDURE"]


def _callers(graph: nx.MultiDiGraph, items: list[Related], subject: str) -> list[Related]:
    """The callers of the code items: they break when what they call breaks."""
    found = []
    for item in items:
        if graph.nodes[item.id].get("kind") in ("METHOD", "FUNCTION", "PROCEDURE"):
            found += [Related(source, "CALLS", subject, resolution_of(data), indirect=True, via=data.get("via") or "")
                      for source, _, key, data in sorted(graph.in_edges(item.id, keys=True, data=True))
                      if key == "CALLS"]
    return found


def property_columns(graph: nx.MultiDiGraph, prop: str) -> list[str]:
    """The columns an ORM fills a property from: its own MAPS_TO edges (EF's conventions,
    `[Column]`, `HasColumnName`, settled by `ef_columns`); else named by the mapping, else the
    column of that name in each table its type maps to (not where EF's model settled the type's
    columns: a property it left without one is stored in none)."""
    settled = sorted(c for _, c, key in graph.out_edges(prop, keys=True)
                     if key == "MAPS_TO" and graph.nodes[c].get("kind") == "COLUMN")
    owner = graph.nodes[prop].get("parent")
    short = graph.nodes[prop].get("name", "").rsplit(".", 1)[-1]
    if settled or owner not in graph:
        return settled
    mappings = [(table, data) for _, table, key, data in graph.out_edges(owner, keys=True, data=True)
                if key == "MAPS_TO" and data.get("via") not in MODEL_MAPPINGS]
    named = [table for table, data in mappings
             if graph.nodes[table].get("kind") == "COLUMN" and data.get("property") == short]
    if named:
        return sorted(named)
    tables = [table for table, _ in mappings if graph.nodes[table].get("kind") in TABLE_KINDS]
    return sorted(column for table in tables for _, column, key in graph.out_edges(table, keys=True)
                  if key == "DEFINES" and graph.nodes[column].get("kind") == "COLUMN"
                  and graph.nodes[column].get("name", "").rsplit(".", 1)[-1].lower() == short.lower())


def _mapped_properties(graph: nx.MultiDiGraph, table: str, column_id: str, column: str) -> list[Related]:
    """The C# properties an ORM fills from the column: EF's settled MAPS_TO from each property
    (`ef_columns`), an entity's mapped by name (`HasColumnName`), or named as the column in a
    type mapped to its table by anything but EF's model (Dapper row types)."""
    found = []
    for source, _, key, data in graph.in_edges(column_id, keys=True, data=True):
        prop = data.get("property") and f"{graph.nodes[source].get('name')}.{data['property']}"
        if key == "MAPS_TO" and graph.nodes[source].get("kind") == "PROPERTY":
            found.append(Related(source, "maps column", column_id, resolution_of(data), via=data.get("via") or ""))
        elif key == "MAPS_TO" and prop:
            found += [Related(n, "maps column", column_id, resolution_of(data))
                      for n in _properties(graph, source) if graph.nodes[n]["name"] == prop]
    for source, _, key, data in graph.in_edges(table, keys=True, data=True):
        if key == "MAPS_TO" and data.get("via") not in MODEL_MAPPINGS:
            found += [Related(n, "maps column", column_id, "by_name" if data.get("guess") else "inferred")
                      for n in _properties(graph, source)
                      if graph.nodes[n]["name"].rsplit(".", 1)[-1].lower() == column.lower()]
    return found


def _properties(graph: nx.MultiDiGraph, type_id: str) -> list[str]:
    return [t for _, t, k in graph.out_edges(type_id, keys=True)
            if k == "DEFINES" and graph.nodes[t].get("kind") == "PROPERTY"]


def _foreign_keys_on(graph: nx.MultiDiGraph, table: str, column: str) -> list[tuple[str, dict]]:
    """Tables whose foreign keys use `column` of `table`, or that `column` points to."""
    return [(other, data) for other, data, _ in _key_sides(graph, table, column)]


def _key_sides(graph: nx.MultiDiGraph, table: str, column: str) -> list[tuple[str, dict, bool]]:
    """(other table, key, whether `column` is the referenced side) for each foreign key using
    `column` of `table`: a self-referencing key (`Employees.ReportsTo` -> `Employees.EmployeeID`)
    is one edge from the table to itself, its side told by the column, not by the edge."""
    low = column.lower()
    found = [(s, d, True) for s, _, k, d in graph.in_edges(table, keys=True, data=True)
             if k == "FOREIGN_KEY" and low in (c.lower() for c in d.get("ref_columns", ()))]
    found += [(t, d, False) for _, t, k, d in graph.out_edges(table, keys=True, data=True)
              if k == "FOREIGN_KEY" and low in (c.lower() for c in d.get("columns", ()))]
    return found


def _foreign_key_columns(graph: nx.MultiDiGraph, table: str, column: str) -> list[tuple[str, dict]]:
    """The COLUMN nodes on the other side of each foreign key `column` of `table` is part of."""
    found = []
    for other, data, referenced in _key_sides(graph, table, column):
        here, there = (data.get("ref_columns", ()), data.get("columns", ())) if referenced \
            else (data.get("columns", ()), data.get("ref_columns", ()))
        for mine, theirs in zip(here, there):
            node = f"sql:{graph.nodes[other].get('name')}.{theirs}|COLUMN"
            if mine.lower() == column.lower() and graph.nodes.get(node, {}).get("kind") == "COLUMN":
                found.append((node, data))
    return found


def _names_in_attrs(graph: nx.MultiDiGraph, node: str, word: re.Pattern[str]) -> bool:
    """Inline SQL a C# method keeps in its attributes names the column."""
    return any(word.search(sql) for sql in graph.nodes[node].get("attrs", {}).get("inline_sql", ()))


def _unique(items: list[Related]) -> list[Related]:
    kept: dict[str, Related] = {}
    for item in items:
        if item.id not in kept or (kept[item.id].indirect and not item.indirect):
            kept[item.id] = item
    return list(kept.values())


def _mapped(graph: nx.MultiDiGraph, type_id: str | None) -> bool:
    """The type is an entity: mapped to a table."""
    return type_id in graph and any(key == "MAPS_TO" for _, _, key in graph.out_edges(type_id, keys=True))
