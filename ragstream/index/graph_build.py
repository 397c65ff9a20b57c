"""One unified dependency graph from every parsed file: nodes, edges, resolved references.

Resolution is a pure function of all files' parse results, so an incremental re-index re-runs
it in full and every edge into a changed file is re-linked without re-parsing anything else;
Python's whole-program call solve, most of the time, is reused when no file's flow facts
changed but their lines (`python/calls/link.py`). Names are looked up in `symbols`; C# calls are resolved through their receivers'
types in `csharp_calls`; this module turns what is found into edges, each saying how it was made.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

import networkx as nx

from ragstream.index.csharp.call_resolution import (
    accepts, argument_binding, interface_family_root, merge_binding, resolve_call, untyped,
)
from ragstream.index.csharp.base_bindings import link_bound_accesses
from ragstream.index.csharp.bound_dispatch import link_bound_dispatch
from ragstream.index.csharp.bound_method_dispatch import link_bound_method_dispatch
from ragstream.index.csharp.extension_calls import static_extension_call
from ragstream.index.csharp.migration_sql import settle_code_sql_tables
from ragstream.index.csharp.table_arguments import link_table_arguments
from ragstream.index.csharp.table_registry import link_registered_tables
from ragstream.index.csharp.data_access import link_data_access, type_parameter_accesses
from ragstream.index.csharp.data_records import link_reader_mappings
from ragstream.index.csharp.domain_events import link_domain_events
from ragstream.index.csharp.interceptors import link_interceptors
from ragstream.index.csharp.mapping_members import link_member_paths
from ragstream.index.csharp.facades import link_facades
from ragstream.index.csharp.messages import link_forwarded_messages, link_messages
from ragstream.index.csharp.method_groups import link_method_groups
from ragstream.index.csharp.package_types import (
    link_argument_implementers, link_package_implementers, package_implementers,
)
from ragstream.index.csharp.pipeline_behaviours import link_pipeline_behaviours
from ragstream.index.csharp.request_filters import link_request_filters
from ragstream.index.csharp.setters import link_setters
from ragstream.index.csharp.property_reads import is_property_read, link_property_reads
from ragstream.index.csharp.sql_parameters import (
    VIA as SQL_PARAMETER, merge_passed, sql_parameter_references, without_receiver,
)
from ragstream.index.csharp.syntax import enclosing_scopes
from ragstream.index.csharp.type_bindings import bound_names
from ragstream.index.dispatch import link_dispatch, merge_receivers
from ragstream.index.graph_edits import add_edge, external_node
from ragstream.index.prefixed_names import has_unknown_prefix, link_prefixed_names
from ragstream.index.python.calls.link import CallMemo, LineFreeFacts, link_python_calls
from ragstream.index.model import LANGUAGE_PREFIX, Node, ParsedFile, Reference, node_id
from ragstream.index.csharp.ef_columns import link_property_columns
from ragstream.index.csharp.ef_graph import link_dbset_properties, settle_ef_mappings
from ragstream.index.csharp.code_first_tables import link_code_first_tables
from ragstream.index.csharp.nh_automapping import link_automapped_entities
from ragstream.index.csharp.ef_migrations import settle_migrations
from ragstream.index.sql.schema_evolution import evolve_schema
from ragstream.index.sql.templates import resolve_placeholder_schemas
from ragstream.index.sql.code_only_tables import settle_code_only_tables
from ragstream.index.sql.name_resolution import resolve_sql_names
from ragstream.index.symbols import SymbolTable, is_interface, without_template_copies
from ragstream.test_paths import code_root

_LANGUAGES = {prefix: language for language, prefix in LANGUAGE_PREFIX.items()}


@dataclass
class ResolutionStats:
    resolved: Counter = field(default_factory=Counter)  # edge type -> count
    by_name: Counter = field(default_factory=Counter)  # resolved by unique short name
    external: Counter = field(default_factory=Counter)  # linked to an EXTERNAL node
    dropped: Counter = field(default_factory=Counter)  # unresolved and not kept
    external_sources: Counter = field(default_factory=Counter)  # from an EXTERNAL source node
    dispatch: Counter = field(default_factory=Counter)  # interface / virtual -> implementation


def build_graph(files: list[ParsedFile], python_guesses: bool = True, python_memo: CallMemo | None = None,
                python_facts: LineFreeFacts | None = None) -> tuple[nx.MultiDiGraph, ResolutionStats]:
    """Nodes and in-file edges of every file, then every reference resolved across files, then
    Python's calls (`python_guesses`: whether a call on an unknown receiver may be linked by
    name, as a guess; `python_memo`: where a solve of the same flow facts may be found;
    `python_facts`: each file's line-free flow facts kept from the last build)."""
    files, graph = _parsed_graph(files)
    symbols = SymbolTable(files)
    stats = ResolutionStats()
    refs = [r for f in files for r in f.references]
    prefixed = [r for r in refs if has_unknown_prefix(r)]  # `{0}Posts`: matched once all names are known
    # Bases first: method lookups below walk the inheritance edges they create. Guesses
    # last: when a stated reference and a guess make the same edge, the first one's attributes
    # are kept.
    for ref in sorted(refs, key=lambda r: (r.edge_type != "INHERITS", bool(r.attrs.get("guess")))):
        if not has_unknown_prefix(ref) and not is_property_read(ref):
            _link(graph, symbols, ref, stats)
    for ref in sql_parameter_references(graph):  # SQL a caller hands to a helper that runs it
        if has_unknown_prefix(ref):
            prefixed.append(ref)
        else:
            _link(graph, symbols, ref, stats)
    stats.resolved.update(link_prefixed_names(graph, symbols, prefixed, lambda ref: _source_node(graph, ref, stats)))
    stats.dispatch["method_group"] += link_method_groups(graph)  # `Run(cmd, MapRow)`: the callee may run MapRow
    stats.resolved.update(link_registered_tables(graph, symbols, refs))  # `Mapper.Entity<T>("Table")`
    stats.resolved.update(link_table_arguments(graph, refs))  # `queryBuilder.InsertInto("User", ...)`
    stats.resolved.update(link_automapped_entities(graph))  # FluentNHibernate: the classes `AutoMap` accepts
    stats.resolved.update(settle_ef_mappings(graph))  # EF: explicit over conventions, TPH, columns
    stats.resolved.update(link_code_first_tables(graph, symbols, refs))  # OrmLite `db.CreateTable<T>()`
    # every schema source is in: SQL names left EXTERNAL onto the object they mean (case, schema, naming)
    stats.resolved["name_resolution"] += resolve_sql_names(graph)
    stats.resolved["code_only_tables"] += settle_code_only_tables(graph)  # names only the code's SQL says
    stats.resolved["MAPS_TO"] += link_property_columns(graph)  # each entity property to its column
    stats.resolved["REFERENCES"] += link_member_paths(graph)  # `MapFrom(s => s.Category.CategoryName)`
    stats.resolved.update(link_data_access(graph, symbols, refs))  # tables reached through DbSet<T>, IRepository<T>
    stats.resolved["MAPS_TO"] += link_dbset_properties(graph)  # `DbSet<Order> Orders`: the context's handle on its table
    stats.resolved["CALLS"] += link_setters(graph, symbols, refs)  # `item.Done = true` runs Done's setter
    stats.resolved["CALLS"] += link_property_reads(graph, symbols, refs)  # `config.X` runs X's getter
    stats.dispatch["interceptor"] += link_interceptors(graph, symbols, refs)  # what a save runs around itself
    stats.dispatch["domain_event"] += link_domain_events(graph, symbols, refs)  # raised, then published on save
    stats.dispatch["message"] += link_messages(graph, symbols, refs)  # mediator requests to their handlers
    implementers = package_implementers(symbols, refs)  # package type -> repository types deriving from it
    stats.resolved["CALLS"] += link_package_implementers(graph, symbols, refs, implementers)  # implemented once
    # guesses, counted apart from what the resolver settles: `Commit(uow)` -> uow's one implementer
    stats.dispatch["argument_implementer"] += link_argument_implementers(graph, symbols, refs, implementers)
    stats.dispatch["message"] += link_forwarded_messages(graph, symbols, refs)  # a bus passing its `T` on
    stats.dispatch["facade"] += link_facades(graph, symbols, refs, implementers)  # `Membership.ValidateUser` -> override
    # a generic base's accesses through its type parameters, bound by each subclass's base list
    stats.resolved.update(link_bound_accesses(graph, symbols, type_parameter_accesses(graph, symbols, refs)))
    stats.dispatch["pipeline"] += link_pipeline_behaviours(graph, symbols)  # what runs around each request sent
    stats.dispatch["request_filter"] += link_request_filters(graph, refs)  # what runs around an action or a page
    # after EF's mappings are settled: a reader's rows are no EF convention to settle
    stats.resolved["MAPS_TO"] += link_reader_mappings(graph)  # `new Issue { Id = reader["IssueId"] }`
    python_calls = link_python_calls(graph, files, by_name=python_guesses, memo=python_memo,
                                     facts=python_facts)
    stats.resolved["CALLS"] += sum(python_calls.values())
    stats.by_name["CALLS"] += python_calls["by_name"]
    stats.dispatch.update(link_dispatch(graph))
    # `new Pipeline<IProcess<Topic>, Topic>().Process(..)`: only the `IPipe<IProcess<Topic>>`s it dispatches to
    stats.dispatch["bound_type_argument"] += link_bound_dispatch(graph, symbols, refs)
    # `RunCommandAsync<TCommand>(command)` sending `command` on: only the handler of the caller's command
    stats.dispatch["bound_method_type_argument"] += link_bound_method_dispatch(graph, symbols, refs)
    _mark_files(graph, files)
    return graph, stats


