"""C# attributes as written on a declaration: their names and their string arguments.

What an entry point is (`[HttpPost]`, `[Route(...)]`, `[Authorize(Roles = ...)]`: `entry_points`)
and which filters run around it (`[FunnelWebRequest]`: `request_filters`) are read from them.
"""
from __future__ import annotations

import tree_sitter

from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import call_arguments, type_name


def attribute_names(syntax: tree_sitter.Node) -> list[str]:
    """The attributes on a declaration, by name as written (`FunnelWebRequest`, `HttpPost`)."""
    return list(dict.fromkeys(name for name, _ in attributes(syntax)))


def attributes(syntax: tree_sitter.Node) -> list[tuple[str, list[tuple[str | None, str]]]]:
    """(name, (argument name or None, string value) of each string argument) of each attribute on
    a declaration."""
    found = []
    for attribute_list in (child for child in syntax.children if child.type == "attribute_list"):
        for attribute in (child for child in attribute_list.named_children if child.type == "attribute"):
            name = type_name(attribute.child_by_field_name("name")) or ""
            arguments = attribute.child_by_field_name("arguments") or next(
                (c for c in attribute.named_children if c.type == "attribute_argument_list"), None)
            values = [(argument, string_value(value, {})) for argument, value in call_arguments(arguments)] \
                if arguments else []
            found.append((name.rsplit(".", 1)[-1], [(argument, value) for argument, value in values if value]))
    return found
