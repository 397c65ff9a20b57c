"""METHOD nodes of a type, with their calls and the tables and procedures their SQL uses; the
calls a property's accessors make (`get => GetParam(...)`, `set { ... AddDomainEvent(...); }`), from
the PROPERTY node, each with attrs `accessor` (`get`, `set`, `init`).

Overloads are separate nodes: the id of a method whose name the type declares more than once
carries its parameter types, qualifiers dropped so the name keeps one dot per scope
(`cs:Billing.InvoiceService.Create(int,string)|METHOD`); its node name stays `...Create`.
Each METHOD records for the resolver its declared return type (`returns`: qualified guesses,
`Task<T>` / `ValueTask<T>` unwrapped), its `parameters` (types as in the id), its `arity`
(least and most arguments) and whether it is an extension method.
"""
from __future__ import annotations

import re
from dataclasses import replace

import tree_sitter

from ragstream.index.model import node_id
from ragstream.index.csharp.calls import TypeScope, method_calls
from ragstream.index.csharp.declarations import Names, Output, TypeDecl, declaration_node
from ragstream.index.csharp.docs import modifiers
from ragstream.index.csharp.argument_values import ParameterValues, parameter_values
from ragstream.index.csharp.attributes import attribute_names
from ragstream.index.csharp.entry_points import entry_point, type_entries
from ragstream.index.csharp.file_names import file_name_references
from ragstream.index.csharp.object_mapping import mapping_references
from ragstream.index.csharp.registrations import registration_references
from ragstream.index.csharp.inline_sql import (
    inline_sql, procedure_references, row_type_references, stored_procedures, table_references,
)
from ragstream.index.csharp.data_records import built_types, reader_columns
from ragstream.index.csharp.method_groups import delegate_arguments, invoked_parameters
from ragstream.index.csharp.migration_sql import code_sql_tables
from ragstream.index.csharp.sql_parameters import sql_parameters
from ragstream.index.csharp.strings import shown_sql, string_fields, type_constraints, type_parameters
from ragstream.index.csharp.syntax import LANGUAGE, body_members, child_of_type, node_text, type_name
from ragstream.index.csharp.table_refs import first_of_each
from ragstream.index.csharp.variables import (element_type, generic_of, member_element_generics, member_elements, member_generics,
                                              member_types, parameter_binding)

# Wrappers whose type argument is what an awaited call gives.
AWAITABLES = frozenset({"Task", "ValueTask"})
UNBOUNDED = 255  # the most arguments of a `params` method
_QUALIFIER = re.compile(r"\b[\w@]+\s*\.\s*")


def add_methods(decl: TypeDecl, names: Names, path: str, out: Output) -> None:
    """One METHOD node per method (per overload), with its calls and inline SQL."""
    scope = TypeScope(decl, names, member_types(decl.syntax), member_elements(decl.syntax),
                      string_fields(decl.syntax), member_generics(decl.syntax), type_constraints(decl.syntax),
                      member_element_generics(decl.syntax))
    overloads: dict[str, list[tree_sitter.Node]] = {}
    for syntax in decl.methods:
        overloads.setdefault(node_text(syntax.child_by_field_name("name")), []).append(syntax)
    registered = type_entries(decl)
    passed = parameter_values(decl.syntax, decl.methods, scope.strings)  # what the type's calls give its string parameters
    for name, group in overloads.items():
        for syntax in group:
            _add_method(syntax, name, len(group), scope, path, out, registered, passed.get(syntax.start_byte))
    for made in code_sql_tables(decl, scope.strings, path):
        for table in made.nodes:
            out.add(table)
        out.refer(made.references)
    for member in body_members(decl.syntax):  # an accessor with code: its calls are the property's
        prop = node_id(LANGUAGE, f"{decl.name}.{node_text(member.child_by_field_name('name'))}", "PROPERTY")
        for accessor, body in accessor_bodies(member):
            out.refer(first_of_each(replace(call, attrs={**call.attrs, "accessor": accessor})
                                    for call in method_calls(body, prop, scope)))