def unlinked_graph(files: list[ParsedFile]) -> nx.MultiDiGraph:
    """What `build_graph` makes before it resolves anything across files: every node (its data
    as `build_graph`'s), the in-file edges and the graph's own marks -- what a chunk's text and
    its header's own rows (file, symbol, defined in, signature) are made from, so a build can
    publish its keyword index before the references are linked (`index/build.py`). A new graph:
    `build_graph` of the same files shares no table with it."""
    files, graph = _parsed_graph(files)
    _mark_files(graph, files)
    return graph


def _parsed_graph(files: list[ParsedFile]) -> tuple[list[ParsedFile], nx.MultiDiGraph]:
    """The files as the schema steps settle them, and their nodes and in-file edges."""
    files = settle_migrations(files)  # EF migrations' tables as the last migration leaves them
    files = resolve_placeholder_schemas(files)  # `$(Schema).Job` is `HangFire.Job` when twins say so
    files = evolve_schema(files)  # SQL objects as the last migration script leaves them
    files = settle_code_sql_tables(files)  # a CREATE TABLE string's table, where nothing else has it
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    for parsed in files:
        for node in parsed.nodes:
            graph.add_node(node.id, **vars(node))  # shallow: asdict's deep copy costs seconds
    for parsed in files:
        for edge in parsed.edges:
            # an edge into an object no file declares (one a later step took away) would make a bare node
            if edge.source in graph and edge.target in graph:
                add_edge(graph, edge.source, edge.target, edge.type, edge.attrs)
    return files, graph


