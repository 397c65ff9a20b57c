"""Which tables a piece of SQL reads and writes, and which procedures it executes.

Used by the SQL parser on view and procedure bodies and by the C# parser on inline SQL. The
sqlglot tree is the source of truth; a small regex only covers text sqlglot cannot parse, so
table usage in odd SQL is approximate rather than silently lost.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.parser import Parser
from sqlglot.tokens import Token, Tokenizer


# What sqlglot raises on SQL it cannot read; deep nesting exhausts its recursive descent.
PARSE_ERRORS = (SqlglotError, RecursionError)
# The `sql.dialect` setting's values -> sqlglot dialect names (None: sqlglot's default).
SQL_DIALECTS: dict[str, str | None] = {"tsql": "tsql", "postgres": "postgres", "mysql": "mysql", "generic": None}


@dataclass(frozen=True)
class TableAccess:
    """Table names as written in the SQL (brackets/quotes stripped), sorted and deduplicated."""

    reads: tuple[str, ...]
    writes: tuple[str, ...]
    calls: tuple[str, ...] = ()  # procedures run with EXEC / EXECUTE
    # how each written table is written: INSERT, UPDATE, DELETE, MERGE, TRUNCATE (sorted)
    operations: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def operations_of(self, name: str) -> list[str]:
        return list(dict(self.operations).get(name, ()))


@dataclass
class _Found:
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)
    operations: dict[str, set[str]] = field(default_factory=dict)

    def add(self, other: _Found) -> None:
        self.reads |= other.reads
        self.writes |= other.writes
        self.calls |= other.calls
        for name, operations in other.operations.items():
            self.operations.setdefault(name, set()).update(operations)


def table_access(sql: str, dialect: str | None = None) -> TableAccess:
    """Tables read and written by `sql` (one statement or many); never raises on bad SQL.

    `dialect` is a `sql.dialect` setting value or any sqlglot dialect name.
    """
    # `DELETE TOP (@count) T FROM ...` parses (or falls back to the regex) only without its TOP
    sql = _TOP.sub(lambda match: match.group(1) + " " * len(match.group(2)), sql)
    found = _collect(sql, SQL_DIALECTS.get(dialect, dialect) if dialect else None)
    return TableAccess(
        reads=tuple(sorted(name for name in found.reads if not _prose(name))),
        writes=tuple(sorted(name for name in found.writes if not _prose(name))),
        calls=tuple(sorted(found.calls)),
        operations=tuple((name, tuple(sorted(found.operations.get(name, ())))) for name in sorted(found.writes)
                         if found.operations.get(name) and not _prose(name)),
    )


# English function words: the "table" of prose that happens to read as SQL ("select a file from
# the list", "Delete an entry") -- no schema names a table so
# (not `a`: a one-letter name is a table in many a test script)
_FUNCTION_WORDS = frozenset("an the this that these those my your our their its his her it them which what "
                            "each every".split())


def _prose(name: str) -> bool:
    return name.lower() in _FUNCTION_WORDS


# `TOP (n) [PERCENT]` after DELETE / UPDATE: sqlglot reads `top` as the table written.
_TOP = re.compile(r"\b(DELETE|UPDATE)(\s+TOP\s*\([^()]*\)(?:\s*PERCENT)?)", re.IGNORECASE)


def table_name(table: exp.Table) -> str:
    """`[dbo].[Invoices]` -> `dbo.Invoices`: the name as written, without quoting."""
    return ".".join(part.name for part in table.parts)


def tokenize(sql: str, dialect: str | None) -> list[Token]:
    """sqlglot's tokens, except that no keyword swallows the rest of its statement.

    sqlglot turns what follows a "command" keyword into one string token (T-SQL: `END TRY
    BEGIN CATCH ...` up to the next `;`), which hides block keywords from a splitter.
    """
    return _plain_tokenizer(dialect)(dialect=dialect).tokenize(sql)


@lru_cache(maxsize=None)
def _plain_tokenizer(dialect: str | None) -> type[Tokenizer]:
    base = Dialect.get_or_raise(dialect).tokenizer_class
    return type(f"Plain{base.__name__}", (base,), {"COMMANDS": set()})


def is_statement(tree: exp.Expr) -> bool:
    """False for sqlglot's unparsed Command and for a bare expression (a lone word, prose)."""
    return not isinstance(tree, (exp.Command, exp.Condition, exp.Alias))


