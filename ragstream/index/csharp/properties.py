"""PROPERTY nodes of a type, and the tables a Dapper.Rainbow database names by its properties.

Properties are what ORMs map to columns by name (`SqlJob.StateName` is filled from the
`StateName` column), so a question about renaming a column reaches them. They are small and
part of their type's chunk, so they get no chunk of their own. A property records its declared
type's qualified guesses (`returns`, as methods do), so the resolver follows calls on it
(`context.Connection.CreateExpiredJob()`, `Current.DB.Queries.Insert(...)`). A class deriving from Dapper's
`Database<T>` names its tables by `Table<E>` properties (`public Table<Revision> Revisions`):
the entity `E` and the property itself map to the table the property names (MAPS_TO,
via="dapper_rainbow", a convention, so marked as a guess), and the resolver makes a call on that property
(`Current.DB.Queries.Insert(...)`) write the table (`attrs["table"]`).
"""
from __future__ import annotations

import tree_sitter

from ragstream.index.model import Reference, node_id
from ragstream.index.csharp.declarations import Names, Output, TypeDecl, declaration_node
from ragstream.index.csharp.docs import modifiers
from ragstream.index.csharp.attributes import attribute_string, attribute_type
from ragstream.index.csharp.strings import string_value, type_parameters
from ragstream.index.csharp.syntax import (LANGUAGE, attribute_arguments, body_members, call_arguments, child_of_type,
                                         children_of_type, has_attribute, node_text, type_arguments, type_name)
from ragstream.index.csharp.table_refs import maps_to, table_candidates
from ragstream.index.csharp.variables import generic_of, parameter_binding


def add_properties(decl: TypeDecl, names: Names, path: str, out: Output) -> None:
    """One PROPERTY node per property of the type; Dapper.Rainbow tables as MAPS_TO."""
    rainbow = any(base.rsplit(".", 1)[-1] == "Database" for base in decl.bases)
    for member in body_members(decl.syntax):
        if member.type != "property_declaration":
            continue
        name = node_text(member.child_by_field_name("name"))
        written = member.child_by_field_name("type")
        attrs: dict[str, object] = {"modifiers": modifiers(member), "type": node_text(written)}
        table_type = written if rainbow and written is not None and written.type == "generic_name" \
            and type_name(written) == "Table" else None
        if table_type is not None:  # calls on it read or write this table
            attrs["table"] = name
        declared = type_name(written)
        if declared:  # for the resolver: calls on `x.Property` go to this type's members
            attrs["returns"] = list(names.type_candidates(declared, decl.name))
        generic = generic_of(written)
        column = _column_attribute(member)
        if column:  # `[Column("FirstName")] FirstMidName`: the ORM fills it from that column (ef_graph)
            attrs["column"] = column
        alias = attribute_string(member, ("Alias",))
        if alias:  # OrmLite `[Alias("full_name")] Name`: the column it is stored in (`code_first_tables`)
            attrs["alias"] = alias
        if has_attribute(member, ("Ignore", "Reference")):  # OrmLite stores it in no column of its own
            attrs["orm_ignored"] = True
        referenced = attribute_type(member, ("References", "ForeignKey"))
        if referenced:  # OrmLite `[References(typeof(Org))] OrgId`: a foreign key to Org's table
            attrs["references"] = list(names.type_candidates(referenced, decl.name))
        if has_attribute(member, ("NotMapped",)):  # EF stores it nowhere (ef_columns)
            attrs["not_mapped"] = True
        if not _settable(member):  # `{ get; }`, `=> ...`: no column by EF's convention (ef_columns)
            attrs["read_only"] = True
        if generic is not None:  # `DbSet<Order> Orders`: a call on it reaches `Order` (data_access)
            carried: dict[str, object] = {"generic": generic.name, "entities": [
                list(names.type_candidates(argument, decl.name)) for argument in generic.arguments]}
            binding = parameter_binding(generic, [], type_parameters(decl.syntax))
            if binding is not None:  # `IQueryable<T> Entities` of `IRepository<T>`: the receiver's argument
                carried["parameters"] = binding
            attrs["generic"] = carried
        out.add(declaration_node(member, "PROPERTY", f"{decl.name}.{name}", path, decl.id, attrs))
        if table_type is not None:
            out.refer(_rainbow_table(decl, names, member, name, table_type))


def _settable(member: tree_sitter.Node) -> bool:
    """The property has a `set` or `init` accessor."""
    accessors = child_of_type(member, "accessor_list")
    return accessors is not None and any(
        child.type in ("set", "init") for accessor in children_of_type(accessors, "accessor_declaration")
        for child in accessor.children)


def _column_attribute(member: tree_sitter.Node) -> str | None:
    """The column of `[Column("X")]` (EF, data annotations) or `[Column(Name = "X")]` (LINQ to SQL)."""
    arguments = attribute_arguments(member, ("Column",))
    values = [(name, string_value(value, {})) for name, value in call_arguments(arguments)] if arguments else []
    return next((value for name, value in values if value and name in (None, "Name")), None)


def _rainbow_table(decl: TypeDecl, names: Names, member: tree_sitter.Node, table: str,
                   written: tree_sitter.Node) -> list[Reference]:
    entities = type_arguments(written)
    if len(entities) != 1:
        return []
    sources = [node_id(LANGUAGE, guess, "TYPE") for guess in names.type_candidates(entities[0], decl.name)]
    line = member.start_point.row + 1
    attrs = {"source_candidates": sources, "source_in_repository": True, "via": "dapper_rainbow",
             "mapping": "by_convention", "guess": True, "property": f"{decl.name}.{table}"}
    # the property itself stands for the table in code: it maps to it, by its name
    handle = node_id(LANGUAGE, f"{decl.name}.{table}", "PROPERTY")
    return [maps_to(sources[0], table_candidates([table]), line, attrs),
            maps_to(handle, table_candidates([table]), line, {"via": "dapper_rainbow", "guess": True})]