def accessor_bodies(member: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """(`get` / `set` / `init`, body) of each accessor of a property that has code (C# spec,
    "Accessors": reading the property runs its get accessor, assigning it its set accessor):
    `get { return F(); }`, `get => F();`, `set { ...; AddDomainEvent(...); }`, and an
    expression-bodied property's `=> F()`, a get accessor. An auto-property (`{ get; set; }`)
    and an initializer (`{ get; } = F();`, run once on construction) have none."""
    if member.type != "property_declaration":
        return []
    value = member.child_by_field_name("value")
    if value is not None and value.type == "arrow_expression_clause":
        return [("get", value)]
    accessors = child_of_type(member, "accessor_list")
    found = []
    for accessor in accessors.named_children if accessors is not None else ():
        kind = next((child.type for child in accessor.children if child.type in ("get", "set", "init")), None)
        body = next((child for child in accessor.named_children
                     if child.type in ("block", "arrow_expression_clause")), None)
        if accessor.type == "accessor_declaration" and kind and body is not None:
            found.append((kind, body))
    return found


def _add_method(syntax: tree_sitter.Node, name: str, overloads: int, scope: TypeScope,
                path: str, out: Output, registered: dict[str, dict],
                passed: ParameterValues | None) -> None:
    decl = scope.decl
    qualified = f"{decl.name}.{name}"
    method_id = _method_id(qualified, syntax, overloads)
    sql = inline_sql(syntax, scope.strings, passed)
    attrs: dict = {"modifiers": modifiers(syntax), "arity": list(_arity(syntax)),
                   "parameters": parameter_types(syntax)}
    returned = _returned_type(syntax.child_by_field_name("returns"))
    type_parameters_declared = type_parameters(decl.syntax)
    own_type_parameters = type_parameters(syntax)
    if own_type_parameters:  # what the call's type arguments and arguments bind (`FindFirst<T>(IQuery<T> q)`)
        attrs["type_parameters"] = own_type_parameters
    if returned in own_type_parameters:  # `T Get<T>(object id)`: the call's type argument (`Get<Entry>(id)`)
        attrs["returns_method_type_parameter"] = own_type_parameters.index(returned)
    elif returned in type_parameters_declared:  # `T Get(int id)` of `IStore<T>`: the caller's type argument
        attrs["returns_type_parameter"] = type_parameters_declared.index(returned)
    elif returned:
        attrs["returns"] = list(scope.type_guesses(returned))
    returned_generic = generic_of(_awaited(syntax.child_by_field_name("returns")))
    binding = parameter_binding(returned_generic, own_type_parameters, type_parameters_declared) \
        if returned_generic is not None else None
    if returned_generic is not None and binding is not None:
        # `IRepositoryAsync<TEntity, TId> Repository<TEntity>()`: what a call binds them to is
        # the carrier of the call made on its result (`data_access`)
        attrs["returns_generic"] = {"generic": returned_generic.name, "parameters": binding, "entities": [
            list(scope.type_guesses(argument)) for argument in returned_generic.arguments]}
    element = _returned_element(syntax.child_by_field_name("returns"))
    if element and element not in own_type_parameters and element not in type_parameters_declared:
        # `List<Tag> GetTags()`: what `foreach (var tag in GetTags())` holds
        attrs["returns_element"] = list(scope.type_guesses(element))
    if _is_extension(syntax):
        attrs["extension"] = True
    columns = reader_columns(syntax)
    builds = built_types(syntax) if columns else []
    if builds:  # `new Issue { Id = reader["IssueId"] }`: what it fills from which columns (`data_records`)
        attrs["reader_columns"] = columns
        attrs["reader_builds"] = [list(scope.type_guesses(written)) for written in builds]
    invoked = invoked_parameters(syntax, _is_extension(syntax))
    if invoked:  # `gcfr(reader, ref list)`: a method group passed there is called (`method_groups`)
        attrs["invoked_parameters"] = invoked
    runs = sql_parameters(syntax, _is_extension(syntax))
    if runs:  # `SetCommandType(cmd, type, text)` runs `text`: its callers run what they pass (`sql_parameters`)
        attrs["sql_parameters"] = sorted(runs)
        if any(runs.values()):  # only a call's name (`Execute(text)`) says it is SQL
            attrs["sql_parameters_guessed"] = sorted(position for position, guessed in runs.items() if guessed)
    handed = delegate_arguments(syntax, _is_extension(syntax))
    if handed:  # `query(sql, parameters)`: a lambda passed as `query` runs `sql` (`sql_parameters`)
        attrs["delegate_arguments"] = handed
    if overloads > 1:
        attrs["overloads"] = overloads
    entry = entry_point(syntax, name, decl, registered)
    if entry:
        attrs["entry"] = entry
        attributes = attribute_names(syntax)
        if attributes:  # `[FunnelWebRequest]`: a filter that runs around this entry point (`request_filters`)
            attrs["attributes"] = attributes
    if sql:
        attrs["inline_sql"] = [shown_sql(found.text) for found in sql]
    procedures = stored_procedures(sql)
    if procedures:
        attrs["stored_procedures"] = procedures
    node = declaration_node(syntax, "METHOD", qualified, path, decl.id, attrs)
    out.add(replace(node, id=method_id))
    out.refer(first_of_each(method_calls(syntax, method_id, scope)))
    out.refer(table_references(method_id, sql))
    out.refer(procedure_references(method_id, sql))
    out.refer(row_type_references(sql, scope.type_guesses))
    out.refer(file_name_references(syntax, method_id, scope.strings))
    out.refer(mapping_references(syntax, method_id, scope))
    out.refer(registration_references(syntax, method_id, scope))


def method_node_id(decl: TypeDecl, syntax: tree_sitter.Node) -> str:
    """The METHOD node id of one of the type's methods (`_add_method` makes it)."""
    name = node_text(syntax.child_by_field_name("name"))
    overloads = sum(node_text(other.child_by_field_name("name")) == name for other in decl.methods)
    return _method_id(f"{decl.name}.{name}", syntax, overloads)


def _method_id(qualified: str, syntax: tree_sitter.Node, overloads: int) -> str:
    return node_id(LANGUAGE, qualified + (parameter_signature(syntax) if overloads > 1 else ""), "METHOD")


def parameter_signature(syntax: tree_sitter.Node) -> str:
    """`(int,List<Invoice>)`: parameter types as written, without qualifiers or spaces; a static
    constructor, which takes none, is `(static)`: beside `T()` it is another node."""
    if syntax.type == "constructor_declaration" and "static" in modifiers(syntax):
        return "(static)"
    return f"({','.join(parameter_types(syntax))})"


def parameter_types(syntax: tree_sitter.Node) -> list[str]:
    """Each parameter's type as written, without qualifiers or spaces (`params` last)."""
    written = [parameter.child_by_field_name("type") for parameter in _parameters(syntax)]
    return [_QUALIFIER.sub("", "".join(node_text(type_).split()))
            .replace("(", "<").replace(")", ">")  # tuples: no parentheses inside the list
            for type_ in [*written, _params_array(syntax)] if type_ is not None]


def _parameters(syntax: tree_sitter.Node) -> list[tree_sitter.Node]:
    parameters = syntax.child_by_field_name("parameters")
    return [child for child in parameters.named_children if child.type == "parameter"] \
        if parameters is not None else []


def _arity(syntax: tree_sitter.Node) -> tuple[int, int]:
    """(least, most) arguments a call may pass: defaults and `params` widen it."""
    parameters = _parameters(syntax)
    required = sum(1 for p in parameters if not any(child.type == "=" for child in p.children))
    return required, UNBOUNDED if _params_array(syntax) is not None else len(parameters)


def _params_array(syntax: tree_sitter.Node) -> tree_sitter.Node | None:
    """The type of a trailing `params T[] x` (the grammar puts it in the parameter list)."""
    parameters = syntax.child_by_field_name("parameters")
    if parameters is None or not any(child.type == "params" for child in parameters.children):
        return None
    return parameters.child_by_field_name("type")


def _returned_type(returns: tree_sitter.Node | None) -> str | None:
    """The declared return type as written, `Task<T>` / `ValueTask<T>` unwrapped."""
    return type_name(_awaited(returns))


def _returned_element(returns: tree_sitter.Node | None) -> str | None:
    """The element type of a declared collection return type (`Task<List<T>>` too): `T`."""
    return element_type(_awaited(returns))


def _awaited(returns: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """`T` of a `Task<T>` / `ValueTask<T>` return type; any other type itself."""
    if returns is not None and returns.type == "generic_name" and type_name(returns) in AWAITABLES:
        arguments = child_of_type(returns, "type_argument_list")
        return arguments.named_children[0] if arguments and arguments.named_children else None
    return returns


def _is_extension(syntax: tree_sitter.Node) -> bool:
    """A static method whose first parameter is `this T`."""
    parameters = _parameters(syntax)
    return bool(parameters) and any(node_text(child) == "this" for child in parameters[0].children)
