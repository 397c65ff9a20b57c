"""SQL files -> tables, types, columns, views, procedures, functions and triggers, with their
table usage and the schema changes of migration scripts.

The file is split into statements (`sql_split`, so each one keeps exact line numbers and a bad
one costs only itself), then each statement is parsed with sqlglot and handed to the reader of
its kind: `sql_routines` for views and routines (read from their header tokens, so a body
sqlglot cannot fully parse still yields its node), `sql_tables` for tables and the DDL that
changes them. DDL inside T-SQL control flow (`IF OBJECT_ID('t') IS NULL BEGIN CREATE TABLE t
... END`, common in migration scripts) is read statement by statement.
"""
from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from ragstream.errors import ConfigError, IndexingError
from ragstream.index.model import UNPARSED_SQL, ParsedFile, file_node
from ragstream.index.sql.access import (
    PARSE_ERRORS, SQL_DIALECTS, control_flow_statements, is_statement, quiet_sqlglot, tokenize,
)
from ragstream.index.sql.data_scripts import add_script_writes, merge_script_writes
from ragstream.index.sql.refs import in_default_schema
from ragstream.index.sql.routines import add_definition, definition
from ragstream.index.sql.split import (
    Statement, dotted, kind_index, name_end, name_start, opens_control_flow, split_statements, sub_statement,
)
from ragstream.index.sql.tables import (
    TableStatement, add_alter, add_drop, add_query_table, add_rename, add_table, add_table_type,
    add_unparsed_change,
)

_TSQL_HINTS = re.compile(r"^[ \t]*GO[ \t]*$|\[\w+\]\.|\bNVARCHAR\b|\bIDENTITY\b|\bdbo\.|\bEXEC\b"
                         r"|\bsp_\w+|\bOBJECT_ID\s*\(|@@\w+|\bNOCOUNT\b",
                         re.IGNORECASE | re.MULTILINE)
# T-SQL column options that sqlglot cannot read, each of which loses the whole CREATE TABLE
# (BlogEngine's scripts: `[PostID] [uniqueidentifier] ROWGUIDCOL NOT NULL`): they say how a
# column is stored, not what it holds, so they are blanked (same length: offsets and lines stay).
_TSQL_STORAGE_OPTIONS = re.compile(
    r"\bROWGUIDCOL\b|\b(?:SPARSE|FILESTREAM)\b(?=\s*(?:NOT\s+NULL|NULL|,|\)|CONSTRAINT|DEFAULT))"
    r"|(?<=\bCHECK)\s+NOT\s+FOR\s+REPLICATION\b"
    r"|\b(?:MASKED|ENCRYPTED)\s+WITH\s*\((?:[^()']|'[^']*')*\)"
    # where a table's large values are filed (SSMS scripts every table with text, image or
    # (max) columns with `) ON [PRIMARY] TEXTIMAGE_ON [PRIMARY]`)
    r"|\b(?:TEXTIMAGE_ON|FILESTREAM_ON)\s+(?:\[[^\]\n]*\]|\"[^\"\n]*\"|\w+)"
    # how a key's index is ordered: sqlglot reads it only after a named constraint, and loses the
    # table of `[Id] int PRIMARY KEY CLUSTERED` or an unnamed `PRIMARY KEY CLUSTERED ([Id] ASC)`; a
    # column's `UNIQUE CLUSTERED` too (a table's `UNIQUE NONCLUSTERED (...) WITH (...)` it reads only so)
    r"|(?<=\bKEY)\s+(?:NON)?CLUSTERED\b|(?<=\bUNIQUE)\s+(?:NON)?CLUSTERED\b(?!\s*\()",
    re.IGNORECASE)
# An SSMS template parameter, `<name, type, value>` ("Specify Values for Template Parameters"
# replaces each with its value: `[<dbUser,varchar,dbo>].[Entries]` is `[dbo].[Entries]`,
# `<@Param1, sysname, @p1>` is `@p1`), optionally inside the brackets of an identifier. On one line,
# the type a type name or empty (`<Datatype_For_Param1, , int>`), the value a name or a number: a
# comparison such as `IIF(Qty<MinQty, Low, IIF(Qty>MaxQty, ...))` is none.
_SSMS_TEMPLATE_PARAMETER = re.compile(
    r"(?P<open>\[?)<[ \t]*@?[A-Za-z_]\w*[ \t]*,[ \t]*(?:[A-Za-z_]\w*(?:[ \t]*\([ \t]*\w+[ \t]*\))?)?[ \t]*,"
    r"[ \t]*(?P<value>[@#$\w.]+)[ \t]*>(?P<close>\]?)")
