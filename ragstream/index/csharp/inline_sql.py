"""Inline SQL in C#: the tables it reads and writes (READS / WRITES, method -> table) and the
stored procedures it runs (CALLS, method -> procedure).

SQL is the first string argument of Dapper (`Query*`, `Execute*`) and EF Core raw-SQL methods
(`FromSqlRaw`, `ExecuteSqlRaw`, ...), of `new SqlCommand(...)` and its ADO.NET siblings, and
`CommandText = ...` assignments. A string that is only a name (`"[dbo].[Invoice_Create]"`, as
passed with `CommandType.StoredProcedure`; SQL Server also runs a batch that is only a name as
that procedure) is a procedure name, not SQL to read tables from; `EXEC` / `EXECUTE` inside
SQL text calls a procedure too. Any other string of the method that reads as a SQL statement
(it starts with SELECT, INSERT, UPDATE, DELETE, MERGE, WITH or EXEC) is SQL too, marked
`via="sql_literal"`: code that builds its SQL through a helper (`GetQuery(s => $"select ...")`)
passes the data-access call a variable the parser cannot follow, but the text is in the method.
SQL composed with Dapper's `SqlBuilder` (a template and its clauses) is SQL too, `via="sql_builder"`,
and so is the text appended to a `StringBuilder` when the method hands the builder's `ToString()`
to a call (`sql_literal` when it does not).
A string parameter the type's own calls pass values to (`argument_values`) is bound to each
value in turn: the SQL that changes with it is read once per value, `via="argument"`, and its
tables and procedures are linked only where the repository defines them (a value is a guess at
what the code names, not a statement of it); several values make each edge a guess that lists
the tables the other values give (`candidates`).
Table and procedure names are given as written (brackets dropped), an unqualified one also in
`dbo`; one whose start is composed at run time (`{0}Posts`) is matched by its end in the graph
(`prefixed_names`).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

import tree_sitter

from ragstream.index.model import Reference, node_id
from ragstream.keyword_tokens import identifier_parts
from ragstream.index.csharp.sql_builder import appended_sql, built_sql
from ragstream.index.csharp.argument_values import ParameterValues
from ragstream.index.csharp.strings import UNKNOWN_PREFIX, is_format, string_bindings, string_value
from ragstream.index.csharp.syntax import (
    LANGUAGE, call_arguments, callee_of, created_type, descendants, line_of, node_text, required_child,
    type_arguments, type_name,
)
from ragstream.index.csharp.table_refs import TABLE_KINDS, first_of_each, maps_to, table_candidates
from ragstream.index.sql.access import TableAccess, table_access


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
# ADO.NET providers' command types, lower-cased: System.Data.SQLite spells `SQLiteCommand`,
# Microsoft.Data.Sqlite `SqliteCommand`
SQL_COMMAND_TYPES = frozenset({
    "sqlcommand", "sqlitecommand", "npgsqlcommand", "mysqlcommand", "oraclecommand",
    "oledbcommand", "odbccommand", "sqlcecommand", "fbcommand", "db2command",
    "commanddefinition",  # Dapper's `new CommandDefinition(sql or procedure, ..., commandType: ...)`
})
PROCEDURE_KINDS = ("PROCEDURE",)
# A whole string that is one (schema-qualified, bracketed) name: a procedure's.
_PART = r"(?:\[[^\]]+\]|[A-Za-z_#{][\w$#@{}]*)"  # `{T}`: a type parameter's name, bound in the graph
_NAME_ONLY = re.compile(rf"\s*({_PART}(?:\s*\.\s*{_PART}){{0,2}})\s*;?\s*")


# A string that reads as a SQL statement: a DML (or EXEC) keyword, then SQL words after it.
# Session settings and declarations may come first: `set xact_abort off; select ...`, and a
# `;` that ends them before a CTE (`;with cte as (...)`).
# A test of existence may lead (`IF NOT EXISTS (SELECT ...) BEGIN DELETE ...`), and an insert may
# say what to do with a row already there (SQLite's `INSERT OR IGNORE`, MySQL's `INSERT IGNORE`,
# `REPLACE INTO`).
_SQL_LIKE = re.compile(r"\s*(?:(?:set|declare)\s[^;]*;\s*|;\s*)*(?:if\s+(?:not\s+)?exists\s*\(\s*)?"
                       r"(?:select\s[\s\S]*\bfrom\b|insert\s+(?:or\s+\w+\s+)?(?:ignore\s+)?into\b|replace\s+into\b"
                       r"|update\s[\s\S]*\bset\b|delete\s|merge\s|"
                       r"with\s[\s\S]*\bas\s*\(|exec(?:ute)?\s)", re.IGNORECASE)
STRING_EXPRESSIONS = frozenset({"string_literal", "verbatim_string_literal", "raw_string_literal",
                                "interpolated_string_expression", "binary_expression"})


@dataclass(frozen=True)
class Bound:
    """A string parameter bound to one of the values the type's calls pass it."""

    parameter: str
    value: str
    values: tuple[str, ...]  # every value passed, this one included


