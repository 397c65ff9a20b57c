"""Entity Framework: DbContexts, their entities, and the tables entities map to (MAPS_TO).

- A type with `[Table("X", Schema = "s")]` (or `[TableName("X")]`: PetaPoco, NPoco, Serenity) maps to
  `s.X` from its own file (source exact).
- A DbContext (a class whose base's name ends in `DbContext`) maps each entity it names in a
  `DbSet<T>` property or `modelBuilder.Entity<T>()`. Table candidates, in order: `[Table]`
  (visible only when the entity is declared in the same file), `.ToTable("X", "s")`, the DbSet
  property name (EF Core's convention), the class name; an unqualified name is also tried in
  `dbo`, SQL Server's default schema. When the entity is declared in another file its node id
  can only be guessed: `source` is the first guess and `attrs["source_candidates"]` lists every
  guessed node id (the DbContext's namespaces, its `using` namespaces, the bare name) for the
  resolver to pick the one that exists. The DbContext also REFERENCES each entity type.
  A mapping from the DbSet property or class name alone is EF's convention, not something the
  code states: its attrs say `guess=True, mapping="by_convention"`, and `ef_graph` drops it
  when an explicit mapping of the same entity exists in another file.
- An `IEntityTypeConfiguration<T>` class REFERENCES `T`, and `builder.ToTable("X")` in it maps
  `T` to `X` (attrs `via="entity_type_configuration"`; `T`'s id guessed as above). FluentNHibernate's
  `IAutoMappingOverride<T>` the same with `mapping.Table("X")` in `Override` (`via="automapping_override"`);
  without a table it maps `T` to its own name, automapping's convention (a guess). The entities
  automapping finds without an override: see `nh_automapping`.
- A mapping class that maps its type argument in its constructor (FluentNHibernate's
  `ClassMap<T>`, NHibernate's `ClassMapping<T>`, EF6's `EntityTypeConfiguration<T>`) REFERENCES
  `T`, and maps it to the table its `Table("X")` / `ToTable("X")` names (or hands its base's
  constructor: Griffin.Data's `: base("X")` of a `CrudEntityMapper<T>`), else to `T`'s own name
  by the ORM's convention (a guess; attrs `via="mapping_class"`). Only with evidence that the
  class maps to a database: its file imports an ORM's namespace (or qualifies the base with it),
  or its constructor names a table or key (`Table`, `Id`, `HasKey`, ...). The base's name alone is
  no evidence: CsvHelper's `ClassMap<T>` maps CSV columns, and its `T` has no table.
- `UseTptMappingStrategy()` / `UseTpcMappingStrategy()` / `HasDiscriminator()` on an entity
  are recorded as `inheritance` ("tpt", "tpc", "tph") in the attrs of its MAPS_TO, which
  `ef_graph` reads to map subclasses (TPH, EF's default: the base type's table).
- A `Migration` class: see `ef_migrations`; a FluentMigrator `[Migration(n)]` class: see `fluent_migrations`.
Types of the file get an `ef_role`: "dbcontext", "configuration", "migration", or "entity" for
an entity of a DbContext of the file or a type with `[Table]`.
"""
from __future__ import annotations

import re

from dataclasses import dataclass, field

import tree_sitter

from ragstream.index.model import Node, Reference, node_id
from ragstream.index.csharp.declarations import Names, TypeDecl
from ragstream.index.csharp.ef_configured import (
    configured_columns, configured_members, converter_references, model_builder_references, receiver_root,
)
from ragstream.index.csharp.ef_migrations import is_migration, migration_parts
from ragstream.index.csharp.nh_automapping import automapping_references
from ragstream.index.csharp.fluent_migrations import fluent_migration_parts, is_fluent_migration
from ragstream.index.csharp.strings import string_fields, string_value
from ragstream.index.csharp.syntax import (
    LANGUAGE, attribute_arguments, body_members, call_arguments, called_name, callee_of, child_of_type, fluent_chain,
    descendants, line_of, node_text, qualify, required_child, type_arguments, type_name,
)
from ragstream.index.csharp.table_refs import maps_to, table_candidates


