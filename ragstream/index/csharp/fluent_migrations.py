"""FluentMigrator migrations as evidence of tables, for code bases whose schema lives only in them.

A class is read as a FluentMigrator migration when its file imports a `FluentMigrator` namespace
and the class has a `[Migration(...)]` attribute (the version FluentMigrator orders by). Every
method but `Down` (which reverts) is read: besides `Up`, applications often split the work into
methods of their own base class (`MainDbUpgrade`). Each statement whose call chain starts at one of
FluentMigrator's expression roots (`Create`, `Alter`, `Delete`, `Rename`, `Insert`, `Update`: members of
the migration's base class) is one operation:

- `Create.Table("T")` (also an application's extension of the root named `Table...` with the table
  name first, such as `Create.TableForModel("T")`, or a helper of the migration's named `CreateTable...`
  with the table first and its columns in a lambda: `this.CreateTableWithId32("Users", "UserId", s =>
  s.WithColumn("Username")...)`), `.InSchema("s")`, `.WithColumn("C").AsInt32()
  .Nullable().PrimaryKey().ForeignKey("FK", "P", "Id")`: a TABLE node, its COLUMN nodes and
  FOREIGN_KEY references shaped like the SQL parser's;
- `Create.Column("C").OnTable("T")`, `Alter.Table("T").AddColumn("C")`: a COLUMN node;
- `Delete.Table("T")`, `Delete.Column("C").FromTable("T")`, `Rename.Table("A").To("B")`,
  `Rename.Column("a").OnTable("T").To("b")`, `Alter.Table("T").AlterColumn("C")`,
  `Alter.Column("C").OnTable("T")`: the schema change;
- `Insert.IntoTable("T")`, `Update.Table("T")`, `Delete.FromTable("T")`: rows written, no schema change.

Each also makes a REFERENCES from the migration class to the table. The nodes and references carry
`via="fluent_migration"` and, like Entity Framework's (`ef_migrations`, whose replay settles both
across files in file-name order), `operation`, `column`, `new_name`, `migration`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter

from ragstream.index.model import Node, Reference, node_id
from ragstream.index.csharp.declarations import Names, TypeDecl
from ragstream.index.csharp.ef_migrations import FLUENT_VIA as VIA, MigrationParts, column_node, table_node
from ragstream.index.csharp.migration_sql import is_sql_call, sql_tables
from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import (
    attribute_arguments, call_arguments, callee_of, descendants, line_of, node_text, qualify, required_child,
    type_name,
)


ROOTS = frozenset({"Create", "Alter", "Delete", "Rename", "Insert", "Update"})


@dataclass
class _Step:
    """One call of a fluent chain: its method's name and its string arguments (None where not a string)."""

    name: str
    texts: list[str | None]
    syntax: tree_sitter.Node


@dataclass
class _Table:
    """What one chain says of its table while it is read."""

    name: str | None = None
    schema: str = ""
    columns: list[tuple[str, list[_Step]]] = field(default_factory=list)  # column -> its modifier steps


def is_fluent_migration(decl: TypeDecl, names: Names) -> bool:
    """A `[Migration(...)]` class of a file that imports FluentMigrator."""
    return any(using == "FluentMigrator" or using.startswith("FluentMigrator.") for using in names.usings) \
        and attribute_arguments(decl.syntax, ("Migration",)) is not None


def fluent_migration_parts(decl: TypeDecl, path: str) -> MigrationParts:
    """Tables, columns, foreign keys and table links of a FluentMigrator migration's methods."""
    parts = MigrationParts()
    for method in decl.methods:
        if node_text(method.child_by_field_name("name")) == "Down":
            continue
        for statement in descendants(method):
            if statement.type == "expression_statement" and statement.named_children:
                steps = _chain(statement.named_children[0]) or _helper_chain(statement.named_children[0])
                if steps and steps[0].name in ROOTS:
                    _add_operation(parts, decl, path, statement, steps)
                elif len(steps) == 2 and steps[0].name == "Execute" and is_sql_call(steps[1].syntax):
                    made = sql_tables(steps[1].syntax, path, decl.id, decl.id, {"via": VIA, "migration": decl.name})
                    parts.nodes += made.nodes
                    parts.references += made.references
    return parts