def _mark_files(graph: nx.MultiDiGraph, files: list[ParsedFile]) -> None:
    """The graph's own marks of its files, set last (the graph's attributes keep their order)."""
    # the folder all files share: below it, `samples/` or `tests/` are tests (`test_paths`)
    graph.graph["code_root"] = code_root(parsed.path for parsed in files)
    # files a generator wrote (`walk.GENERATED_INDEXED`): retrieval ranks them after hand-written code
    graph.graph["generated_files"] = sorted(parsed.path for parsed in files
                                            if graph.nodes[parsed.root_id]["attrs"].get("generated"))


def _link(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference,
          stats: ResolutionStats) -> None:
    source = _source_node(graph, ref, stats)
    if source is None:  # an edge from it would create a bare node without attributes
        stats.dropped[ref.edge_type] += 1
        return
    if "call" in ref.attrs:
        _link_call(graph, symbols, ref, source, stats)
        return
    if ref.target_language == "sql" and "{" in ref.target:
        _link_bound_names(graph, symbols, ref, source, stats)
        return
    target = _resolve(graph, symbols, ref)
    # a name a call's value made, or a caller passed to a helper that runs it
    how = "inferred" if ref.attrs.get("via") in ("argument", SQL_PARAMETER) else "static"
    if target is None and ref.by_name:
        target = _resolve_by_name(symbols, ref, source)
        how = "by_name"
    _add_resolved(graph, symbols, ref, source, target, how, stats)


