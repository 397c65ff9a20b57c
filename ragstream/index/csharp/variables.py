"""Variables a method body can see, with their types: the type's fields, properties and
constructor parameters, and the method's parameters, locals (`var x = new T()`, `using var`),
pattern variables (`is T t`), `out T x`, foreach variables and lambda parameters.

A type is the name as written (`IInvoiceService`), or, when only a call tells it, `Returned`
(the declared return type of that call, which the resolver looks up) or `ElementOf` (a lambda
parameter over a collection: `items.Select(x => ...)`); None when the type is unknown.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import tree_sitter

from ragstream.index.csharp.syntax import (
    argument_shapes, body_members, child_of_type, children_of_type, created_type, descendants, initializer,
    node_text, parent_of, required_child, type_arguments, type_name,
)

# Generic collections whose one type argument is the element a lambda over them receives.
COLLECTIONS = frozenset({
    "IEnumerable", "ICollection", "IList", "List", "IReadOnlyList", "IReadOnlyCollection",
    "HashSet", "ISet", "IQueryable", "IOrderedEnumerable", "IOrderedQueryable", "DbSet",
    "Collection", "ObservableCollection", "IAsyncEnumerable",
})
# Delegates whose first type argument is their lambda's first parameter.
DELEGATES = frozenset({"Func", "Action", "Predicate", "Expression"})


@dataclass(frozen=True)
class Returned:
    """The declared return type of a call (`var x = await service.GetAsync()`)."""

    call: tree_sitter.Node  # the invocation_expression


@dataclass(frozen=True)
class ElementOf:
    """A lambda parameter receiving the elements of a collection (`items.Select(x => ...)`)."""

    collection: tree_sitter.Node  # the expression the lambda's method is called on


VariableType = str | Returned | ElementOf | None
T = TypeVar("T")


@dataclass(frozen=True)
class Generic:
    """A generic type as written: `IRepository<Order>` is ("IRepository", ("Order",))."""

    name: str
    arguments: tuple[str, ...]
    # each argument in its place, as the names it is written with at every depth (`argument_shapes`)
    shapes: tuple[tuple[str, ...], ...] = ()


def member_types(syntax: tree_sitter.Node) -> dict[str, VariableType]:
    """Fields, properties and (primary) constructor parameters of a type, with their types."""
    found: dict[str, VariableType] = {}
    primary = child_of_type(syntax, "parameter_list")
    if primary is not None:
        found.update(declared_variables(primary))
    for member in body_members(syntax):
        if member.type in ("field_declaration", "event_field_declaration"):
            found.update(declared_variables(member))
        elif member.type == "property_declaration":
            found[node_text(member.child_by_field_name("name"))] = type_name(
                member.child_by_field_name("type"))
        elif member.type == "constructor_declaration":
            found.update(declared_variables(required_child(member, "parameters")))
    return found


def member_elements(syntax: tree_sitter.Node) -> dict[str, str]:
    """Fields and properties of a collection type -> their element type as written."""
    return _typed_members(syntax, element_type)


def member_generics(syntax: tree_sitter.Node) -> dict[str, Generic]:
    """Fields, properties and (primary) constructor parameters of a generic type
    (`IRepository<Order> _orders`) -> that type and its arguments as written."""
    found = _typed_members(syntax, generic_of)
    primary = child_of_type(syntax, "parameter_list")
    for member in [primary, *(m.child_by_field_name("parameters") for m in body_members(syntax)
                              if m.type == "constructor_declaration")]:
        if member is not None:
            found = {**declared_generics(member), **found}
    return found


def _typed_members(syntax: tree_sitter.Node, read: Callable[[tree_sitter.Node | None], T | None]) -> dict[str, T]:
    """Fields and properties of the type -> what `read` makes of their declared type."""
    found: dict[str, T] = {}
    for member in body_members(syntax):
        if member.type == "property_declaration":
            value = read(member.child_by_field_name("type"))
            if value:
                found[node_text(member.child_by_field_name("name"))] = value
        elif member.type == "field_declaration":
            found.update(_typed_declarations(member, read))
    return found


def declared_variables(scope: tree_sitter.Node) -> dict[str, VariableType]:
    """Variables declared in `scope` with their types; None: type unknown."""
    found: dict[str, VariableType] = {}
    for node in descendants(scope):
        if node.type == "parameter":
            found[node_text(node.child_by_field_name("name"))] = type_name(
                node.child_by_field_name("type")) or _lambda_parameter_type(node)
        elif node.type == "implicit_parameter":
            found[node_text(node)] = _lambda_parameter_type(node)
        elif node.type == "variable_declaration":
            declared = type_name(node.child_by_field_name("type"))
            for declarator in children_of_type(node, "variable_declarator"):
                name = node_text(declarator.child_by_field_name("name"))
                found[name] = declared or _initialised_type(initializer(declarator))
        elif node.type in ("declaration_pattern", "declaration_expression"):  # is T t, out T x
            pattern_name = node.child_by_field_name("name")
            if pattern_name is not None:
                found[node_text(pattern_name)] = type_name(node.child_by_field_name("type"))
        elif node.type == "foreach_statement":
            variable = node.child_by_field_name("left")
            if variable is not None and variable.type == "identifier":
                declared = type_name(node.child_by_field_name("type"))
                found[node_text(variable)] = declared or ElementOf(required_child(node, "right"))
        elif node.type == "catch_declaration" and node.child_by_field_name("name") is not None:
            found[node_text(node.child_by_field_name("name"))] = type_name(node.child_by_field_name("type"))
        elif node.type in _UNTYPED_BINDINGS:
            # a query's range variables, a deconstruction's names: locals whose type is not written
            for name in _bound_names(node):
                found.setdefault(name, None)
    return found


# where C# binds a local without a declaration statement: `from r in`, `let x =`, `join y in`,
# `into z`, `var (a, b) = t`, `foreach (var (a, b) in t)`
_UNTYPED_BINDINGS = frozenset({"from_clause", "let_clause", "join_clause", "query_continuation", "tuple_pattern",
                               "parenthesized_variable_designation"})


def _bound_names(node: tree_sitter.Node) -> list[str]:
    """The names a query clause or a deconstruction binds (a query clause binds its first
    identifier after an optional type: `from Order o in orders`, `join y in all on ..`)."""
    if node.type in ("tuple_pattern", "parenthesized_variable_designation"):
        return [node_text(child) for child in node.named_children if child.type == "identifier"] + \
            [name for child in node.named_children if child.type in _UNTYPED_BINDINGS for name in _bound_names(child)]
    named = node.child_by_field_name("name")
    if named is not None:
        return [node_text(named)]
    identifiers = [child for child in node.named_children if child.type == "identifier"]
    if node.type == "query_continuation":
        return [node_text(identifiers[0])] if identifiers else []
    # `join Order y in ..`: a written type comes first and is no identifier when generic or qualified;
    # an identifier type (`from Order o in`) is followed by the name before `in`
    before_in = [child for child in node.children if child.type == "in"]
    if before_in:
        names = [c for c in identifiers if c.end_byte <= before_in[0].start_byte]
        return [node_text(names[-1])] if names else []
    return [node_text(identifiers[0])] if identifiers else []


def declared_elements(scope: tree_sitter.Node) -> dict[str, str]:
    """Parameters and variables of a collection type declared in `scope` -> element type."""
    return _typed_declarations(scope, element_type)


def declared_generics(scope: tree_sitter.Node) -> dict[str, Generic]:
    """Parameters and variables of a generic type declared in `scope` -> type and arguments."""
    return _typed_declarations(scope, generic_of)


def _typed_declarations(scope: tree_sitter.Node,
                        read: Callable[[tree_sitter.Node | None], T | None]) -> dict[str, T]:
    """Parameters and variables declared in `scope` -> what `read` makes of their type."""
    found: dict[str, T] = {}
    for node in descendants(scope):
        if node.type == "parameter":
            value = read(node.child_by_field_name("type"))
            if value:
                found[node_text(node.child_by_field_name("name"))] = value
        elif node.type == "variable_declaration":
            value = read(node.child_by_field_name("type"))
            for declarator in children_of_type(node, "variable_declarator"):
                created = initializer(declarator)
                # `var lines = new List<OrderLine>()`: the type the initializer creates
                typed = value or (read(created.child_by_field_name("type"))
                                  if created is not None and created.type == "object_creation_expression" else None)
                if typed:
                    found[node_text(declarator.child_by_field_name("name"))] = typed
    return found


def parameter_binding(generic: Generic, method_parameters: list[str],
                      type_parameters: list[str]) -> list[list[object] | None] | None:
    """Which type parameter each of a declared generic's arguments is: `["method", i]` (the
    method's own, bound by the call's type arguments: `IRepositoryAsync<TEntity, TId>
    Repository<TEntity>()`), `["type", i]` (the declaring type's, bound by the receiver's:
    `IQueryable<T> Entities` of `IRepositoryAsync<T, TId>`), None for a type; None when no
    argument is a type parameter."""
    bound = [["method", method_parameters.index(a)] if a in method_parameters
             else ["type", type_parameters.index(a)] if a in type_parameters else None
             for a in generic.arguments]
    return bound if any(bound) else None


def generic_of(syntax: tree_sitter.Node | None) -> Generic | None:
    """`IRepository<Order>` -> Generic("IRepository", ("Order",)); None when not generic."""
    while syntax is not None and syntax.type == "nullable_type":
        syntax = syntax.child_by_field_name("type")
    if syntax is None:
        return None
    # `Data.IRepository<Order>`: the type arguments belong to the qualified name's last part
    generic = syntax.child_by_field_name("name") if syntax.type == "qualified_name" else syntax
    if generic is None or generic.type != "generic_name":
        return None
    written, arguments = type_name(syntax), type_arguments(generic)
    shapes = tuple(tuple(shape) for shape in argument_shapes(generic))
    return Generic(written, tuple(arguments), shapes) if written and arguments else None


def element_generic(syntax: tree_sitter.Node | None) -> Generic | None:
    """`IPipe<TOne>` of `List<IPipe<TOne>>`: a collection's element, when it is generic."""
    while syntax is not None and syntax.type == "nullable_type":
        syntax = syntax.child_by_field_name("type")
    if syntax is None or syntax.type != "generic_name" or type_name(syntax) not in COLLECTIONS:
        return None
    arguments = child_of_type(syntax, "type_argument_list")
    return generic_of(arguments.named_children[0]) if arguments and len(arguments.named_children) == 1 else None