def _chain(expression: tree_sitter.Node) -> list[_Step]:
    """The steps of `Root.A("x").B("y")`, the root (a bare name, no arguments) first; empty when
    the chain starts at anything else."""
    steps: list[_Step] = []
    node = expression
    while node.type == "invocation_expression":
        callee = callee_of(node)
        if callee is None or callee[0] is None:
            return []
        texts = [string_value(value, {}) for _, value in call_arguments(required_child(node, "arguments"))]
        steps.append(_Step(type_name(callee[1]) or "", texts, node))
        node = callee[0]
    if node.type != "identifier" or not steps:
        return []
    return [_Step(node_text(node), [], node), *reversed(steps)]


def _helper_chain(expression: tree_sitter.Node) -> list[_Step]:
    """`Create.Table("T")` and its columns, as a project's migration helper says them: a call of
    the migration's own (or an extension on it: `this.CreateTableWithId32("Users", "UserId", s =>
    s.WithColumn("Username").AsString(100))`) named `CreateTable...`, the table its first string
    argument, its columns the `WithColumn` chain of a lambda argument. Empty for anything else."""
    callee = callee_of(expression) if expression.type == "invocation_expression" else None
    if callee is None or (callee[0] is not None and callee[0].type != "this") \
            or not (type_name(callee[1]) or "").startswith("CreateTable"):
        return []
    arguments = [value for _, value in call_arguments(required_child(expression, "arguments"))]
    table = next((text for value in arguments if (text := string_value(value, {}))), None)
    bodies = [value.child_by_field_name("body") for value in arguments if value.type == "lambda_expression"]
    columns = next((steps[1:] for body in bodies if body is not None and (steps := _chain(body))), [])
    if not table:
        return []
    return [_Step("Create", [], expression), _Step("Table", [table], expression), *columns]


def _first_text(step: _Step) -> str | None:
    return step.texts[0] if step.texts else None


def _add_operation(parts: MigrationParts, decl: TypeDecl, path: str, statement: tree_sitter.Node,
                   steps: list[_Step]) -> None:
    root, subject, rest = steps[0].name, steps[1], steps[2:]
    table = _Table(schema=next((t for s in rest if s.name == "InSchema" and (t := _first_text(s))), ""))
    column = _first_text(subject) if subject.name == "Column" else None
    renamed_to = next((t for s in rest if s.name == "To" and (t := _first_text(s))), None)
    on_table = next((t for s in rest if s.name in ("OnTable", "FromTable") and (t := _first_text(s))), None)
    if subject.name.startswith("Table") and (root == "Create" or subject.name == "Table"):
        table.name = _first_text(subject)
    elif subject.name in ("IntoTable", "FromTable"):
        table.name = _first_text(subject)
    else:
        table.name = on_table
    if not table.name:
        return
    name = qualify(table.schema, table.name)
    operations = _operations(root, subject.name, column, renamed_to, rest)
    made = {"via": VIA, "migration": decl.name}
    for operation, operated_column, new_name in operations:
        attrs: dict[str, str | None] = {"via": VIA, "operation": operation}
        if operated_column:
            attrs["column"] = operated_column
        if new_name:
            attrs["new_name"] = qualify(table.schema, new_name) if operation == "rename_table" else new_name
        parts.references.append(Reference(
            source=decl.id, edge_type="REFERENCES", target=name, target_language="sql", candidates=(name,),
            target_kinds=("TABLE",), external=True, line=line_of(statement), attrs=attrs))
    if operations and operations[0][0] == "create_table":
        _add_table(parts, decl.id, path, statement, name, rest, made)
    for operation, operated_column, _ in operations:
        if operation == "add_column" and operated_column:
            modifiers = _column_modifiers(rest, operated_column) if subject.name != "Column" else rest
            parts.nodes.append(_column(name, operated_column, path, statement, modifiers, made))