def _link_call(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference, source: str,
               stats: ResolutionStats) -> None:
    """A C# call, found through its receiver's type and that type's bases. The short-name
    fallback is tried only when the receiver's type is unknown or in the repository; a type
    known to be elsewhere (`IDbConnection`, `ILogger<T>`) admits only extension methods."""
    found = resolve_call(graph, symbols, ref.attrs["call"])
    if found.through is not None and found.through.attrs.get("table"):
        _link_table_property(graph, symbols, ref, source, found.through, stats)
    if found.methods:
        how = "inferred" if found.via or (found.inferred and not found.guessed) else \
            "by_name" if found.guessed else "static"
        extra: dict = {"overload": found.overload} if found.overload else {}
        extra |= argument_binding(graph, symbols, ref.attrs["call"])
        if found.via:  # typed by the carrier's type argument: say so, and whether it is a guess
            extra |= {"via": found.via, **({"guess": True} if found.guessed else {})}
        if found.receiver_type:  # a base's method on a subclass's receiver: what binds its type parameters
            extra["receiver_type"] = found.receiver_type
        for method in found.methods:
            if graph.has_edge(source, method, key="CALLS"):  # a second call of it: what both bind
                merge_binding(graph.edges[source, method, "CALLS"], extra)
            called = replace(ref, attrs=without_receiver(ref.attrs)) if static_extension_call(graph, method, ref.attrs["call"]) else ref
            _add_resolved(graph, symbols, called, source, method, how, stats, extra)
        return
    target = None
    if untyped(ref.attrs["call"]["receiver"]) and not found.receiver_outside:
        # (a field declared of a type outside the repository is no interface family's)
        target = interface_family_root(graph, symbols, ref.attrs["call"]["member"])
    elif ref.by_name:
        target = _resolve_by_name(symbols, ref, source, extensions_only=found.receiver_outside)
    call = ref.attrs["call"]
    if target is None and found.outside_base is not None:
        # `Commit(uow)` a package's base class declares: unresolved, but known to be the base's
        base = graph.nodes[found.outside_base]["name"]
        ref = replace(ref, target=f"{base}.{call['member']}", external=True,
                      attrs={**ref.attrs, "via": "external_base", **({"guess": True} if found.outside_guessed else {})})
        _add_resolved(graph, symbols, ref, source, None, "external", stats)
        return
    if target is None and ref.attrs.get("via_base") and found.receiver_outside:
        # `base.View(model)` in a subclass of a package's class (MVC's `Controller`): C#'s base
        # access runs that class's member, `Controller.View` as the parser wrote it
        _add_resolved(graph, symbols, replace(ref, external=True, attrs={**ref.attrs, "via": "external_base"}),
                      source, None, "external", stats)
        return
    if target is None and not ref.by_name and not found.typed and "types" not in call["receiver"]:
        # a receiver no type was found for (a query chain, what a library returns): the
        # repository's one extension method of that name taking the call's arguments after
        # its `this` (`query.PaginatedListAsync(page, size)`)
        target = _resolve_by_name(symbols, replace(ref, target=call["member"]), source, extensions_only=True)
        node = symbols.nodes.get(target or "")
        if node is not None and accepts(node, call["arguments"] + 1, ["", *call.get("kinds", ())]):
            ref = replace(ref, attrs={**ref.attrs, "via": "extension"})
        else:
            target = None
    _add_resolved(graph, symbols, ref, source, target, "by_name", stats)


# A call on a table object reads or writes its table by the verb its name starts with.
_WRITE_VERBS = ("Insert", "Update", "Delete", "Remove", "Add", "Save", "Upsert", "Merge")


def _link_table_property(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference, source: str,
                         through: Node, stats: ResolutionStats) -> None:
    """`Current.DB.Queries.Insert(...)`: a call on a property that stands for a table (a
    Dapper.Rainbow `Table<T>`) writes that table (reads it, for `Get`, `All`, ...)."""
    table = through.attrs["table"]
    edge_type = "WRITES" if ref.attrs["call"]["member"].startswith(_WRITE_VERBS) else "READS"
    target = next(filter(None, (_resolve_sql(symbols, name, ("TABLE", "VIEW")) for name in (table, f"dbo.{table}"))),
                  None) or external_node(graph, "sql", table)
    stats.resolved[edge_type] += 1
    add_edge(graph, source, target, edge_type,
             {"line": ref.line, "resolution": "inferred", "via": "dapper_rainbow", "property": through.name})


