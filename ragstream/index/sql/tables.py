"""Tables, table types and their columns and foreign keys, and the DDL that changes them.

Each function reads one parsed statement (a sqlglot tree, or the header tokens of a statement
sqlglot cannot parse) and adds to a ParsedFile. Changes to objects defined elsewhere (renames,
drops, dropped columns) become `SchemaChange`s that `schema_evolution` replays across files;
added and altered columns are COLUMN nodes of the script that adds them.
"""
from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from ragstream.index.model import Edge, Node, ParsedFile, SchemaChange, node_id
from ragstream.index.sql.access import (
    PARSE_ERRORS, quiet_sqlglot, table_access, table_name,
)
from ragstream.index.sql.refs import ANCHORS, Mentions, sql_reference
from ragstream.index.sql.split import Statement, dotted, kind_index, name_end

# sp_rename's third argument -> the kind of what it renames ("" when it does not say).
_RENAMED_KINDS = {"COLUMN": "COLUMN", "OBJECT": "", "USERDATATYPE": "TYPE"}
# What DROP <kind> removes, as node kinds.
_DROPPED_KINDS = {"TABLE": "TABLE", "VIEW": "VIEW", "PROCEDURE": "PROCEDURE", "PROC": "PROCEDURE",
                  "FUNCTION": "FUNCTION", "TRIGGER": "TRIGGER", "TYPE": "TYPE"}


@dataclass(frozen=True)
class TableStatement:
    """One statement about tables, with what every reader needs."""

    statement: Statement
    tokens: list[Token]
    dialect: str | None  # sqlglot dialect name
    docstring: str


def add_table(out: ParsedFile, st: TableStatement, schema: exp.Schema, kind: str = "TABLE") -> None:
    """A TABLE (or table TYPE) node with its columns, and its foreign keys as references."""
    name = table_name(schema.this)
    table_id = node_id("sql", name, kind)
    columns = [c for c in schema.expressions if isinstance(c, exp.ColumnDef)]
    primary_key = _primary_key(schema, columns)
    column_lines = _column_lines(st.tokens, st.statement.start_line)
    out.nodes.append(_object_node(out, st, table_id, kind, name, f"CREATE {kind} {name}",
                                  {"primary_key": primary_key}))
    out.edges.append(Edge(out.root_id, table_id, "DEFINES"))
    for column in columns:
        line = column_lines.get(column.name.lower(), st.statement.start_line)
        _add_column(out, table_id, name, column, line, st.dialect,
                    {"primary_key": column.name in primary_key})
    _add_foreign_keys(out, st, schema, table_id)


def add_table_type(out: ParsedFile, st: TableStatement) -> bool:
    """`CREATE TYPE name AS TABLE (...)` (a TYPE with columns) or another `CREATE TYPE`.

    A table type's column list is CREATE TABLE's, so it is parsed as one.
    """
    kind = kind_index(st.tokens, 0)
    if kind is None or st.tokens[kind].text.upper() != "TYPE":
        return False
    after_name = name_end(st.tokens, kind + 1)
    text = st.statement.text
    name = dotted(st.tokens[kind + 1:after_name])
    rest = st.tokens[after_name:after_name + 3]
    if [t.token_type for t in rest] == [TokenType.ALIAS, TokenType.TABLE, TokenType.L_PAREN]:
        as_table = f"CREATE TABLE {text[st.tokens[kind + 1].start:rest[0].start]}"
        try:
            with quiet_sqlglot():
                tree = sqlglot.parse_one(as_table + text[rest[2].start:], read=st.dialect)
        except PARSE_ERRORS:
            tree = None
        if isinstance(tree, exp.Create) and isinstance(tree.this, exp.Schema):
            add_table(out, st, tree.this, kind="TYPE")
            return True
    type_id = node_id("sql", name, "TYPE")
    out.nodes.append(_object_node(out, st, type_id, "TYPE", name, _one_line(text), {}))
    out.edges.append(Edge(out.root_id, type_id, "DEFINES"))
    return True


def add_query_table(out: ParsedFile, st: TableStatement, target: exp.Table,
                    query: exp.Expr) -> None:
    """`CREATE TABLE x AS SELECT ...` / `SELECT ... INTO x FROM ...`: a TABLE that READS its
    sources; its columns are the query's named outputs (their types are not known here)."""
    name = table_name(target)
    table_id = node_id("sql", name, "TABLE")
    out.nodes.append(_object_node(out, st, table_id, "TABLE", name, f"CREATE TABLE {name} AS",
                                  {"primary_key": [], "from_query": True}))
    out.edges.append(Edge(out.root_id, table_id, "DEFINES"))
    for output in query.expressions if isinstance(query, exp.Select) else []:
        if output.alias_or_name and not isinstance(output, exp.Star):
            column = exp.ColumnDef(this=exp.to_identifier(output.alias_or_name))
            _add_column(out, table_id, name, column, st.statement.start_line, st.dialect,
                        {"primary_key": False})
    mentions = Mentions(st.tokens, st.statement.start_line)
    out.references.extend(
        sql_reference(table_id, "READS", source, ("TABLE", "VIEW", "FUNCTION"),
                      mentions.line(source, ANCHORS["READS"]), st.dialect)
        for source in table_access(query.sql(dialect=st.dialect), st.dialect).reads
    )