_POSTGRES_HINTS = re.compile(r"\bSERIAL\b|\$\$|\bplpgsql\b|::|\bRETURNING\b", re.IGNORECASE)
# MySQL's back-quoted names and table options: read in another dialect a whole CREATE TABLE is lost
_MYSQL_HINTS = re.compile(r"`\w+`|\bENGINE\s*=|\bAUTO_INCREMENT\b|\bUNSIGNED\b", re.IGNORECASE)
DIALECT_SETTING = "index.sql_dialect"


def parse_sql(path: str, text: str, dialect: str = "auto") -> ParsedFile:
    """Parse one SQL file; raises when the file has statements and none of them parses."""
    read = SQL_DIALECTS[resolve_dialect(text, dialect)]
    root = file_node(path, text.rstrip("\n").count("\n") + 1, "sql")
    out = ParsedFile(path=path, language="sql", root_id=root.id, nodes=[root])
    statements, problems = split_statements(_readable_column_options(text, read), read)
    out.warnings.extend(f"{path}:{line}: skipped SQL that cannot be tokenized: {message}"
                        for line, message in problems)
    lines = text.split("\n")  # indexed like the offsets-based line numbers
    parsed = sum(_add_statement(out, statement, read, lines) for statement in statements)
    if parsed == 0 and (statements or problems):
        raise IndexingError("no SQL statement in the file could be parsed", where=path,
                            hint=f"check the {DIALECT_SETTING} setting")
    merge_script_writes(out)
    return in_default_schema(out, read)


def resolve_dialect(text: str, dialect: str) -> str:
    """The dialect setting, with `auto` replaced by a guess from the text."""
    if dialect == "auto":
        return detect_dialect(text)
    if dialect not in SQL_DIALECTS:
        raise ConfigError(f"unknown SQL dialect {dialect!r}", where=DIALECT_SETTING,
                          hint=f"use auto or one of {', '.join(SQL_DIALECTS)}")
    return dialect


def detect_dialect(text: str) -> str:
    """tsql, postgres, mysql or generic, by counting tell-tale syntax (a tie goes to the first)."""
    counts = {dialect: len(hints.findall(text)) for dialect, hints in
              (("tsql", _TSQL_HINTS), ("postgres", _POSTGRES_HINTS), ("mysql", _MYSQL_HINTS))}
    best = max(counts, key=lambda dialect: counts[dialect])
    return best if counts[best] else "generic"


def _readable_column_options(text: str, dialect: str | None) -> str:
    """The text with T-SQL storage options sqlglot cannot read blanked out (`_TSQL_STORAGE_OPTIONS`)
    and SSMS template parameters replaced by their values, each padded to its length (offsets and
    lines stay)."""
    if dialect != "tsql":
        return text
    text = _SSMS_TEMPLATE_PARAMETER.sub(_template_value, text)
    return _TSQL_STORAGE_OPTIONS.sub(lambda found: re.sub(r"[^\n]", " ", found.group()), text)


def _template_value(found: re.Match[str]) -> str:
    """A template parameter written as its value (in its brackets, if it had them), padded with
    spaces to the parameter's length."""
    written = f"{found['open']}{found['value']}{found['close']}"
    return written.ljust(len(found.group()))


def _add_statement(out: ParsedFile, statement: Statement, dialect: str | None,
                   lines: list[str]) -> bool:
    """Add what one statement declares; False when it could not be parsed."""
    tokens = tokenize(statement.text, dialect)
    found = definition(statement, tokens)
    if found is None and opens_control_flow(tokens):
        return _add_statements(out, statement, tokens, dialect, lines)
    try:
        with quiet_sqlglot():
            tree = sqlglot.parse_one(statement.text, read=dialect)
        error = None
    except PARSE_ERRORS as problem:
        tree, error = None, (str(problem).splitlines() or [type(problem).__name__])[0]
    if found is None and (tree is None or isinstance(tree, exp.Command)):
        # Statements without `;` between them, or one whose header says what it changes.
        parsed = _add_statements(out, statement, tokens, dialect, lines, error)
        if not parsed:
            _note_unparsed_create(out, statement, tokens, False, error or "read as a command")
        return parsed
    if found:
        add_definition(out, statement, found, dialect, _docstring(lines, statement))
        if error:
            out.warnings.append(f"{out.path}:{statement.start_line}: {found.kind} "
                                f"{found.name} read without a full parse: {error}")
            _note_unparsed_create(out, statement, tokens, True, error)
        return True
    assert tree is not None, "no tree and no definition returned above"
    _add_tree(out, TableStatement(statement, tokens, dialect, _docstring(lines, statement)), tree)
    return is_statement(tree)


