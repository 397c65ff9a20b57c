"""Views, procedures, functions and triggers, read from their header tokens.

A body sqlglot cannot fully parse still yields its node this way, and `table_access` recovers
what the body reads, writes and executes.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from ragstream.index.model import Edge, Node, ParsedFile, node_id
from ragstream.index.sql.access import table_access, tokenize
from ragstream.index.sql.refs import ANCHORS, Mentions, sql_reference
from ragstream.index.sql.split import Statement, dotted, kind_index, name_end, name_start

_DEFINED_KINDS = {TokenType.VIEW: "VIEW", TokenType.PROCEDURE: "PROCEDURE",
                  TokenType.FUNCTION: "FUNCTION", TokenType.TRIGGER: "TRIGGER"}
_STRING_TOKENS = {TokenType.STRING, TokenType.HEREDOC_STRING}
# A trigger body's views of the changed rows, not tables.
_TRIGGER_PSEUDO_TABLES = frozenset({"inserted", "deleted"})
# `CREATE TRIGGER t ON DATABASE` / `ON ALL SERVER`: a DDL trigger, on no table.
_NOT_A_TABLE = frozenset({"DATABASE", "ALL"})
# (edge type, TableAccess field, target kinds) of what a body uses.
_USES = (("READS", "reads", ("TABLE", "VIEW", "FUNCTION")), ("WRITES", "writes", ("TABLE", "VIEW")),
         ("CALLS", "calls", ("PROCEDURE",)))


@dataclass(frozen=True)
class Definition:
    """A CREATE [OR ALTER] / ALTER of a view, procedure, function or trigger."""

    kind: str
    name: str
    signature: str  # the header up to the AS that opens the body
    body: str
    body_line: int  # file line of the body's first line
    header: tuple[Token, ...]  # the header's tokens after the name
    table: str = ""  # a trigger's table


def definition(statement: Statement, tokens: list[Token]) -> Definition | None:
    """Kind, name, signature and body of a view / routine / trigger statement, else None."""
    kind = kind_index(tokens, 0) if tokens else None
    if kind is None or tokens[kind].token_type not in _DEFINED_KINDS:
        return None
    start = name_start(tokens, kind)
    after_name = name_end(tokens, start)
    body_as = _body_as(tokens, after_name)
    if after_name >= len(tokens) or body_as is None or body_as + 1 >= len(tokens):
        return None
    first = tokens[body_as + 1]
    text = statement.text
    header = tokens[after_name:body_as]
    # postgres bodies are a string: AS $$ ... $$ or AS '...'
    return Definition(
        kind=_DEFINED_KINDS[tokens[kind].token_type],
        name=dotted(tokens[start:after_name]),
        signature="\n".join(line.rstrip() for line in text[:tokens[body_as].start].splitlines()
                            ).strip(),
        body=first.text if first.token_type in _STRING_TOKENS else text[first.start:],
        body_line=statement.start_line + text.count("\n", 0, first.start),
        header=tuple(header),
        table=_trigger_table(header) if tokens[kind].token_type == TokenType.TRIGGER else "",
    )


def add_definition(out: ParsedFile, statement: Statement, found: Definition,
                   dialect: str | None, docstring: str) -> None:
    """The node, and the tables, functions and procedures its body and parameters use."""
    source = node_id("sql", found.name, found.kind)
    out.nodes.append(Node(
        id=source, kind=found.kind, language="sql", name=found.name, path=out.path,
        start_line=statement.start_line, end_line=statement.end_line, parent=out.root_id,
        signature=found.signature, docstring=docstring,
        attrs={"table": found.table} if found.table else {},
    ))
    out.edges.append(Edge(out.root_id, source, "DEFINES"))
    header = Mentions(list(found.header), statement.start_line)
    if found.table:
        out.references.append(sql_reference(source, "REFERENCES", found.table, ("TABLE", "VIEW"),
                                            header.line(found.table, ANCHORS["REFERENCES"]),
                                            dialect, {"role": "trigger_on"}))
    out.references.extend(
        sql_reference(source, "REFERENCES", name, ("TYPE",), header.line(name, frozenset()),
                      dialect, {"role": "parameter_type"})
        for name in _parameter_types(found.header)
    )
    access = table_access(found.body, dialect)
    try:
        mentions = Mentions(tokenize(found.body, dialect), found.body_line)
    except SqlglotError:
        mentions = Mentions([], found.body_line)
    for edge_type, field, kinds in _USES:
        out.references.extend(
            sql_reference(source, edge_type, name, kinds, mentions.line(name, ANCHORS[edge_type]),
                          dialect, {"operations": access.operations_of(name)} if edge_type == "WRITES" else None)
            for name in getattr(access, field)
            if not (found.kind == "TRIGGER" and name.lower() in _TRIGGER_PSEUDO_TABLES)
        )


def _parameter_types(header: tuple[Token, ...]) -> list[str]:
    """User-defined parameter types: `@lines dbo.InvoiceLineList READONLY` (a table type is
    always READONLY) or any schema-qualified type (built-in types never are)."""
    found: list[str] = []
    for i, token in enumerate(header[:-1]):
        if token.token_type != TokenType.PARAMETER:
            continue
        start = i + 2  # past `@` and the parameter's name
        if start < len(header) and header[start].token_type == TokenType.ALIAS:
            start += 1
        if start >= len(header):
            continue
        end = name_end(header, start)
        readonly = end < len(header) and header[end].text.upper() == "READONLY"
        if readonly or end - start > 1:
            found.append(dotted(header[start:end]))
    return found


def _trigger_table(header: list[Token]) -> str:
    """The table after ON in a trigger header; "" for a DDL trigger."""
    if len(header) < 2 or header[0].token_type != TokenType.ON:
        return ""
    if header[1].text.upper() in _NOT_A_TABLE:
        return ""
    return dotted(header[1:name_end(header, 1)])


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
