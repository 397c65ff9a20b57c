"""SQL files -> tables, columns, views, procedures and functions, with their table usage.

The file is split into statements here (so each one keeps exact line numbers and a bad one
costs only itself), then each statement is parsed with sqlglot. Views and routines are found
from their header tokens, so a body sqlglot cannot fully parse still yields its node, and
`table_access` recovers what the body reads and writes.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from ragstream.errors import ConfigError, IndexingError
from ragstream.index.model import Edge, Node, ParsedFile, Reference, file_node, node_id
from ragstream.index.parsers.sql_access import (
    PARSE_ERRORS, SQL_DIALECTS, is_statement, quiet_sqlglot, table_access, table_name, tokenize,
)

_TSQL_HINTS = re.compile(r"^[ \t]*GO[ \t]*$|\[\w+\]\.|\bNVARCHAR\b|\bIDENTITY\b|\bdbo\.",
                         re.IGNORECASE | re.MULTILINE)
_POSTGRES_HINTS = re.compile(r"\bSERIAL\b|\$\$|\bplpgsql\b|::|\bRETURNING\b", re.IGNORECASE)
_GO_LINE = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*;?[ \t]*(?:--[^\n]*)?$",
                      re.IGNORECASE | re.MULTILINE)

_DEFINED_KINDS = {TokenType.VIEW: "VIEW", TokenType.PROCEDURE: "PROCEDURE",
                  TokenType.FUNCTION: "FUNCTION"}
_ROUTINE_TOKENS = {TokenType.PROCEDURE, TokenType.FUNCTION, TokenType.TRIGGER}
_CREATE_MODIFIERS = {"OR", "ALTER", "REPLACE", "MATERIALIZED", "TEMP", "TEMPORARY", "RECURSIVE"}
_STRING_TOKENS = {TokenType.STRING, TokenType.HEREDOC_STRING}
# Tokens that precede a table name when a statement uses it that way; a qualified name
# `[db].[schema].[name]` puts the anchor up to _NAME_SPAN tokens before the last part.
_ANCHORS = {
    "READS": frozenset({TokenType.FROM, TokenType.JOIN, TokenType.USING}),
    "WRITES": frozenset({TokenType.INSERT, TokenType.INTO, TokenType.UPDATE, TokenType.DELETE,
                         TokenType.MERGE, TokenType.TABLE}),
    "CALLS": frozenset({TokenType.EXECUTE, TokenType.COMMAND}),
    "FOREIGN_KEY": frozenset({TokenType.REFERENCES}),
}
_NAME_SPAN = 6
# `BEGIN TRAN`, `BEGIN;` and the like start a transaction, not a block.
_NOT_BLOCK_AFTER_BEGIN = {"TRAN", "TRANSACTION", "WORK", "DISTRIBUTED", ";"}


@dataclass(frozen=True)
class Statement:
    text: str  # from its first token to its last, without a closing `;`
    start_line: int  # 1-based, inclusive
    end_line: int


@dataclass(frozen=True)
class _Definition:
    """A CREATE VIEW / PROCEDURE / FUNCTION, read from its header tokens."""

    kind: str
    name: str
    signature: str  # the header up to the AS that opens the body
    body: str
    body_line: int  # file line of the body's first line


def parse_sql(path: str, text: str, dialect: str = "auto") -> ParsedFile:
    """Parse one SQL file; raises when the file has statements and none of them parses."""
    read = SQL_DIALECTS[resolve_dialect(text, dialect)]
    root = file_node(path, text.rstrip("\n").count("\n") + 1, "sql")
    out = ParsedFile(path=path, language="sql", root_id=root.id, nodes=[root])
    statements, problems = split_statements(text, read)
    out.warnings.extend(f"{path}:{line}: skipped SQL that cannot be tokenized: {message}"
                        for line, message in problems)
    lines = text.split("\n")  # indexed like the offsets-based line numbers
    parsed = sum(_add_statement(out, statement, read, lines) for statement in statements)
    if parsed == 0 and (statements or problems):
        raise IndexingError("no SQL statement in the file could be parsed", where=path,
                            hint="check the sql.dialect setting")
    return out


def resolve_dialect(text: str, dialect: str) -> str:
    """The dialect setting, with `auto` replaced by a guess from the text."""
    if dialect == "auto":
        return detect_dialect(text)
    if dialect not in SQL_DIALECTS:
        raise ConfigError(f"unknown SQL dialect {dialect!r}", where="sql.dialect",
                          hint=f"use auto or one of {', '.join(SQL_DIALECTS)}")
    return dialect


def detect_dialect(text: str) -> str:
    """tsql, postgres or generic, by counting tell-tale syntax."""
    tsql = len(_TSQL_HINTS.findall(text))
    postgres = len(_POSTGRES_HINTS.findall(text))
    if tsql == postgres == 0:
        return "generic"
    return "tsql" if tsql >= postgres else "postgres"


# --- splitting ------------------------------------------------------------------------------

def split_statements(
    text: str, dialect: str | None
) -> tuple[list[Statement], list[tuple[int, str]]]:
    """Statements with their lines, and (line, message) for each batch that cannot be tokenized.

    `dialect` is a sqlglot dialect name (a value of SQL_DIALECTS).
    """
    newlines = [match.start() for match in re.finditer("\n", text)]

    def line(offset: int) -> int:
        return bisect_left(newlines, offset) + 1

    statements, problems = [], []
    for offset, batch in _batches(text):
        try:
            tokens = tokenize(batch, dialect)
        except SqlglotError as error:
            problems.append((line(offset + len(batch) - len(batch.lstrip())),
                             str(error).splitlines()[0]))
            continue
        for first, last in _statement_spans(tokens, dialect == "tsql"):
            start, end = offset + first.start, offset + last.end
            statements.append(Statement(text[start:end + 1], line(start), line(end)))
    return statements, problems


def _batches(text: str) -> Iterator[tuple[int, str]]:
    """(offset, text) of each T-SQL batch between `GO` lines (or the whole text)."""
    start = 0
    for match in _GO_LINE.finditer(text):
        yield start, text[start:match.start()]
        start = match.end()
    yield start, text[start:]


def _statement_spans(tokens: list[Token], tsql: bool) -> Iterator[tuple[Token, Token]]:
    """First and last token of each statement in one batch.

    `;` ends a statement only outside BEGIN/CASE ... END blocks. A T-SQL routine owns the rest
    of its batch (its body needs no BEGIN), unless its body is a BEGIN ... END block, which
    then ends it.
    """
    start: int | None = None
    depth = blocks = 0
    routine = body_block = False
    for i, token in enumerate(tokens):
        kind = token.token_type
        if (start is not None and depth == blocks == 0 and not (tsql and routine)
                and _starts_definition(tokens, i)):  # DDL statements without `;` between them
            yield tokens[start], tokens[i - 1]
            start = None
        if start is None:
            if kind == TokenType.SEMICOLON:
                continue
            start, depth, blocks, routine, body_block = i, 0, 0, _is_routine(tokens, i), False
        routine_owns_semicolons = tsql and routine and not body_block
        # No `;` is legal inside parentheses: ending there keeps an unclosed `(` local.
        if kind == TokenType.SEMICOLON and blocks == 0 and not routine_owns_semicolons:
            yield tokens[start], tokens[i - 1]
            start = None
            continue
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(kind, 0)
        if kind == TokenType.CASE or (kind == TokenType.BEGIN and _opens_block(tokens, i)):
            body_block = body_block or (routine and depth == blocks == 0
                                        and tokens[i - 1].token_type == TokenType.ALIAS)
            blocks += 1
        elif kind == TokenType.END and blocks:
            blocks -= 1
            if body_block and blocks == 0:
                yield tokens[start], token
                start = None
    if start is not None:
        yield tokens[start], tokens[-1]


def _opens_block(tokens: list[Token], i: int) -> bool:
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    return following is not None and following.text.upper() not in _NOT_BLOCK_AFTER_BEGIN


def _starts_definition(tokens: list[Token], i: int) -> bool:
    """A CREATE / ALTER that is not the ALTER of `CREATE OR ALTER`."""
    kind = tokens[i].token_type
    return kind == TokenType.CREATE or (kind == TokenType.ALTER
                                        and tokens[i - 1].token_type != TokenType.OR)


def _kind_index(tokens: list[Token], i: int) -> int | None:
    """Index of `<kind>` in `CREATE [OR ALTER | OR REPLACE | MATERIALIZED ...] <kind>` at `i`."""
    if tokens[i].token_type != TokenType.CREATE:
        return None
    i += 1
    while i < len(tokens) and tokens[i].text.upper() in _CREATE_MODIFIERS:
        i += 1
    return i if i < len(tokens) else None


def _is_routine(tokens: list[Token], i: int) -> bool:
    kind = _kind_index(tokens, i)
    return kind is not None and tokens[kind].token_type in _ROUTINE_TOKENS


# --- statements -> nodes, edges, references -------------------------------------------------

def _add_statement(out: ParsedFile, statement: Statement, dialect: str | None,
                   lines: list[str]) -> bool:
    """Add what one statement declares; False when it could not be parsed."""
    tokens = tokenize(statement.text, dialect)
    try:
        with quiet_sqlglot():
            tree = sqlglot.parse_one(statement.text, read=dialect)
        error = None
    except PARSE_ERRORS as problem:
        tree, error = None, (str(problem).splitlines() or [type(problem).__name__])[0]
    definition = _definition(statement, tokens)
    if definition:
        _add_definition(out, statement, definition, dialect, _docstring(lines, statement))
        if error:
            out.warnings.append(f"{out.path}:{statement.start_line}: {definition.kind} "
                                f"{definition.name} read without a full parse: {error}")
        return True
    if tree is None:
        out.warnings.append(f"{out.path}:{statement.start_line}: skipped SQL statement "
                            f"that does not parse: {error}")
        return False
    if isinstance(tree, exp.Create) and tree.kind == "TABLE" and isinstance(tree.this, exp.Schema):
        _add_table(out, statement, tree.this, tokens, dialect, _docstring(lines, statement))
    elif isinstance(tree, exp.Alter) and isinstance(tree.this, exp.Table):
        table_id = node_id("sql", table_name(tree.this), "TABLE")
        _add_foreign_keys(out, statement, tree, tokens, table_id)
    return is_statement(tree)


def _add_table(out: ParsedFile, statement: Statement, schema: exp.Schema, tokens: list[Token],
               dialect: str | None, docstring: str) -> None:
    name = table_name(schema.this)
    table_id = node_id("sql", name, "TABLE")
    columns = [c for c in schema.expressions if isinstance(c, exp.ColumnDef)]
    primary_key = _primary_key(schema, columns)
    column_lines = _column_lines(tokens, statement.start_line)
    out.nodes.append(Node(
        id=table_id, kind="TABLE", language="sql", name=name, path=out.path,
        start_line=statement.start_line, end_line=statement.end_line, parent=out.root_id,
        signature=f"CREATE TABLE {name}", docstring=docstring,
        attrs={"primary_key": primary_key},
    ))
    out.edges.append(Edge(out.root_id, table_id, "DEFINES"))
    for column in columns:
        column_id = node_id("sql", f"{name}.{column.name}", "COLUMN")
        line = column_lines.get(column.name.lower(), statement.start_line)
        kind = column.args.get("kind")
        data_type = kind.sql(dialect=dialect) if kind else ""
        out.nodes.append(Node(
            id=column_id, kind="COLUMN", language="sql", name=f"{name}.{column.name}",
            path=out.path, start_line=line, end_line=line, parent=table_id,
            signature=f"{column.name} {data_type}".strip(),
            attrs={
                "data_type": data_type,
                "nullable": column.name not in primary_key and _nullable(column),
                "primary_key": column.name in primary_key,
            },
        ))
        out.edges.append(Edge(table_id, column_id, "DEFINES"))
    _add_foreign_keys(out, statement, schema, tokens, table_id)


def _primary_key(schema: exp.Schema, columns: list[exp.ColumnDef]) -> list[str]:
    """Key columns: on a column, `PRIMARY KEY (...)` or T-SQL's `PRIMARY KEY CLUSTERED (...)`."""
    inline = [column.name for column in columns if column.find(exp.PrimaryKeyColumnConstraint)]
    if inline:
        return inline
    for key in schema.find_all(exp.PrimaryKey, exp.ClusteredColumnConstraint,
                               exp.NonClusteredColumnConstraint):
        if isinstance(key, exp.PrimaryKey):
            return [_key_column(part) for part in key.expressions]
        if key.parent and key.parent.find(exp.PrimaryKeyColumnConstraint):
            return [_key_column(part) for part in key.this]
    return []


