"""C# parser (tree-sitter): namespaces, types and methods, with their calls, bases, Entity
Framework mappings and the tables that inline SQL reads or writes.

A name used in the file is turned into qualified guesses in C# lookup order: the enclosing
types and namespaces from the innermost out, then each `using` namespace, then the name as
written (`using X = A.B;` aliases are expanded instead). `graph_build.resolve` keeps the guess
that exists. A reference's `target` is the name as written (`DbContext`,
`IDbConnection.ExecuteAsync`), which is what an unresolved EXTERNAL node is called; a call
without a receiver is qualified by its own type (`Billing.Services.InvoiceService.Log`).

Calls (CALLS, by_name so the resolver may fall back to a unique method of that short name)
are emitted only when the receiver's type is known from the syntax: no receiver or `this`
(the type, then its bases), `base` (the bases only, and never by short name: an override
calling its base would find itself), a capitalised name that is no variable (a type), or a
parameter, local, field, property or constructor parameter whose type the file states
(`IDbConnection c`, `var c = new T(...)`). `new T(...)` calls the constructor `T.T`, exactly.
System.Object's methods (`ToString`, ...) are never resolved by short name. `nameof(...)` and
calls to local functions (part of their method) are not calls.

Entity Framework (MAPS_TO, entity type -> table):
- A type with `[Table("X", Schema = "s")]` maps to `s.X` from its own file (source exact).
- A DbContext (a class whose base's name ends in `DbContext`) maps each entity it names in a
  `DbSet<T>` property or `modelBuilder.Entity<T>()`. Table candidates, in order: `[Table]`
  (visible only when the entity is declared in the same file), `.ToTable("X", "s")`, the DbSet
  property name (EF Core's convention), the class name; an unqualified name is also tried in
  `dbo`, SQL Server's default schema. When the entity is declared in another file its node id
  can only be guessed: `source` is the first guess and `attrs["source_candidates"]` lists every
  guessed node id (the DbContext's namespaces, its `using` namespaces, the bare name) for the
  resolver to pick the one that exists. The DbContext also REFERENCES each entity type.
Types of the file get `attrs["ef_role"]`: "dbcontext", or "entity" for an entity of a DbContext
of the file or a type with `[Table]`.

Inline SQL (READS / WRITES, method -> table): the first string argument of Dapper
(`Query*`, `Execute*`) and EF Core raw-SQL methods (`FromSqlRaw`, `ExecuteSqlRaw`, ...), of
`new SqlCommand(...)` and its ADO.NET siblings, and `CommandText = ...` assignments. Regular,
verbatim, raw and interpolated literals, `+` concatenations, and locals or fields holding such
a string are understood; interpolation holes become `@p0`, `@p1`, ... Table names are given
as written, an unqualified one also in `dbo`. The SQL texts are kept in the method's
`attrs["inline_sql"]`.
"""
from __future__ import annotations

import codecs
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from xml.etree import ElementTree

import tree_sitter
import tree_sitter_c_sharp

from ragstream.errors import IndexingError
from ragstream.index.model import Edge, Node, ParsedFile, Reference, file_node, node_id
from ragstream.index.parsers.sql_access import TableAccess, table_access

LANGUAGE = "csharp"
TYPE_KINDS = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "record_declaration": "record",
    "struct_declaration": "struct",
    "enum_declaration": "enum",
}
METHOD_DECLARATIONS = frozenset({"method_declaration", "constructor_declaration"})
NAMESPACE_DECLARATIONS = frozenset({"namespace_declaration", "file_scoped_namespace_declaration"})
TABLE_KINDS = ("TABLE", "VIEW")
SQL_DIALECT = "tsql"
DEFAULT_SQL_SCHEMA = "dbo"
# Dapper extension methods and EF Core raw-SQL methods: their first string argument is SQL.
SQL_METHODS = frozenset({
    "Query", "QueryAsync", "QueryMultiple", "QueryMultipleAsync", "Execute", "ExecuteAsync",
    "ExecuteReader", "ExecuteReaderAsync", "FromSql", "FromSqlRaw", "FromSqlInterpolated",
    "ExecuteSql", "ExecuteSqlAsync", "ExecuteSqlRaw", "ExecuteSqlRawAsync",
    "ExecuteSqlInterpolated", "ExecuteSqlInterpolatedAsync", "SqlQuery", "SqlQueryRaw",
})
SQL_METHOD_PREFIXES = ("QueryFirst", "QuerySingle", "ExecuteScalar")
# ADO.NET commands: the first constructor argument is the command text.
SQL_COMMAND_TYPES = frozenset({
    "SqlCommand", "SqliteCommand", "NpgsqlCommand", "MySqlCommand", "OracleCommand",
    "OleDbCommand", "OdbcCommand",
})
# System.Object's methods: an unresolved call to one is the framework's, never the only
# same-named method elsewhere in the repository.
OBJECT_METHODS = frozenset({
    "Equals", "GetHashCode", "GetType", "ToString", "MemberwiseClone", "ReferenceEquals",
})