@dataclass
class EfMapping:
    """What Entity Framework says about a file's types."""

    roles: dict[str, str] = field(default_factory=dict)  # type node id -> ef_role
    references: list[Reference] = field(default_factory=list)  # MAPS_TO, REFERENCES, FOREIGN_KEY
    nodes: list[Node] = field(default_factory=list)  # TABLE and COLUMN nodes from migrations


def ef_mapping(types: list[TypeDecl], names: Names, path: str) -> EfMapping:
    """Roles of the file's types; MAPS_TO / REFERENCES from its DbContexts, `[Table]`s and
    entity configurations; tables from its migrations."""
    declared = {decl.name: decl for decl in types}
    entities = [(entity, _local_type(entity, declared, names))
                for decl in types if _is_db_context(decl) for entity in _context_entities(decl)]
    entity_ids = {local.id for _, local in entities if local}
    mapping = EfMapping()
    for decl in types:
        attribute = _table_attribute(decl.syntax)
        role = _ef_role(decl, names, attribute is not None or decl.id in entity_ids)
        if role:
            mapping.roles[decl.id] = role
        if attribute and decl.id not in entity_ids:  # else its DbContext's MAPS_TO covers it
            mapping.references.append(
                maps_to(decl.id, table_candidates([attribute]), line_of(decl.syntax)))
    for entity, local in entities:
        mapping.references.extend(_entity_references(entity, local, names))
    for decl in types:
        configured = _configured_entity(decl)
        mapped = _constructor_mapped_entity(decl, names)
        if configured:
            mapping.references.extend(_configuration_references(decl, configured, names))
        elif mapped:
            mapping.references.extend(_constructor_mapping_references(decl, mapped, names))
        elif is_fluent_migration(decl, names):
            parts = fluent_migration_parts(decl, path)
            mapping.nodes.extend(parts.nodes)
            mapping.references.extend(parts.references)
        elif is_migration(decl):
            parts = migration_parts(decl, path)
            mapping.nodes.extend(parts.nodes)
            mapping.references.extend(parts.references)
        if not is_migration(decl):  # a migration's `Up(MigrationBuilder)` builds no model
            mapping.references.extend(model_builder_references(decl, names))
        mapping.references.extend(converter_references(decl, names))
    mapping.references.extend(automapping_references(types, names))
    return mapping


def _ef_role(decl: TypeDecl, names: Names, is_entity: bool) -> str | None:
    if _is_db_context(decl):
        return "dbcontext"
    if _configured_entity(decl) or _constructor_mapped_entity(decl, names):
        return "configuration"
    if is_migration(decl) or is_fluent_migration(decl, names):
        return "migration"
    return "entity" if is_entity else None


def _configured_entity(decl: TypeDecl) -> tuple[str, str] | None:
    """(`T`, the interface) of a class implementing a configuration interface
    (`IEntityTypeConfiguration<T>`, FluentNHibernate's `IAutoMappingOverride<T>`)."""
    base_list = child_of_type(decl.syntax, "base_list")
    bases = base_list.named_children if base_list else []
    return next(((entity, interface) for base in bases for interface in CONFIGURATION_METHODS
                 if (entity := _type_argument(base, interface))), None)


