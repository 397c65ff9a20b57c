"""FluentNHibernate automapping: the entities it maps, and their tables, though no class names them.

An automapped application writes no mapping per entity: `AutoMap.Assemblies(config, ...)` maps
every class its configuration accepts, to a table of the class's name. What says which classes:

- an automapping configuration (a class deriving `DefaultAutomappingConfiguration` or
  implementing `IAutomappingConfiguration`) whose `ShouldMap(Type)` names the base of the
  entities (`type.IsSubclassOf(typeof(SystemEntity))`, `typeof(IEntity).IsAssignableFrom(type)`)
  or their namespace (`type.Namespace == "Shop.Domain"`, `StartsWith`); an `IsDiscriminated`
  override that does not just return false puts subclasses in their base's table;
- the `AutoMap` call's chain: `.Where(t => ...)` read as `ShouldMap`, `.IgnoreBase<B>()` (B is a
  layer supertype: its subclasses are entities, B has no table) and `.IncludeBase<B>()` (B is an
  entity though abstract: its subclasses join its table or share it).

`automapping_references` (per file) records these as REFERENCES from the configuring type to the
base (or NAMESPACE), attrs `via` = `automapping_root` / `automapping_ignore` / `automapping_include`
(`match` "exact" or "prefix" for a namespace, `discriminated`). `link_automapped_entities` (once
every reference is linked, before `ef_graph.settle_ef_mappings`) then maps each class deriving from
a root, or declared in a root namespace, to the table of its name: MAPS_TO attrs `via="automapping"`,
`mapping="by_convention"`, `guess` (the convention, not a statement of the code), `mapped_by` (the
configuring type); an explicit mapping of the same class (an override's `Table("X")`, a `ClassMap`)
wins in `settle_ef_mappings`. Not mapped: an ignored base, an abstract class not included (
FluentNHibernate's layer supertypes), an interface, a struct or enum. A mapped class's subclasses
share its table when the configuration discriminates (`ef_graph`'s table per hierarchy), else each
has its own (a joined subclass: attrs `inheritance="tpt"` on the base's mapping).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import networkx as nx
import tree_sitter

from ragstream.index.csharp.declarations import Names, TypeDecl
from ragstream.index.csharp.package_dbsets import tables_by_short_name
from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import (
    LANGUAGE, call_arguments, called_name, callee_of, descendants, fluent_chain, line_of, node_text, required_child,
    type_arguments, type_name,
)
from ragstream.index.graph_edits import add_edge, external_node
from ragstream.index.model import Reference

CONFIGURATION_BASES = frozenset({"DefaultAutomappingConfiguration", "IAutomappingConfiguration"})
AUTOMAP_SOURCES = frozenset({"Assemblies", "AssemblyOf", "Assembly", "Source"})
CHAIN_VIAS = {"IgnoreBase": "automapping_ignore", "IncludeBase": "automapping_include", "Where": "automapping_root"}
VIAS = frozenset({"automapping_root", "automapping_ignore", "automapping_include"})
MAPPED_KINDS = frozenset({"class", "record"})


def automapping_references(types: list[TypeDecl], names: Names) -> list[Reference]:
    """What the file's automapping configurations and `AutoMap` chains say about which classes are entities."""
    found: list[Reference] = []
    for decl in types:
        if any(base.rsplit(".", 1)[-1] in CONFIGURATION_BASES for base in decl.bases):
            should_map = _method(decl, "ShouldMap", "Type")
            discriminated = _discriminates(_method(decl, "IsDiscriminated", "Type"))
            if should_map is not None:
                found += _predicate_references(decl, names, should_map, "automapping_root", discriminated)
        for method in decl.methods:
            for call in descendants(method):
                if _automap_source(call):
                    found += _chain_references(decl, names, call)
    return found


def _method(decl: TypeDecl, name: str, parameter_type: str) -> tree_sitter.Node | None:
    """The declared method `name` whose one parameter is a `parameter_type` (`ShouldMap(Type type)`,
    not `ShouldMap(Member member)`)."""
    for method in decl.methods:
        parameters = method.child_by_field_name("parameters")
        written = [type_name(p.child_by_field_name("type")) for p in parameters.named_children
                   if p.type == "parameter"] if parameters is not None else []
        if node_text(method.child_by_field_name("name")) == name \
                and [w.rsplit(".", 1)[-1] for w in written if w] == [parameter_type]:
            return method
    return None