def add_alter(out: ParsedFile, st: TableStatement, tree: exp.Alter) -> None:
    """ALTER TABLE: foreign keys, added / altered / dropped / renamed columns, renames."""
    name = table_name(tree.this)
    table_id = node_id("sql", name, "TABLE")
    line = st.statement.start_line
    changes, nodes = len(out.schema_changes), len(out.nodes)
    _add_foreign_keys(out, st, tree, table_id)
    for action in tree.args.get("actions") or []:
        if isinstance(action, exp.ColumnDef):
            _add_column(out, table_id, name, action, line, st.dialect, {"primary_key": False})
        elif isinstance(action, exp.AlterColumn) and action.args.get("dtype"):
            column = exp.ColumnDef(this=action.this, kind=action.args["dtype"])
            _add_column(out, table_id, name, column, line, st.dialect, {"primary_key": False})
        elif isinstance(action, exp.Drop) and (action.args.get("kind") or "COLUMN") == "COLUMN":
            out.schema_changes.extend(SchemaChange("DROP", "COLUMN", f"{name}.{column.name}", line)
                                      for column in action.args.get("tables") or [])
        elif isinstance(action, exp.RenameColumn):
            out.schema_changes.append(SchemaChange(
                "RENAME", "COLUMN", f"{name}.{action.this.name}", line, action.args["to"].name))
        elif isinstance(action, exp.AlterRename):
            out.schema_changes.append(SchemaChange("RENAME", "TABLE", name, line,
                                                   action.this.name))
    if (len(out.schema_changes), len(out.nodes)) == (changes, nodes):  # constraints and the like
        out.schema_changes.append(SchemaChange("ALTER", "TABLE", name, line))


def add_drop(out: ParsedFile, st: TableStatement, tree: exp.Drop) -> bool:
    """DROP TABLE / VIEW / PROCEDURE / FUNCTION / TRIGGER: the objects are gone from then on."""
    kind = _DROPPED_KINDS.get(str(tree.args.get("kind") or "").upper())
    if kind is None:
        return False
    out.schema_changes.extend(SchemaChange("DROP", kind, table_name(table),
                                           st.statement.start_line)
                              for table in tree.args.get("tables") or [tree.this]
                              if isinstance(table, exp.Table))
    return True


def add_rename(out: ParsedFile, st: TableStatement, tree: exp.Execute) -> bool:
    """`EXEC sp_rename 'Old', 'New' [, 'COLUMN']`: False for any other EXEC."""
    if not isinstance(tree.this, exp.Table) or tree.this.name.lower() != "sp_rename":
        return False
    args = [a.this if isinstance(a, exp.EQ) else a for a in tree.expressions]  # @objname = '...'
    values = [a.name for a in args if isinstance(a, exp.Literal) and a.is_string]
    if len(values) < 2 or values[2:3] and values[2].upper() not in _RENAMED_KINDS:
        return len(values) >= 2  # an index or statistics: nothing the graph holds
    kind = _RENAMED_KINDS[values[2].upper()] if len(values) > 2 else ""
    out.schema_changes.append(SchemaChange("RENAME", kind, unquote(values[0]),
                                           st.statement.start_line,
                                           unquote(values[1]).rsplit(".", 1)[-1]))
    return True


def add_unparsed_change(out: ParsedFile, st: TableStatement) -> bool:
    """`ALTER TABLE t ...` or `DROP TYPE t` that sqlglot cannot parse (T-SQL's `ADD CONSTRAINT
    ... DEFAULT ... FOR col`), read from its header: which object it changes."""
    tokens = st.tokens
    if len(tokens) < 3 or tokens[0].token_type not in (TokenType.ALTER, TokenType.DROP):
        return False
    kind = tokens[1].text.upper()
    after_name = name_end(tokens, 2)
    name = dotted(tokens[2:after_name])
    if tokens[0].token_type == TokenType.ALTER and kind == "TABLE":
        out.schema_changes.append(SchemaChange("ALTER", "TABLE", name, st.statement.start_line))
        return True
    if tokens[0].token_type == TokenType.DROP and kind in _DROPPED_KINDS:
        out.schema_changes.append(SchemaChange("DROP", _DROPPED_KINDS[kind], name,
                                               st.statement.start_line))
        return True
    return False