def _operations(root: str, subject: str, column: str | None, renamed_to: str | None,
                rest: list[_Step]) -> list[tuple[str, str | None, str | None]]:
    """(operation, column, new name) of one chain, in `ef_migrations`' vocabulary (`*_rows` for data)."""
    if root == "Create":
        if subject.startswith("Table"):
            return [("create_table", None, None)]
        return [("add_column", column, None)] if subject == "Column" else []
    if root == "Alter":
        if subject == "Column":
            return [("alter_column", column, None)]
        return [("add_column" if s.name == "AddColumn" else "alter_column", _first_text(s), None)
                for s in rest if s.name in ("AddColumn", "AlterColumn")] if subject == "Table" else []
    if root == "Delete":
        if subject == "Table":
            return [("drop_table", None, None)]
        if subject == "Column":  # `Delete.Column("a").Column("b").FromTable("T")`
            return [("drop_column", c, None) for c in [column, *(_first_text(s) for s in rest if s.name == "Column")] if c]
        return [("delete_rows", None, None)] if subject == "FromTable" else []
    if root == "Rename" and renamed_to:
        if subject == "Table":
            return [("rename_table", None, renamed_to)]
        return [("rename_column", column, renamed_to)] if subject == "Column" else []
    if root == "Insert" and subject == "IntoTable":
        return [("insert_rows", None, None)]
    return [("update_rows", None, None)] if root == "Update" and subject == "Table" else []


def _add_table(parts: MigrationParts, parent: str, path: str, statement: tree_sitter.Node, table: str,
               rest: list[_Step], made: dict) -> None:
    columns = [c for c in (_first_text(s) for s in rest if s.name == "WithColumn") if c]
    primary_key = [c for c in columns if any(s.name == "PrimaryKey" for s in _column_modifiers(rest, c))]
    parts.nodes.append(table_node(table, path, statement, parent, primary_key, made))
    for column in columns:
        modifiers = _column_modifiers(rest, column)
        parts.nodes.append(_column(table, column, path, statement, modifiers, made))
        key = next((s for s in modifiers if s.name == "ForeignKey"), None)
        strings = [t for t in key.texts if t] if key is not None else []
        if key is not None and len(strings) >= 2:  # `ForeignKey("FK", "Principal", "Id")` / `ForeignKey("Principal", "Id")`
            target = qualify(table.rsplit(".", 1)[0] if "." in table else "", strings[-2])
            parts.references.append(Reference(
                source=node_id("sql", table, "TABLE"), edge_type="FOREIGN_KEY", target=target,
                target_language="sql", candidates=(target,), target_kinds=("TABLE",), external=True,
                line=line_of(key.syntax), attrs={"columns": [column], "ref_columns": [strings[-1]], "via": VIA}))


def _column_modifiers(rest: list[_Step], column: str) -> list[_Step]:
    """The steps after `WithColumn(column)` / `AddColumn(column)` up to the next column."""
    found: list[_Step] = []
    inside = False
    for step in rest:
        if step.name in ("WithColumn", "AddColumn", "AlterColumn"):
            inside = _first_text(step) == column
        elif inside:
            found.append(step)
    return found


def _column(table: str, column: str, path: str, statement: tree_sitter.Node, modifiers: list[_Step],
            made: dict) -> Node:
    """A COLUMN node: its type from `AsInt32()` / `AsString(100)`, nullable when `Nullable()` says so."""
    data_type = next((s.name.removeprefix("As") for s in modifiers if s.name.startswith("As") and len(s.name) > 2), "")
    names = {s.name for s in modifiers}
    return column_node(table, column, path, statement, data_type, "Nullable" in names and "PrimaryKey" not in names,
                       "PrimaryKey" in names, made)
