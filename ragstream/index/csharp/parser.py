"""C# parser (tree-sitter): namespaces, types and methods, with their calls, bases, Entity
Framework mappings and the tables that inline SQL reads or writes.

A name used in the file is turned into qualified guesses in C# lookup order: the enclosing
types and namespaces from the innermost out, then each `using` namespace, then the name as
written (`using X = A.B;` aliases are expanded instead). `graph_build.resolve` keeps the guess
that exists. A reference's `target` is the name as written (`DbContext`,
`IDbConnection.ExecuteAsync`), which is what an unresolved EXTERNAL node is called; a call
without a receiver is qualified by its own type (`Billing.Services.InvoiceService.Log`).

The folder's other modules are listed in its `__init__`.
"""
from __future__ import annotations

import tree_sitter

from ragstream.errors import IndexingError
from ragstream.index.model import ParsedFile, file_node
from ragstream.index.csharp.declarations import (
    Declarations, Names, Output, collect, inherits, type_node,
)
from ragstream.index.csharp.ef import ef_mapping
from ragstream.index.csharp.member_fields import declared_fields
from ragstream.index.csharp.methods import add_methods
from ragstream.index.csharp.preprocessor import first_branches, tuple_calls_named
from ragstream.index.csharp.naming_strategies import declared_naming
from ragstream.index.csharp.properties import add_properties
from ragstream.index.csharp.sql_parameters import sql_constants
from ragstream.index.csharp.syntax import LANGUAGE, first_error_line, grammar

__all__ = ["parse_csharp"]


def parse_csharp(path: str, text: str) -> ParsedFile:
    """Parse one C# file; raises IndexingError when it is broken and no type is recognisable."""
    root = tree_sitter.Parser(grammar()).parse(tuple_calls_named(first_branches(text)).encode("utf-8")).root_node
    found = Declarations(file=file_node(path, len(text.splitlines()), LANGUAGE))
    collect(root, "", found.file.id, found)
    out = Output(ParsedFile(path=path, language=LANGUAGE, root_id=found.file.id))
    if root.has_error:
        where = f"{path}:{first_error_line(root)}"
        if not found.types:
            raise IndexingError("not parseable as C#: no type declaration found", where=where,
                                hint="the file is indexed as plain text")
        out.parsed.warnings.append(f"{where}: syntax error; declarations near it may be missing")
    if found.usings:  # what the file imports: which of several same-named extension methods a call means
        found.file.attrs["usings"] = list(found.usings)
    naming = declared_naming(text)
    if naming:  # `PostgreSqlDialect.Provider`: tables and columns named snake_case (`naming_strategies`)
        found.file.attrs["naming_strategy"] = naming
    # each type's SQL-like constants, by type: a partial type's other parts are other files (`sql_parameters`)
    constants = {decl.id: values for decl in found.types if (values := sql_constants(decl.syntax))}
    if constants:
        found.file.attrs["string_constants"] = constants
    # the fields a method of another file may name: another part's, a subclass's (`member_fields`)
    names = Names(tuple(found.usings), found.aliases)
    fields = {decl.id: declared for decl in found.types if (declared := declared_fields(decl, names))}
    if fields:
        found.file.attrs["member_fields"] = fields
    out.add(found.file)
    for namespace in found.namespaces:
        out.add(namespace)
    _add_types(found, names, out)
    return out.parsed


def _add_types(found: Declarations, names: Names, out: Output) -> None:
    ef = ef_mapping(found.types, names, found.file.path)
    for decl in found.types:
        out.add(type_node(decl, names, found.file.path, ef.roles.get(decl.id)))
        out.refer(inherits(decl, names))
        add_properties(decl, names, found.file.path, out)
        add_methods(decl, names, found.file.path, out)
    for node in ef.nodes:
        out.add(node)
    out.refer(ef.references)
