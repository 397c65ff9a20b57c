"""Variables a method body can see, with their types as written: the type's fields,
properties and constructor parameters, and the method's parameters and locals."""
from __future__ import annotations

import tree_sitter

from ragstream.index.parsers.csharp.syntax import (
    body_members, child_of_type, children_of_type, created_type, descendants, initializer,
    node_text, type_name,
)


def member_types(syntax: tree_sitter.Node) -> dict[str, str | None]:
    """Fields, properties and (primary) constructor parameters of a type, with their types."""
    found: dict[str, str | None] = {}
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
            found.update(declared_variables(member.child_by_field_name("parameters")))
    return found


def declared_variables(scope: tree_sitter.Node) -> dict[str, str | None]:
    """Parameters, variables and foreach variables declared in `scope`; None: type unknown."""
    found: dict[str, str | None] = {}
    for node in descendants(scope):
        if node.type == "parameter":
            found[node_text(node.child_by_field_name("name"))] = type_name(
                node.child_by_field_name("type"))
        elif node.type == "implicit_parameter":
            found[node_text(node)] = None
        elif node.type == "variable_declaration":
            declared = type_name(node.child_by_field_name("type"))
            for declarator in children_of_type(node, "variable_declarator"):
                name = node_text(declarator.child_by_field_name("name"))
                found[name] = declared or created_type(initializer(declarator))
        elif node.type == "foreach_statement":
            variable = node.child_by_field_name("left")
            if variable is not None and variable.type == "identifier":
                found[node_text(variable)] = type_name(node.child_by_field_name("type"))
    return found