def _link_bound_names(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference, source: str,
                      stats: ResolutionStats) -> None:
    """A SQL name composed from a type parameter (`dbo.{T}_Create`): the objects each subclass's
    type argument names; one is inferred, several are each a guess with the others beside it."""
    found = [(target, subclass) for name, subclass in bound_names(graph, symbols, source, ref.target)
             for target in [_resolve_sql(symbols, name, ref.target_kinds)] if target]
    if not found:
        stats.dropped[ref.edge_type] += 1
        return
    candidates = sorted({target for target, _ in found})
    for target, subclass in found:
        attrs = {**ref.attrs, "line": ref.line, "resolution": "inferred", "via": "type_argument",
                 "template": ref.target, "bound_by": subclass}
        if len(candidates) > 1:
            attrs.update(guess=True, candidates=candidates)
        stats.resolved[ref.edge_type] += add_edge(graph, source, target, ref.edge_type, attrs)


def _add_resolved(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference, source: str,
                  target: str | None, how: str, stats: ResolutionStats,
                  extra: dict | None = None) -> None:
    """The edge for a resolved reference, an EXTERNAL node for an unresolved one that keeps
    it, else a count of the dropped reference."""
    edge_type = ref.edge_type
    if target is None:
        if not ref.external:
            stats.dropped[edge_type] += 1
            return
        target = external_node(graph, ref.target_language, ref.target)
        stats.external[edge_type] += 1
        how = "external"
    elif edge_type == "INHERITS" and is_interface(symbols.nodes.get(target)) \
            and not is_interface(symbols.nodes.get(source)):
        edge_type = "IMPLEMENTS"
    attrs = {**{k: v for k, v in ref.attrs.items() if k != "call"}, **(extra or {}),
             "line": ref.line, "resolution": how}
    if attrs.get("enqueued_by"):  # a job library runs the call later (`job_handoffs`), however it resolved
        attrs["via"] = "enqueued"
    if how == "by_name":
        stats.by_name[edge_type] += 1
        attrs["guess"] = True  # a unique short name, not a resolved reference
    stats.resolved[edge_type] += 1
    if not add_edge(graph, source, target, edge_type, attrs) and edge_type == "CALLS":
        merge_passed(graph.edges[source, target, edge_type], attrs)  # a second call: what it passes too
        merge_receivers(graph.edges[source, target, edge_type], attrs)  # and what it is called on


def _source_node(graph: nx.MultiDiGraph, ref: Reference, stats: ResolutionStats) -> str | None:
    """The reference's source; None when it is not in the graph.

    A parser that could only guess the source lists its guesses (node ids, the name as written
    last) in attrs["source_candidates"]. When none exists the source lies outside the indexed
    code (an EF entity from a NuGet package): an EXTERNAL node named as written stands for it,
    unless attrs["source_in_repository"] says only a source in the repository makes the edge
    worth having (a query's row type: `Query<int>` maps nothing).
    """
    guesses = ref.attrs.get("source_candidates", ())
    for candidate in guesses:
        if candidate in graph:
            return candidate
    if ref.source in graph:
        return ref.source
    if not guesses or ref.attrs.get("source_in_repository"):
        return None
    prefix, _, rest = guesses[-1].partition(":")
    if prefix not in _LANGUAGES:  # not a node id a parser makes: nothing to stand for it
        return None
    stats.external_sources[ref.edge_type] += 1
    return external_node(graph, _LANGUAGES[prefix], rest.rsplit("|", 1)[0])


def _resolve(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference) -> str | None:
    for candidate in ref.candidates:
        if ref.target_language == "python":
            found = _resolve_python(graph, symbols, candidate, ref.target_kinds, depth=0)
        elif ref.target_language == "sql":
            found = _resolve_sql(symbols, candidate, ref.target_kinds)
        elif ref.target_language == "file":
            node = symbols.file_named(candidate)
            found = node.id if node else None
        else:
            node = symbols.find(ref.target_language, candidate, ref.target_kinds)
            found = node.id if node else None
        if found:
            return found
    return None