@dataclass(frozen=True)
class SqlText:
    """A string a method hands to a data-access API, or one that reads as SQL (`via`)."""

    text: str
    line: int
    via: str = "data_access_call"
    row_type: str | None = None  # T of a Dapper `Query<T>(...)`: what each row becomes
    row_type_guessed: bool = False  # the query passed was not readable: T joined to the method's SQL
    bound: Bound | None = None  # the parameter value this text was read with (via="argument")

    @cached_property
    def procedure(self) -> str | None:
        """The procedure's name when the text is only a name, brackets and spaces dropped."""
        match = _NAME_ONLY.fullmatch(self.text)
        if match is None:
            return None
        return "".join(match.group(1).split()).replace("[", "").replace("]", "")

    @cached_property
    def access(self) -> TableAccess:
        """Tables read and written, procedures run: a name only runs that procedure."""
        if self.procedure:
            return TableAccess(reads=(), writes=(), calls=(self.procedure,))
        return table_access(self.text, SQL_DIALECT)


def reads_as_sql(text: str) -> bool:
    """Whether a string could be what a data-access call runs: one (qualified) name, a
    procedure's, or text that reads as a SQL statement."""
    return _NAME_ONLY.fullmatch(text) is not None or _SQL_LIKE.match(text) is not None


def inline_sql(method: tree_sitter.Node, fields: dict[str, str],
               parameters: ParameterValues | None = None) -> list[SqlText]:
    """Every SQL string (or procedure name) the method passes to a data-access API, then every
    other string of the method that reads as SQL, then the SQL its builders compose; the texts
    that change with a parameter given values (`parameters`) once per value instead."""
    found = _method_sql(method, fields)
    # a parameter with one value is bound while another one varies (`Query("Job", " where ...")`)
    singles = {name: values[0] for name, values in (parameters or {}).items() if len(values) == 1}
    for parameter, values in (parameters or {}).items():
        variants = [(value, _method_sql(method, {**fields, **singles, parameter: value})) for value in values]
        unbound = {sql.text for sql in found}
        changed = {sql.text for sql in found} - {sql.text for _, texts in variants for sql in texts}
        found = [sql for sql in found if sql.text not in changed] + list({
            (sql.text, sql.line): replace(sql, via="argument", bound=Bound(parameter, value, values))
            for value, texts in variants for sql in texts if sql.text not in unbound}.values())
    return found


# the nodes `sql_arguments` may find SQL in: every other node is passed over before asking
_SQL_CARRIERS = frozenset({"assignment_expression", "object_creation_expression", "invocation_expression"})
# a string expression, or a call that may be a `String.Format` (`_sql_literals`)
_LITERAL_CANDIDATES = STRING_EXPRESSIONS | {"invocation_expression"}


def _method_sql(method: tree_sitter.Node, fields: dict[str, str]) -> list[SqlText]:
    strings = {**fields, **string_bindings(method, fields)}
    found: list[SqlText] = []
    passed: set[tuple[int, int]] = set()
    unread_rows: list[str | None] = []
    for node in descendants(method):
        if node.type not in _SQL_CARRIERS:
            continue
        arguments = sql_arguments(node)
        passed.update((a.start_byte, a.end_byte) for a in arguments)
        values = (string_value(expr, strings) for expr in arguments)
        text = next((value for value in values if value), None)
        if text and node.type == "object_creation_expression" and wraps_sql(_created(node)) \
                and not _SQL_LIKE.match(text):
            text = None  # a holder's text that is no statement (a name, a message)
        if text:
            found.append(SqlText(text, line_of(node), row_type=_row_type(node)))
        elif arguments and _row_type(node):
            unread_rows.append(_row_type(node))
    known = {sql.text for sql in found}
    literals = [sql for sql in _sql_literals(method, passed, strings) if sql.text not in known]
    literals += [SqlText(text, line, via="sql_builder") for text, line in built_sql(method, strings)]
    # a StringBuilder's text: run when the method hands it on (`conn.Execute(sb.ToString())`)
    literals += [SqlText(text, line, via="sql_builder" if handed else "sql_literal")
                 for text, line, handed in appended_sql(method, strings) if _SQL_LIKE.match(text)]
    if len(set(unread_rows)) == 1:  # `Query<SqlJob>(query)`, the query built from the method's one SQL
        literals = [replace(sql, row_type=unread_rows[0], row_type_guessed=True) for sql in literals]
    return found + literals


