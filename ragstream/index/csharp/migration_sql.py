"""Tables a migration creates in SQL of its own: `migrationBuilder.Sql("CREATE TABLE ...")` (EF Core,
EF6's `Sql(...)`), FluentMigrator's `Execute.Sql("CREATE TABLE ...")`.

Applications on PostgreSQL often write a migration's schema as SQL (raw string literals)
rather than as `CreateTable` calls; without reading it such a table is in no script and no model. The
text is parsed by the SQL parser; each table it creates becomes a `create_table` operation of the
migration, replayed with its others (`ef_migrations.settle_migrations`): a TABLE node and its COLUMN
nodes spanning their lines in the string (attrs `via` the migration's, `migration`, `sql=True`), and
its FOREIGN_KEYs. Only `CREATE TABLE`: what else the SQL does (views, functions, data) is left to the
SQL found in scripts, as a migration may replace a view many times over. SQL the parser cannot read
makes nothing (a migration's text is evidence, not a file the user asked to index).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import tree_sitter

from ragstream.errors import RagstreamError
from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import call_arguments, callee_of, line_of, node_text, required_child, type_name
from ragstream.index.model import Node, Reference
from ragstream.index.sql.parser import parse_sql

CREATES_TABLE = re.compile(r"\bcreate\s+(?:unlogged\s+|temporary\s+|temp\s+)?table\b", re.IGNORECASE)
SQL_CALLS = frozenset({"Sql"})  # `migrationBuilder.Sql(...)`, `Sql(...)` (EF6), `Execute.Sql(...)` (FluentMigrator)


@dataclass
class SqlTables:
    """What one migration's SQL adds: its tables and columns, the operations creating them, their keys."""

    nodes: list[Node] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)


def is_sql_call(call: tree_sitter.Node) -> bool:
    callee = callee_of(call)
    return callee is not None and type_name(callee[1]) in SQL_CALLS


def sql_tables(call: tree_sitter.Node, path: str, parent: str, method: str, made: dict) -> SqlTables:
    """The tables the SQL string of `call` creates, as operations of `method` (the migration's `Up`)."""
    arguments = call_arguments(required_child(call, "arguments"))
    text = string_value(arguments[0][1], {}) if arguments else None
    found = SqlTables()
    if not text or not CREATES_TABLE.search(text):
        return found
    try:
        parsed = parse_sql(path, text, "auto")
    except RagstreamError:
        return found
    offset = line_of(arguments[0][1]) - 1 + _leading_lines(node_text(arguments[0][1]))
    marks = {**made, "sql": True}
    tables = {node.id: node for node in parsed.nodes if node.kind == "TABLE"}
    for node in parsed.nodes:
        if node.kind not in ("TABLE", "COLUMN") or (node.kind == "COLUMN" and node.parent not in tables):
            continue
        found.nodes.append(replace(node, start_line=node.start_line + offset, end_line=node.end_line + offset,
                                   parent=parent if node.kind == "TABLE" else node.parent,
                                   attrs={**node.attrs, **marks}))
        if node.kind == "TABLE":
            found.references.append(Reference(
                source=method, edge_type="REFERENCES", target=node.name, target_language="sql",
                candidates=(node.name,), target_kinds=("TABLE",), external=True, line=node.start_line + offset,
                attrs={"via": made["via"], "operation": "create_table", "sql": True}))
    found.references += [replace(reference, line=reference.line + offset,
                                 attrs={**reference.attrs, "via": made["via"], "sql": True})
                         for reference in parsed.references
                         if reference.edge_type == "FOREIGN_KEY" and reference.source in tables]
    return found


def _leading_lines(written: str) -> int:
    """1 when the literal's opening quotes end their line (a raw literal's do): its value starts on
    the next."""
    return 1 if written.lstrip("$@").lstrip('"').startswith(("\n", "\r\n")) else 0