def parse_csharp(path: str, text: str) -> ParsedFile:
    """Parse one C# file; raises IndexingError when it is broken and no type is recognisable."""
    root = tree_sitter.Parser(_language()).parse(text.encode("utf-8")).root_node
    found = _Declarations(file=file_node(path, len(text.splitlines()), LANGUAGE))
    _collect(root, "", found.file.id, found)
    out = _Output(ParsedFile(path=path, language=LANGUAGE, root_id=found.file.id))
    if root.has_error:
        where = f"{path}:{_first_error_line(root)}"
        if not found.types:
            raise IndexingError("not parseable as C#: no type declaration found", where=where,
                                hint="the file is indexed as plain text")
        out.parsed.warnings.append(f"{where}: syntax error; declarations near it may be missing")
    out.add(found.file)
    for namespace in found.namespaces:
        out.add(namespace)
    _add_types(found, out)
    return out.parsed


@lru_cache(maxsize=1)
def _language() -> tree_sitter.Language:
    """The grammar is loaded once per process; parsers are cheap and made per file."""
    return tree_sitter.Language(tree_sitter_c_sharp.language())


# --- declarations ----------------------------------------------------------------------------

@dataclass
class _TypeDecl:
    syntax: tree_sitter.Node
    name: str  # qualified: Billing.Services.InvoiceService
    scope: str  # the namespace or outer type it is declared in
    parent: str  # node id of that namespace or type, or of the file
    bases: list[str]  # as written, type arguments dropped
    methods: list[tree_sitter.Node] = field(default_factory=list)

    @property
    def id(self) -> str:
        return node_id(LANGUAGE, self.name, "TYPE")


@dataclass
class _Declarations:
    file: Node
    namespaces: list[Node] = field(default_factory=list)
    types: list[_TypeDecl] = field(default_factory=list)
    usings: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)


def _collect(container: tree_sitter.Node, namespace: str, parent: str,
             found: _Declarations) -> None:
    """Record the usings, namespaces and types declared directly in `container`."""
    for child in container.named_children:
        if child.type == "using_directive":
            _add_using(child, found)
        elif child.type in NAMESPACE_DECLARATIONS:
            node = _namespace_node(child, namespace, found.file)
            found.namespaces.append(node)
            body = child.child_by_field_name("body")
            if body is None:  # file-scoped: it owns the declarations that follow it
                namespace, parent = node.name, node.id
            else:
                _collect(body, node.name, node.id, found)
        elif child.type in TYPE_KINDS:
            _collect_type(child, namespace, parent, found)
        elif child.type == "ERROR" and _child_of_type(child, "namespace") is None:
            # Recovery may wrap intact declarations; when it swallowed a `namespace` keyword,
            # the names inside would be qualified wrongly, so they are left out.
            _collect(child, namespace, parent, found)


def _add_using(directive: tree_sitter.Node, found: _Declarations) -> None:
    if any(child.type == "static" for child in directive.children):
        return  # `using static T;` imports members, not type names
    alias = directive.child_by_field_name("name")
    target = _text(directive.named_children[-1])
    if alias is None:
        found.usings.append(target)
    else:
        found.aliases[_text(alias)] = target


def _namespace_node(syntax: tree_sitter.Node, outer: str, file: Node) -> Node:
    name = _qualify(outer, _text(syntax.child_by_field_name("name")))
    file_scoped = syntax.type == "file_scoped_namespace_declaration"
    return Node(
        id=node_id(LANGUAGE, name, "NAMESPACE"), kind="NAMESPACE", language=LANGUAGE, name=name,
        path=file.path, start_line=_line(syntax),
        end_line=file.end_line if file_scoped else _end_line(syntax),
        parent=file.id, signature=f"namespace {name}",
    )


def _collect_type(syntax: tree_sitter.Node, scope: str, parent: str,
                  found: _Declarations) -> None:
    name = syntax.child_by_field_name("name")
    if name is None:  # only in broken code
        return
    decl = _TypeDecl(syntax, _qualify(scope, _text(name)), scope, parent, _base_types(syntax))
    found.types.append(decl)
    for member in _body_members(syntax):
        if member.type in TYPE_KINDS:
            _collect_type(member, decl.name, decl.id, found)
        elif member.type in METHOD_DECLARATIONS and member.child_by_field_name("name"):
            decl.methods.append(member)


