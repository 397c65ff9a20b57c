"""References out of SQL statements: their targets' candidate names and the lines of their use."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace

from sqlglot.tokens import Token, TokenType

from ragstream.index.model import Node, ParsedFile, Reference

# Tokens that precede a name when a statement uses it that way; a qualified name
# `[db].[schema].[name]` puts the anchor up to _NAME_SPAN tokens before the last part.
ANCHORS = {
    "READS": frozenset({TokenType.FROM, TokenType.JOIN, TokenType.USING, TokenType.APPLY}),
    "WRITES": frozenset({TokenType.INSERT, TokenType.INTO, TokenType.UPDATE, TokenType.DELETE,
                         TokenType.MERGE, TokenType.TABLE}),
    "CALLS": frozenset({TokenType.EXECUTE, TokenType.COMMAND}),
    "FOREIGN_KEY": frozenset({TokenType.REFERENCES}),
    "REFERENCES": frozenset({TokenType.ON}),
}
_NAME_SPAN = 6
# Where an unqualified name lives when the dialect says nothing else (sqlglot dialect names).
_DEFAULT_SCHEMA = {"tsql": "dbo", "postgres": "public"}


def sql_reference(source: str, edge_type: str, target: str, kinds: tuple[str, ...], line: int,
                  dialect: str | None, attrs: dict | None = None) -> Reference:
    """A reference to the SQL object `target` (as written): an unqualified name is tried as
    written, then in the dialect's default schema (T-SQL: `EXEC sp` runs `dbo.sp`)."""
    schema = _DEFAULT_SCHEMA.get(dialect or "")
    candidates = (target, f"{schema}.{target}") if schema and "." not in target else (target,)
    return Reference(
        source=source, edge_type=edge_type, target=target, target_language="sql",
        candidates=candidates, target_kinds=kinds, external=True, line=line, attrs=attrs or {},
    )


class Mentions:
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
        first = anchored[0] if anchored else mentions[0] if mentions else None
        return self._base_line if first is None else self._base_line + self._tokens[first].line - 1


_OBJECT_KINDS = frozenset({"TABLE", "VIEW", "PROCEDURE", "FUNCTION", "TYPE", "TRIGGER"})


def in_default_schema(parsed: ParsedFile, dialect: str | None) -> ParsedFile:
    """The file with every object it names without a schema put in the dialect's default one
    (T-SQL: `CREATE TABLE Users` makes `dbo.Users`, as SQL Server does), so an object has one
    name whether a script qualifies it or not. Columns follow their table; temporary objects
    (`#t`, `@t`) and names with a schema, or a placeholder one (`$(Schema).Job`), stay."""
    schema = _DEFAULT_SCHEMA.get(dialect or "")
    if not schema or dialect != "tsql":
        return parsed

    def moved(node_id_: str) -> str:
        prefix, _, rest = node_id_.partition(":")
        name, _, kind = rest.rpartition("|")
        if prefix != "sql" or name[:1] in "#@":
            return node_id_
        dots = name.count(".")
        if (kind in _OBJECT_KINDS and dots == 0) or (kind == "COLUMN" and dots == 1):
            return f"sql:{schema}.{name}|{kind}"
        return node_id_

    nodes = [_moved_node(node, moved) for node in parsed.nodes]
    edges = [replace(e, source=moved(e.source), target=moved(e.target)) for e in parsed.edges]
    references = [replace(r, source=moved(r.source)) for r in parsed.references]
    return replace(parsed, nodes=nodes, edges=edges, references=references)


def _moved_node(node: Node, moved: Callable[[str], str]) -> Node:
    new_id = moved(node.id)
    parent = moved(node.parent) if node.parent else node.parent
    if new_id == node.id and parent == node.parent:
        return node
    return replace(node, id=new_id, name=new_id.partition(":")[2].rpartition("|")[0], parent=parent)