@contextmanager
def quiet_sqlglot() -> Iterator[None]:
    """Silence sqlglot's 'falling back to Command' warnings: callers handle unparsed text."""
    logger = logging.getLogger("sqlglot")
    previous = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(previous)


def _collect(sql: str, dialect: str | None) -> _Found:
    try:
        tokens = tokenize(sql, dialect)
    except SqlglotError:  # unterminated strings and the like
        return _regex_access(sql)
    found = _Found()
    previous = ""
    for statement in control_flow_statements(sql, tokens, dialect):
        text = sql[statement.first.start:statement.last.end + 1]
        # a CTE a statement reads may be defined in the segment before it when that did not parse
        # with it (`;with cte as (...) delete from cte`); a CTE elsewhere, or one a parsed
        # statement used, hides no table here (a CTE is scoped to its one statement)
        ctes = _cte_names(previous + "\n" + text)
        if statement.trees:
            for tree in statement.trees:
                found.add(_tree_access(tree, ctes))
        else:
            found.add(_regex_access(text, ctes))
        previous = "" if statement.trees else text
    return found


def statement_writes(tree: exp.Expr) -> dict[str, set[str]]:
    """{table as written: how it is written} for one parsed statement (INSERT, UPDATE, ...)."""
    found = _tree_access(tree, set())
    return {name: found.operations.get(name, set()) for name in found.writes}


@dataclass(frozen=True)
class FoundStatement:
    """A statement found inside control flow: its first and last token and its parse."""

    first: Token
    last: Token
    trees: tuple[exp.Expr, ...]  # empty when the text does not parse


def control_flow_statements(sql: str, tokens: list[Token],
                            dialect: str | None) -> Iterator[FoundStatement]:
    """The statements of `sql` with IF / WHILE / BEGIN ... END taken away, in order.

    `tokens` are `tokenize(sql, dialect)`; `dialect` is a sqlglot dialect name.
    """
    parser = Dialect.get_or_raise(dialect).parser()
    for piece in _control_free_pieces(sql, tokens):
        yield from _parse_statements(parser, sql, piece)


# sqlglot reads a statement that follows these words as an alias of what precedes it
# (`IF EXISTS (...) UPDATE t` -> EXISTS aliased UPDATE), so they are cut out before parsing.
_CONTROL_WORDS = frozenset({"IF", "ELSE", "WHILE", "BEGIN", "END"})
_BLOCK_WORDS = frozenset({"TRY", "CATCH", "TRAN", "TRANSACTION"})
# Words that can open a statement: T-SQL needs no `;` between statements.
_STATEMENT_KEYWORDS = frozenset({
    "SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "WITH", "EXEC", "EXECUTE", "DECLARE", "SET",
    "RETURN", "TRUNCATE", "COMMIT", "ROLLBACK", "THROW", "PRINT", "RAISERROR", "CREATE", "ALTER",
    "DROP", "OPEN", "FETCH", "CLOSE", "DEALLOCATE",
})
# Longest run of keyword segments tried as one statement before giving up on its first one.
_MAX_SEGMENTS = 12