def _key_column(part: exp.Expression) -> str:
    return part.this.name if isinstance(part, exp.Ordered) else part.name


def _nullable(column: exp.ColumnDef) -> bool:
    not_null = column.find(exp.NotNullColumnConstraint)
    return not_null is None or bool(not_null.args.get("allow_null"))


def _add_foreign_keys(out: ParsedFile, statement: Statement, tree: exp.Expression,
                      tokens: list[Token], table_id: str) -> None:
    """FOREIGN_KEY references for inline REFERENCES and FOREIGN KEY constraints in `tree`."""
    mentions = _Mentions(tokens, statement.start_line)
    for reference in tree.find_all(exp.Reference):
        owner = reference.parent
        if isinstance(owner, exp.ForeignKey):
            columns = [c.name for c in owner.expressions]
        else:
            column = reference.find_ancestor(exp.ColumnDef)
            columns = [column.name] if column else []
        target = reference.this
        ref_table = target.this if isinstance(target, exp.Schema) else target
        if not isinstance(ref_table, exp.Table):
            continue
        ref_columns = [c.name for c in target.expressions] if isinstance(target, exp.Schema) else []
        name = table_name(ref_table)
        out.references.append(_reference(
            table_id, "FOREIGN_KEY", name, ("TABLE",), mentions.line(name, _ANCHORS["FOREIGN_KEY"]),
            {"columns": columns, "ref_columns": ref_columns},
        ))


