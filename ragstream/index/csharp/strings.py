"""The value of C# string expressions: regular, verbatim, raw and interpolated literals,
`+` concatenations, `??` defaults, `nameof`, `typeof(T).Name`, and locals, fields and properties
holding such a string (constant propagation within a type). Interpolation holes of unknown value
become `@p0`, `@p1`, ... so the text stays parseable SQL."""
from __future__ import annotations

import codecs
import re
import textwrap

import tree_sitter

from ragstream.index.csharp.syntax import (
    body_members, child_of_type, descendants, initializer, node_text, required_child,
)


def string_fields(syntax: tree_sitter.Node) -> dict[str, str]:
    """Fields, constants and properties of a type whose value is a string: initialised with one
    (`= "Invoice"`, `=> "Invoice"`), or assigned one in a constructor (`Table = table ??
    typeof(T).Name`: the default). A type parameter's name stands as `{T}` (`typeof(T).Name`),
    for the graph to bind with each subclass's type argument."""
    found: dict[str, str] = {f"typeof({name}).Name": f"{{{name}}}" for name in type_parameters(syntax)}
    for member in body_members(syntax):
        if member.type == "field_declaration":
            found.update(string_bindings(member, found))
        elif member.type == "property_declaration":
            value = member.child_by_field_name("value")
            if value is not None and value.type == "arrow_expression_clause" and value.named_children:
                value = value.named_children[0]
            text = value is not None and string_value(value, found)
            if text:
                found[node_text(member.child_by_field_name("name"))] = text
    for member in body_members(syntax):
        if member.type == "constructor_declaration":
            found.update(_assigned_in(member, found))
    return found


def type_parameters(syntax: tree_sitter.Node) -> list[str]:
    """`["T", "TId"]` of `class Repository<T, TId>`."""
    parameters = child_of_type(syntax, "type_parameter_list")
    return [node_text(child.child_by_field_name("name") or child) for child in parameters.named_children
            if child.type == "type_parameter"] if parameters is not None else []


def _assigned_in(constructor: tree_sitter.Node, known: dict[str, str]) -> dict[str, str]:
    """Members a constructor assigns a string (`Table = table ?? typeof(T).Name`) that no
    initialiser gave one."""
    found: dict[str, str] = {}
    for node in descendants(constructor):
        if node.type != "assignment_expression" or node_text(node.child_by_field_name("operator")) != "=":
            continue
        left = required_child(node, "left")
        if left.type == "member_access_expression" and required_child(left, "expression").type == "this":
            left = required_child(left, "name")
        name = node_text(left) if left.type == "identifier" else ""
        text = name and name not in known and string_value(required_child(node, "right"), known)
        if text:
            found.setdefault(name, text)
    return found


def string_bindings(scope: tree_sitter.Node, known: dict[str, str]) -> dict[str, str]:
    """Variables declared in `scope` whose initialiser is a string (`const string sql = ...`)."""
    found: dict[str, str] = {}
    for declarator in descendants(scope):
        value = initializer(declarator) if declarator.type == "variable_declarator" else None
        text = value is not None and string_value(value, {**known, **found})
        if text:
            found[node_text(declarator.child_by_field_name("name"))] = text
    return found


def string_value(expression: tree_sitter.Node, strings: dict[str, str]) -> str | None:
    """The text of a string expression: literals of every kind, `+` and known variables."""
    kind = expression.type
    if kind == "string_literal":
        return "".join(_unescape(piece) for piece in expression.named_children)
    if kind == "verbatim_string_literal":
        return node_text(expression)[2:-1].replace('""', '"')
    if kind == "raw_string_literal":
        content = child_of_type(expression, "raw_string_content")
        return _raw_text(node_text(content)) if content else ""
    if kind == "interpolated_string_expression":
        return _interpolated_text(expression, strings)
    if kind == "binary_expression" and node_text(expression.child_by_field_name("operator")) == "+":
        left = string_value(required_child(expression, "left"), strings)
        right = string_value(required_child(expression, "right"), strings)
        return left + right if left is not None and right is not None else None
    if kind == "parenthesized_expression":
        return string_value(expression.named_children[0], strings)
    if kind == "binary_expression" and node_text(expression.child_by_field_name("operator")) == "??":
        # `table ?? typeof(T).Name`: the default, when the left side is not known
        left = string_value(required_child(expression, "left"), strings)
        return left if left is not None else string_value(required_child(expression, "right"), strings)
    if kind == "identifier":
        return strings.get(node_text(expression))
    if kind == "member_access_expression":
        if required_child(expression, "expression").type == "this":
            return strings.get(node_text(expression.child_by_field_name("name")))
        typed = required_child(expression, "expression")
        if typed.type == "typeof_expression" and node_text(expression.child_by_field_name("name")) == "Name":
            written = node_text(typed.child_by_field_name("type"))
            return strings.get(f"typeof({written}).Name", written.rsplit(".", 1)[-1])
        return None
    if kind == "invocation_expression":  # `nameof(Invoice.Total)` is "Total"
        function = expression.child_by_field_name("function")
        arguments = expression.child_by_field_name("arguments")
        if node_text(function) == "nameof" and arguments is not None and arguments.named_children:
            return node_text(arguments.named_children[0]).rsplit(".", 1)[-1]
    return None


def _interpolated_text(expression: tree_sitter.Node, strings: dict[str, str]) -> str:
    """`$"... {x} ..."` with each hole whose value is known (a constant, a field or property
    holding a string, `nameof`, `typeof(T).Name`) replaced by that value, and each other hole by
    a SQL parameter (`@p0`, `@p1`, ...), except an unknown hole that qualifies a name
    (`[{schema}].Job`, `{prefix}.Job`): it and its dot are dropped, so the name is read
    unqualified (a schema chosen at run time is unknown here)."""
    start = node_text(child_of_type(expression, "interpolation_start"))
    raw = child_of_type(expression, "interpolation_quote") is not None
    parts, holes = [], 0
    for piece in expression.named_children:
        if piece.type == "interpolation":
            value = next((string_value(child, strings) for child in piece.named_children
                          if child.type != "interpolation_brace"), None)
            parts.append(value if value is not None else _HOLE)
        elif piece.type == "string_content":
            parts.append(node_text(piece).replace('""', '"') if "@" in start else node_text(piece))
        elif piece.type == "escape_sequence":
            parts.append(_unescape(piece))
    text = _QUALIFYING_HOLE.sub("", "".join(parts))
    while _HOLE in text:
        text = text.replace(_HOLE, f"@p{holes}", 1)
        holes += 1
    return _raw_text(text) if raw else text


_HOLE = "\x00"
# A hole (optionally bracketed or quoted) right before a dot: it qualifies the name after it.
_QUALIFYING_HOLE = re.compile(r'[\["`]?\x00[\]"`]?\s*\.\s*')


def _unescape(piece: tree_sitter.Node) -> str:
    text = node_text(piece)
    if piece.type != "escape_sequence":
        return text
    try:
        return codecs.decode(text, "unicode_escape")
    except UnicodeDecodeError:  # C#'s variable-length `\x4` has no Python equivalent
        return text


def _raw_text(content: str) -> str:
    """A raw string's value: its lines without their common indentation."""
    return textwrap.dedent(content).strip()