def _constructor_mapped_entity(decl: TypeDecl, names: Names) -> str | None:
    """`T` of a mapping class that maps its entity to a table in its constructor (`ClassMap<T>`),
    when something says the mapping is an ORM's (see the module's docstring)."""
    base_list = child_of_type(decl.syntax, "base_list")
    bases = base_list.named_children if base_list else []
    found = next(((base, entity) for base in bases for name in CONSTRUCTOR_MAPPINGS
                  if (entity := _type_argument(_unqualified(base), name))), None)
    # a base of a package's own over the ORM's (`EntitySubClassMapBase<BlogPost>` over `SubclassMap<T>`):
    # named as a mapping base, and its constructor says the table or key (no import says it)
    derived = None if found else next(((base, arguments[0]) for base in bases
                                       if (generic := _unqualified(base)).type == "generic_name"
                                       and MAPPING_BASE_NAME.search(type_name(generic) or "")
                                       and len(arguments := type_arguments(generic)) == 1), None)
    chosen = found or derived
    if chosen is None:
        return None
    base, entity = chosen
    imported = [*names.usings, *names.aliases.values(), node_text(base)]
    if found and any(written.startswith(ORM_NAMESPACES) for written in imported):
        return entity
    constructors = [method for method in decl.methods if method.type == "constructor_declaration"]
    own_calls = {called_name(call) for method in constructors
                 for call in descendants(method) if call.type == "invocation_expression" and _on_this(call)}
    return entity if own_calls & PERSISTENCE_CALLS or _base_table(constructors, decl.syntax) else None


def _base_table(constructors: list[tree_sitter.Node], owner: tree_sitter.Node) -> str | None:
    """The table a mapping class hands its base's constructor (Griffin.Data's `HistoryEntryMapper()
    : base("IncidentHistory")`), written as a string."""
    for constructor in constructors:
        initializer = child_of_type(constructor, "constructor_initializer")
        if initializer is not None and any(child.type == "base" for child in initializer.children):
            table = _table_from_arguments(child_of_type(initializer, "argument_list"), owner)
            if table:
                return table
    return None


def _unqualified(base: tree_sitter.Node) -> tree_sitter.Node:
    """`ClassMap<T>` of `FluentNHibernate.Mapping.ClassMap<T>`."""
    name = base.child_by_field_name("name") if base.type == "qualified_name" else None
    return name if name is not None else base


def _constructor_mapping_references(decl: TypeDecl, written: str, names: Names) -> list[Reference]:
    """REFERENCES from the mapping class to its entity; MAPS_TO from the entity to the table its
    constructor names (`Table("Entry")`, `ToTable("Entry")`), else to the entity's own name, the
    ORM's convention (a guess)."""
    constructors = [m for m in decl.methods if m.type == "constructor_declaration"]
    own_calls = [call for method in [*constructors, *_helpers(decl, constructors)] for call in descendants(method)
                 if call.type == "invocation_expression" and _on_this(call)]
    table = next((_table_from_arguments(call.child_by_field_name("arguments"), decl.syntax)
                  for call in own_calls if called_name(call) in ("Table", "ToTable")), None) \
        or _base_table(constructors, decl.syntax)
    guesses = names.type_candidates(written, decl.scope)
    sources = [node_id(LANGUAGE, guess, "TYPE") for guess in guesses]
    line = line_of(constructors[0]) if constructors else line_of(decl.syntax)
    columns = configured_columns(own_calls)  # EF6: `this.Property(t => t.Columns).HasColumnName("qu_columns")`
    attrs: dict = {"source_candidates": sources, "via": "mapping_class", **columns}
    if not table:
        attrs.update(guess=True, mapping="by_convention")
    return [
        Reference(source=decl.id, edge_type="REFERENCES", target=written, target_language=LANGUAGE,
                  candidates=guesses, target_kinds=("TYPE",), by_name=True, external=True, line=line,
                  attrs={"via": "mapping_class", **_members(own_calls), **columns}),
        maps_to(sources[0], table_candidates([table or written.rsplit(".", 1)[-1]]), line, attrs),
    ]


def _helpers(decl: TypeDecl, constructors: list[tree_sitter.Node]) -> list[tree_sitter.Node]:
    """The class's own methods its constructors call (`SetRelationships();`): a mapping split
    into steps is still the constructor's mapping."""
    called = {called_name(call) for method in constructors for call in descendants(method)
              if call.type == "invocation_expression" and _on_this(call)}
    return [m for m in decl.methods if m.type == "method_declaration"
            and node_text(m.child_by_field_name("name")) in called]


