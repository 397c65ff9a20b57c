"""Entity Framework: DbContexts, their entities, and the tables entities map to (MAPS_TO).

- A type with `[Table("X", Schema = "s")]` maps to `s.X` from its own file (source exact).
- A DbContext (a class whose base's name ends in `DbContext`) maps each entity it names in a
  `DbSet<T>` property or `modelBuilder.Entity<T>()`. Table candidates, in order: `[Table]`
  (visible only when the entity is declared in the same file), `.ToTable("X", "s")`, the DbSet
  property name (EF Core's convention), the class name; an unqualified name is also tried in
  `dbo`, SQL Server's default schema. When the entity is declared in another file its node id
  can only be guessed: `source` is the first guess and `attrs["source_candidates"]` lists every
  guessed node id (the DbContext's namespaces, its `using` namespaces, the bare name) for the
  resolver to pick the one that exists. The DbContext also REFERENCES each entity type.
Types of the file get an `_ef_role`: "dbcontext", or "entity" for an entity of a DbContext of
the file or a type with `[Table]`.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter

from ragstream.index.model import Reference, node_id
from ragstream.index.parsers.csharp.declarations import Names, TypeDecl
from ragstream.index.parsers.csharp.strings import string_value
from ragstream.index.parsers.csharp.syntax import (
    LANGUAGE, body_members, call_arguments, callee_of, child_of_type, children_of_type,
    descendants, line_of, node_text, qualify, type_arguments, type_name,
)
from ragstream.index.parsers.csharp.tables import maps_to, table_candidates


@dataclass
class EfMapping:
    """What Entity Framework says about a file's types."""

    roles: dict[str, str] = field(default_factory=dict)  # type node id -> ef_role
    references: list[Reference] = field(default_factory=list)  # MAPS_TO and REFERENCES


def ef_mapping(types: list[TypeDecl], names: Names) -> EfMapping:
    """Roles of the file's types, and MAPS_TO / REFERENCES from its DbContexts and `[Table]`s."""
    declared = {decl.name: decl for decl in types}
    entities = [(entity, _local_type(entity, declared, names))
                for decl in types if _is_db_context(decl) for entity in _context_entities(decl)]
    entity_ids = {local.id for _, local in entities if local}
    mapping = EfMapping()
    for decl in types:
        attribute = _table_attribute(decl.syntax)
        role = _ef_role(decl, attribute is not None or decl.id in entity_ids)
        if role:
            mapping.roles[decl.id] = role
        if attribute and decl.id not in entity_ids:  # else its DbContext's MAPS_TO covers it
            mapping.references.append(
                maps_to(decl.id, table_candidates([attribute]), line_of(decl.syntax)))
    for entity, local in entities:
        mapping.references.extend(_entity_references(entity, local, names))
    return mapping


def _ef_role(decl: TypeDecl, is_entity: bool) -> str | None:
    if _is_db_context(decl):
        return "dbcontext"
    return "entity" if is_entity else None


@dataclass
class _Entity:
    """An entity type named by a DbContext, with what the context says about its table."""

    written: str  # the type argument as written: InvoiceLine
    context: TypeDecl
    line: int  # where the context first names it
    dbset: str | None = None  # the DbSet<T> property name
    table: str | None = None  # from .ToTable(...)


def _is_db_context(decl: TypeDecl) -> bool:
    return any(base.rsplit(".", 1)[-1].endswith("DbContext") for base in decl.bases)


def _context_entities(context: TypeDecl) -> list[_Entity]:
    """Entities named by `DbSet<T>` properties and `Entity<T>()` calls in a DbContext."""
    found: dict[str, _Entity] = {}
    for member in body_members(context.syntax):
        written = member.type == "property_declaration" and _dbset_entity(member)
        if written:
            entity = found.setdefault(written, _Entity(written, context, line_of(member)))
            entity.dbset = entity.dbset or node_text(member.child_by_field_name("name"))
    for node in descendants(context.syntax):
        written = _entity_call(node)
        if written:
            entity = found.setdefault(written, _Entity(written, context, line_of(node)))
            entity.table = entity.table or _to_table(node)
    return list(found.values())


def _dbset_entity(prop: tree_sitter.Node) -> str | None:
    """`T` of a `DbSet<T>` property."""
    return _type_argument(prop.child_by_field_name("type"), "DbSet")


def _entity_call(node: tree_sitter.Node) -> str | None:
    """`T` of a `builder.Entity<T>(...)` call."""
    callee = callee_of(node)
    return _type_argument(callee[1], "Entity") if callee else None


def _type_argument(generic: tree_sitter.Node, name: str) -> str | None:
    """`T` of `name<T>`."""
    if generic.type != "generic_name" or type_name(generic) != name:
        return None
    arguments = type_arguments(generic)
    return arguments[0] if arguments else None


def _to_table(entity_call: tree_sitter.Node) -> str | None:
    """The table of `Entity<T>().X().ToTable(...)` or `Entity<T>(b => b.ToTable(...))`."""
    for call in [*_fluent_chain(entity_call),
                 *descendants(entity_call.child_by_field_name("arguments"))]:
        callee = callee_of(call)
        if callee and type_name(callee[1]) == "ToTable":
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
    for attribute_list in children_of_type(syntax, "attribute_list"):
        for attribute in children_of_type(attribute_list, "attribute"):
            name = type_name(attribute.child_by_field_name("name")) or ""
            if name.rsplit(".", 1)[-1] in ("Table", "TableAttribute"):
                return _table_from_arguments(child_of_type(attribute, "attribute_argument_list"))
    return None


def _table_from_arguments(arguments: tree_sitter.Node | None) -> str | None:
    """`("X", "s")`, `("X", schema: "s")` or `("X", Schema = "s")` -> `s.X`."""
    if arguments is None:
        return None
    values = [(name, string_value(value, {})) for name, value in call_arguments(arguments)]
    positional = [value for name, value in values if not name]
    named = {name.lower(): value for name, value in values if name}
    table = positional[0] if positional else None
    schema = named.get("schema") or (positional[1] if len(positional) > 1 else None)
    return table and qualify(schema or "", table)


def _local_type(entity: _Entity, declared: dict[str, TypeDecl],
                names: Names) -> TypeDecl | None:
    """The entity's declaration when it is in this file."""
    guesses = names.type_candidates(entity.written, entity.context.scope)
    return next((declared[guess] for guess in guesses if guess in declared), None)


def _entity_references(entity: _Entity, local: TypeDecl | None,
                       names: Names) -> list[Reference]:
    """REFERENCES from the DbContext to the entity, and MAPS_TO from the entity to its table."""
    guesses = names.type_candidates(entity.written, entity.context.scope)
    class_name = entity.written.rsplit(".", 1)[-1]
    attribute = local and _table_attribute(local.syntax)
    tables = table_candidates([attribute, entity.table, entity.dbset, class_name])
    if local:
        mapping = maps_to(local.id, tables, entity.line)
    else:
        sources = [node_id(LANGUAGE, guess, "TYPE") for guess in guesses]
        mapping = maps_to(sources[0], tables, entity.line, {"source_candidates": sources})
    reference = Reference(
        source=entity.context.id, edge_type="REFERENCES", target=entity.written,
        target_language=LANGUAGE, candidates=guesses, target_kinds=("TYPE",), by_name=True,
        external=True, line=entity.line,
    )
    return [reference, mapping]