def _sql_literals(method: tree_sitter.Node, passed: set[tuple[int, int]],
                  strings: dict[str, str]) -> list[SqlText]:
    """Whole string expressions (a literal, a `+` chain of them, a `String.Format`) that read as
    SQL, neither passed to a data-access call nor handed straight to another call
    (`Log("select ...")` logs text; a lambda's body, as in `GetQuery(s => "select ...")`, is not
    handed over) unless that call is named for making or running a command from it
    (`_command_helper`: `conn.CreateTextCommand(string.Format("INSERT INTO {0}Posts ...", ...))`,
    `via="command_helper"`). The format of a `String.Format` counts only as formatted: `[{0}]` is
    no table."""
    found = []
    formats: list[tuple[int, int]] = []  # String.Format calls read whole
    for node in descendants(method):
        if node.type not in _LITERAL_CANDIDATES:
            continue
        parent = node.parent
        span = (node.start_byte, node.end_byte)
        if any(start <= span[0] and span[1] <= end for start, end in formats):
            continue
        if is_format(node):
            formats.append(span)
        elif node.type not in STRING_EXPRESSIONS:
            continue
        handed = parent is not None and parent.type == "argument"
        if span in passed or parent is not None and (
                parent.type == "binary_expression" or handed and not _command_helper(parent)):
            continue
        text = string_value(node, strings)
        if text and _SQL_LIKE.match(text):
            found.append(SqlText(text, line_of(node), via="command_helper" if handed else "sql_literal"))
    return found


# A call whose name says it makes or runs a command from its text: the repository's own ADO.NET
# helpers (`conn.CreateTextCommand(sql)`, `db.GetSqlStringCommand(sql)`, `ExecuteSQL(sql)`), which
# no list can name; one whose name also says it only shows the text (`LogSql`, `TraceQuery`) runs
# nothing. Only the name says so: each table such a call reaches is a guess.
_COMMAND_WORDS = frozenset({"command", "sql", "query"})
_SHOWING_WORDS = frozenset({"log", "trace", "debug", "print", "show"})


def _command_helper(argument: tree_sitter.Node) -> bool:
    """Whether `argument` is passed to a call named like a command helper (`_COMMAND_WORDS`,
    any case, and none of `_SHOWING_WORDS`): SQL handed to it is run, SQL handed to `Log(...)`
    or `LogSql(...)` is not."""
    call = argument.parent.parent if argument.parent is not None else None
    callee = callee_of(call) if call is not None else None
    words = set(identifier_parts(type_name(callee[1]) or "")) if callee is not None else set()
    return bool(words & _COMMAND_WORDS) and not words & _SHOWING_WORDS


def sql_arguments(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The expressions that may hold SQL when `node` is a data-access call or assignment."""
    if node.type == "assignment_expression":
        left = required_child(node, "left")
        assigned = left.child_by_field_name("name") if left.type == "member_access_expression" else left
        return [required_child(node, "right")] if node_text(assigned) == "CommandText" else []
    if node.type == "object_creation_expression":
        created = _created(node)
        arguments = node.child_by_field_name("arguments")
        return [value for _, value in call_arguments(arguments)] \
            if (created in SQL_COMMAND_TYPES or wraps_sql(created)) and arguments else []
    callee = callee_of(node)
    name = (type_name(callee[1]) or "") if callee else ""
    if name in SQL_METHODS or name.startswith(SQL_METHOD_PREFIXES):
        return [value for _, value in call_arguments(required_child(node, "arguments"))]
    return []


def _created(node: tree_sitter.Node) -> str:
    """The lower-case short name of the type a `new T(...)` creates."""
    return (created_type(node) or "").rsplit(".", 1)[-1].lower()


def wraps_sql(created: str) -> bool:
    """A project's own holder of a statement, by its name (`new SQLString(@"select ...")`, `new SqlQuery(..)`,
    `new QueryText(..)`): its string argument is SQL the object runs later, when it reads as a statement
    (`_method_sql`); a driver's parameter or connection (`SqlParameter`, `SqlConnection`) holds none."""
    return created not in SQL_COMMAND_TYPES and created.startswith(("sql", "query")) \
        and not created.endswith(_NO_STATEMENT)