def _on_this(call: tree_sitter.Node) -> bool:
    """A call of the class's own (inherited) method: `Table("X")` or `this.Table("X")`."""
    callee = callee_of(call)
    return callee is not None and (callee[0] is None or callee[0].type == "this")


def _configuration_references(decl: TypeDecl, configured: tuple[str, str], names: Names) -> list[Reference]:
    """REFERENCES from the configuration to its entity; MAPS_TO from the entity to the table
    of `builder.ToTable(...)` in `Configure` (`mapping.Table(...)` in an automapping override's
    `Override`), with the strategy of its inheritance. An automapping override without a table
    still says its entity is automapped: to a table of the entity's name, FluentNHibernate's
    convention (a guess). An EF configuration without one leaves the table to the DbContext."""
    written, interface = configured
    configure = next((m for m in decl.methods
                      if node_text(m.child_by_field_name("name")) == CONFIGURATION_METHODS[interface]), None)
    if configure is None:
        return []
    builder = _first_parameter(configure)
    calls = [call for call in descendants(configure.child_by_field_name("body"))
             if receiver_root(call) == builder]
    # on the builder itself: `HasManyToMany(..).Table("Tags")`, `OwnsOne(..).ToTable("Addresses")` name other tables
    table = next((_table_from_arguments(call.child_by_field_name("arguments"), decl.syntax)
                  for call in calls if called_name(call) in ("ToTable", "Table") and _on_variable(call, builder)), None)
    guesses = names.type_candidates(written, decl.scope)
    sources = [node_id(LANGUAGE, guess, "TYPE") for guess in guesses]
    line = line_of(configure)
    via = CONFIGURATION_VIAS[interface]
    columns = configured_columns(calls)  # also on the REFERENCES: `ef_graph` maps them without a ToTable
    references = [Reference(
        source=decl.id, edge_type="REFERENCES", target=written, target_language=LANGUAGE,
        candidates=guesses, target_kinds=("TYPE",), by_name=True, external=True, line=line,
        attrs={"via": via, **_members(calls), **columns})]
    if table or via == "automapping_override":
        attrs: dict[str, object] = {"source_candidates": sources, "via": via, **_inheritance(calls), **columns}
        if not table:
            attrs.update(guess=True, mapping="by_convention")
        references.append(maps_to(sources[0], table_candidates([table or written.rsplit(".", 1)[-1]]), line, attrs))
    return references


def _on_variable(call: tree_sitter.Node, variable: str | None) -> bool:
    """`variable.M(...)`: called on the variable itself, not on what a call on it returns."""
    callee = callee_of(call)
    return callee is not None and callee[0] is not None and node_text(callee[0]) == variable


def _members(calls: list[tree_sitter.Node]) -> dict[str, dict]:
    """{"members": ...} of the properties the calls configure (`ef_configured`), when any."""
    members = configured_members(calls)
    return {"members": members} if members else {}


def _first_parameter(method: tree_sitter.Node) -> str | None:
    parameters = method.child_by_field_name("parameters")
    first = parameters.named_children[0] if parameters and parameters.named_children else None
    return node_text(first.child_by_field_name("name")) if first else None


# Mapping classes whose constructor maps their type argument: FluentNHibernate, NHibernate's
# mapping by code, Entity Framework 6.
CONSTRUCTOR_MAPPINGS = ("ClassMap", "SubclassMap", "ClassMapping", "SubclassMapping", "JoinedSubclassMapping",
                        "UnionSubclassMapping", "EntityTypeConfiguration")
