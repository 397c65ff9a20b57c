"""The value of C# string expressions: regular, verbatim, raw and interpolated literals,
`+` concatenations, and locals or fields holding such a string. Interpolation holes become
`@p0`, `@p1`, ... so the text stays parseable SQL."""
from __future__ import annotations

import codecs
import re
import textwrap

import tree_sitter

from ragstream.index.csharp.syntax import (
    body_members, child_of_type, descendants, initializer, node_text,
)


def string_fields(syntax: tree_sitter.Node) -> dict[str, str]:
    """Fields and constants of a type that are initialised with a string."""
    found: dict[str, str] = {}
    for member in body_members(syntax):
        if member.type == "field_declaration":
            found.update(string_bindings(member, found))
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
        return _interpolated_text(expression)
    if kind == "binary_expression" and node_text(expression.child_by_field_name("operator")) == "+":
        left = string_value(expression.child_by_field_name("left"), strings)
        right = string_value(expression.child_by_field_name("right"), strings)
        return left + right if left is not None and right is not None else None
    if kind == "parenthesized_expression":
        return string_value(expression.named_children[0], strings)
    if kind == "identifier":
        return strings.get(node_text(expression))
    return None


def _interpolated_text(expression: tree_sitter.Node) -> str:
    """`$"... {x} ..."` with each hole replaced by a SQL parameter (`@p0`, `@p1`, ...), except a
    hole that qualifies a name (`[{schema}].Job`, `{prefix}.Job`): it and its dot are dropped, so
    the name is read unqualified (a schema chosen at run time is unknown here)."""
    start = node_text(child_of_type(expression, "interpolation_start"))
    raw = child_of_type(expression, "interpolation_quote") is not None
    parts, holes = [], 0
    for piece in expression.named_children:
        if piece.type == "interpolation":
            parts.append(_HOLE)
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