def _control_free_pieces(sql: str, tokens: list[Token]) -> list[list[Token]]:
    """Tokens between `;` and control-flow words; an IF/WHILE condition is a piece of its own."""
    pieces: list[list[Token]] = [[]]
    depth = cases = 0
    after_control = in_condition = False
    for token in tokens:
        word = _keyword(sql, token)
        if after_control and word in _BLOCK_WORDS:  # the TRY of `BEGIN TRY`
            after_control = False
            continue
        after_control = False
        top = depth == 0 and cases == 0
        if depth == 0 and (word == "CASE" or (cases and word == "END")):  # CASE ... END: no block
            cases += 1 if word == "CASE" else -1
        elif top and (word in _CONTROL_WORDS or token.text == ";"):
            pieces.append([])
            after_control, in_condition = word in _CONTROL_WORDS, word in ("IF", "WHILE")
            continue
        elif top and in_condition and word in _STATEMENT_KEYWORDS:
            pieces.append([])
            in_condition = False
        pieces[-1].append(token)
        depth += {"(": 1, ")": -1}.get(token.text, 0)
    return [piece for piece in pieces if piece]


def _keyword(sql: str, token: Token) -> str:
    """The upper-cased word of an unquoted token; "" for strings and quoted identifiers."""
    raw = sql[token.start:token.end + 1]
    return raw.upper() if raw == token.text else ""


def _parse_statements(parser: Parser, sql: str,
                      tokens: list[Token]) -> Iterator[FoundStatement]:
    """Parsed statements, or the span of a part that does not parse (with no trees).

    The piece is cut before every statement keyword, then runs of segments are joined for as
    long as they parse into real statements: `INSERT INTO t (a)` + `SELECT a FROM s` joins,
    `SELECT 1 FROM b` + `UPDATE c ...` does not, and neither does `SET NOCOUNT ON` + `SELECT ...`
    (sqlglot takes that for one unparsed Command). Each statement is parsed about twice.
    """
    segments = _segments(sql, tokens)
    start = 0
    while start < len(segments):
        end, trees = start + 1, None
        for stop in range(start + 1, min(start + _MAX_SEGMENTS, len(segments)) + 1):
            attempt = _try_parse(parser, sql, [t for seg in segments[start:stop] for t in seg])
            if attempt is not None and all(is_statement(tree) for tree in attempt):
                end, trees = stop, attempt
            elif trees is not None:
                break
        yield FoundStatement(segments[start][0], segments[end - 1][-1], tuple(trees or ()))
        start = end


def _segments(sql: str, tokens: list[Token]) -> list[list[Token]]:
    """Tokens cut before each top-level statement keyword, except a MERGE action (`THEN UPDATE`)."""
    segments: list[list[Token]] = []
    depth = 0
    for previous, token in zip([None, *tokens], tokens):
        starts = depth == 0 and _keyword(sql, token) in _STATEMENT_KEYWORDS
        if not segments or (starts and previous and _keyword(sql, previous) != "THEN"):
            segments.append([])
        segments[-1].append(token)
        depth += {"(": 1, ")": -1}.get(token.text, 0)
    return segments


def _try_parse(parser: Parser, sql: str, tokens: list[Token]) -> list[exp.Expr] | None:
    try:
        with quiet_sqlglot():
            return [tree for tree in parser.parse(tokens, sql) if tree is not None]
    except PARSE_ERRORS:
        return None


