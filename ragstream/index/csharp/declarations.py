"""Namespaces, types and usings of a file, and how names written in it are qualified."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import tree_sitter

from ragstream.index.model import Edge, Node, ParsedFile, Reference, node_id
from ragstream.index.csharp.attributes import attribute_names, attribute_string
from ragstream.index.csharp.docs import doc_comment, header, modifiers
from ragstream.index.csharp.strings import type_parameters
from ragstream.index.csharp.syntax import (
    LANGUAGE, argument_shapes, body_members, child_of_type, enclosing_scopes, end_line_of, line_of, node_text,
    qualify, type_arguments, type_name, unique,
)


TYPE_KINDS = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "record_declaration": "record",
    "struct_declaration": "struct",
    "enum_declaration": "enum",
}


METHOD_DECLARATIONS = frozenset({"method_declaration", "constructor_declaration"})


NAMESPACE_DECLARATIONS = frozenset({"namespace_declaration", "file_scoped_namespace_declaration"})


@dataclass
class TypeDecl:
    syntax: tree_sitter.Node
    name: str  # qualified: Billing.Services.InvoiceService
    scope: str  # the namespace or outer type it is declared in
    parent: str  # node id of that namespace or type, or of the file
    bases: list[str]  # as written, type arguments dropped
    methods: list[tree_sitter.Node] = field(default_factory=list)

    @property
    def id(self) -> str:
        return node_id(LANGUAGE, self.name, "TYPE")


@dataclass
class Declarations:
    file: Node
    namespaces: list[Node] = field(default_factory=list)
    types: list[TypeDecl] = field(default_factory=list)
    usings: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)


def collect(container: tree_sitter.Node, namespace: str, parent: str,
             found: Declarations) -> None:
    """Record the usings, namespaces and types declared directly in `container`."""
    for child in container.named_children:
        if child.type == "using_directive":
            _add_using(child, namespace, found)
        elif child.type in NAMESPACE_DECLARATIONS:
            node = _namespace_node(child, namespace, found.file)
            found.namespaces.append(node)
            body = child.child_by_field_name("body")
            if body is None:  # file-scoped: it owns the declarations that follow it
                namespace, parent = node.name, node.id
            else:
                collect(body, node.name, node.id, found)
        elif child.type in TYPE_KINDS:
            _collect_type(child, namespace, parent, found)
        elif child.type == "ERROR" and child_of_type(child, "namespace") is None:
            # Recovery may wrap intact declarations; when it swallowed a `namespace` keyword,
            # the names inside would be qualified wrongly, so they are left out.
            collect(child, namespace, parent, found)


def _add_using(directive: tree_sitter.Node, namespace: str, found: Declarations) -> None:
    """A using directive inside `namespace` ("" at file level).

    C# resolves the name a using directive inside a namespace body imports from that namespace
    outwards (C# spec, "Using namespace directives": `namespace A.B { using C; }` imports `A.B.C`,
    else `A.C`, else `C`), so each of those is a using; a file-level one is taken as written."""
    if any(child.type == "static" for child in directive.children):
        return  # `using static T;` imports members, not type names
    alias = directive.child_by_field_name("name")
    target = node_text(directive.named_children[-1])
    if alias is None:
        found.usings.extend(f"{scope}.{target}" for scope in enclosing_scopes(namespace))
        found.usings.append(target)
    else:
        found.aliases[node_text(alias)] = target


def _namespace_node(syntax: tree_sitter.Node, outer: str, file: Node) -> Node:
    name = qualify(outer, node_text(syntax.child_by_field_name("name")))
    file_scoped = syntax.type == "file_scoped_namespace_declaration"
    return Node(
        id=node_id(LANGUAGE, name, "NAMESPACE"), kind="NAMESPACE", language=LANGUAGE, name=name,
        path=file.path, start_line=line_of(syntax),
        end_line=file.end_line if file_scoped else end_line_of(syntax),
        parent=file.id, signature=f"namespace {name}",
    )


def _collect_type(syntax: tree_sitter.Node, scope: str, parent: str,
                  found: Declarations) -> None:
    name = syntax.child_by_field_name("name")
    if name is None:  # only in broken code
        return
    decl = TypeDecl(syntax, qualify(scope, node_text(name)), scope, parent, _base_types(syntax))
    found.types.append(decl)
    for member in body_members(syntax):
        if member.type in TYPE_KINDS:
            _collect_type(member, decl.name, decl.id, found)
        elif member.type in METHOD_DECLARATIONS and member.child_by_field_name("name"):
            decl.methods.append(member)


def _base_types(syntax: tree_sitter.Node) -> list[str]:
    base_list = child_of_type(syntax, "base_list")
    names = (type_name(child) for child in base_list.named_children) if base_list else ()
    return [name for name in names if name]


@dataclass
class Output:
    """The ParsedFile being filled; a node id seen twice (partial types) is kept once."""

    parsed: ParsedFile
    seen: set[str] = field(default_factory=set)

    def add(self, node: Node) -> None:
        if node.id in self.seen:
            return
        self.seen.add(node.id)
        self.parsed.nodes.append(node)
        if node.parent:
            self.parsed.edges.append(Edge(source=node.parent, target=node.id, type="DEFINES"))

    def refer(self, references: Iterable[Reference]) -> None:
        self.parsed.references.extend(references)


@dataclass(frozen=True)
class Names:
    """How type names written in this file are qualified."""

    usings: tuple[str, ...]
    aliases: dict[str, str]

    def type_candidates(self, written: str, scope: str) -> tuple[str, ...]:
        """Qualified guesses for a type name seen inside `scope`, in C# lookup order."""
        head, dot, rest = written.partition(".")
        if head in self.aliases:
            return (self.aliases[head] + dot + rest,)
        prefixes = [*enclosing_scopes(scope), *self.usings]
        return unique([*(f"{prefix}.{written}" for prefix in prefixes), written])


