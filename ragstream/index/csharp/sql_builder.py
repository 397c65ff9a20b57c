"""SQL a method composes with a builder object.

Dapper's `SqlBuilder`: each template (`builder.AddTemplate(sql)`) with the clauses added to the
same builder (`builder.Join("Revisions r ON ...")`, `builder.Where(...)`, ...) put where the
template's `/**join**/`, `/**where**/`, ... comments stand, as the library does when the query
runs. Neither the template nor a clause reads as a whole statement on its own (`SELECT
/**select**/ FROM QuerySets qs /**join**/`), so without this the tables the clauses name are
never read.

A `StringBuilder` (`sql.Append("UPDATE scores SET ")`, `.AppendLine(...)`, `.AppendFormat(...)`):
the texts appended to one receiver, in order, joined (`appended_sql`). A piece handed to
`Append` is no statement a data-access call runs, and the first piece alone may name no table.
"""
from __future__ import annotations

import re

import tree_sitter

from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import (
    call_arguments, callee_of, descendants, line_of, node_text, required_child, type_name,
)

TEMPLATE_METHOD = "AddTemplate"
# clause method -> (placeholder, prefix, joiner), as Dapper.SqlBuilder joins them
CLAUSES = {
    "Select": ("select", "", " , "),
    "Where": ("where", "WHERE ", " AND "),
    "OrWhere": ("where", "WHERE ", " OR "),
    "OrderBy": ("orderby", "ORDER BY ", " , "),
    "GroupBy": ("groupby", "GROUP BY ", " , "),
    "Having": ("having", "HAVING ", " AND "),
    "Join": ("join", "JOIN ", " JOIN "),
    "InnerJoin": ("innerjoin", "INNER JOIN ", " INNER JOIN "),
    "LeftJoin": ("leftjoin", "LEFT JOIN ", " LEFT JOIN "),
    "RightJoin": ("rightjoin", "RIGHT JOIN ", " RIGHT JOIN "),
    "Set": ("set", "SET ", " , "),
}
_PLACEHOLDER = re.compile(r"/\*\*(\w+)\*\*/")


def built_sql(method: tree_sitter.Node, strings: dict[str, str]) -> list[tuple[str, int]]:
    """(composed SQL, the template's line) for every `AddTemplate` of the method whose text is
    known; the clauses of its receiver, in the order they are added."""
    templates: list[tuple[str, str, int]] = []  # (receiver, text, line)
    clauses: dict[str, dict[str, tuple[str, str, list[str]]]] = {}  # receiver -> placeholder -> (prefix, joiner, parts)
    for node in descendants(method):
        callee = callee_of(node)
        if callee is None or callee[0] is None:
            continue
        name, receiver = type_name(callee[1]) or "", node_text(callee[0])
        arguments = call_arguments(required_child(node, "arguments"))
        text = string_value(arguments[0][1], strings) if arguments else None
        if not text:
            continue
        if name == TEMPLATE_METHOD:
            templates.append((receiver, text, line_of(node)))
        elif name in CLAUSES:
            placeholder, prefix, joiner = CLAUSES[name]
            parts = clauses.setdefault(receiver, {}).setdefault(placeholder, (prefix, joiner, []))[2]
            parts.append(text.strip())
    return [(_compose(text, clauses.get(receiver, {})), line) for receiver, text, line in templates]


def _compose(template: str, clauses: dict[str, tuple[str, str, list[str]]]) -> str:
    def fill(match: re.Match) -> str:
        prefix, joiner, parts = clauses.get(match.group(1).lower(), ("", "", []))
        return f" {prefix}{joiner.join(parts)} " if parts else " "
    return _PLACEHOLDER.sub(fill, template)


APPEND_METHODS = frozenset({"Append", "AppendLine", "AppendFormat"})


def appended_sql(method: tree_sitter.Node, strings: dict[str, str]) -> list[tuple[str, int, bool]]:
    """(the text appended to a receiver, its first append's line, whether the method hands the
    receiver's `ToString()` to a call) for each receiver something readable was appended to, in
    the order of the text (`sb.Append("a").Append("b")` appends to `sb` twice); whether the text
    is SQL is the caller's to say."""
    pieces: dict[str, list[tuple[int, str, int]]] = {}
    handed: set[str] = set()
    for node in descendants(method):
        callee = callee_of(node)
        if callee is None or callee[0] is None:
            continue
        name = type_name(callee[1]) or ""
        if name == "ToString" and node.parent is not None and node.parent.type == "argument":
            handed.add(node_text(callee[0]))
        if name not in APPEND_METHODS:
            continue
        arguments = call_arguments(required_child(node, "arguments"))
        text = string_value(arguments[0][1], strings) if arguments else None
        if text:
            pieces.setdefault(_builder(callee[0]), []).append((arguments[0][1].start_byte, text, line_of(node)))
    return [("\n".join(text for _, text, _ in sorted(parts)), min(parts)[2], receiver in handed)
            for receiver, parts in pieces.items()]


def _builder(receiver: tree_sitter.Node) -> str:
    """The builder a chained append appends to: `sb` of `sb.Append("a").Append("b")`."""
    while (callee := callee_of(receiver)) is not None and callee[0] is not None \
            and type_name(callee[1]) in APPEND_METHODS:
        receiver = callee[0]
    return node_text(receiver)