def _tree_access(tree: exp.Expr, outer_ctes: set[str]) -> _Found:
    """What one parsed statement reads, writes and runs; `outer_ctes`: CTE names defined around it
    (the segment before it, which may hold its `WITH`)."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)} | outer_ctes
    by_alias = {t.alias.lower(): t for t in tree.find_all(exp.Table) if t.alias}
    written_how = list(_write_targets(tree))
    written = [table for table, _ in written_how]
    targets = [_unalias(t, by_alias) for t in written]
    operations: dict[str, set[str]] = {}
    for target, (_, operation) in zip(targets, written_how):
        if _is_table(target, ctes):
            operations.setdefault(table_name(target), set()).add(operation)
    executions = list(tree.find_all(exp.Execute))
    # Dynamic SQL is not analysed: `EXEC ('SELECT ...')` parses its string as a table name,
    # `EXEC (@sql)` a variable, and sp_executesql runs whatever its argument holds.
    executed = [e.this for e in executions if isinstance(e.this, exp.Table)
                and not isinstance(e, exp.ExecuteSql)
                and _is_table(e.this, ctes) and not any(c.isspace() for c in e.this.name)]
    in_exec = [t for e in executions for t in e.find_all(exp.Table)]
    not_read = {id(t) for t in [*written, *targets, *in_exec, *_definition_tables(tree)]}
    return _Found(
        reads={table_name(t) for t in tree.find_all(exp.Table)
               if id(t) not in not_read and _is_table(t, ctes)} | set(_table_functions(tree)),
        writes={table_name(t) for t in targets if _is_table(t, ctes)},
        calls={table_name(t) for t in executed},
        operations=operations,
    )


# Built-in table-valued functions, called without a schema; user functions may be too.
_BUILTIN_TABLE_FUNCTIONS = frozenset({
    "string_split", "openjson", "openrowset", "openquery", "openxml", "opendatasource",
    "generate_series", "changetable", "containstable", "freetexttable", "unnest", "json_table",
})


def _table_functions(tree: exp.Expr) -> Iterator[str]:
    """Functions read as tables: `FROM dbo.fnItems(@id)` and `CROSS APPLY dbo.fnLines(i.Id)`."""
    for table in tree.find_all(exp.Table):
        if isinstance(table.this, exp.Anonymous):
            yield from _function_name([*table.parts[:-1], table.this])
    for lateral in tree.find_all(exp.Lateral):
        call = lateral.this
        parts: list[exp.Expr] = []
        while isinstance(call, exp.Dot):  # `dbo.fn(...)` in APPLY is Dot(dbo, fn(...))
            parts.insert(0, call.expression)
            call = call.this
        if isinstance(parts[-1] if parts else call, exp.Anonymous):
            yield from _function_name([call, *parts])


def _function_name(parts: list[exp.Expr]) -> Iterator[str]:
    """`schema.function` from the name parts and the call; nothing for a built-in."""
    name = ".".join(part.name for part in parts)
    if len(parts) > 1 or name.lower() not in _BUILTIN_TABLE_FUNCTIONS:
        yield name


# How a statement writes its target (`SELECT ... INTO t` inserts).
_OPERATIONS = ((exp.Insert, "INSERT"), (exp.Into, "INSERT"), (exp.Update, "UPDATE"), (exp.Delete, "DELETE"),
               (exp.Merge, "MERGE"))


def _write_targets(tree: exp.Expr) -> Iterator[tuple[exp.Table, str]]:
    for node in tree.find_all(exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Into):
        operation = next(name for kind, name in _OPERATIONS if isinstance(node, kind))
        # `DELETE i FROM dbo.Invoices i` names its targets in `tables` and its source in `this`.
        named = node.args.get("tables") if isinstance(node, exp.Delete) else None
        for target in named or [node.this]:
            yield from ((table, operation) for table in _as_table(target))
    for node in tree.find_all(exp.TruncateTable):
        for target in node.expressions:
            yield from ((table, "TRUNCATE") for table in _as_table(target))


def _as_table(node: exp.Expr | None) -> list[exp.Table]:
    """`INSERT INTO t (a, b)` wraps its table in a Schema."""
    if isinstance(node, exp.Schema):
        node = node.this
    return [node] if isinstance(node, exp.Table) else []


def _unalias(target: exp.Table, by_alias: dict[str, exp.Table]) -> exp.Table:
    """`UPDATE i ... FROM dbo.Invoices i` writes dbo.Invoices, not a table called i."""
    if target.db or target.alias:
        return target
    return by_alias.get(target.name.lower(), target)


def _definition_tables(tree: exp.Expr) -> Iterator[exp.Table]:
    """Tables that DDL names or references; only a CREATE's query body reads anything."""
    for node in tree.find_all(exp.Create, exp.Alter, exp.Drop):
        scope = node.this if isinstance(node, exp.Create) else node
        if isinstance(scope, exp.Expression):
            yield from scope.find_all(exp.Table)


