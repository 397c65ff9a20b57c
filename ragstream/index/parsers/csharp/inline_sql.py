"""Inline SQL (READS / WRITES, method -> table): the first string argument of Dapper
(`Query*`, `Execute*`) and EF Core raw-SQL methods (`FromSqlRaw`, `ExecuteSqlRaw`, ...), of
`new SqlCommand(...)` and its ADO.NET siblings, and `CommandText = ...` assignments. Table
names are given as written, an unqualified one also in `dbo`."""
from __future__ import annotations

import tree_sitter

from ragstream.index.model import Reference
from ragstream.index.parsers.csharp.strings import string_bindings, string_value
from ragstream.index.parsers.csharp.syntax import (
    call_arguments, callee_of, created_type, descendants, line_of, node_text, type_name,
)
from ragstream.index.parsers.csharp.tables import TABLE_KINDS, first_of_each, table_candidates
from ragstream.index.parsers.sql_access import TableAccess, table_access


SQL_DIALECT = "tsql"
# Dapper extension methods and EF Core raw-SQL methods: their first string argument is SQL.
SQL_METHODS = frozenset({
    "Query", "QueryAsync", "QueryMultiple", "QueryMultipleAsync", "Execute", "ExecuteAsync",
    "ExecuteReader", "ExecuteReaderAsync", "FromSql", "FromSqlRaw", "FromSqlInterpolated",
    "ExecuteSql", "ExecuteSqlAsync", "ExecuteSqlRaw", "ExecuteSqlRawAsync",
    "ExecuteSqlInterpolated", "ExecuteSqlInterpolatedAsync", "SqlQuery", "SqlQueryRaw",
})
SQL_METHOD_PREFIXES = ("QueryFirst", "QuerySingle", "ExecuteScalar")
# ADO.NET commands: the first constructor argument is the command text.
SQL_COMMAND_TYPES = frozenset({
    "SqlCommand", "SqliteCommand", "NpgsqlCommand", "MySqlCommand", "OracleCommand",
    "OleDbCommand", "OdbcCommand",
})


def inline_sql(method: tree_sitter.Node, fields: dict[str, str]) -> list[tuple[str, int]]:
    """(SQL text, line) of every SQL string the method passes to a data-access API."""
    strings = {**fields, **string_bindings(method, fields)}
    found = []
    for node in descendants(method):
        values = (string_value(expr, strings) for expr in _sql_arguments(node))
        text = next((value for value in values if value), None)
        if text:
            found.append((text, line_of(node)))
    return found


def _sql_arguments(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The expressions that may hold SQL when `node` is a data-access call or assignment."""
    if node.type == "assignment_expression":
        left = node.child_by_field_name("left")
        name = left.child_by_field_name("name") if left.type == "member_access_expression" else left
        return [node.child_by_field_name("right")] if node_text(name) == "CommandText" else []
    if node.type == "object_creation_expression":
        is_command = (created_type(node) or "").rsplit(".", 1)[-1] in SQL_COMMAND_TYPES
        arguments = node.child_by_field_name("arguments")
        return [value for _, value in call_arguments(arguments)] if is_command and arguments else []
    callee = callee_of(node)
    name = (type_name(callee[1]) or "") if callee else ""
    if name in SQL_METHODS or name.startswith(SQL_METHOD_PREFIXES):
        return [value for _, value in call_arguments(node.child_by_field_name("arguments"))]
    return []


def table_references(source: str, sql: list[tuple[str, int]]) -> list[Reference]:
    return first_of_each(
        Reference(source=source, edge_type=edge_type, target=table, target_language="sql",
                  candidates=table_candidates([table]), target_kinds=TABLE_KINDS,
                  by_name=False, external=True, line=line)
        for text, line in sql
        for edge_type, tables in _reads_and_writes(table_access(text, SQL_DIALECT))
        for table in tables
    )


def _reads_and_writes(access: TableAccess) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return ("READS", access.reads), ("WRITES", access.writes)