def member_element_generics(syntax: tree_sitter.Node) -> dict[str, Generic]:
    """Fields and properties of a collection of a generic type -> that element type."""
    return _typed_members(syntax, element_generic)


def foreach_generics(scope: tree_sitter.Node, collections: dict[str, Generic]) -> dict[str, Generic]:
    """`pipe` of `foreach (var pipe in _pipes)`, `_pipes` a collection of `collections` (a variable or
    member -> its generic element type): the variable -> that element type."""
    found = {}
    for loop in descendants(scope):
        if loop.type != "foreach_statement" or loop.child_by_field_name("left") is None:
            continue
        walked = required_child(loop, "right")
        if walked.type == "member_access_expression" and required_child(walked, "expression").type == "this":
            walked = required_child(walked, "name")
        element = collections.get(node_text(walked)) if walked.type == "identifier" else None
        if element is not None and type_name(loop.child_by_field_name("type")) in (None, element.name):
            found[node_text(required_child(loop, "left"))] = element
    return found


def element_type(syntax: tree_sitter.Node | None) -> str | None:
    """`T` of `List<T>`, `IEnumerable<T>`, ... and of `T[]`."""
    if syntax is None:
        return None
    if syntax.type == "array_type":
        return type_name(syntax.child_by_field_name("type"))
    if syntax.type == "nullable_type":
        return element_type(syntax.child_by_field_name("type"))
    if syntax.type == "generic_name" and type_name(syntax) in COLLECTIONS:
        return _first_type_argument(syntax)
    return None