def _is_table(table: exp.Table, ctes: set[str]) -> bool:
    """False for CTE names, #temp tables, @table variables and table-valued functions."""
    ident = table.this
    if not isinstance(ident, exp.Identifier) or not ident.name:
        return False
    if ident.args.get("temporary") or ident.args.get("global_"):
        return False
    if ident.name.startswith(("#", "@")):
        return False
    return bool(table.db) or ident.name.lower() not in ctes


# --- fallback for text sqlglot cannot parse -------------------------------------------------

_NAME = r"(?:[\[\"`]?[\w$#@]+[\]\"`]?\s*\.\s*){0,2}[\[\"`]?[\w$#@]+[\]\"`]?"
_USES = re.compile(
    r"\b(?:(?P<write>INSERT\s+INTO|INSERT|UPDATE|DELETE\s+FROM|DELETE|MERGE\s+INTO|MERGE"
    r"|TRUNCATE\s+TABLE|INTO)|(?P<read>FROM|JOIN|USING)|(?P<call>EXEC|EXECUTE|CALL))\s+"
    rf"(?P<name>{_NAME})",
    re.IGNORECASE,
)
_CTE = re.compile(r"(?:\bWITH|,)\s*(\w+)\s*(?:\([^()]*\))?\s+AS\s*\(", re.IGNORECASE)
# Comments, strings and cursor fetches (`FETCH NEXT FROM cur`) name no table.
_NOISE = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|\bFETCH\b[\w\s]*?\bFROM\s+[\w\[\]\"]+",
                    re.DOTALL | re.IGNORECASE)
_NOT_NAMES = {"select", "set", "values", "from", "where", "default", "top", "distinct", "output",
              "ignore"}  # MySQL's `INSERT IGNORE INTO t`


# `FROM dbo.Job T`, `JOIN [Set] AS s`: a table and the alias a DELETE / UPDATE may name it by
_ALIASED = re.compile(rf"\b(?:FROM|JOIN)\s+(?P<name>{_NAME})\s+(?:AS\s+)?(?P<alias>\w+)", re.IGNORECASE)


def _cte_names(sql: str) -> set[str]:
    return {name.lower() for name in _CTE.findall(_NOISE.sub(" ", sql))}


def _regex_access(sql: str, ctes: set[str] | None = None) -> _Found:
    text = _NOISE.sub(" ", sql)
    ctes = _cte_names(sql) | (ctes or set())
    aliases = {match["alias"].lower(): match["name"] for match in _ALIASED.finditer(text)}
    found = _Found()
    written_through_alias = set()
    for match in _USES.finditer(text):
        written = match["name"]
        if match["write"] and written.lower() in aliases:  # `DELETE T FROM [Job] T` deletes from Job
            written = aliases[written.lower()]
            written_through_alias.add(re.sub(r"[\[\]\"`\s]", "", written))
        name = re.sub(r"[\[\]\"`\s]", "", written)
        quoted = written.startswith(("[", '"', "`"))  # `[Set]` is a table, `SET` a keyword
        if name.startswith(("#", "@")) or name.lower() in (ctes if quoted else ctes | _NOT_NAMES) or (
                match["call"] and name.lower() == "sp_executesql"):  # dynamic SQL
            continue
        bucket = found.writes if match["write"] else found.reads if match["read"] else found.calls
        bucket.add(name)
        if match["write"]:
            keyword = match["write"].split()[0].upper()
            found.operations.setdefault(name, set()).add("INSERT" if keyword == "INTO" else keyword)
    found.reads -= written_through_alias  # the alias's table is the target, as sqlglot reads it
    return found