def _discriminates(method: tree_sitter.Node | None) -> bool:
    """An `IsDiscriminated` override returning anything but `false`."""
    body = method.child_by_field_name("body") if method is not None else None
    return body is not None and node_text(body).replace(" ", "") not in ("{returnfalse;}", "=>false;", "=>false")


def _predicate_references(decl: TypeDecl, names: Names, predicate: tree_sitter.Node, via: str,
                          discriminated: bool = False) -> list[Reference]:
    """REFERENCES to the bases a `ShouldMap` / `Where` predicate names with `typeof(B)`, and to the
    namespaces it compares `Namespace` with."""
    marks = {"discriminated": True} if discriminated else {}
    found = [_reference(decl, names, written, via, line_of(typed), marks)
             for typed, written in _typeofs(predicate)]
    for line, namespace, match in _namespaces(predicate):
        found.append(Reference(source=decl.id, edge_type="REFERENCES", target=namespace, target_language=LANGUAGE,
                               candidates=(namespace,), target_kinds=("NAMESPACE",), by_name=False, external=False,
                               line=line, attrs={"via": via, "match": match, **marks}))
    return found


def _typeofs(node: tree_sitter.Node) -> Iterator[tuple[tree_sitter.Node, str]]:
    for typed in descendants(node):
        if typed.type == "typeof_expression" and typed.named_children \
                and (written := type_name(typed.named_children[0])):
            yield typed, written


def _namespaces(node: tree_sitter.Node) -> Iterator[tuple[int, str, str]]:
    """(line, namespace, "exact" / "prefix") of `x.Namespace == "N"` and `x.Namespace.StartsWith("N")`."""
    for found in descendants(node):
        if found.type == "binary_expression" and node_text(found.child_by_field_name("operator")) == "==":
            sides = [found.child_by_field_name("left"), found.child_by_field_name("right")]
            if any(_is_namespace(side) for side in sides):
                yield from ((line_of(found), value, "exact") for side in sides
                            if side is not None and (value := string_value(side, {})))
        callee = callee_of(found)
        if callee and callee[0] is not None and _is_namespace(callee[0]) and called_name(found) == "StartsWith":
            arguments = call_arguments(required_child(found, "arguments"))
            value = string_value(arguments[0][1], {}) if arguments else None
            if value:
                yield line_of(found), value.rstrip("."), "prefix"


def _is_namespace(node: tree_sitter.Node | None) -> bool:
    """`type.Namespace`."""
    return node is not None and node.type == "member_access_expression" \
        and node_text(node.child_by_field_name("name")) == "Namespace"


def _automap_source(call: tree_sitter.Node) -> bool:
    """`AutoMap.Assemblies(...)`, `AutoMap.AssemblyOf<T>(...)`, `FluentNHibernate.Automapping.AutoMap.Source(...)`."""
    callee = callee_of(call)
    return callee is not None and callee[0] is not None and node_text(callee[0]).rsplit(".", 1)[-1] == "AutoMap" \
        and called_name(call) in AUTOMAP_SOURCES


def _chain_references(decl: TypeDecl, names: Names, source: tree_sitter.Node) -> list[Reference]:
    """REFERENCES from the chain on an `AutoMap` call: ignored and included bases, `Where` predicates."""
    found: list[Reference] = []
    for call in fluent_chain(source):
        via = CHAIN_VIAS.get(called_name(call) or "")
        if via is None:
            continue
        if via == "automapping_root":
            found += _predicate_references(decl, names, required_child(call, "arguments"), via)
            continue
        callee = callee_of(call)
        generic = callee[1] if callee else None
        written = type_arguments(generic) if generic is not None and generic.type == "generic_name" else []
        written += [name for _, name in _typeofs(required_child(call, "arguments"))]
        found += [_reference(decl, names, name, via, line_of(call), {}) for name in written]
    return found


