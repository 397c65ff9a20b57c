"""Call targets of a method body (CALLS references).

Calls are emitted only when the receiver's type is known from the syntax: no receiver or `this`
(the type, then its bases), `base` (the bases only, and never by short name: an override
calling its base would find itself), a capitalised name that is no variable (a type), or a
parameter, local, field, property or constructor parameter whose type the file states
(`IDbConnection c`, `var c = new T(...)`). `new T(...)` calls the constructor `T.T`, exactly.
System.Object's methods (`ToString`, ...) are never resolved by short name. `nameof(...)` and
calls to local functions (part of their method) are not calls.
"""
from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from ragstream.index.model import Reference
from ragstream.index.parsers.csharp.declarations import Names, TypeDecl
from ragstream.index.parsers.csharp.syntax import (
    LANGUAGE, callee_of, created_type, descendants, line_of, node_text, type_name, unique,
)
from ragstream.index.parsers.csharp.variables import declared_variables


# System.Object's methods: an unresolved call to one is the framework's, never the only
# same-named method elsewhere in the repository.
OBJECT_METHODS = frozenset({
    "Equals", "GetHashCode", "GetType", "ToString", "MemberwiseClone", "ReferenceEquals",
})


@dataclass(frozen=True)
class TypeScope:
    """What a method body can see: its type, the file's names, the type's members."""

    decl: TypeDecl
    names: Names
    members: dict[str, str | None]  # field, property, constructor parameter -> type as written
    strings: dict[str, str]  # fields initialised with a string -> that string

    def member_candidates(self, type_written: str, member: str) -> tuple[str, ...]:
        return tuple(f"{guess}.{member}"
                     for guess in self.names.type_candidates(type_written, self.decl.name))

    def base_candidates(self, member: str) -> tuple[str, ...]:
        return unique(f"{guess}.{member}" for base in self.decl.bases
                       for guess in self.names.type_candidates(base, self.decl.scope))

    def own_candidates(self, member: str) -> tuple[str, ...]:
        return unique([f"{self.decl.name}.{member}", *self.base_candidates(member)])


def method_calls(method: tree_sitter.Node, source: str, scope: TypeScope) -> list[Reference]:
    variables = {**scope.members, **declared_variables(method)}
    local_functions = {node_text(node.child_by_field_name("name"))
                       for node in descendants(method) if node.type == "local_function_statement"}
    calls = []
    for node in descendants(method):
        target, candidates, by_name = _call_target(node, scope, variables, local_functions)
        if candidates:
            calls.append(Reference(
                source=source, edge_type="CALLS", target=target, target_language=LANGUAGE,
                candidates=candidates, target_kinds=("METHOD",), by_name=by_name,
                external=False, line=line_of(node),
            ))
    return calls


_NOT_FOLLOWED: tuple[str, tuple[str, ...], bool] = ("", (), False)


def _call_target(node: tree_sitter.Node, scope: TypeScope, variables: dict[str, str | None],
                 local_functions: set[str]) -> tuple[str, tuple[str, ...], bool]:
    """(target, candidates, by_name) of an invocation or `new T(...)`; no candidates when
    the call is not followed."""
    created = created_type(node)
    if created is not None:
        constructor = created.rsplit(".", 1)[-1]
        return f"{created}.{constructor}", scope.member_candidates(created, constructor), False
    callee = callee_of(node)
    if callee is None:
        return _NOT_FOLLOWED
    receiver, name = callee[0], type_name(callee[1]) or ""
    if receiver is None and (name == "nameof" or name in local_functions):
        return _NOT_FOLLOWED  # `nameof(x)` parses as a call; local functions belong to the method
    if receiver is None or receiver.type == "this":
        target, candidates = f"{scope.decl.name}.{name}", scope.own_candidates(name)
    elif receiver.type == "base":
        base = scope.decl.bases[0] if scope.decl.bases else ""
        return f"{base}.{name}", scope.base_candidates(name), False
    else:
        receiver_type = _receiver_type(receiver, variables)
        if receiver_type is None:
            return _NOT_FOLLOWED
        target, candidates = f"{receiver_type}.{name}", scope.member_candidates(receiver_type, name)
    return target, candidates, name not in OBJECT_METHODS


def _receiver_type(receiver: tree_sitter.Node, variables: dict[str, str | None]) -> str | None:
    """The receiver's type as written, when the syntax tells it."""
    if receiver.type == "object_creation_expression":
        return created_type(receiver)
    if receiver.type == "identifier" and node_text(receiver) in variables:
        return variables[node_text(receiver)]
    if receiver.type == "member_access_expression" \
            and receiver.child_by_field_name("expression").type == "this":
        return variables.get(node_text(receiver.child_by_field_name("name")))
    return _type_path(receiver, variables)


def _type_path(expression: tree_sitter.Node, variables: dict[str, str | None]) -> str | None:
    """`Console` or `System.Console`: a dotted name that can only be a type (capitalised,
    and not a variable or member)."""
    if expression.type == "identifier":
        name = node_text(expression)
        return name if name not in variables and name[:1].isupper() else None
    if expression.type == "member_access_expression":
        head = _type_path(expression.child_by_field_name("expression"), variables)
        return head and f"{head}.{node_text(expression.child_by_field_name('name'))}"
    return None
