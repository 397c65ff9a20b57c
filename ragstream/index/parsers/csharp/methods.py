"""METHOD nodes of a type, with their calls and the tables their inline SQL uses."""
from __future__ import annotations

import tree_sitter

from ragstream.index.model import node_id
from ragstream.index.parsers.csharp.calls import TypeScope, method_calls
from ragstream.index.parsers.csharp.declarations import Names, Output, TypeDecl, declaration_node
from ragstream.index.parsers.csharp.docs import modifiers
from ragstream.index.parsers.csharp.inline_sql import inline_sql, table_references
from ragstream.index.parsers.csharp.strings import string_fields
from ragstream.index.parsers.csharp.syntax import LANGUAGE, node_text
from ragstream.index.parsers.csharp.tables import first_of_each
from ragstream.index.parsers.csharp.variables import member_types


def add_methods(decl: TypeDecl, names: Names, path: str, out: Output) -> None:
    """One METHOD node per name (overloads share it), with its calls and inline SQL."""
    scope = TypeScope(decl, names, member_types(decl.syntax), string_fields(decl.syntax))
    overloads: dict[str, list[tree_sitter.Node]] = {}
    for syntax in decl.methods:
        overloads.setdefault(node_text(syntax.child_by_field_name("name")), []).append(syntax)
    for name, group in overloads.items():
        method_id = node_id(LANGUAGE, f"{decl.name}.{name}", "METHOD")
        sql = [found for syntax in group for found in inline_sql(syntax, scope.strings)]
        attrs: dict = {"modifiers": modifiers(group[0])}
        if len(group) > 1:
            attrs["overloads"] = len(group)
        if sql:
            attrs["inline_sql"] = [text for text, _ in sql]
        out.add(declaration_node(group[0], "METHOD", f"{decl.name}.{name}", path, decl.id, attrs))
        calls = (call for syntax in group for call in method_calls(syntax, method_id, scope))
        out.refer(first_of_each(calls))
        out.refer(table_references(method_id, sql))