def _resolve_python(graph: nx.MultiDiGraph, symbols: SymbolTable, name: str,
                    kinds: tuple[str, ...], depth: int) -> str | None:
    """Exact name, else the longest known prefix: a class (walk its bases) or a module
    (follow what it imports under that name, i.e. a re-export)."""
    node = symbols.find("python", name, kinds)
    if node or depth > 5:
        return node.id if node else None
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        prefix, rest = ".".join(parts[:cut]), parts[cut:]
        owner = symbols.find("python", prefix, ())
        if owner is None:
            continue
        if owner.kind == "CLASS" and len(rest) == 1:
            return _find_in_bases(graph, symbols, owner.id, rest[0], kinds)
        if owner.kind == "MODULE":
            alias = symbols.aliases.get(owner.name, {}).get(rest[0])
            if alias:
                return _resolve_python(graph, symbols, ".".join([alias, *rest[1:]]), kinds,
                                       depth + 1)
        return None
    return None


def _find_in_bases(graph: nx.MultiDiGraph, symbols: SymbolTable, class_id: str, attr: str,
                   kinds: tuple[str, ...]) -> str | None:
    """`attr` on a class or, breadth-first, on its bases inside the repository."""
    queue, seen = [class_id], {class_id}
    while queue:
        current = queue.pop(0)
        node = symbols.find("python", f"{symbols.nodes[current].name}.{attr}", kinds)
        if node:
            return node.id
        for _, base, key in sorted(graph.out_edges(current, keys=True)):
            if key == "INHERITS" and base in symbols.nodes and base not in seen:
                seen.add(base)
                queue.append(base)
    return None


def _resolve_sql(symbols: SymbolTable, name: str, kinds: tuple[str, ...]) -> str | None:
    """Exact (case-insensitive) name, else the one table of that name in any schema (a table
    that two scripts create is still one table; a script template's placeholder schema, SQLCMD's
    `$(Schema)`, yields to a concrete schema)."""
    node = symbols.find("sql", name, kinds)
    if node:
        return node.id
    bare = name.rsplit(".", 1)[-1]
    matches = without_template_copies(list(dict.fromkeys(match.id for match in symbols.short("sql", bare, kinds))))
    return matches[0] if len(matches) == 1 else None


def _resolve_by_name(symbols: SymbolTable, ref: Reference, source: str,
                     extensions_only: bool = False) -> str | None:
    """A unique node of that short name, preferring the source's own type and namespace."""
    short = ref.target.rsplit(".", 1)[-1]
    matches = symbols.short(ref.target_language, short, ref.target_kinds)
    if extensions_only:
        matches = [m for m in matches if m.attrs.get("extension")]
    if len(matches) <= 1:
        return matches[0].id if matches else None
    source_node = symbols.nodes.get(source)
    if source_node is None:
        return None
    for scope in (source_node.parent, _namespace_of(symbols, source_node)):
        near = [m for m in matches if scope and _within(symbols, m, scope)]
        if len(near) == 1:
            return near[0].id
    if extensions_only:
        return _extension_in_scope(symbols, matches, source_node)
    return None


def _extension_in_scope(symbols: SymbolTable, matches: list[Node], source: Node) -> str | None:
    """The extension method C# binds among `matches` (C# spec, "Extension method invocations"):
    the first namespace from the caller's outwards (`App.Web`, then `App`) that declares one, then
    the namespaces the caller's file imports (the compilation unit's usings, looked at last). None
    when the first place that has some has several: the graph does not tell them apart."""
    namespaces = {m.id: symbols.nodes[n].name for m in matches if (n := _namespace_of(symbols, m))}
    own = _namespace_of(symbols, source)
    places: list[set[str]] = [{scope} for scope in enclosing_scopes(symbols.nodes[own].name if own else "")]
    for names in [*places, _file_usings(symbols, source)]:
        near = [m for m in matches if namespaces.get(m.id) in names]
        if near:
            return near[0].id if len(near) == 1 else None
    return None


def _file_usings(symbols: SymbolTable, node: Node) -> set[str]:
    """The namespaces the file of `node` imports (`using X.Y;`), as its FILE node keeps them."""
    file = symbols.nodes.get(node_id(node.language, node.path, "FILE")) if node.path else None
    return set(file.attrs.get("usings") or ()) if file is not None else set()


def _namespace_of(symbols: SymbolTable, node: Node) -> str | None:
    current = node
    while current.parent and current.parent in symbols.nodes:
        current = symbols.nodes[current.parent]
        if current.kind in ("NAMESPACE", "MODULE"):
            return current.id
    return None


def _within(symbols: SymbolTable, node: Node, ancestor: str) -> bool:
    current: Node | None = node
    while current and current.parent:
        if current.parent == ancestor:
            return True
        current = symbols.nodes.get(current.parent)
    return False
