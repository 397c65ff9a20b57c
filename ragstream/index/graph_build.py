"""One unified dependency graph from every parsed file: nodes, edges, resolved references.

Resolution is a pure function of all files' parse results, so an incremental re-index re-runs
it in full (it is fast) and every edge into a changed file is re-linked without re-parsing
anything else.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import networkx as nx

from ragstream.index.model import Node, ParsedFile, Reference, node_id
from ragstream.index.parsers.csharp.ef_graph import settle_ef_mappings
from ragstream.index.parsers.csharp.ef_migrations import settle_migrations


@dataclass
class ResolutionStats:
    resolved: Counter = field(default_factory=Counter)  # edge type -> count
    by_name: Counter = field(default_factory=Counter)  # resolved by unique short name
    external: Counter = field(default_factory=Counter)  # linked to an EXTERNAL node
    dropped: Counter = field(default_factory=Counter)  # unresolved and not kept


def build_graph(files: list[ParsedFile]) -> tuple[nx.MultiDiGraph, ResolutionStats]:
    """Nodes and in-file edges of every file, then every reference resolved across files."""
    files = settle_migrations(files)  # EF migrations' tables as the last migration leaves them
    graph = nx.MultiDiGraph()
    for parsed in files:
        for node in parsed.nodes:
            graph.add_node(node.id, **vars(node))  # shallow: asdict's deep copy costs seconds
        for edge in parsed.edges:
            add_edge(graph, edge.source, edge.target, edge.type, edge.attrs)
    symbols = SymbolTable(files)
    stats = ResolutionStats()
    refs = [r for f in files for r in f.references]
    # Bases first: method lookups below walk the inheritance edges they create. Guesses
    # last: when a stated reference and a guess make the same edge, the first one's attributes
    # are kept.
    for ref in sorted(refs, key=lambda r: (r.edge_type != "INHERITS", bool(r.attrs.get("guess")))):
        _link(graph, symbols, ref, stats)
    settle_ef_mappings(graph)  # EF: explicit mappings over conventions, TPH subclasses
    return graph, stats


def add_edge(graph: nx.MultiDiGraph, source: str, target: str, edge_type: str,
             attrs: dict | None = None) -> None:
    """One edge per (source, target, type); the first one's attributes are kept."""
    if not graph.has_edge(source, target, key=edge_type):
        graph.add_edge(source, target, key=edge_type, type=edge_type, **(attrs or {}))


class SymbolTable:
    """Lookups of qualified and short names, per language."""

    def __init__(self, files: list[ParsedFile]):
        self.nodes: dict[str, Node] = {}
        self.by_name: dict[tuple[str, str], Node] = {}
        self.by_short: dict[tuple[str, str], list[Node]] = defaultdict(list)
        self.aliases: dict[str, dict[str, str]] = {}  # python module name -> its import aliases
        for parsed in files:
            if parsed.language == "python":
                self.aliases[parsed.nodes[0].name] = parsed.aliases
            for node in parsed.nodes:
                self.nodes[node.id] = node
                self.by_name.setdefault((node.language, _key(node.language, node.name)), node)
                self.by_short[(node.language, _key(node.language, node.short_name))].append(node)

    def find(self, language: str, name: str, kinds: tuple[str, ...]) -> Node | None:
        node = self.by_name.get((language, _key(language, name)))
        return node if node and (not kinds or node.kind in kinds) else None

    def short(self, language: str, name: str, kinds: tuple[str, ...]) -> list[Node]:
        found = self.by_short.get((language, _key(language, name)), [])
        return [n for n in found if not kinds or n.kind in kinds]


def _key(language: str, name: str) -> str:
    return name.lower() if language == "sql" else name  # SQL identifiers ignore case


def _link(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference,
          stats: ResolutionStats) -> None:
    source = _source_node(graph, ref)
    target = _resolve(graph, symbols, ref)
    how = "static"
    if target is None and ref.by_name:
        target = _resolve_by_name(symbols, ref, source)
        how = "by_name"
    edge_type = ref.edge_type
    if target is None:
        if not ref.external:
            stats.dropped[edge_type] += 1
            return
        target = node_id(ref.target_language, ref.target, "EXTERNAL")
        if target not in graph:
            graph.add_node(target, **vars(Node(
                id=target, kind="EXTERNAL", language=ref.target_language, name=ref.target)))
        stats.external[edge_type] += 1
        how = "external"
    elif edge_type == "INHERITS" and _is_interface(symbols.nodes.get(target)) \
            and not _is_interface(symbols.nodes.get(source)):
        edge_type = "IMPLEMENTS"
    if how == "by_name":
        stats.by_name[edge_type] += 1
    stats.resolved[edge_type] += 1
    add_edge(graph, source, target, edge_type, {**ref.attrs, "line": ref.line, "resolution": how})


def _source_node(graph: nx.MultiDiGraph, ref: Reference) -> str:
    """The reference's source; a parser that could only guess it lists guesses in attrs."""
    for candidate in ref.attrs.get("source_candidates", ()):
        if candidate in graph:
            return candidate
    return ref.source


def _resolve(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference) -> str | None:
    for candidate in ref.candidates:
        if ref.target_language == "python":
            found = _resolve_python(graph, symbols, candidate, ref.target_kinds, depth=0)
        elif ref.target_language == "sql":
            found = _resolve_sql(symbols, candidate, ref.target_kinds)
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
    """Exact (case-insensitive) name, else the one table of that name in any schema."""
    node = symbols.find("sql", name, kinds)
    if node:
        return node.id
    bare = name.rsplit(".", 1)[-1]
    matches = symbols.short("sql", bare, kinds)
    return matches[0].id if len(matches) == 1 else None


def _resolve_by_name(symbols: SymbolTable, ref: Reference, source: str) -> str | None:
    """A unique node of that short name, preferring the source's own type and namespace."""
    short = ref.target.rsplit(".", 1)[-1]
    matches = symbols.short(ref.target_language, short, ref.target_kinds)
    if len(matches) <= 1:
        return matches[0].id if matches else None
    source_node = symbols.nodes.get(source)
    if source_node is None:
        return None
    for scope in (source_node.parent, _namespace_of(symbols, source_node)):
        near = [m for m in matches if scope and _within(symbols, m, scope)]
        if len(near) == 1:
            return near[0].id
    return None


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


def _is_interface(node: Node | None) -> bool:
    return node is not None and node.attrs.get("type_kind") == "interface"