def _add_definition(out: ParsedFile, statement: Statement, definition: _Definition,
                    dialect: str | None, docstring: str) -> None:
    """A view, procedure or function node and the tables and procedures its body uses."""
    source = node_id("sql", definition.name, definition.kind)
    out.nodes.append(Node(
        id=source, kind=definition.kind, language="sql", name=definition.name, path=out.path,
        start_line=statement.start_line, end_line=statement.end_line, parent=out.root_id,
        signature=definition.signature, docstring=docstring,
    ))
    out.edges.append(Edge(out.root_id, source, "DEFINES"))
    access = table_access(definition.body, dialect)
    try:
        mentions = _Mentions(tokenize(definition.body, dialect), definition.body_line)
    except SqlglotError:
        mentions = _Mentions([], definition.body_line)
    for edge_type, names, kinds in (("READS", access.reads, ("TABLE", "VIEW")),
                                    ("WRITES", access.writes, ("TABLE", "VIEW")),
                                    ("CALLS", access.calls, ("PROCEDURE",))):
        out.references.extend(
            _reference(source, edge_type, name, kinds, mentions.line(name, _ANCHORS[edge_type]))
            for name in names
        )


def _definition(statement: Statement, tokens: list[Token]) -> _Definition | None:
    """Kind, name, signature and body of a CREATE VIEW / PROCEDURE / FUNCTION statement."""
    kind = _kind_index(tokens, 0) if tokens else None
    if kind is None or tokens[kind].token_type not in _DEFINED_KINDS:
        return None
    i = kind + 1
    parts = [tokens[i].text] if i < len(tokens) else []
    while i + 2 < len(tokens) and tokens[i + 1].token_type == TokenType.DOT:
        i += 2
        parts.append(tokens[i].text)
    body_as = _body_as(tokens, i + 1)
    if not parts or body_as is None or body_as + 1 >= len(tokens):
        return None
    first = tokens[body_as + 1]
    text = statement.text
    # postgres bodies are a string: AS $$ ... $$ or AS '...'
    body = first.text if first.token_type in _STRING_TOKENS else text[first.start:]
    header = text[:tokens[body_as].start]
    return _Definition(
        kind=_DEFINED_KINDS[tokens[kind].token_type],
        name=".".join(parts),
        signature="\n".join(line.rstrip() for line in header.splitlines()).strip(),
        body=body,
        body_line=statement.start_line + text.count("\n", 0, first.start),
    )