# The name of a mapping base a package or the repository derives from the ORM's (`EntityMapBase<T>`,
# `EntitySubClassMapBase<T>`, `AuditedClassMapping<T>`; a mapper ORM's own: `CrudEntityMapper<T>`,
# `ClassMapper<T>`): known only with a table or key in the constructor, or a table handed to the base.
MAPPING_BASE_NAME = re.compile(r"(?:Map|MapBase|Mapper|Mapping|MappingBase)$")
# Namespaces of the ORMs whose mapping classes these are: a file importing one maps to a database.
ORM_NAMESPACES = ("NHibernate", "FluentNHibernate", "System.Data.Entity", "Microsoft.EntityFrameworkCore")
# What only a persistence mapping's constructor says: its table, schema or key.
PERSISTENCE_CALLS = frozenset({"Table", "ToTable", "Schema", "Id", "CompositeId", "ComposedId", "HasKey"})
INHERITANCE_STRATEGIES = {"UseTptMappingStrategy": "tpt", "UseTpcMappingStrategy": "tpc",
                          "UseTphMappingStrategy": "tph", "HasDiscriminator": "tph",
                          "DiscriminateSubClassesOnColumn": "tph", "UseUnionSubclassForInheritanceMapping": "tpc"}
# Configuration interfaces: the method configuring the entity, and the `via` of what it makes.
CONFIGURATION_METHODS = {"IEntityTypeConfiguration": "Configure", "IAutoMappingOverride": "Override"}
CONFIGURATION_VIAS = {"IEntityTypeConfiguration": "entity_type_configuration",
                      "IAutoMappingOverride": "automapping_override"}


def _inheritance(calls: list[tree_sitter.Node]) -> dict[str, str]:
    """{"inheritance": strategy} when the entity's calls name one."""
    found = next((INHERITANCE_STRATEGIES[name] for name in map(called_name, calls)
                  if name in INHERITANCE_STRATEGIES), None)
    return {"inheritance": found} if found else {}


@dataclass
class _Entity:
    """An entity type named by a DbContext, with what the context says about its table."""

    written: str  # the type argument as written: InvoiceLine
    context: TypeDecl
    line: int  # where the context first names it
    dbset: str | None = None  # the DbSet<T> property name
    table: str | None = None  # from .ToTable(...)
    schema: str | None = None  # the context's `HasDefaultSchema(...)`, for a table named without one
    inheritance: dict[str, str] = field(default_factory=dict)  # {"inheritance": "tpt"}


def _is_db_context(decl: TypeDecl) -> bool:
    """A DbContext: named so in its bases, or by what only a context declares (a `DbSet<T>`
    property, an `OnModelCreating(ModelBuilder)` override) when it derives from a context of the
    repository's own (`BlazorHeroContext : AuditableContext : IdentityDbContext<...>`), which
    one file cannot see."""
    if any(base.rsplit(".", 1)[-1].endswith("DbContext") for base in decl.bases):
        return True
    # a class only: an interface declaring DbSets (`IApplicationDbContext`) is what a context implements
    return decl.syntax.type == "class_declaration" and bool(decl.bases) and any(
        (member.type == "property_declaration" and _dbset_entity(member))
        or (member.type == "method_declaration" and node_text(member.child_by_field_name("name")) == "OnModelCreating")
        for member in body_members(decl.syntax))


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
            entity.table = entity.table or _to_table(node, context.syntax)
            entity.inheritance = entity.inheritance or _inheritance(_configuring_calls(node))
    schema = _default_schema(context)
    for entity in found.values():
        entity.schema = schema
    return list(found.values())


def _default_schema(context: TypeDecl) -> str | None:
    """The schema of `modelBuilder.HasDefaultSchema("s")`: EF's schema for every table the
    context maps without naming one."""
    return next((_table_from_arguments(call.child_by_field_name("arguments"), context.syntax)
                 for call in descendants(context.syntax)
                 if call.type == "invocation_expression" and called_name(call) == "HasDefaultSchema"), None)


