"""What ORM mapping code configures, member by member: the edges that answer "how is X mapped".

`ef.py` finds which table an entity maps to; this module links the mapping code to what it
names, so a mapping question reaches the code, the entity, its properties and the types they
hold (all REFERENCES, attrs `via` saying which construct made them):

- The properties a mapping names in its lambdas (`builder.Property(p => p.Title)`,
  `HasOne(x => x.ShippingAddress)`, `OwnsOne(b => b.Colour)`, FluentNHibernate's
  `Map(x => x.Body)`, `References(x => x.LatestRevision)`, `HasManyToMany(x => x.Tags)`): attrs
  `members` of the mapping code's REFERENCES to the entity, {property: {`configured`: the call,
  `owned` for an owned type (`OwnsOne`/`OwnsMany`: `ef_graph` maps the property's type to its
  owner's table), `conversion` for a value conversion, `table` for a join table
  (`HasManyToMany(...).Table("TagItem")`, which a mapping answer names)}}. Attributes, not
  edges to each property: the graph's walks (search expansion, impact) go on as before. Only
  calls on the builder itself: a nested owned-type builder's lambdas name the owned type's members.
- A model-building method (a method taking EF's `ModelBuilder`: `OnModelCreating`, a module's
  `ICustomModelBuilder.Build(ModelBuilder)`, a helper it calls) REFERENCES each entity its
  `Entity<T>(...)` calls configure (`via="model_builder"`, `members` as above), and the types it
  registers by `typeof(X)` (attrs `registers`: `modelBuilder.Entity(type)` over the subclasses
  of `EntityBase`).
- A value converter (`ValueConverter<TModel, TProvider>`, Vogen's `[EfCoreConverter<T>]`)
  REFERENCES the type it converts (`via="value_converter"`): how a value object is stored.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

import tree_sitter

from ragstream.index.csharp.declarations import Names, TypeDecl
from ragstream.index.csharp.methods import parameter_signature
from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import (
    LANGUAGE, call_arguments, called_name, callee_of, child_of_type, descendants, fluent_chain, lambda_parameter, line_of,
    node_text, type_arguments, type_name,
)
from ragstream.index.model import Reference, node_id

# Calls whose first lambda names a member of the entity being configured (EF Core's fluent API,
# FluentNHibernate's ClassMap, NHibernate's mapping by code). `WithMany(x => x.Orders)` names a
# member of the other side and is left out.
MEMBER_CALLS = frozenset({
    "Property", "HasKey", "HasIndex", "HasAlternateKey", "HasOne", "HasMany", "OwnsOne", "OwnsMany", "Ignore",
    "Navigation", "ComplexProperty", "PrimitiveCollection", "HasDiscriminator",
    "Map", "Id", "References", "HasManyToMany", "Component", "Version", "CompositeId", "ManyToOne", "OneToOne",
    "Bag", "Set", "List",
})
OWNED_CALLS = frozenset({"OwnsOne", "OwnsMany", "ComplexProperty", "Component"})
CONVERSION_CALLS = frozenset({"HasConversion", "HasVogenConversion", "CustomType"})
MODEL_BUILDERS = frozenset({"ModelBuilder", "DbModelBuilder"})
CONVERTER_BASES = frozenset({"ValueConverter"})
CONVERTER_ATTRIBUTES = frozenset({"EfCoreConverter", "ValueConverter"})


def configured_members(calls: Iterable[tree_sitter.Node]) -> dict[str, dict[str, object]]:
    """{property: what the mapping says of it} for each property of the entity that the member
    calls among `calls` name: the call (`configured`), `owned`, `conversion`, `many_to_many`
    (`HasMany(...).WithMany(...)`, `HasManyToMany`) with its join `table` or `join_entity`; also the
    parts of a composite key (`HasKey(e => new { e.A, e.B })`) and the foreign key of a
    `HasOne(...).WithMany(...).HasForeignKey(d => d.ShipVia)` (this entity's property)."""
    found: dict[str, dict[str, object]] = {}
    for call in calls:
        called = called_name(call)
        if called in MEMBER_CALLS:  # `HasKey(e => new { e.OrderId, e.ProductId })`: each part of a composite key
            for part in _composite_members(call):
                found.setdefault(part, {"configured": called})
        member = _lambda_member(call) if called in MEMBER_CALLS else None
        if member is None or member in found:
            continue
        chain = list(fluent_chain(call))
        if called == "HasOne" and "WithMany" in map(called_name, chain):  # this entity holds the key
            for key in (_lambda_member(c) for c in chain if called_name(c) == "HasForeignKey"):
                if key:
                    found.setdefault(key, {"configured": "HasForeignKey"})
        said: dict[str, object] = {"configured": called}
        if called in OWNED_CALLS:
            said["owned"] = True
        if CONVERSION_CALLS & {called_name(c) for c in chain}:
            said["conversion"] = True
        table = next((_string_argument(c) for c in chain if called_name(c) in ("Table", "ToTable")), None)
        if called in ("HasMany", "HasManyToMany") and (called == "HasManyToMany" or "WithMany" in map(called_name, chain)):
            said["many_to_many"] = True
            said.update(_join(chain))
        if table:
            said["table"] = table
        found[member] = said
    return found


def _join(chain: list[tree_sitter.Node]) -> dict[str, str]:
    """What EF Core's `UsingEntity` says of a many-to-many relation's join: its entity type
    (`UsingEntity<PostTag>(...)`, `join_entity`), its table (`UsingEntity("PostTags", ...)` or
    `UsingEntity(j => j.ToTable("PostTags"))`, `table`); EF6's `Map(m => m.ToTable("PostTags"))`
    (`Map(m => { m.ToTable(..); m.MapLeftKey(..); })`), its table."""
    said: dict[str, str] = {}
    for call in (c for c in chain if called_name(c) == "Map"):
        arguments = call.child_by_field_name("arguments")
        table = next((_string_argument(inner) for inner in descendants(arguments)
                      if inner.type == "invocation_expression" and called_name(inner) == "ToTable"), None)
        if table:
            said["table"] = table
    for call in (c for c in chain if called_name(c) == "UsingEntity"):
        callee = callee_of(call)
        written = type_arguments(callee[1]) if callee and callee[1].type == "generic_name" else []
        if written and not written[0].startswith("Dictionary"):  # a property bag is no entity of the model
            said["join_entity"] = written[0]
        arguments = call.child_by_field_name("arguments")
        table = _string_argument(call) or next(
            (_string_argument(inner) for inner in descendants(arguments) if inner.type == "invocation_expression"
             and called_name(inner) == "ToTable"), None)
        if table:
            said["table"] = table
    return said


def configured_columns(calls: Iterable[tree_sitter.Node]) -> dict[str, dict[str, str]]:
    """{"columns": {property: column}} from EF's `Property(x => x.P).HasColumnName("col")` and
    FluentNHibernate's `Map(x => x.P).Column("col")` (`Id(..)`, `References(..)` alike), when any."""
    columns = {}
    for call in calls:
        member = _lambda_member(call) if called_name(call) in _MEMBER_CALLS else None
        column = next((_string_argument(c) for c in fluent_chain(call) if called_name(c) in _COLUMN_CALLS), None) \
            if member else None
        if member and column:
            columns[member] = column
    return {"columns": columns} if columns else {}


_MEMBER_CALLS = frozenset({"Property", "Map", "Id", "References"})
_COLUMN_CALLS = frozenset({"HasColumnName", "Column"})


def model_builder_references(decl: TypeDecl, names: Names) -> list[Reference]:
    """REFERENCES from each method of `decl` that takes a `ModelBuilder` to the entities its
    `Entity<T>(...)` calls configure, their named properties, and the types it registers by
    `typeof(X)`."""
    overloads: dict[str, int] = {}
    for method in decl.methods:
        name = node_text(method.child_by_field_name("name"))
        overloads[name] = overloads.get(name, 0) + 1
    found: list[Reference] = []
    for method in decl.methods:
        builder = _model_builder_parameter(method)
        if builder is None:
            continue
        name = node_text(method.child_by_field_name("name"))
        source = node_id(LANGUAGE, f"{decl.name}.{name}"
                         + (parameter_signature(method) if overloads[name] > 1 else ""), "METHOD")
        # entity -> (line, members, columns)
        configured: dict[str, tuple[int, dict[str, dict[str, object]], dict[str, str]]] = {}
        for call in descendants(method.child_by_field_name("body")):
            entity = _entity_argument(call)
            if entity is not None:
                line, members, columns = configured.setdefault(entity, (line_of(call), {}, {}))
                calls = _entity_calls(call)
                members.update({k: v for k, v in configured_members(calls).items() if k not in members})
                columns.update(configured_columns(calls).get("columns", {}))
            elif call.type == "typeof_expression":
                written = type_name(call.child_by_field_name("type"))
                if written:
                    found.append(_type_reference(source, written, names, decl.scope, line_of(call),
                                                 {"via": "model_builder", "registers": "subtypes"}))
        found += [_type_reference(source, entity, names, decl.scope, line,
                                  {"via": "model_builder", **({"members": members} if members else {}),
                                   **({"columns": columns} if columns else {})})
                  for entity, (line, members, columns) in configured.items()]
    return found


def converter_references(decl: TypeDecl, names: Names) -> list[Reference]:
    """REFERENCES from a value converter class to the type it converts: `ValueConverter<TModel,
    TProvider>` as a base, `[EfCoreConverter<T>]` attributes (Vogen)."""
    written = [arguments[0] for generic in _generic_names(_base_list(decl))
               if type_name(generic) in CONVERTER_BASES and (arguments := type_arguments(generic))]
    for attribute_list in (c for c in decl.syntax.children if c.type == "attribute_list"):
        for attribute in (a for a in attribute_list.named_children if a.type == "attribute"):
            generic = attribute.child_by_field_name("name")
            if generic is not None and generic.type == "generic_name" and type_name(generic) in CONVERTER_ATTRIBUTES:
                written += type_arguments(generic)[:1]
    return [_type_reference(decl.id, entity, names, decl.scope, line_of(decl.syntax), {"via": "value_converter"})
            for entity in dict.fromkeys(written)]


def _type_reference(source: str, written: str, names: Names, scope: str, line: int, attrs: dict) -> Reference:
    return Reference(source=source, edge_type="REFERENCES", target=written, target_language=LANGUAGE,
                     candidates=names.type_candidates(written, scope), target_kinds=("TYPE",), by_name=True,
                     external=False, line=line, attrs=attrs)


def _model_builder_parameter(method: tree_sitter.Node) -> str | None:
    """The name of the method's `ModelBuilder` parameter, if it has one."""
    parameters = method.child_by_field_name("parameters")
    for parameter in parameters.named_children if parameters else ():
        written = type_name(parameter.child_by_field_name("type")) if parameter.type == "parameter" else None
        if written and written.rsplit(".", 1)[-1] in MODEL_BUILDERS:
            return node_text(parameter.child_by_field_name("name"))
    return None


def _entity_argument(call: tree_sitter.Node) -> str | None:
    """`T` of `x.Entity<T>(...)`."""
    callee = callee_of(call)
    if callee is None or callee[1].type != "generic_name" or type_name(callee[1]) != "Entity":
        return None
    arguments = type_arguments(callee[1])
    return arguments[0] if arguments else None


def _entity_calls(entity_call: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The calls that configure the entity of `Entity<T>()`: chained onto it, or made on the
    builder its lambda receives (`Entity<T>(b => { b.Property(...); })`)."""
    calls = list(fluent_chain(entity_call))
    arguments = entity_call.child_by_field_name("arguments")
    for _, value in call_arguments(arguments) if arguments else ():
        parameter = lambda_parameter(value)
        if parameter:
            calls += [c for c in descendants(value.child_by_field_name("body")) if receiver_root(c) == parameter]
    return calls


def _composite_members(call: tree_sitter.Node) -> list[str]:
    """`A`, `B` of a call whose first argument is `x => new { x.A, x.B }`."""
    arguments = call.child_by_field_name("arguments")
    values = [value for _, value in call_arguments(arguments)] if arguments else []
    if not values or values[0].type != "lambda_expression":
        return []
    parameter, body = lambda_parameter(values[0]), values[0].child_by_field_name("body")
    if body is None or body.type != "anonymous_object_creation_expression":
        return []
    return [node_text(part.child_by_field_name("name")) for part in descendants(body)
            if part.type == "member_access_expression" and node_text(part.child_by_field_name("expression")) == parameter]


def _lambda_member(call: tree_sitter.Node) -> str | None:
    """`P` of a call whose first argument is `x => x.P` (or `x => x.P!`)."""
    arguments = call.child_by_field_name("arguments")
    values = [value for _, value in call_arguments(arguments)] if arguments else []
    if not values or values[0].type != "lambda_expression":
        return None
    parameter, body = lambda_parameter(values[0]), values[0].child_by_field_name("body")
    while body is not None and body.type in ("postfix_unary_expression", "cast_expression"):
        body = body.named_children[-1] if body.type == "cast_expression" else body.named_children[0]
    if body is None or body.type != "member_access_expression":
        return None
    expression = body.child_by_field_name("expression")
    return node_text(body.child_by_field_name("name")) if node_text(expression) == parameter else None


def receiver_root(call: tree_sitter.Node) -> str | None:
    """`b` of `b.A().B()`; None for calls on anything but a plain name."""
    callee = callee_of(call)
    while callee and callee[0] is not None:
        if callee[0].type == "identifier":
            return node_text(callee[0])
        callee = callee_of(callee[0])
    return None


def _string_argument(call: tree_sitter.Node) -> str | None:
    arguments = call.child_by_field_name("arguments")
    values = [string_value(value, {}) for name, value in call_arguments(arguments) if not name] if arguments else []
    return values[0] if values else None


def _base_list(decl: TypeDecl) -> list[tree_sitter.Node]:
    base_list = child_of_type(decl.syntax, "base_list")
    return list(base_list.named_children) if base_list else []


def _generic_names(nodes: list[tree_sitter.Node]) -> Iterator[tree_sitter.Node]:
    for node in nodes:
        if node.type == "generic_name":
            yield node
        elif node.type == "qualified_name":
            name = node.child_by_field_name("name")
            if name is not None and name.type == "generic_name":
                yield name