def _first_type_argument(generic: tree_sitter.Node) -> str | None:
    arguments = child_of_type(generic, "type_argument_list")
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    if first is not None and first.type == "generic_name" and type_name(first) in DELEGATES:
        return _first_type_argument(first)  # Expression<Func<T, bool>>
    return type_name(first)


def _initialised_type(value: tree_sitter.Node | None) -> VariableType:
    """`new T()` -> T; a call (awaited or not) -> its return type."""
    while value is not None and value.type in ("await_expression", "parenthesized_expression"):
        value = value.named_children[0] if value.named_children else None
    if value is not None and value.type == "invocation_expression":
        return Returned(value)
    return created_type(value)


def _lambda_parameter_type(parameter: tree_sitter.Node) -> VariableType:
    """The first parameter of a lambda passed to a method of a collection, or assigned to a
    `Func<T, ...>` variable: the collection's element type, or T."""
    lambda_ = parameter.parent
    while lambda_ is not None and lambda_.type != "lambda_expression":
        lambda_ = lambda_.parent
    if lambda_ is None or not _is_first_parameter(lambda_, parameter):
        return None
    holder = lambda_.parent
    if holder is not None and holder.type == "variable_declarator":
        declared = parent_of(holder).child_by_field_name("type")
        if declared is not None and declared.type == "generic_name" \
                and type_name(declared) in DELEGATES:
            return _first_type_argument(declared)
        return None
    call = parent_of(holder).parent if holder is not None and holder.type == "argument" else None
    function = call.child_by_field_name("function") if call is not None \
        and call.type == "invocation_expression" else None
    if function is not None and function.type == "member_access_expression":
        return ElementOf(required_child(function, "expression"))
    return None


def _is_first_parameter(lambda_: tree_sitter.Node, parameter: tree_sitter.Node) -> bool:
    parameters = lambda_.child_by_field_name("parameters")
    if parameters is None:
        return False
    if parameters.type == "implicit_parameter":
        return parameters == parameter
    listed = [child for child in parameters.named_children if child.type == "parameter"]
    return bool(listed) and listed[0] == parameter