def _reference(decl: TypeDecl, names: Names, written: str, via: str, line: int, marks: dict) -> Reference:
    """REFERENCES from the configuring type to the base `written` names."""
    return Reference(source=decl.id, edge_type="REFERENCES", target=written, target_language=LANGUAGE,
                     candidates=names.type_candidates(written, decl.scope), target_kinds=("TYPE",), by_name=True,
                     external=False, line=line, attrs={"via": via, **marks})


def link_automapped_entities(graph: nx.MultiDiGraph) -> Counter:
    """MAPS_TO from each class automapping maps to the table of its name; the edges added, by type."""
    said = [(source, target, attrs) for source, target, key, attrs in graph.edges(keys=True, data=True)
            if key == "REFERENCES" and attrs.get("via") in VIAS]
    if not said:
        return Counter()
    # (base, the type saying so): a configuration's `ShouldMap` before a chain's, so it is what maps
    roots = sorted({(attrs["via"] != "automapping_root", target, source) for source, target, attrs in said
                    if graph.nodes[target].get("kind") == "TYPE"})
    namespaces = [(graph.nodes[target].get("name", ""), attrs.get("match"), source) for source, target, attrs in said
                  if graph.nodes[target].get("kind") == "NAMESPACE"]
    ignored = {target for _, target, attrs in said if attrs["via"] == "automapping_ignore"}
    included = {target for _, target, attrs in said if attrs["via"] == "automapping_include"}
    discriminated = any(attrs.get("discriminated") for _, _, attrs in said)
    entities = _derived(graph, roots)
    for node, data in graph.nodes(data=True):
        for namespace, match, source in namespaces:
            name = data.get("name", "")
            if data.get("kind") == "TYPE" and (name.rsplit(".", 1)[0] == namespace if match == "exact"
                                                 else name.startswith(namespace + ".")):
                entities.setdefault(node, source)
    mapped = {node: source for node, source in entities.items() if _mappable(graph, node, ignored, included)}
    tables = tables_by_short_name(graph)
    added: Counter = Counter()
    for entity, source in sorted(mapped.items()):
        if any(key == "MAPS_TO" for _, _, key in graph.out_edges(entity, keys=True)):
            continue  # an override or a ClassMap maps it: `settle_ef_mappings` weighs the two
        data = graph.nodes[entity]
        short = data["name"].rsplit(".", 1)[-1]
        named = tables.get(short.lower(), [])
        table = named[0] if len(named) == 1 else external_node(graph, "sql", short)
        has_mapped_subclass = any(child in mapped for child in _subclasses(graph, entity))
        attrs = {"via": "automapping", "mapping": "by_convention", "guess": True, "mapped_by": source,
                 "line": data.get("start_line", 0), "resolution": "inferred",
                 **({"inheritance": "tpt"} if has_mapped_subclass and not discriminated else {})}
        added["MAPS_TO"] += add_edge(graph, entity, table, "MAPS_TO", attrs)
    return added


def _derived(graph: nx.MultiDiGraph, roots: list[tuple[bool, str, str]]) -> dict[str, str]:
    """Every type deriving from a root, the roots themselves included -> the type configuring the
    first root (in `roots`' order) that reaches it."""
    found: dict[str, str] = {}
    for _, root, source in roots:
        seen, queue = set(), [root]
        while queue:
            node = queue.pop()
            if node not in seen:
                seen.add(node)
                found.setdefault(node, source)
                queue += _subclasses(graph, node)
    return found


def _subclasses(graph: nx.MultiDiGraph, node: str) -> list[str]:
    return sorted(child for child, _, key in graph.in_edges(node, keys=True) if key in ("INHERITS", "IMPLEMENTS"))


def _mappable(graph: nx.MultiDiGraph, node: str, ignored: set[str], included: set[str]) -> bool:
    """A class automapping gives a table: not ignored, not abstract unless included."""
    data = graph.nodes[node]
    attrs = data.get("attrs") or {}
    if data.get("kind") != "TYPE" or attrs.get("type_kind") not in MAPPED_KINDS or node in ignored:
        return False
    modifiers = attrs.get("modifiers") or ()
    return "static" not in modifiers and ("abstract" not in modifiers or node in included)