_NO_STATEMENT = ("parameter", "connection", "connectionstringbuilder", "exception", "transaction", "datareader",
                 "dataadapter", "bulkcopy", "error")


def _row_type(node: tree_sitter.Node) -> str | None:
    """`T` of a generic Dapper query (`Query<T>`, `QueryFirstOrDefault<T>`, ...)."""
    callee = callee_of(node)
    if callee is None or callee[1].type != "generic_name" or not (type_name(callee[1]) or "").startswith("Query"):
        return None
    arguments = type_arguments(callee[1])
    # a tuple row (`Query<(long id, string data)>`, named `_..._` by the parser) is no type to map
    return arguments[0] if len(arguments) == 1 and arguments[0].strip("_") else None


def row_type_references(sql: list[SqlText], type_guesses: Callable[[str], tuple[str, ...]]) -> list[Reference]:
    """MAPS_TO from the type a Dapper query turns each row into (`Query<SqlJob>("select ... from
    Job")`) to the tables it reads (via="dapper_row_type"); only a type of the repository."""
    references = []
    for found in sql:
        if found.row_type is None or not found.access.reads:
            continue
        sources = [node_id(LANGUAGE, guess, "TYPE") for guess in type_guesses(found.row_type)]
        attrs = {"source_candidates": sources, "source_in_repository": True, "via": "dapper_row_type",
                 **({"guess": True} if found.row_type_guessed else {})}
        references += [maps_to(sources[0], table_candidates([table]), found.line, attrs)
                       for table in found.access.reads]
    return first_of_each(references)


def table_references(source: str, sql: list[SqlText]) -> list[Reference]:
    """READS / WRITES of the tables the SQL texts use."""
    return first_of_each(
        _sql_reference(source, edge_type, table, TABLE_KINDS, found, _alternatives(sql, found, edge_type))
        for found in sql
        for edge_type, tables in (("READS", found.access.reads), ("WRITES", found.access.writes))
        for table in tables
    )


def procedure_references(source: str, sql: list[SqlText]) -> list[Reference]:
    """CALLS to the stored procedures the SQL texts name or EXEC."""
    return first_of_each(
        _sql_reference(source, "CALLS", name, PROCEDURE_KINDS, found, _alternatives(sql, found, "CALLS"))
        for found in sql for name in found.access.calls
    )


def _alternatives(sql: list[SqlText], found: SqlText, edge_type: str) -> tuple[str, ...]:
    """The names the same statement reaches (`edge_type`) with each value of its bound
    parameter: what a guess made with one value stands beside."""
    if found.bound is None or len(found.bound.values) < 2:
        return ()
    names = (name for other in sql if other.line == found.line and other.bound is not None
             and other.bound.parameter == found.bound.parameter
             for name in {"READS": other.access.reads, "WRITES": other.access.writes,
                          "CALLS": other.access.calls}[edge_type])
    return tuple(sorted(set(names)))


def stored_procedures(sql: list[SqlText]) -> list[str]:
    """The procedures' names, in order of first use."""
    return list(dict.fromkeys(name for found in sql for name in found.access.calls))


def _sql_reference(source: str, edge_type: str, name: str, kinds: tuple[str, ...],
                   found: SqlText, alternatives: tuple[str, ...] = ()) -> Reference:
    attrs: dict = {"via": found.via} if found.via != "data_access_call" else {}
    if found.via == "command_helper":  # run by a call only its name says runs it (`_command_helper`)
        attrs["guess"] = True
    if edge_type == "WRITES" and found.access.operations_of(name):
        attrs["operations"] = found.access.operations_of(name)  # INSERT, UPDATE, DELETE, ...
    if found.bound is not None:  # read with a value the type's calls pass: say which, and of what
        attrs.update(parameter=found.bound.parameter, value=found.bound.value, values=list(found.bound.values))
        if alternatives:
            attrs.update(guess=True, candidates=list(alternatives))
    # a name with an unknown prefix (`{0}Posts`) is matched in the graph, never kept external
    return Reference(source=source, edge_type=edge_type, target=name, target_language="sql",
                     candidates=table_candidates([name]), target_kinds=kinds, by_name=False,
                     external=found.bound is None and UNKNOWN_PREFIX not in name, line=found.line, attrs=attrs)
