"""Entity Framework Core migrations as evidence of tables, for code bases with no .sql.

Per file (`migration_parts`): a class deriving from `Migration` is read in its `Up` method, which
applies it, and its `Down` method, which reverts it (only `Up`'s operations make the schema). `migrationBuilder.CreateTable(name:, schema:, columns: table => new
{ Col = table.Column<T>(type:, nullable:) }, constraints: ... PrimaryKey / ForeignKey(column:,
principalTable:, principalColumn:))` makes a TABLE node, its COLUMN nodes and FOREIGN_KEY
references shaped like the SQL parser's (`sql:s.T|TABLE`, `sql:s.T.Col|COLUMN`, attrs
`columns` / `ref_columns`); `AddColumn<T>(name:, table:)` makes a COLUMN node. Each node spans
the call that made it (so the TABLE is chunked as its `CreateTable`), is DEFINED by the migration
class and carries attrs `via="ef_migration"` and `migration` (the class name). Every operation,
`DropTable`, `RenameTable`, `DropColumn`, `RenameColumn` and `AlterColumn` included, also makes a
REFERENCES from the method whose statement it is (`Up` or `Down`: `protected override void
Up(MigrationBuilder)`, the METHOD node `methods` makes) to the table, attrs `via="ef_migration"`,
`operation` and, where it applies, `column` and `new_name`; `Down`'s also `reverts=True`, and
make no nodes (a `CreateTable` in `Down` re-creates what `Up` dropped).

Entity Framework 6's `DbMigration` (System.Data.Entity.Migrations) has the same operations with
positional parameters in its own order (`CreateTable(name, columnsAction)`, `AddColumn(table, name,
columnAction)`, `RenameColumn(table, name, newName)`, ...), columns built by the `ColumnBuilder`
(`c => new { Id = c.Guid(nullable: false), Name = c.String(maxLength: 50) }`: the method names the
type) and keys chained onto the call (`CreateTable(...).PrimaryKey(t => t.Id).ForeignKey("dbo.T",
t => t.T_Id)`); its table names are usually schema-qualified (`"dbo.Topic"`).

Across files (`settle_migrations`, run by `graph_build.build_graph` before linking): the
operations, FluentMigrator's (`fluent_migrations`) with EF's, are replayed in migration order (file name: EF names them `<timestamp>_<Name>.cs`),
so the graph holds the schema as it stands after the last migration: a dropped table or column
has no node, a renamed one has its new id (its node still spans the call that created it).
A table that a .sql file defines stays one node, the .sql one: .sql wins for the definition, so
the migration's TABLE and COLUMN nodes of that table are left out, its FOREIGN_KEYs start from
the .sql node and its REFERENCES resolve to it. Names are compared case-insensitively, an
unqualified name as `dbo.<name>` (SQL Server's default schema, which EF uses when none is given).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

import tree_sitter

from ragstream.index.model import Edge, Node, ParsedFile, Reference, node_id
from ragstream.index.csharp.declarations import TypeDecl
from ragstream.index.csharp.methods import method_node_id
from ragstream.index.csharp.migration_sql import is_sql_call, sql_tables
from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import (
    call_arguments, callee_of, child_of_type, descendants, end_line_of, fluent_chain, line_of, node_text,
    qualify, required_child, type_name,
)
from ragstream.index.csharp.table_refs import DEFAULT_SQL_SCHEMA


VIA = "ef_migration"
FLUENT_VIA = "fluent_migration"  # FluentMigrator's migrations (`fluent_migrations`), settled here with EF's
MIGRATION_VIAS = frozenset({VIA, FLUENT_VIA})


OPERATIONS = {
    "CreateTable": "create_table", "DropTable": "drop_table", "RenameTable": "rename_table",
    "AddColumn": "add_column", "DropColumn": "drop_column", "RenameColumn": "rename_column",
    "AlterColumn": "alter_column",
}


@dataclass
class MigrationParts:
    """What one migration class adds to its file."""

    nodes: list[Node] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)


MIGRATION_BASES = frozenset({"Migration", "DbMigration"})  # EF Core's, EF6's

# EF6's `DbMigration` operations: their parameters in order, named as EF Core names them (EF Core's
# migrations pass them by name; EF6's positionally). Documented signatures of
# System.Data.Entity.Migrations.DbMigration.
EF6_PARAMETERS = {
    "create_table": ("name", "columns"), "drop_table": ("name",), "rename_table": ("name", "newName"),
    "add_column": ("table", "name", "column"), "drop_column": ("table", "name"),
    "alter_column": ("table", "name", "column"), "rename_column": ("table", "name", "newName"),
}


def is_migration(decl: TypeDecl) -> bool:
    return any(base.rsplit(".", 1)[-1] in MIGRATION_BASES for base in decl.bases)


def _is_ef6(decl: TypeDecl) -> bool:
    return any(base.rsplit(".", 1)[-1] == "DbMigration" for base in decl.bases)


def migration_parts(decl: TypeDecl, path: str) -> MigrationParts:
    """Tables, columns, foreign keys and table links of a migration's `Up` method; the table
    links of its `Down` method (marked `reverts`: not replayed)."""
    parts = MigrationParts()
    for method in decl.methods:
        name = node_text(method.child_by_field_name("name"))
        if name not in ("Up", "Down"):
            continue
        for call in descendants(method.child_by_field_name("body")):
            callee = callee_of(call)
            operation = callee and OPERATIONS.get(type_name(callee[1]) or "")
            if operation:
                _add_operation(parts, decl, path, call, operation, method_node_id(decl, method), name == "Down")
            elif name == "Up" and is_sql_call(call):  # the schema written as SQL (`migration_sql`)
                made = sql_tables(call, path, decl.id, method_node_id(decl, method), {"via": VIA, "migration": decl.name})
                parts.nodes += made.nodes
                parts.references += made.references
    return parts


def _arguments(call: tree_sitter.Node, positional: tuple[str, ...] = ("name",)) -> dict[str, tree_sitter.Node]:
    """Named arguments by name; positional ones by the names `positional` gives them in order
    (EF Core's calls: only the first, `name`), else `#<index>`."""
    found: dict[str, tree_sitter.Node] = {}
    for index, (name, value) in enumerate(call_arguments(required_child(call, "arguments"))):
        found.setdefault(name or (positional[index] if index < len(positional) else f"#{index}"), value)
    return found


def _text(arguments: dict[str, tree_sitter.Node], name: str) -> str | None:
    value = arguments.get(name)
    return string_value(value, {}) if value is not None else None


def _add_operation(parts: MigrationParts, decl: TypeDecl, path: str, call: tree_sitter.Node,
                   operation: str, method: str, reverts: bool) -> None:
    ef6 = _is_ef6(decl)
    arguments = _arguments(call, EF6_PARAMETERS[operation]) if ef6 else _arguments(call)
    on_table = operation.endswith("_table")
    table_name = _text(arguments, "name" if on_table else "table")
    if not table_name:
        return
    table = qualify(_text(arguments, "schema") or "", table_name)
    link: dict[str, str | None] = {"via": VIA, "operation": operation}
    if not on_table:
        link["column"] = _text(arguments, "name")
    new_name = _text(arguments, "newName")
    if new_name and on_table:
        # EF6's `RenameTable("app.Topic", "Topics")` runs `sp_rename`, which keeps the schema
        # (a table moves between schemas by `MoveTable`); EF Core's names it (`newSchema`)
        kept = table.rpartition(".")[0] if ef6 and "." not in new_name else ""
        link["new_name"] = qualify(_text(arguments, "newSchema") or kept, new_name)
    elif new_name:
        link["new_name"] = new_name
    parts.references.append(Reference(
        source=method, edge_type="REFERENCES", target=table, target_language="sql",
        candidates=(table,), target_kinds=("TABLE",), external=True, line=line_of(call),
        attrs={**link, **({"reverts": True} if reverts else {})}))
    if reverts:  # `Down` undoes `Up`: its tables and columns are not the schema's
        return
    made = {"via": VIA, "migration": decl.name}
    if operation == "create_table" and ef6:
        _add_ef6_table(parts, decl.id, path, call, arguments, table, made)
    elif operation == "create_table":
        _add_table(parts, decl.id, path, call, arguments, table, made)
    elif operation == "add_column" and link["column"] and ef6:
        built = _ef6_column(arguments.get("column"))
        parts.nodes.append(column_node(table, link["column"], path, call, built[0] if built else "",
                                       built[1] if built else True, False, made))
    elif operation == "add_column" and link["column"]:
        data_type = _text(arguments, "type") or _clr_type(call)
        parts.nodes.append(column_node(table, link["column"], path, call, data_type,
                                       _nullable(arguments), False, made))


def _add_table(parts: MigrationParts, parent: str, path: str, call: tree_sitter.Node,
               arguments: dict[str, tree_sitter.Node], table: str, made: dict) -> None:
    keys = [node for node in descendants(arguments.get("constraints"))
            if _called(node) in ("PrimaryKey", "ForeignKey")]
    primary_key = [column for key in keys if _called(key) == "PrimaryKey"
                   for column in _lambda_members(_arguments(key).get("#1"))]
    parts.nodes.append(table_node(table, path, call, parent, primary_key, made))
    for name, value in _column_definitions(arguments.get("columns")):
        column = _column_call(value)
        column_arguments = _arguments(column) if column else {}
        data_type = _text(column_arguments, "type") or (_clr_type(column) if column else "")
        parts.nodes.append(column_node(
            table, name, path, value, data_type,
            name not in primary_key and _nullable(column_arguments), name in primary_key, made))
    for key in keys:
        key_arguments = _arguments(key)
        principal = _text(key_arguments, "principalTable")
        if _called(key) != "ForeignKey" or not principal:
            continue
        target = qualify(_text(key_arguments, "principalSchema") or "", principal)
        parts.references.append(Reference(
            source=node_id("sql", table, "TABLE"), edge_type="FOREIGN_KEY", target=target,
            target_language="sql", candidates=(target,), target_kinds=("TABLE",),
            external=True, line=line_of(key),
            attrs={"columns": _lambda_members(key_arguments.get("column")),
                   "ref_columns": [c for c in [_text(key_arguments, "principalColumn")] if c],
                   "via": VIA, **_on_delete(key_arguments)}))


def _add_ef6_table(parts: MigrationParts, parent: str, path: str, call: tree_sitter.Node,
                   arguments: dict[str, tree_sitter.Node], table: str, made: dict) -> None:
    """EF6's `CreateTable("dbo.T", c => new { Col = c.Int(nullable: false) }).PrimaryKey(t => t.Id)
    .ForeignKey("dbo.P", t => t.P_Id, cascadeDelete: true)`."""
    chained = list(fluent_chain(call))
    primary_key = [column for key in chained if _called(key) == "PrimaryKey"
                   for column in _lambda_members(_arguments(key, ("keyExpression",)).get("keyExpression"))]
    parts.nodes.append(table_node(table, path, call, parent, primary_key, made))
    for name, value in _column_definitions(arguments.get("columns")):
        built = _ef6_column_call(value)
        data_type, nullable = built if built else ("", True)
        parts.nodes.append(column_node(table, name, path, value, data_type,
                                       name not in primary_key and nullable, name in primary_key, made))
    for key in chained:
        key_arguments = _arguments(key, ("principalTable", "dependentKeyExpression", "cascadeDelete"))
        principal = _text(key_arguments, "principalTable")
        if _called(key) != "ForeignKey" or not principal:
            continue
        cascade = node_text(key_arguments.get("cascadeDelete")) == "true"
        parts.references.append(Reference(
            source=node_id("sql", table, "TABLE"), edge_type="FOREIGN_KEY", target=principal,
            target_language="sql", candidates=(principal,), target_kinds=("TABLE",),
            external=True, line=line_of(key),
            attrs={"columns": _lambda_members(key_arguments.get("dependentKeyExpression")),
                   "ref_columns": [], "via": VIA, **({"on_delete": "CASCADE"} if cascade else {})}))


def _ef6_column(action: tree_sitter.Node | None) -> tuple[str, bool] | None:
    """(type, nullable) of an EF6 column action `c => c.String(maxLength: 300)`."""
    body = action.child_by_field_name("body") if action is not None \
        and action.type == "lambda_expression" else None
    return _ef6_column_call(body) if body is not None else None


def _ef6_column_call(value: tree_sitter.Node | None) -> tuple[str, bool] | None:
    """(type, nullable) of EF6's `c.String(nullable: false, maxLength: 50)` (under a fluent tail
    such as `.Annotation(...)`): the `ColumnBuilder` method names the type, its first parameter
    is `nullable`, `storeType:` overrides the type."""
    while value is not None and value.type == "invocation_expression":
        callee = callee_of(value)
        if callee is None:
            return None
        receiver, name = callee
        if receiver is not None and receiver.type == "identifier":
            arguments = _arguments(value, ("nullable",))
            return (_text(arguments, "storeType") or node_text(name).lower(), _nullable(arguments))
        value = receiver
    return None


def _on_delete(arguments: dict[str, tree_sitter.Node]) -> dict[str, str]:
    """{"on_delete": "CASCADE"} of `onDelete: ReferentialAction.Cascade` (SET NULL, RESTRICT, ...)."""
    value = arguments.get("onDelete")
    action = node_text(value).rsplit(".", 1)[-1] if value is not None else ""
    spelled = {"Cascade": "CASCADE", "SetNull": "SET NULL", "Restrict": "RESTRICT", "NoAction": "NO ACTION",
               "SetDefault": "SET DEFAULT"}.get(action)
    return {"on_delete": spelled} if spelled else {}


def _clr_type(call: tree_sitter.Node) -> str:
    """`decimal` of `AddColumn<decimal>(...)` or `table.Column<decimal>(...)`: the type the
    migration names when it gives no SQL `type:`."""
    callee = callee_of(call)
    if callee is None:
        raise ValueError(f"{call.type} at line {line_of(call)} is not a call of a named method")
    generic = callee[1]
    arguments = child_of_type(generic, "type_argument_list") if generic.type == "generic_name" \
        else None
    return node_text(arguments.named_children[0]) if arguments and arguments.named_children else ""


def _called(node: tree_sitter.Node) -> str | None:
    callee = callee_of(node)
    return type_name(callee[1]) if callee else None


def _column_call(value: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The `table.Column<T>(...)` call under a fluent tail such as `.Annotation(...)`."""
    while value is not None and value.type == "invocation_expression":
        callee = callee_of(value)
        if callee is None:
            return None
        if type_name(callee[1]) == "Column":
            return value
        value = callee[0]
    return None


def _column_definitions(columns: tree_sitter.Node | None) -> list[tuple[str, tree_sitter.Node]]:
    """(column name, its value) of `table => new { Col = table.Column<T>(...), ... }`."""
    body = columns.child_by_field_name("body") if columns is not None \
        and columns.type == "lambda_expression" else None
    if body is None or body.type != "anonymous_object_creation_expression":
        return []
    members = body.named_children
    return [(node_text(name), value) for name, value in zip(members, members[1:])
            if name.type == "identifier" and value.type == "invocation_expression"]


def _lambda_members(expression: tree_sitter.Node | None) -> list[str]:
    """`x => x.Id` -> [Id]; `x => new { x.A, x.B }` -> [A, B]."""
    body = expression.child_by_field_name("body") if expression is not None \
        and expression.type == "lambda_expression" else None
    accesses = [node for node in descendants(body) if node.type == "member_access_expression"]
    return [node_text(access.child_by_field_name("name")) for access in accesses]


def _nullable(arguments: dict[str, tree_sitter.Node]) -> bool:
    value = arguments.get("nullable")
    return value is None or node_text(value) != "false"


def table_node(table: str, path: str, syntax: tree_sitter.Node, parent: str,
               primary_key: list[str], attrs: dict) -> Node:
    """A TABLE node shaped like the SQL parser's, spanning the code that made it."""
    return Node(
        id=node_id("sql", table, "TABLE"), kind="TABLE", language="sql", name=table, path=path,
        start_line=line_of(syntax), end_line=end_line_of(syntax), parent=parent,
        signature=f"CREATE TABLE {table}", attrs={"primary_key": primary_key, **attrs})


def column_node(table: str, column: str, path: str, syntax: tree_sitter.Node, data_type: str,
                nullable: bool, primary_key: bool, attrs: dict) -> Node:
    """A COLUMN node shaped like the SQL parser's (`sql:s.T.Col|COLUMN`, parent the table)."""
    name = f"{table}.{column}"
    return Node(
        id=node_id("sql", name, "COLUMN"), kind="COLUMN", language="sql", name=name, path=path,
        start_line=line_of(syntax), end_line=end_line_of(syntax),
        parent=node_id("sql", table, "TABLE"), signature=f"{column} {data_type}".strip(),
        attrs={"data_type": data_type, "nullable": nullable, "primary_key": primary_key,
               **attrs})


# --- across files ------------------------------------------------------------------------------

def table_key(name: str) -> str:
    """How table names are compared: case-insensitive, unqualified as `dbo.<name>`."""
    lowered = name.lower()
    return lowered if "." in lowered else f"{DEFAULT_SQL_SCHEMA}.{lowered}"


def _made_by_migration(node: Node) -> bool:
    return node.attrs.get("via") in MIGRATION_VIAS


@dataclass
class _Schema:
    """The migration-made schema while operations are replayed."""

    tables: dict[str, Node] = field(default_factory=dict)  # table key -> TABLE node
    columns: dict[str, dict[str, Node]] = field(default_factory=dict)  # key -> lower col -> node
    renamed: dict[str, str] = field(default_factory=dict)  # old table key -> new table key

    def final_key(self, key: str) -> str:
        seen = {key}
        while key in self.renamed and self.renamed[key] not in seen:
            key = self.renamed[key]
            seen.add(key)
        return key


def settle_migrations(files: list[ParsedFile]) -> list[ParsedFile]:
    """Files with their migration-made tables and columns as the last migration leaves them."""
    migration_files = [f for f in files if any(r.attrs.get("via") in MIGRATION_VIAS for r in f.references)]
    if not migration_files:
        return files
    from_sql = {table_key(n.name): n for f in files for n in f.nodes
                if n.kind == "TABLE" and not _made_by_migration(n)}
    schema = _replay(sorted(migration_files, key=lambda f: PurePosixPath(f.path).name))
    kept_tables = {key: node for key, node in schema.tables.items() if key not in from_sql}
    kept = {node.id: node for node in kept_tables.values()}
    kept.update((column.id, column) for key in kept_tables
                for column in schema.columns.get(key, {}).values())

    def final_table(name: str) -> Node | None:
        key = schema.final_key(table_key(name))
        return from_sql.get(key) or schema.tables.get(key)

    return [_settled(f, kept, final_table) if f in migration_files else f for f in files]


def _replay(migration_files: list[ParsedFile]) -> _Schema:
    schema = _Schema()
    for parsed in migration_files:
        made = {n.id: n for n in parsed.nodes if _made_by_migration(n)}
        operations = sorted((r for r in parsed.references if r.attrs.get("via") in MIGRATION_VIAS
                             and r.edge_type == "REFERENCES" and not r.attrs.get("reverts")), key=lambda r: r.line)
        for operation in operations:
            _apply(schema, operation, made)
    return schema


def _apply(schema: _Schema, operation: Reference, made: dict[str, Node]) -> None:
    kind, key = operation.attrs["operation"], table_key(operation.target)
    column = operation.attrs.get("column") or ""
    table = schema.tables.get(key)
    columns = schema.columns.setdefault(key, {})
    if kind == "create_table":
        created = made.get(node_id("sql", operation.target, "TABLE"))
        if created:
            schema.tables[key] = created
            schema.columns[key] = {n.name.rsplit(".", 1)[-1].lower(): n for n in made.values()
                                   if n.kind == "COLUMN" and n.parent == created.id}
            schema.renamed.pop(key, None)
    elif kind == "drop_table":
        schema.tables.pop(key, None)
        schema.columns.pop(key, None)
    elif kind == "rename_table" and table:
        _rename_table(schema, key, operation.attrs["new_name"])
    elif kind == "add_column" and table:
        added = made.get(node_id("sql", f"{operation.target}.{column}", "COLUMN"))
        if added:
            columns[column.lower()] = _moved_column(added, table, column)
    elif kind == "drop_column":
        columns.pop(column.lower(), None)
    elif kind == "rename_column" and table and column.lower() in columns:
        columns[operation.attrs["new_name"].lower()] = _moved_column(
            columns.pop(column.lower()), table, operation.attrs["new_name"])


def _rename_table(schema: _Schema, key: str, new_name: str) -> None:
    old = schema.tables.pop(key)
    table = replace(old, id=node_id("sql", new_name, "TABLE"), name=new_name,
                    signature=f"CREATE TABLE {new_name}")
    new_key = table_key(new_name)
    schema.tables[new_key] = table
    schema.renamed[key] = new_key
    schema.columns[new_key] = {
        lowered: _moved_column(column, table, column.name.rsplit(".", 1)[-1])
        for lowered, column in schema.columns.pop(key, {}).items()}


def _moved_column(column: Node, table: Node, column_name: str) -> Node:
    """`column` as `table.column_name`: after a table or column rename, or an AddColumn."""
    name = f"{table.name}.{column_name}"
    return replace(column, id=node_id("sql", name, "COLUMN"), name=name, parent=table.id,
                   signature=" ".join([column_name, *column.signature.split(" ")[1:]]))


def _settled(parsed: ParsedFile, kept: dict[str, Node],
             final_table: Callable[[str], Node | None]) -> ParsedFile:
    """The file's own migration nodes as settled; its migration references aimed at the
    tables' final names (a foreign key of a dropped table is left out)."""
    own = [n for n in kept.values() if n.path == parsed.path]
    dropped = {n.id for n in parsed.nodes if _made_by_migration(n)}
    nodes = [n for n in parsed.nodes if n.id not in dropped] + own
    edges = [e for e in parsed.edges if e.target not in dropped]
    edges += [Edge(n.parent, n.id, "DEFINES") for n in own if n.parent]
    references = []
    for reference in parsed.references:
        if reference.attrs.get("via") not in MIGRATION_VIAS:
            references.append(reference)
            continue
        if reference.edge_type == "FOREIGN_KEY":
            source = final_table(reference.source.split(":", 1)[1].rsplit("|", 1)[0])
            if source is None:
                continue
            reference = replace(reference, source=source.id)
        target = final_table(reference.target)
        if target is not None and target.name != reference.target:
            reference = replace(reference, candidates=(*reference.candidates, target.name))
        references.append(reference)
    return replace(parsed, nodes=nodes, edges=edges, references=references)