def _base_types(syntax: tree_sitter.Node) -> list[str]:
    base_list = _child_of_type(syntax, "base_list")
    names = (_type_name(child) for child in base_list.named_children) if base_list else ()
    return [name for name in names if name]


# --- nodes and references --------------------------------------------------------------------

@dataclass
class _Output:
    """The ParsedFile being filled; a node id seen twice (partial types) is kept once."""

    parsed: ParsedFile
    seen: set[str] = field(default_factory=set)

    def add(self, node: Node) -> None:
        if node.id in self.seen:
            return
        self.seen.add(node.id)
        self.parsed.nodes.append(node)
        if node.parent:
            self.parsed.edges.append(Edge(source=node.parent, target=node.id, type="DEFINES"))

    def refer(self, references: Iterable[Reference]) -> None:
        self.parsed.references.extend(references)


@dataclass(frozen=True)
class _Names:
    """How type names written in this file are qualified."""

    usings: tuple[str, ...]
    aliases: dict[str, str]

    def type_candidates(self, written: str, scope: str) -> tuple[str, ...]:
        """Qualified guesses for a type name seen inside `scope`, in C# lookup order."""
        head, dot, rest = written.partition(".")
        if head in self.aliases:
            return (self.aliases[head] + dot + rest,)
        prefixes = [*_enclosing_scopes(scope), *self.usings]
        return _unique([*(f"{prefix}.{written}" for prefix in prefixes), written])


def _add_types(found: _Declarations, out: _Output) -> None:
    names = _Names(tuple(found.usings), found.aliases)
    declared = {decl.name: decl for decl in found.types}
    entities = [(entity, _local_type(entity, declared, names))
                for decl in found.types if _is_db_context(decl) for entity in _entities(decl)]
    entity_ids = {local.id for _, local in entities if local}
    for decl in found.types:
        attribute = _table_attribute(decl.syntax)
        is_entity = attribute is not None or decl.id in entity_ids
        out.add(_type_node(decl, found.file.path, _ef_role(decl, is_entity)))
        out.refer(_inherits(decl, names))
        if attribute and decl.id not in entity_ids:  # else its DbContext's MAPS_TO covers it
            out.refer([_maps_to(decl.id, _table_candidates([attribute]), _line(decl.syntax))])
        _add_methods(decl, names, found.file.path, out)
    for entity, local in entities:
        out.refer(_entity_references(entity, local, names))


def _ef_role(decl: _TypeDecl, is_entity: bool) -> str | None:
    if _is_db_context(decl):
        return "dbcontext"
    return "entity" if is_entity else None


def _type_node(decl: _TypeDecl, path: str, ef_role: str | None) -> Node:
    attrs = {"type_kind": TYPE_KINDS[decl.syntax.type], "modifiers": _modifiers(decl.syntax)}
    if ef_role:
        attrs["ef_role"] = ef_role
    return _declaration_node(decl.syntax, "TYPE", decl.name, path, decl.parent, attrs)


def _declaration_node(syntax: tree_sitter.Node, kind: str, name: str, path: str, parent: str,
                      attrs: dict) -> Node:
    return Node(
        id=node_id(LANGUAGE, name, kind), kind=kind, language=LANGUAGE, name=name, path=path,
        start_line=_line(syntax), end_line=_end_line(syntax), parent=parent,
        signature=_header(syntax), docstring=_doc_comment(syntax), attrs=attrs,
    )


def _inherits(decl: _TypeDecl, names: _Names) -> list[Reference]:
    return [
        Reference(source=decl.id, edge_type="INHERITS", target=base, target_language=LANGUAGE,
                  candidates=names.type_candidates(base, decl.scope), target_kinds=("TYPE",),
                  by_name=True, external=True, line=_line(decl.syntax))
        for base in decl.bases
    ]


def _maps_to(source: str, tables: tuple[str, ...], line: int,
             attrs: dict | None = None) -> Reference:
    return Reference(source=source, edge_type="MAPS_TO", target=tables[0], target_language="sql",
                     candidates=tables, target_kinds=TABLE_KINDS, by_name=False, external=True,
                     line=line, attrs=attrs or {})


def _table_candidates(names: Iterable[str | None]) -> tuple[str, ...]:
    """Table names as written, each unqualified one followed by its `dbo.` form."""
    out = []
    for name in filter(None, names):
        out.append(name)
        if "." not in name:
            out.append(f"{DEFAULT_SQL_SCHEMA}.{name}")
    return _unique(out)


# --- Entity Framework ------------------------------------------------------------------------