def type_node(decl: TypeDecl, names: Names, path: str, ef_role: str | None) -> Node:
    attrs: dict = {"type_kind": TYPE_KINDS[decl.syntax.type], "modifiers": modifiers(decl.syntax)}
    if ef_role:
        attrs["ef_role"] = ef_role
    generic_bases = _generic_bases(decl, names)
    if generic_bases:  # `IRequestHandler<CreateOrder, int>`: what `messages` links by
        attrs["generic_bases"] = generic_bases
    parameters = type_parameters(decl.syntax)
    if parameters:  # `Repository<T, TId>`: what a subclass's type arguments bind (`type_bindings`)
        attrs["type_parameters"] = parameters
    attributes = attribute_names(decl.syntax)
    if attributes:  # `[FunnelWebRequest]` on a controller: a filter around its actions (`request_filters`)
        attrs["attributes"] = attributes
    alias, schema = attribute_string(decl.syntax, ("Alias",)), attribute_string(decl.syntax, ("Schema",))
    if alias:  # OrmLite `[Alias("people")] class Person`: the table it is stored in (`code_first_tables`)
        attrs["alias"] = alias
    if schema:  # OrmLite `[Schema("audit")]`: that table's schema
        attrs["schema"] = schema
    return declaration_node(decl.syntax, "TYPE", decl.name, path, decl.parent, attrs)


def _generic_bases(decl: TypeDecl, names: Names) -> list[dict]:
    """Each generic base or interface as written, with qualified guesses of its type arguments."""
    base_list = child_of_type(decl.syntax, "base_list")
    found = []
    for base in base_list.named_children if base_list else ():
        generic = base.child_by_field_name("name") if base.type == "qualified_name" else base
        if generic is not None and generic.type == "generic_name" and type_name(base):
            found.append({"name": type_name(base), "arguments": [
                list(names.type_candidates(argument, decl.scope)) for argument in type_arguments(generic, positional=True)],
                # each argument's names at every depth, in order (`IProcess`, `Topic` of `IPipe<IProcess<Topic>>`):
                # what `bound_dispatch` matches a generic host's type arguments against
                "shapes": [[list(names.type_candidates(name, decl.scope)) for name in shape]
                           for shape in argument_shapes(generic)]})
    return found


def declaration_node(syntax: tree_sitter.Node, kind: str, name: str, path: str, parent: str,
                      attrs: dict) -> Node:
    return Node(
        id=node_id(LANGUAGE, name, kind), kind=kind, language=LANGUAGE, name=name, path=path,
        start_line=line_of(syntax), end_line=end_line_of(syntax), parent=parent,
        signature=header(syntax), docstring=doc_comment(syntax), attrs=attrs,
    )


def inherits(decl: TypeDecl, names: Names) -> list[Reference]:
    return [
        Reference(source=decl.id, edge_type="INHERITS", target=base, target_language=LANGUAGE,
                  candidates=names.type_candidates(base, decl.scope), target_kinds=("TYPE",),
                  by_name=True, external=True, line=line_of(decl.syntax))
        for base in decl.bases
    ]
