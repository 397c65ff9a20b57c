"""A name a method body uses that its file does not declare, looked up over the whole
declaration of its type: the fields of every part of a partial type, the members its bases
declare (with their type parameters bound by the subclass's base list), and its enclosing types.

C# (spec, "Partial types"): the parts of a partial type are one type, their members one
declaration space, so a method in one file calls `_procedures.InsertEntry(..)` on a field
declared in another; "Member lookup": an inherited member is the subclass's, a protected
`TProvider _provider` of `ProviderBase<TProvider>` is `SqlProvider _provider` in a class
deriving from `ProviderBase<SqlProvider>`. Parsing is per file (and cached), so each FILE records
the fields its types declare (`member_fields`, type id -> name -> [type as written, qualified
guesses, private]) and `SymbolTable.fields` merges them, as `sql_parameters` merges each part's
`string_constants`; the resolver reads them here.
"""
from __future__ import annotations

from collections import deque

import networkx as nx
import tree_sitter

from ragstream.index.csharp.declarations import Names, TypeDecl
from ragstream.index.csharp.docs import modifiers
from ragstream.index.csharp.hierarchy import direct_bases
from ragstream.index.csharp.strings import type_constraints
from ragstream.index.csharp.syntax import body_members, child_of_type, children_of_type, node_text, type_name
from ragstream.index.model import Node
from ragstream.index.symbols import SymbolTable

# Field types whose members are never the repository's.
_PREDEFINED = frozenset({"bool", "byte", "sbyte", "char", "decimal", "double", "float", "int", "uint", "long",
                         "ulong", "short", "ushort", "string", "object", "String", "Object"})
_NOT_PRIVATE = frozenset({"public", "protected", "internal"})
_NESTED = frozenset({"class_declaration", "struct_declaration", "record_declaration", "interface_declaration"})
MAX_HOPS = 8  # how far up the bases and enclosing types a member is looked for


def declared_fields(decl: TypeDecl, names: Names) -> dict[str, list]:
    """name -> [type as written, qualified guesses, private] of the fields a method of another
    type or file may name: every field of a partial type (its other parts are other files) or of
    a type with nested types (they see its private members), the non-private ones of any other
    type (its subclasses'). A field typed by a constrained type parameter is guessed as its
    constraints (`where T : X`: member lookup on T searches X)."""
    seen_elsewhere = "partial" in modifiers(decl.syntax) or any(member.type in _NESTED for member in body_members(decl.syntax))
    constraints = type_constraints(decl.syntax)
    found: dict[str, list] = {}
    for member in body_members(decl.syntax):
        if member.type not in ("field_declaration", "event_field_declaration"):
            continue
        private = not _NOT_PRIVATE & set(modifiers(member))
        variable = child_of_type(member, "variable_declaration")
        written = type_name(variable.child_by_field_name("type")) if variable is not None else None
        if variable is None or not written or written in _PREDEFINED or (private and not seen_elsewhere):
            continue
        bound = constraints.get(written)
        guesses = [g for t in bound for g in names.type_candidates(t, decl.name)] if bound else \
            list(names.type_candidates(written, decl.name))
        for declarator in children_of_type(variable, "variable_declarator"):
            found[node_text(declarator.child_by_field_name("name"))] = [written, guesses, private]
    return found


def undeclared_member(receiver: tree_sitter.Node, declared: dict) -> str | None:
    """`_procedures` of a receiver written `_procedures` or `this._procedures` that names no
    variable, parameter or member of the file: a member of another part or of a base."""
    if receiver.type == "member_access_expression":
        expression = receiver.child_by_field_name("expression")
        if expression is None or expression.type != "this":
            return None
        name = receiver.child_by_field_name("name")
    else:
        name = receiver
    if name is None or name.type != "identifier" or node_text(name) in declared:
        return None
    return node_text(name)


def member_type(graph: nx.MultiDiGraph, symbols: SymbolTable, type_id: str,
                name: str) -> tuple[list[str], Node | None] | None:
    """The qualified guesses of the type of the field or property `name` as `type_id` sees it,
    and the PROPERTY node when it is one: on the type (any part) and breadth-first on its bases
    (their type parameters bound by each base list on the way), then the same on each enclosing
    type in turn -- C# looks a simple name up in the type and all its bases before the enclosing
    type. None when none declares it (or only privately, in a base)."""
    seen: set[str] = set()
    current: str | None = type_id
    while current is not None:
        found = _on_type_or_bases(graph, symbols, current, name, seen)
        if found is not None:
            return found
        outer = symbols.nodes[current].parent if current in symbols.nodes else None
        # a nested type sees its enclosing types' members, private ones too
        current = outer if outer and outer not in seen and outer in symbols.nodes \
            and symbols.nodes[outer].kind == "TYPE" else None
    return None


def accessed_member_type(graph: nx.MultiDiGraph, symbols: SymbolTable, type_id: str,
                         name: str) -> tuple[list[str], Node | None] | None:
    """`member_type` for a member access on a value or a type (`settings.Current`,
    `RepoFactory.Users` of a `public static UserRepository Users` field): C# looks the name up in
    the type and its bases only, never in its enclosing types."""
    return _on_type_or_bases(graph, symbols, type_id, name, set())


def _on_type_or_bases(graph: nx.MultiDiGraph, symbols: SymbolTable, type_id: str, name: str,
                      seen: set[str]) -> tuple[list[str], Node | None] | None:
    """`member_type` on one type and its bases, nearest first; a base's private field is not seen."""
    seen.add(type_id)
    queue = deque([(type_id, dict[str, list[str]](), 0, False)])
    while queue:
        current, binding, hops, inherited = queue.popleft()
        field = symbols.fields.get((current, name))
        if field is not None and not (inherited and field[2]):
            return binding.get(field[0], field[1]), None
        properties = symbols.properties.get((current, name))
        if properties:
            returns = list(properties[0].attrs.get("returns", ()))
            return (binding.get(returns[-1], returns) if returns else []), properties[0]
        if hops >= MAX_HOPS:
            continue
        for base in direct_bases(graph, current):
            if base not in seen and base in symbols.nodes:
                seen.add(base)
                queue.append((base, _base_binding(symbols, current, base, binding), hops + 1, True))
    return None


def _base_binding(symbols: SymbolTable, child: str, base: str, binding: dict[str, list[str]]) -> dict[str, list[str]]:
    """The base's type parameters -> the guesses of what `child`'s base list gives them
    (`: ProviderBase<SqlProvider>`), a parameter of `child` itself passed on as `child` had it."""
    parameters = symbols.nodes[base].attrs.get("type_parameters") or []
    short = symbols.nodes[base].name.rsplit(".", 1)[-1]
    # the base list may be written on any part of a partial type: each part's TYPE node is in `short`
    parts = [node for node in symbols.short("csharp", symbols.nodes[child].short_name, ("TYPE",)) if node.id == child]
    arguments = next((written["arguments"] for part in parts for written in part.attrs.get("generic_bases", ())
                      if written["name"].rsplit(".", 1)[-1] == short), None)
    if not parameters or arguments is None or len(arguments) != len(parameters):
        return {}
    return {parameter: binding.get(guesses[-1], guesses) if guesses else guesses
            for parameter, guesses in zip(parameters, arguments)}