def unquote(name: str) -> str:
    """`[dbo].[Old]` -> `dbo.Old`."""
    return ".".join(part.strip().strip('[]"`') for part in name.split("."))


def _object_node(out: ParsedFile, st: TableStatement, node: str, kind: str, name: str,
                 signature: str, attrs: dict) -> Node:
    return Node(id=node, kind=kind, language="sql", name=name, path=out.path,
                start_line=st.statement.start_line, end_line=st.statement.end_line,
                parent=out.root_id, signature=signature, docstring=st.docstring, attrs=attrs)


def _add_column(out: ParsedFile, table_id: str, table: str, column: exp.ColumnDef, line: int,
                dialect: str | None, attrs: dict) -> None:
    column_id = node_id("sql", f"{table}.{column.name}", "COLUMN")
    kind = column.args.get("kind")
    data_type = kind.sql(dialect=dialect) if kind else ""
    out.nodes.append(Node(
        id=column_id, kind="COLUMN", language="sql", name=f"{table}.{column.name}",
        path=out.path, start_line=line, end_line=line, parent=table_id,
        signature=f"{column.name} {data_type}".strip(),
        attrs={"data_type": data_type,
               "nullable": not attrs["primary_key"] and _nullable(column), **attrs},
    ))
    out.edges.append(Edge(table_id, column_id, "DEFINES"))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _primary_key(schema: exp.Schema, columns: list[exp.ColumnDef]) -> list[str]:
    """Key columns: on a column, `PRIMARY KEY (...)` or T-SQL's `PRIMARY KEY CLUSTERED (...)`."""
    # A list first: `[First] bit CONSTRAINT PK PRIMARY KEY CLUSTERED ([Id])` (no comma before
    # CONSTRAINT) reads as a constraint of the column before it, but keys the listed columns.
    for key in schema.find_all(exp.PrimaryKey, exp.ClusteredColumnConstraint,
                               exp.NonClusteredColumnConstraint):
        if isinstance(key, exp.PrimaryKey):
            return [_key_column(part) for part in key.expressions]
        column = key.find_ancestor(exp.ColumnDef)
        if column and column.find(exp.PrimaryKeyColumnConstraint):
            return [_key_column(part) for part in key.this]
    return [column.name for column in columns if column.find(exp.PrimaryKeyColumnConstraint)]


def _key_column(part: exp.Expr) -> str:
    return part.this.name if isinstance(part, exp.Ordered) else part.name


def _nullable(column: exp.ColumnDef) -> bool:
    not_null = column.find(exp.NotNullColumnConstraint)
    return not_null is None or bool(not_null.args.get("allow_null"))


def _add_foreign_keys(out: ParsedFile, st: TableStatement, tree: exp.Expr,
                      table_id: str) -> None:
    """FOREIGN_KEY references for inline REFERENCES and FOREIGN KEY constraints in `tree`,
    named (`CONSTRAINT fk FOREIGN KEY ...`) or not."""
    mentions = Mentions(st.tokens, st.statement.start_line)
    for reference in tree.find_all(exp.Reference):
        owner = reference.parent
        columns = [c.name for c in owner.expressions] if isinstance(owner, exp.ForeignKey) else []
        if not columns:  # inline on a column: `BId INT [FOREIGN KEY] REFERENCES dbo.B(Id)`
            column = reference.find_ancestor(exp.ColumnDef)
            columns = [column.name] if column else []
        target = reference.this
        ref_table = target.this if isinstance(target, exp.Schema) else target
        if not isinstance(ref_table, exp.Table):
            continue
        ref_columns = [c.name for c in target.expressions] if isinstance(target, exp.Schema) else []
        name = table_name(ref_table)
        # `ON DELETE CASCADE`: deleting the referenced row deletes these (a flow that deletes follows it)
        on_delete = next((option.upper().removeprefix("ON DELETE ").strip() for option in reference.args.get("options") or ()
                          if isinstance(option, str) and option.upper().startswith("ON DELETE ")), None)
        out.references.append(sql_reference(
            table_id, "FOREIGN_KEY", name, ("TABLE",), mentions.line(name, ANCHORS["FOREIGN_KEY"]),
            st.dialect, {"columns": columns, "ref_columns": ref_columns, **({"on_delete": on_delete} if on_delete else {})},
        ))


def _column_lines(tokens: list[Token], base_line: int) -> dict[str, int]:
    """Lower-cased column name -> line, from the first word of each item in CREATE TABLE (...)."""
    lines: dict[str, int] = {}
    depth = 0
    for previous, token in zip(tokens, tokens[1:]):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(previous.token_type, 0)
        if depth == 1 and previous.token_type in (TokenType.L_PAREN, TokenType.COMMA):
            lines.setdefault(token.text.lower(), base_line + token.line - 1)
    return lines
