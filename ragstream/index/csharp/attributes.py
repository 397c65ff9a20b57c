"""C# attributes as written on a declaration: their names and their string arguments.

What an entry point is (`[HttpPost]`, `[Route(...)]`, `[Authorize(Roles = ...)]`: `entry_points`)
and which filters run around it (`[FunnelWebRequest]`: `request_filters`) are read from them.
"""
from __future__ import annotations

import tree_sitter

from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import attribute_arguments, call_arguments, descendants, type_arguments, type_name


# Attributes that apply the filter type they name (`[ServiceFilter(typeof(AuditFilter))]`).
FILTER_BY_TYPE = frozenset({"ServiceFilter", "ServiceFilterAttribute", "TypeFilter", "TypeFilterAttribute"})


def attribute_names(syntax: tree_sitter.Node) -> list[str]:
    """The attributes on a declaration, by name as written (`FunnelWebRequest`, `HttpPost`), and
    the filter types `[ServiceFilter(typeof(X))]` / `[TypeFilter<X>]` apply (`X`)."""
    return list(dict.fromkeys([*(name for name, _ in attributes(syntax)), *_applied_filter_types(syntax)]))


def _applied_filter_types(syntax: tree_sitter.Node) -> list[str]:
    found = []
    for attribute_list in (child for child in syntax.children if child.type == "attribute_list"):
        for attribute in (child for child in attribute_list.named_children if child.type == "attribute"):
            name_node = attribute.child_by_field_name("name")
            if (type_name(name_node) or "").rsplit(".", 1)[-1] not in FILTER_BY_TYPE:
                continue
            if name_node is not None and name_node.type == "generic_name":
                found += type_arguments(name_node)
            found += [type_name(typed.named_children[0]) or "" for typed in _descendants_of(attribute, "typeof_expression")
                      if typed.named_children]
    return [name.rsplit(".", 1)[-1] for name in found if name]


def _descendants_of(node: tree_sitter.Node, kind: str) -> list[tree_sitter.Node]:
    return [child for child in descendants(node) if child.type == kind]


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


def attribute_string(declaration: tree_sitter.Node, names: tuple[str, ...]) -> str | None:
    """The first positional string argument of the declaration's attribute of one of `names`
    (`"people"` of `[Alias("people")]`, `"audit"` of `[Schema("audit")]`), or None."""
    arguments = attribute_arguments(declaration, names)
    values = [string_value(value, {}) for name, value in call_arguments(arguments) if name is None] if arguments else []
    return values[0] if values and values[0] else None


def attribute_type(declaration: tree_sitter.Node, names: tuple[str, ...]) -> str | None:
    """The type of the attribute's `typeof(T)` argument (`Org` of `[References(typeof(Org))]`), or None:
    a string argument (EF's `[ForeignKey("OrgId")]`) names a member, not a type."""
    arguments = attribute_arguments(declaration, names)
    typed = [node for node in descendants(arguments) if node.type == "typeof_expression"] if arguments else []
    return next((found for node in typed if node.named_children and (found := type_name(node.named_children[0]))),
                None)
