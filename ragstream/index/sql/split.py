"""SQL text -> statements with exact line numbers, so a bad statement costs only itself.

T-SQL batches end at `GO` lines; inside a batch `;` ends a statement except within BEGIN/CASE
... END blocks, and a routine (procedure, function, trigger) owns the rest of its batch.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from ragstream.index.sql.access import tokenize

_GO_LINE = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*;?[ \t]*(?:--[^\n]*)?$",
                      re.IGNORECASE | re.MULTILINE)
_ROUTINE_TOKENS = {TokenType.PROCEDURE, TokenType.FUNCTION, TokenType.TRIGGER}
_CREATE_MODIFIERS = {"OR", "ALTER", "REPLACE", "MATERIALIZED", "TEMP", "TEMPORARY", "RECURSIVE"}
# Words that open T-SQL control flow around statements.
CONTROL_WORDS = frozenset({"IF", "WHILE", "BEGIN"})
# `BEGIN TRAN`, `BEGIN;` and the like start a transaction, not a block.
_NOT_BLOCK_AFTER_BEGIN = {"TRAN", "TRANSACTION", "WORK", "DISTRIBUTED", ";"}


@dataclass(frozen=True)
class Statement:
    text: str  # from its first token to its last, without a closing `;`
    start_line: int  # 1-based, inclusive
    end_line: int


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
        for part_offset, part, tokens, error in _tokenized(batch, dialect):
            if error is not None:
                problems.append((line(offset + part_offset + len(part) - len(part.lstrip())), error))
                continue
            for first, last in _statement_spans(tokens, dialect == "tsql"):
                start, end = offset + part_offset + first.start, offset + part_offset + last.end
                statements.append(Statement(text[start:end + 1], line(start), line(end)))
    return statements, problems


# `;` at the end of a line: where a batch the tokenizer rejects is cut, to keep its other statements
_LINE_END_SEMICOLON = re.compile(r";[ \t]*(?=\n|$)")


def _tokenized(batch: str, dialect: str | None) -> Iterator[tuple[int, str, list[Token], str | None]]:
    """(offset in the batch, text, tokens, None) of the batch, or where one piece of it cannot be
    tokenized (an application's own template syntax, `{#if ...}`), of each piece between
    line-ending `;`s, with the error instead of tokens for the pieces that still cannot: one bad
    statement no longer loses the file's others."""
    try:
        yield 0, batch, tokenize(batch, dialect), None
        return
    except SqlglotError as error:
        if not _LINE_END_SEMICOLON.search(batch):
            yield 0, batch, [], str(error).splitlines()[0]
            return
    start = 0
    for end in [match.end() for match in _LINE_END_SEMICOLON.finditer(batch)] + [len(batch)]:
        piece = batch[start:end]
        if piece.strip():
            try:
                yield start, piece, tokenize(piece, dialect), None
            except SqlglotError as error:
                yield start, piece, [], str(error).splitlines()[0]
        start = end


def sub_statement(statement: Statement, first: Token, last: Token) -> Statement:
    """The part of `statement` from token `first` to `last` (tokens of `statement.text`)."""
    return Statement(statement.text[first.start:last.end + 1],
                     statement.start_line + first.line - 1, statement.start_line + last.line - 1)


def kind_index(tokens: list[Token], i: int) -> int | None:
    """Index of `<kind>` in `CREATE [OR ALTER | OR REPLACE | MATERIALIZED ...] <kind>` or
    `ALTER <kind>` at `i`."""
    if tokens[i].token_type not in (TokenType.CREATE, TokenType.ALTER):
        return None
    i += 1
    while i < len(tokens) and tokens[i].text.upper() in _CREATE_MODIFIERS:
        i += 1
    return i if i < len(tokens) else None


def name_start(tokens: Sequence[Token], kind: int) -> int:
    """Index of the name after `<kind>` at `kind`, past `IF [NOT] EXISTS` (`CREATE MATERIALIZED VIEW IF
    NOT EXISTS wallets_history`: PostgreSQL, MySQL and SQLite write it; the name is never `IF`)."""
    i = kind + 1
    words = [t.text.upper() for t in tokens[i:i + 3]]
    if words[:3] == ["IF", "NOT", "EXISTS"]:
        return i + 3
    return i + 2 if words[:2] == ["IF", "EXISTS"] else i


def name_end(tokens: Sequence[Token], start: int) -> int:
    """Index after the dotted name (`[dbo].[Invoices]`) that starts at `start`."""
    i = start + 1
    while i + 1 < len(tokens) and tokens[i].token_type == TokenType.DOT:
        i += 2
    return min(i, len(tokens))


def dotted(tokens: Sequence[Token]) -> str:
    """The name that tokens spell, without quoting: `[dbo].[Invoices]` -> `dbo.Invoices`."""
    return ".".join(t.text for t in tokens if t.token_type != TokenType.DOT)


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
        # DDL statements without `;` between them; `IF cond ALTER TABLE ...` is one statement.
        if (start is not None and depth == blocks == 0 and not (tsql and routine)
                and tokens[start].text.upper() not in CONTROL_WORDS
                and _starts_definition(tokens, i)):
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


def opens_control_flow(tokens: list[Token]) -> bool:
    """True when a statement starts with IF, WHILE or a BEGIN that opens a block."""
    word = tokens[0].text.upper() if tokens else ""
    return word in CONTROL_WORDS and (word != "BEGIN" or _opens_block(tokens, 0))


def _opens_block(tokens: list[Token], i: int) -> bool:
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    return following is not None and following.text.upper() not in _NOT_BLOCK_AFTER_BEGIN


def _starts_definition(tokens: list[Token], i: int) -> bool:
    """A CREATE / ALTER that is neither the ALTER of `CREATE OR ALTER` nor `ALTER COLUMN`."""
    kind = tokens[i].token_type
    following = tokens[i + 1].text.upper() if i + 1 < len(tokens) else ""
    return kind == TokenType.CREATE or (kind == TokenType.ALTER and following != "COLUMN"
                                        and tokens[i - 1].token_type != TokenType.OR)


def _is_routine(tokens: list[Token], i: int) -> bool:
    kind = kind_index(tokens, i)
    return kind is not None and tokens[kind].token_type in _ROUTINE_TOKENS