@dataclass
class _Entity:
    """An entity type named by a DbContext, with what the context says about its table."""

    written: str  # the type argument as written: InvoiceLine
    context: _TypeDecl
    line: int  # where the context first names it
    dbset: str | None = None  # the DbSet<T> property name
    table: str | None = None  # from .ToTable(...)


def _is_db_context(decl: _TypeDecl) -> bool:
    return any(base.rsplit(".", 1)[-1].endswith("DbContext") for base in decl.bases)


def _entities(context: _TypeDecl) -> list[_Entity]:
    """Entities named by `DbSet<T>` properties and `Entity<T>()` calls in a DbContext."""
    found: dict[str, _Entity] = {}
    for member in _body_members(context.syntax):
        written = member.type == "property_declaration" and _dbset_entity(member)
        if written:
            entity = found.setdefault(written, _Entity(written, context, _line(member)))
            entity.dbset = entity.dbset or _text(member.child_by_field_name("name"))
    for node in _descendants(context.syntax):
        written = _entity_call(node)
        if written:
            entity = found.setdefault(written, _Entity(written, context, _line(node)))
            entity.table = entity.table or _to_table(node)
    return list(found.values())


def _dbset_entity(prop: tree_sitter.Node) -> str | None:
    """`T` of a `DbSet<T>` property."""
    return _type_argument(prop.child_by_field_name("type"), "DbSet")


def _entity_call(node: tree_sitter.Node) -> str | None:
    """`T` of a `builder.Entity<T>(...)` call."""
    callee = _callee(node)
    return _type_argument(callee[1], "Entity") if callee else None


def _type_argument(generic: tree_sitter.Node, name: str) -> str | None:
    """`T` of `name<T>`."""
    if generic.type != "generic_name" or _type_name(generic) != name:
        return None
    arguments = _type_arguments(generic)
    return arguments[0] if arguments else None


def _to_table(entity_call: tree_sitter.Node) -> str | None:
    """The table of `Entity<T>().X().ToTable(...)` or `Entity<T>(b => b.ToTable(...))`."""
    for call in [*_fluent_chain(entity_call),
                 *_descendants(entity_call.child_by_field_name("arguments"))]:
        callee = _callee(call)
        if callee and _type_name(callee[1]) == "ToTable":
            return _table_from_arguments(call.child_by_field_name("arguments"))
    return None