def _add_tree(out: ParsedFile, st: TableStatement, tree: exp.Expr) -> None:
    """What a parsed table statement declares or changes."""
    if isinstance(tree, exp.Create) and tree.kind == "TABLE":
        if _creates_temporary(tree):
            return  # `CREATE TABLE #work (...)`, `CREATE TEMPORARY TABLE t`: a session's, not the schema's
        if isinstance(tree.this, exp.Schema):
            add_table(out, st, tree.this)
        elif isinstance(tree.this, exp.Table) and tree.expression:
            add_query_table(out, st, tree.this, tree.expression)
    elif isinstance(tree, exp.Select) and isinstance(tree.args.get("into"), exp.Into):
        target = tree.args["into"].this
        if isinstance(target, exp.Table) and not _is_temporary(target):
            query = tree.copy()
            query.set("into", None)
            add_query_table(out, st, target, query)
    elif isinstance(tree, exp.Alter) and isinstance(tree.this, exp.Table):
        add_alter(out, st, tree)
    elif isinstance(tree, exp.Drop):
        add_drop(out, st, tree)
    elif isinstance(tree, exp.Execute):
        add_rename(out, st, tree)
    else:
        add_script_writes(out, tree, st.statement.start_line, st.dialect)


def _add_statements(out: ParsedFile, statement: Statement, tokens: list[Token],
                    dialect: str | None, lines: list[str], error: str | None = None) -> bool:
    """The statements inside IF / WHILE / BEGIN ... END, or in text without `;` between
    statements; True when any of them parses."""
    parsed = False
    for found in control_flow_statements(statement.text, tokens, dialect):
        inner = sub_statement(statement, found.first, found.last)
        try:
            inner_tokens = tokenize(inner.text, dialect)
        except SqlglotError:
            continue
        table_statement = TableStatement(inner, inner_tokens, dialect, _docstring(lines, inner))
        for tree in found.trees:
            _add_tree(out, table_statement, tree)
        parsed = (parsed or bool(found.trees) or add_table_type(out, table_statement)
                  or add_unparsed_change(out, table_statement))
    if not parsed and error:  # not for PRINT and the like, which sqlglot reads as commands
        out.warnings.append(f"{out.path}:{statement.start_line}: skipped SQL statement "
                            f"that does not parse: {error}")
    return parsed


# what a CREATE makes that the graph holds (not `CREATE STATISTICS` or `CREATE INDEX`)
_SCHEMA_OBJECTS = frozenset({"TABLE", "VIEW", "PROCEDURE", "PROC", "FUNCTION", "TRIGGER", "TYPE"})


def _note_unparsed_create(out: ParsedFile, statement: Statement, tokens: list[Token], kept: bool, why: str) -> None:
    """Record on the file's node a CREATE statement sqlglot could not parse: `kept` when its
    definition was still read from its header (a routine's body read token by token), not when
    the statement made nothing (a CREATE TABLE read as a command: the table is in no graph).
    The index's coverage report counts them (`graph/sql_coverage`)."""
    kind = kind_index(tokens, 0) if tokens else None
    if kind is None or tokens[0].token_type != TokenType.CREATE or tokens[kind].text.upper() not in _SCHEMA_OBJECTS:
        return
    start = name_start(tokens, kind)
    created = f"CREATE {tokens[kind].text.upper()} {dotted(tokens[start:name_end(tokens, start)])}".rstrip()
    out.nodes[0].attrs.setdefault(UNPARSED_SQL, []).append(
        {"line": statement.start_line, "statement": created, "kept": kept, "why": why})


def _creates_temporary(create: exp.Create) -> bool:
    """`CREATE TABLE #t (...)` / `##t` (SQL Server) or `CREATE TEMPORARY TABLE t` (PostgreSQL, MySQL, SQLite)."""
    table = create.this.this if isinstance(create.this, exp.Schema) else create.this
    properties = create.args.get("properties")
    return (isinstance(table, exp.Table) and _is_temporary(table)) \
        or bool(properties and any(isinstance(p, exp.TemporaryProperty) for p in properties.expressions))


def _is_temporary(table: exp.Table) -> bool:
    """`#t`, `##t` or `@t`: not part of the schema."""
    ident = table.this
    return (not isinstance(ident, exp.Identifier) or ident.name.startswith(("#", "@"))
            or bool(ident.args.get("temporary") or ident.args.get("global_")))


def _docstring(lines: list[str], statement: Statement) -> str:
    """The `--` comment block directly above the statement."""
    block: list[str] = []
    index = statement.start_line - 2
    while index >= 0 and lines[index].lstrip().startswith("--"):
        block.append(lines[index].lstrip()[2:].strip())
        index -= 1
    return "\n".join(reversed(block)).strip()