def _body_as(tokens: list[Token], start: int) -> int | None:
    """Index of the AS that opens a routine or view body, skipping `EXECUTE AS` and `@p AS INT`."""
    depth = 0
    for i in range(start, len(tokens)):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tokens[i].token_type, 0)
        if depth or tokens[i].token_type != TokenType.ALIAS:
            continue
        if tokens[i - 1].token_type == TokenType.EXECUTE or (
                i >= 2 and tokens[i - 2].token_type == TokenType.PARAMETER):
            continue
        return i
    return None


def _column_lines(tokens: list[Token], base_line: int) -> dict[str, int]:
    """Lower-cased column name -> line, from the first word of each item in CREATE TABLE (...)."""
    lines: dict[str, int] = {}
    depth = 0
    for previous, token in zip(tokens, tokens[1:]):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(previous.token_type, 0)
        if depth == 1 and previous.token_type in (TokenType.L_PAREN, TokenType.COMMA):
            lines.setdefault(token.text.lower(), base_line + token.line - 1)
    return lines


class _Mentions:
    """Where names occur in a token list, to give each reference the line of its use."""

    def __init__(self, tokens: list[Token], base_line: int):
        self._tokens = tokens
        self._base_line = base_line  # file line of the tokens' first line
        self._at: dict[str, list[int]] = defaultdict(list)
        for i, token in enumerate(tokens):
            self._at[token.text.lower()].append(i)

    def line(self, name: str, anchors: frozenset[TokenType]) -> int:
        """Where `name` follows one of `anchors` (`FROM x`), else its first mention, else base."""
        mentions = self._at.get(name.rsplit(".", 1)[-1].lower(), [])
        anchored = [i for i in mentions if any(
            t.token_type in anchors for t in self._tokens[max(i - _NAME_SPAN, 0):i])]
        first = (anchored or mentions or [None])[0]
        return self._base_line if first is None else self._base_line + self._tokens[first].line - 1


def _docstring(lines: list[str], statement: Statement) -> str:
    """The `--` comment block directly above the statement."""
    block: list[str] = []
    index = statement.start_line - 2
    while index >= 0 and lines[index].lstrip().startswith("--"):
        block.append(lines[index].lstrip()[2:].strip())
        index -= 1
    return "\n".join(reversed(block)).strip()


def _reference(source: str, edge_type: str, target: str, kinds: tuple[str, ...], line: int,
               attrs: dict | None = None) -> Reference:
    return Reference(
        source=source, edge_type=edge_type, target=target, target_language="sql",
        candidates=(target,), target_kinds=kinds, external=True, line=line, attrs=attrs or {},
    )