def _fluent_chain(call: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """The calls chained onto `call`: `call.A().B()` yields A's then B's invocation."""
    access = call.parent
    while access is not None and access.type == "member_access_expression" \
            and access.parent is not None and access.parent.type == "invocation_expression":
        yield access.parent
        access = access.parent.parent


def _table_attribute(syntax: tree_sitter.Node) -> str | None:
    """`s.X` from a `[Table("X", Schema = "s")]` attribute, `X` without a schema."""
    for attribute_list in _children_of_type(syntax, "attribute_list"):
        for attribute in _children_of_type(attribute_list, "attribute"):
            name = _type_name(attribute.child_by_field_name("name")) or ""
            if name.rsplit(".", 1)[-1] in ("Table", "TableAttribute"):
                return _table_from_arguments(_child_of_type(attribute, "attribute_argument_list"))
    return None


def _table_from_arguments(arguments: tree_sitter.Node | None) -> str | None:
    """`("X", "s")`, `("X", schema: "s")` or `("X", Schema = "s")` -> `s.X`."""
    if arguments is None:
        return None
    values = [(name, _string_value(value, {})) for name, value in _arguments(arguments)]
    positional = [value for name, value in values if not name]
    named = {name.lower(): value for name, value in values if name}
    table = positional[0] if positional else None
    schema = named.get("schema") or (positional[1] if len(positional) > 1 else None)
    return table and _qualify(schema or "", table)


def _local_type(entity: _Entity, declared: dict[str, _TypeDecl],
                names: _Names) -> _TypeDecl | None:
    """The entity's declaration when it is in this file."""
    guesses = names.type_candidates(entity.written, entity.context.scope)
    return next((declared[guess] for guess in guesses if guess in declared), None)


def _entity_references(entity: _Entity, local: _TypeDecl | None,
                       names: _Names) -> list[Reference]:
    """REFERENCES from the DbContext to the entity, and MAPS_TO from the entity to its table."""
    guesses = names.type_candidates(entity.written, entity.context.scope)
    class_name = entity.written.rsplit(".", 1)[-1]
    attribute = local and _table_attribute(local.syntax)
    tables = _table_candidates([attribute, entity.table, entity.dbset, class_name])
    if local:
        maps_to = _maps_to(local.id, tables, entity.line)
    else:
        sources = [node_id(LANGUAGE, guess, "TYPE") for guess in guesses]
        maps_to = _maps_to(sources[0], tables, entity.line, {"source_candidates": sources})
    reference = Reference(
        source=entity.context.id, edge_type="REFERENCES", target=entity.written,
        target_language=LANGUAGE, candidates=guesses, target_kinds=("TYPE",), by_name=True,
        external=True, line=entity.line,
    )
    return [reference, maps_to]


# --- methods ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class _TypeScope:
    """What a method body can see: its type, the file's names, the type's members."""

    decl: _TypeDecl
    names: _Names
    members: dict[str, str | None]  # field, property, constructor parameter -> type as written
    strings: dict[str, str]  # fields initialised with a string -> that string

    def member_candidates(self, type_written: str, member: str) -> tuple[str, ...]:
        return tuple(f"{guess}.{member}"
                     for guess in self.names.type_candidates(type_written, self.decl.name))

    def base_candidates(self, member: str) -> tuple[str, ...]:
        return _unique(f"{guess}.{member}" for base in self.decl.bases
                       for guess in self.names.type_candidates(base, self.decl.scope))

    def own_candidates(self, member: str) -> tuple[str, ...]:
        return _unique([f"{self.decl.name}.{member}", *self.base_candidates(member)])


def _add_methods(decl: _TypeDecl, names: _Names, path: str, out: _Output) -> None:
    """One METHOD node per name (overloads share it), with its calls and inline SQL."""
    scope = _TypeScope(decl, names, _member_types(decl.syntax), _string_fields(decl.syntax))
    overloads: dict[str, list[tree_sitter.Node]] = {}
    for syntax in decl.methods:
        overloads.setdefault(_text(syntax.child_by_field_name("name")), []).append(syntax)
    for name, group in overloads.items():
        method_id = node_id(LANGUAGE, f"{decl.name}.{name}", "METHOD")
        sql = [found for syntax in group for found in _inline_sql(syntax, scope.strings)]
        attrs: dict = {"modifiers": _modifiers(group[0])}
        if len(group) > 1:
            attrs["overloads"] = len(group)
        if sql:
            attrs["inline_sql"] = [text for text, _ in sql]
        out.add(_declaration_node(group[0], "METHOD", f"{decl.name}.{name}", path, decl.id, attrs))
        calls = (call for syntax in group for call in _calls(syntax, method_id, scope))
        out.refer(_first_of_each(calls))
        out.refer(_table_references(method_id, sql))


def _member_types(syntax: tree_sitter.Node) -> dict[str, str | None]:
    """Fields, properties and (primary) constructor parameters of a type, with their types."""
    found: dict[str, str | None] = {}
    primary = _child_of_type(syntax, "parameter_list")
    if primary is not None:
        found.update(_declared_variables(primary))
    for member in _body_members(syntax):
        if member.type in ("field_declaration", "event_field_declaration"):
            found.update(_declared_variables(member))
        elif member.type == "property_declaration":
            found[_text(member.child_by_field_name("name"))] = _type_name(
                member.child_by_field_name("type"))
        elif member.type == "constructor_declaration":
            found.update(_declared_variables(member.child_by_field_name("parameters")))
    return found


def _declared_variables(scope: tree_sitter.Node) -> dict[str, str | None]:
    """Parameters, variables and foreach variables declared in `scope`; None: type unknown."""
    found: dict[str, str | None] = {}
    for node in _descendants(scope):
        if node.type == "parameter":
            found[_text(node.child_by_field_name("name"))] = _type_name(
                node.child_by_field_name("type"))
        elif node.type == "implicit_parameter":
            found[_text(node)] = None
        elif node.type == "variable_declaration":
            declared = _type_name(node.child_by_field_name("type"))
            for declarator in _children_of_type(node, "variable_declarator"):
                name = _text(declarator.child_by_field_name("name"))
                found[name] = declared or _created_type(_initializer(declarator))
        elif node.type == "foreach_statement":
            variable = node.child_by_field_name("left")
            if variable is not None and variable.type == "identifier":
                found[_text(variable)] = _type_name(node.child_by_field_name("type"))
    return found


def _calls(method: tree_sitter.Node, source: str, scope: _TypeScope) -> list[Reference]:
    variables = {**scope.members, **_declared_variables(method)}
    local_functions = {_text(node.child_by_field_name("name"))
                       for node in _descendants(method) if node.type == "local_function_statement"}
    calls = []
    for node in _descendants(method):
        target, candidates, by_name = _call_target(node, scope, variables, local_functions)
        if candidates:
            calls.append(Reference(
                source=source, edge_type="CALLS", target=target, target_language=LANGUAGE,
                candidates=candidates, target_kinds=("METHOD",), by_name=by_name,
                external=False, line=_line(node),
            ))
    return calls


_NOT_FOLLOWED: tuple[str, tuple[str, ...], bool] = ("", (), False)


def _call_target(node: tree_sitter.Node, scope: _TypeScope, variables: dict[str, str | None],
                 local_functions: set[str]) -> tuple[str, tuple[str, ...], bool]:
    """(target, candidates, by_name) of an invocation or `new T(...)`; no candidates when
    the call is not followed."""
    created = _created_type(node)
    if created is not None:
        constructor = created.rsplit(".", 1)[-1]
        return f"{created}.{constructor}", scope.member_candidates(created, constructor), False
    callee = _callee(node)
    if callee is None:
        return _NOT_FOLLOWED
    receiver, name = callee[0], _type_name(callee[1]) or ""
    if receiver is None and (name == "nameof" or name in local_functions):
        return _NOT_FOLLOWED  # `nameof(x)` parses as a call; local functions belong to the method
    if receiver is None or receiver.type == "this":
        target, candidates = f"{scope.decl.name}.{name}", scope.own_candidates(name)
    elif receiver.type == "base":
        base = scope.decl.bases[0] if scope.decl.bases else ""
        return f"{base}.{name}", scope.base_candidates(name), False
    else:
        receiver_type = _receiver_type(receiver, variables)
        if receiver_type is None:
            return _NOT_FOLLOWED
        target, candidates = f"{receiver_type}.{name}", scope.member_candidates(receiver_type, name)
    return target, candidates, name not in OBJECT_METHODS


def _callee(node: tree_sitter.Node) -> tuple[tree_sitter.Node | None, tree_sitter.Node] | None:
    """(receiver or None, name node) of an invocation: `f()`, `r.f()`, `r?.f()`."""
    if node.type != "invocation_expression":
        return None
    function = node.child_by_field_name("function")
    if function.type in ("identifier", "generic_name"):
        return None, function
    if function.type == "member_access_expression":
        return function.child_by_field_name("expression"), function.child_by_field_name("name")
    if function.type == "conditional_access_expression":
        binding = function.named_children[-1]
        if binding.type == "member_binding_expression":
            return function.child_by_field_name("condition"), binding.child_by_field_name("name")
    return None


def _receiver_type(receiver: tree_sitter.Node, variables: dict[str, str | None]) -> str | None:
    """The receiver's type as written, when the syntax tells it."""
    if receiver.type == "object_creation_expression":
        return _created_type(receiver)
    if receiver.type == "identifier" and _text(receiver) in variables:
        return variables[_text(receiver)]
    if receiver.type == "member_access_expression" \
            and receiver.child_by_field_name("expression").type == "this":
        return variables.get(_text(receiver.child_by_field_name("name")))
    return _type_path(receiver, variables)


def _type_path(expression: tree_sitter.Node, variables: dict[str, str | None]) -> str | None:
    """`Console` or `System.Console`: a dotted name that can only be a type (capitalised,
    and not a variable or member)."""
    if expression.type == "identifier":
        name = _text(expression)
        return name if name not in variables and name[:1].isupper() else None
    if expression.type == "member_access_expression":
        head = _type_path(expression.child_by_field_name("expression"), variables)
        return head and f"{head}.{_text(expression.child_by_field_name('name'))}"
    return None


# --- inline SQL ------------------------------------------------------------------------------

def _inline_sql(method: tree_sitter.Node, fields: dict[str, str]) -> list[tuple[str, int]]:
    """(SQL text, line) of every SQL string the method passes to a data-access API."""
    strings = {**fields, **_string_bindings(method, fields)}
    found = []
    for node in _descendants(method):
        values = (_string_value(expr, strings) for expr in _sql_arguments(node))
        text = next((value for value in values if value), None)
        if text:
            found.append((text, _line(node)))
    return found


def _sql_arguments(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The expressions that may hold SQL when `node` is a data-access call or assignment."""
    if node.type == "assignment_expression":
        left = node.child_by_field_name("left")
        name = left.child_by_field_name("name") if left.type == "member_access_expression" else left
        return [node.child_by_field_name("right")] if _text(name) == "CommandText" else []
    if node.type == "object_creation_expression":
        is_command = (_created_type(node) or "").rsplit(".", 1)[-1] in SQL_COMMAND_TYPES
        arguments = node.child_by_field_name("arguments")
        return [value for _, value in _arguments(arguments)] if is_command and arguments else []
    callee = _callee(node)
    name = (_type_name(callee[1]) or "") if callee else ""
    if name in SQL_METHODS or name.startswith(SQL_METHOD_PREFIXES):
        return [value for _, value in _arguments(node.child_by_field_name("arguments"))]
    return []


def _table_references(source: str, sql: list[tuple[str, int]]) -> list[Reference]:
    return _first_of_each(
        Reference(source=source, edge_type=edge_type, target=table, target_language="sql",
                  candidates=_table_candidates([table]), target_kinds=TABLE_KINDS,
                  by_name=False, external=True, line=line)
        for text, line in sql
        for edge_type, tables in _reads_and_writes(table_access(text, SQL_DIALECT))
        for table in tables
    )


def _reads_and_writes(access: TableAccess) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return ("READS", access.reads), ("WRITES", access.writes)


def _first_of_each(references: Iterable[Reference]) -> list[Reference]:
    """One reference per (edge type, target, candidates): the first one, with its line."""
    kept: dict[tuple, Reference] = {}
    for reference in references:
        kept.setdefault((reference.edge_type, reference.target, reference.candidates), reference)
    return list(kept.values())


def _string_fields(syntax: tree_sitter.Node) -> dict[str, str]:
    """Fields and constants of a type that are initialised with a string."""
    found: dict[str, str] = {}
    for member in _body_members(syntax):
        if member.type == "field_declaration":
            found.update(_string_bindings(member, found))
    return found


def _string_bindings(scope: tree_sitter.Node, known: dict[str, str]) -> dict[str, str]:
    """Variables declared in `scope` whose initialiser is a string (`const string sql = ...`)."""
    found: dict[str, str] = {}
    for declarator in _descendants(scope):
        value = _initializer(declarator) if declarator.type == "variable_declarator" else None
        text = value is not None and _string_value(value, {**known, **found})
        if text:
            found[_text(declarator.child_by_field_name("name"))] = text
    return found


def _string_value(expression: tree_sitter.Node, strings: dict[str, str]) -> str | None:
    """The text of a string expression: literals of every kind, `+` and known variables."""
    kind = expression.type
    if kind == "string_literal":
        return "".join(_unescape(piece) for piece in expression.named_children)
    if kind == "verbatim_string_literal":
        return _text(expression)[2:-1].replace('""', '"')
    if kind == "raw_string_literal":
        content = _child_of_type(expression, "raw_string_content")
        return _raw_text(_text(content)) if content else ""
    if kind == "interpolated_string_expression":
        return _interpolated_text(expression)
    if kind == "binary_expression" and _text(expression.child_by_field_name("operator")) == "+":
        left = _string_value(expression.child_by_field_name("left"), strings)
        right = _string_value(expression.child_by_field_name("right"), strings)
        return left + right if left is not None and right is not None else None
    if kind == "parenthesized_expression":
        return _string_value(expression.named_children[0], strings)
    if kind == "identifier":
        return strings.get(_text(expression))
    return None


def _interpolated_text(expression: tree_sitter.Node) -> str:
    """`$"... {x} ..."` with each hole replaced by a SQL parameter (`@p0`, `@p1`, ...)."""
    start = _text(_child_of_type(expression, "interpolation_start"))
    raw = _child_of_type(expression, "interpolation_quote") is not None
    parts, holes = [], 0
    for piece in expression.named_children:
        if piece.type == "interpolation":
            parts.append(f"@p{holes}")
            holes += 1
        elif piece.type == "string_content":
            parts.append(_text(piece).replace('""', '"') if "@" in start else _text(piece))
        elif piece.type == "escape_sequence":
            parts.append(_unescape(piece))
    text = "".join(parts)
    return _raw_text(text) if raw else text


def _unescape(piece: tree_sitter.Node) -> str:
    text = _text(piece)
    if piece.type != "escape_sequence":
        return text
    try:
        return codecs.decode(text, "unicode_escape")
    except UnicodeDecodeError:  # C#'s variable-length `\x4` has no Python equivalent
        return text


def _raw_text(content: str) -> str:
    """A raw string's value: its lines without their common indentation."""
    return textwrap.dedent(content).strip()


# --- doc comments and headers ----------------------------------------------------------------

def _doc_comment(syntax: tree_sitter.Node) -> str:
    """The `///` XML doc comment right above a declaration, as plain text."""
    lines = []
    sibling = syntax.prev_sibling
    while sibling is not None and sibling.type == "comment" and _text(sibling).startswith("///"):
        lines.append(_text(sibling)[3:])
        sibling = sibling.prev_sibling
    return _doc_text("\n".join(reversed(lines))) if lines else ""


def _doc_text(xml: str) -> str:
    """Tags stripped: one line per element, `<param name="x">` as `x: ...`, crefs by name."""
    try:
        root = ElementTree.fromstring(f"<doc>{xml}</doc>")
    except ElementTree.ParseError:
        return " ".join(xml.split())
    blocks = [root.text or ""]
    for element in root:
        label = element.get("name") if element.tag in ("param", "typeparam") else None
        text = _inline_text(element)
        blocks += [f"{label}: {text}" if label else text, element.tail or ""]
    return "\n".join(" ".join(block.split()) for block in blocks if block.strip())


def _inline_text(element: ElementTree.Element) -> str:
    parts = [element.text or ""]
    for child in element:
        reference = child.get("cref") or child.get("name") or child.get("langword") or ""
        parts += [_inline_text(child) or reference.split(":")[-1], child.tail or ""]
    return "".join(parts)


def _header(syntax: tree_sitter.Node) -> str:
    """The declaration without attributes and body: `public class A : B`, `void M(int x)`."""
    start = next((child for child in syntax.children if child.type != "attribute_list"), syntax)
    body = syntax.child_by_field_name("body")
    end = body.start_byte if body is not None else syntax.end_byte
    text = syntax.text[start.start_byte - syntax.start_byte:end - syntax.start_byte]
    return " ".join(text.decode("utf-8", errors="replace").split()).rstrip(";").rstrip()


def _modifiers(syntax: tree_sitter.Node) -> list[str]:
    return [_text(child) for child in _children_of_type(syntax, "modifier")]


# --- tree helpers ----------------------------------------------------------------------------

def _type_name(node: tree_sitter.Node | None) -> str | None:
    """A type (or member) name as written, without type arguments; None for `var`, `int`,
    arrays, tuples and other types no repository declares."""
    if node is None:
        return None
    if node.type == "identifier":
        return _text(node)
    if node.type == "generic_name":
        return _text(node.named_children[0])
    if node.type == "qualified_name":
        qualifier = _type_name(node.child_by_field_name("qualifier"))
        name = _type_name(node.child_by_field_name("name"))
        return f"{qualifier}.{name}" if qualifier and name else None
    if node.type == "nullable_type":
        return _type_name(node.child_by_field_name("type"))
    return None


def _type_arguments(generic: tree_sitter.Node) -> list[str]:
    argument_list = _child_of_type(generic, "type_argument_list")
    names = (_type_name(child) for child in argument_list.named_children) if argument_list else ()
    return [name for name in names if name]


def _arguments(argument_list: tree_sitter.Node) -> list[tuple[str | None, tree_sitter.Node]]:
    """(name or None, value) of each argument of a call or an attribute."""
    out = []
    for argument in argument_list.named_children:
        if argument.type in ("argument", "attribute_argument") and argument.named_children:
            name = argument.child_by_field_name("name")
            out.append((_text(name) if name else None, argument.named_children[-1]))
    return out


def _created_type(expression: tree_sitter.Node | None) -> str | None:
    """`T` of `new T(...)`."""
    if expression is None or expression.type != "object_creation_expression":
        return None
    return _type_name(expression.child_by_field_name("type"))


def _initializer(declarator: tree_sitter.Node) -> tree_sitter.Node | None:
    value = declarator.named_children[-1] if declarator.named_children else None
    return None if value is None or value == declarator.child_by_field_name("name") else value


def _body_members(syntax: tree_sitter.Node) -> list[tree_sitter.Node]:
    body = syntax.child_by_field_name("body")
    return body.named_children if body is not None else []


def _child_of_type(node: tree_sitter.Node, kind: str) -> tree_sitter.Node | None:
    return next(iter(_children_of_type(node, kind)), None)


def _children_of_type(node: tree_sitter.Node, kind: str) -> list[tree_sitter.Node]:
    return [child for child in node.children if child.type == kind]


def _descendants(node: tree_sitter.Node | None) -> Iterator[tree_sitter.Node]:
    """`node` and everything below it, in source order."""
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _first_error_line(root: tree_sitter.Node) -> int:
    return next((_line(node) for node in _descendants(root) if node.is_error or node.is_missing),
                _line(root))


def _enclosing_scopes(scope: str) -> list[str]:
    """`A.B.C` -> [`A.B.C`, `A.B`, `A`]."""
    parts = scope.split(".") if scope else []
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]


def _qualify(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _unique(items: Iterable) -> tuple:
    return tuple(dict.fromkeys(items))


def _text(node: tree_sitter.Node | None) -> str:
    """The node's source text; "" for a node that error recovery left out."""
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


def _line(node: tree_sitter.Node) -> int:
    return node.start_point.row + 1


def _end_line(node: tree_sitter.Node) -> int:
    return node.end_point.row + 1