def _dbset_entity(prop: tree_sitter.Node) -> str | None:
    """`T` of a `DbSet<T>` property."""
    return _type_argument(required_child(prop, "type"), "DbSet")


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


def _to_table(entity_call: tree_sitter.Node, owner: tree_sitter.Node) -> str | None:
    """The table of `Entity<T>().X().ToTable(...)` or `Entity<T>(b => b.ToTable(...))`."""
    return next((_table_from_arguments(call.child_by_field_name("arguments"), owner)
                 for call in _configuring_calls(entity_call) if called_name(call) == "ToTable"),
                None)


def _configuring_calls(entity_call: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Calls chained onto `Entity<T>()` and those inside its arguments."""
    return [*fluent_chain(entity_call),
            *descendants(entity_call.child_by_field_name("arguments"))]



def _table_attribute(syntax: tree_sitter.Node) -> str | None:
    """`s.X` from a `[Table("X", Schema = "s")]` attribute (EF, Dapper.Contrib, linq2db's `Name = "X"`)
    or a `[TableName("X")]` (PetaPoco, NPoco, Serenity's rows), `X` without a schema."""
    return _table_from_arguments(attribute_arguments(syntax, TABLE_ATTRIBUTES), syntax)


TABLE_ATTRIBUTES = ("Table", "TableName")


def _table_from_arguments(arguments: tree_sitter.Node | None, owner: tree_sitter.Node) -> str | None:
    """`("X", "s")`, `("X", schema: "s")`, `(name: "X", "s")` or `("X", Schema = "s")` -> `s.X`.
    An argument without a name takes its position's parameter (`name`, then `schema`), as C#
    binds a positional argument after a named one in its own position. A name the literal is
    not written in is the `owner` type's own constant, field or property (`ToTable("Orders",
    SchemaName)`), read only when needed: most arguments are literals."""
    if arguments is None:
        return None
    said: dict[str, str | None] = {}
    owned: dict[str, str] | None = None
    for position, (name, value) in enumerate(call_arguments(arguments)):
        parameter = name.lower() if name else ("name", "schema")[position] if position < 2 else None
        if parameter is None:
            continue
        said[parameter] = string_value(value, {})
        if said[parameter] is None and value.type in ("identifier", "member_access_expression"):
            owned = string_fields(owner) if owned is None else owned
            said[parameter] = string_value(value, owned) or owned.get(node_text(value).rsplit(".", 1)[-1]) \
                if _names_own_member(value, owner) else None
    table = said.get("name")
    return table and qualify(said.get("schema") or "", table)


def _names_own_member(value: tree_sitter.Node, owner: tree_sitter.Node) -> bool:
    """`SchemaName`, `this.SchemaName` or `Context.SchemaName` inside `Context`: a member of the
    owner itself (another type's constant is not known from this file)."""
    if value.type == "identifier":
        return True
    written = node_text(required_child(value, "expression"))
    return written == "this" or written == node_text(owner.child_by_field_name("name"))


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
    attribute = _table_attribute(local.syntax) if local else None
    written = [attribute, entity.table, entity.dbset, class_name]
    tables = table_candidates([qualify(entity.schema, name) if entity.schema and name and "." not in name else name
                               for name in written])
    attrs: dict[str, object] = {**entity.inheritance}
    if not (attribute or entity.table):
        attrs.update(guess=True, mapping="by_convention")
    if local:
        mapping = maps_to(local.id, tables, entity.line, attrs)
    else:
        sources = [node_id(LANGUAGE, guess, "TYPE") for guess in guesses]
        mapping = maps_to(sources[0], tables, entity.line, {"source_candidates": sources, **attrs})
    reference = Reference(
        source=entity.context.id, edge_type="REFERENCES", target=entity.written,
        target_language=LANGUAGE, candidates=guesses, target_kinds=("TYPE",), by_name=True,
        external=True, line=entity.line,
    )
    return [reference, mapping]
