"""Tables a migration creates in SQL of its own: `migrationBuilder.Sql("CREATE TABLE ...")` (EF Core,
EF6's `Sql(...)`), FluentMigrator's `Execute.Sql("CREATE TABLE ...")`; and tables any other code
creates from a `CREATE TABLE` string it runs or holds (`command.CommandText = "CREATE TABLE ..."`,
an installer's list of scripts: attrs `via="sql_string"`), which a script's, a model's or a
migration's table of the same name outranks (`settle_code_sql_tables`).

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
from ragstream.index.csharp.declarations import TypeDecl
from ragstream.index.csharp.inline_sql import STRING_EXPRESSIONS
from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import (
    LANGUAGE, call_arguments, callee_of, descendants, line_of, node_text, required_child, type_name,
)
from ragstream.index.model import Node, ParsedFile, Reference, node_id
from ragstream.index.sql.parser import parse_sql

SQL_STRING = "sql_string"  # the `via` of a table a CREATE TABLE string in ordinary code makes
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
    if not text:
        return SqlTables()
    offset = line_of(arguments[0][1]) - 1 + _leading_lines(node_text(arguments[0][1]))
    return created_tables(text, offset, path, parent, method, made)


def created_tables(text: str, offset: int, path: str, parent: str, method: str | None, made: dict) -> SqlTables:
    """The tables SQL text creates (its first line is the file's line `offset + 1`), children of
    `parent`, each made by `method` (a `create_table` REFERENCES; none without one), with `made`'s
    marks."""
    found = SqlTables()
    if not CREATES_TABLE.search(text):
        return found
    try:
        parsed = parse_sql(path, text, "auto")
    except RagstreamError:
        return found
    marks = {**made, "sql": True}
    tables = {node.id: node for node in parsed.nodes if node.kind == "TABLE"}
    for node in parsed.nodes:
        if node.kind not in ("TABLE", "COLUMN") or (node.kind == "COLUMN" and node.parent not in tables):
            continue
        found.nodes.append(replace(node, start_line=node.start_line + offset, end_line=node.end_line + offset,
                                   parent=parent if node.kind == "TABLE" else node.parent,
                                   attrs={**node.attrs, **marks}))
        if node.kind == "TABLE" and method is not None:
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
    """1 when a raw literal's opening quotes end their line: its value starts on the next (a
    verbatim literal's value holds that line break: its text's first line is the quotes' own)."""
    raw = written.lstrip("$@").startswith('"""')
    return 1 if raw and written.lstrip("$@").lstrip('"').startswith(("\n", "\r\n")) else 0


# a string that is DDL creating a table, from its start (not "could not create table X" in a message)
_CREATES_TABLE_FIRST = re.compile(r"\s*(?:--[^\n]*\n\s*)*create\s+table\s", re.IGNORECASE)
_TYPES = frozenset({"class_declaration", "struct_declaration", "record_declaration", "interface_declaration"})


def code_sql_tables(decl: TypeDecl, strings: dict[str, str], path: str) -> list[SqlTables]:
    """What each whole string expression of the type itself (not of a nested type) makes when its
    text creates a table: a constant, a command's text, an installer's list of scripts. Each table
    is a child of the file, as a script's are: the class holding an application's schema (one per
    database engine, hundreds of statements) configures none of its tables, and no REFERENCES
    says it does."""
    found: list[SqlTables] = []
    if not _may_create_tables(decl, strings):  # most types: no walk of every string of the type
        return found
    for node in descendants(decl.syntax):
        if node.type not in STRING_EXPRESSIONS or (node.parent is not None and node.parent.type == "binary_expression"):
            continue
        text = string_value(node, strings)
        if not text or not _CREATES_TABLE_FIRST.match(text) or _migration_sql(node) or _in_nested_type(node, decl):
            continue
        offset = line_of(node) - 1 + _leading_lines(node_text(node))
        found.append(created_tables(text, offset, path, node_id(LANGUAGE, path, "FILE"), None, {"via": SQL_STRING}))
    return found


def _may_create_tables(decl: TypeDecl, strings: dict[str, str]) -> bool:
    """Whether the type's text, or a string constant its expressions may join, says CREATE TABLE
    (case aside; the words may stand apart in a literal split over lines or joined with `+`)."""
    text = node_text(decl.syntax).lower()
    return ("create" in text and "table" in text) or any(_CREATES_TABLE_FIRST.match(v) for v in strings.values())


def _migration_sql(node: tree_sitter.Node) -> bool:
    """A migration's `Sql("CREATE TABLE ...")` argument: the migration's replay decides what it
    leaves (`sql_tables`; a `Down` recreates what `Up` dropped)."""
    argument = node.parent
    call = argument.parent.parent if argument is not None and argument.type == "argument" \
        and argument.parent is not None else None
    return call is not None and call.type == "invocation_expression" and is_sql_call(call)


def _in_nested_type(node: tree_sitter.Node, decl: TypeDecl) -> bool:
    """In a type nested in `decl`: that type's own string."""
    current = node.parent
    while current is not None and current != decl.syntax:
        if current.type in _TYPES:
            return True
        current = current.parent
    return False


def settle_code_sql_tables(files: list[ParsedFile]) -> list[ParsedFile]:
    """Files with only the tables (with their columns and the edges into them) that CREATE TABLE
    strings in code make where no script, model or migration has a table of the name, in any schema
    (a string names `Users`, a script `dbo.Users`); where strings for several engines make one
    table, the one with a schema."""
    made = [node for f in files for node in f.nodes if node.attrs.get("via") == SQL_STRING]
    if not made:
        return files
    known = {_short(node.name) for f in files for node in f.nodes
             if node.kind in ("TABLE", "VIEW") and node.attrs.get("via") != SQL_STRING}
    kept: set[str] = set()
    # SQL Server's `dbo.Users` before SQLite's `Users`
    for node in sorted((n for n in made if n.kind == "TABLE"), key=lambda n: "." not in n.name):
        if _short(node.name) not in known:
            known.add(_short(node.name))
            kept.add(node.id)
    kept |= {node.id for node in made if node.kind == "COLUMN" and node.parent in kept}
    dropped = {node.id for node in made} - kept
    # only the strings' own nodes: a script's `dbo.Users` may have the id of a string's `Users`
    return [replace(f, nodes=[node for node in f.nodes if not _dropped(node, dropped)],
                    edges=[edge for edge in f.edges if edge.target not in dropped])
            if any(_dropped(node, dropped) for node in f.nodes) else f for f in files]


def _dropped(node: Node, dropped: set[str]) -> bool:
    return node.id in dropped and node.attrs.get("via") == SQL_STRING


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower()
