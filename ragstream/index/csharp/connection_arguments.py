"""Which argument of a data-access call is the connection (or transaction, or EF context) it runs
on, told by what the code declares, not by words a name contains: a `transactionSql` text in a
ledger app is SQL, a `cs` handed first to `SqlHelper.ExecuteReader(cs, proc)` is the connection.

- a name declared (a parameter, a local, a field or property of the enclosing type; `var x = new
  T(..)` declares T) with a connection type (`SqlConnection`, `IDbConnection`, `*Transaction`,
  `DbContext`, `DatabaseFacade`) is one; so is the ADO.NET / EF property of that name
  (`cmd.Connection`, `context.Database`);
- a name declared a string is one only when it is a connection's own name as a whole (`conn`,
  `connectionString`, `_db`, `tx`), never a name that merely contains one (`transactionSql`);
- a name the scope does not declare (a base's field) is one when its name says so (`_dbConnection`);
- a static helper's call (`SqlHelper.ExecuteReader(a, b, ..)`, its receiver a type) whose first
  two arguments are both strings takes the connection first, whatever it is named.
"""
from __future__ import annotations

import re

import tree_sitter

from ragstream.index.csharp.syntax import callee_of, call_arguments, descendants, node_text, required_child

_CONNECTION_TYPE = re.compile(r"(?:Connection|Transaction|DbContext|Context|DatabaseFacade)$")
_CONNECTION_PROPERTY = frozenset({"Connection", "Transaction", "Database"})
_CONNECTION_NAME = re.compile(
    r"_?(?:conn|cnn|cn|connection|sqlConnection|db|dbContext|context|database|tx|tran|trans|transaction)"
    r"(?:String|Str)?", re.IGNORECASE)
_CONNECTION_WORD = re.compile(r"conn|cnn|transaction|context|database|^_?(?:db|tx|tran|trans)$", re.IGNORECASE)
_STRING_TYPES = frozenset({"string", "String", "System.String", "string?"})
_MEMBERS = ("method_declaration", "constructor_declaration", "property_declaration", "local_function_statement")


def declared_types(scope: tree_sitter.Node) -> dict[str, str]:
    """Name -> the type it is declared with, as the scope sees it: the enclosing member's
    parameters and locals, and the enclosing type's fields and properties."""
    member = scope
    while member.parent is not None and member.type not in _MEMBERS:
        member = member.parent
    found: dict[str, str] = {}
    owner = member.parent.parent if member.parent is not None and member.parent.parent is not None else None
    for node in owner.named_children if owner is not None and owner.type.endswith("_declaration") else ():
        if node.type == "declaration_list":
            for declared in node.named_children:
                found |= _declared_here(declared)
    for node in descendants(member):
        if node.type in ("parameter", "variable_declaration"):
            found |= _declared_here(node)
    return found


def _declared_here(node: tree_sitter.Node) -> dict[str, str]:
    """The names a parameter, variable, field or property declaration declares, with their type."""
    if node.type in ("field_declaration", "event_field_declaration"):
        return {name: kind for child in node.named_children if child.type == "variable_declaration"
                for name, kind in _declared_here(child).items()}
    written = node.child_by_field_name("type")
    kind = _last_segment(node_text(written)) if written is not None else ""
    if node.type in ("parameter", "property_declaration"):
        name = node.child_by_field_name("name")
        return {node_text(name): kind} if name is not None and kind else {}
    if node.type != "variable_declaration":
        return {}
    found = {}
    for declarator in (child for child in node.named_children if child.type == "variable_declarator"):
        name = declarator.child_by_field_name("name") or declarator.named_children[0]
        created = next((child for child in declarator.named_children if child.type == "object_creation_expression"), None)
        if created is not None and kind == "var":
            found[node_text(name)] = _last_segment(node_text(required_child(created, "type")))
        elif kind and kind != "var":
            found[node_text(name)] = kind
    return found


def _last_segment(written: str) -> str:
    """`IDbConnection` of `System.Data.IDbConnection?`, `DbSet` of `DbSet<Order>`."""
    return written.split("<", 1)[0].rstrip("?").rsplit(".", 1)[-1]


def is_connection(value: tree_sitter.Node, declared: dict[str, str]) -> bool:
    """An argument that is the connection, transaction or context a command runs on."""
    if value.type == "member_access_expression":
        name = node_text(required_child(value, "name"))
        receiver = required_child(value, "expression")
        if receiver.type != "this" and name in _CONNECTION_PROPERTY:
            return True
    elif value.type == "identifier":
        name = node_text(value)
    else:
        return False
    kind = declared.get(name)
    if kind is None:  # declared where the scope cannot see (a base's field): its name is all there is
        return bool(_CONNECTION_WORD.search(name))
    if kind not in _STRING_TYPES:
        return bool(_CONNECTION_TYPE.search(kind))
    return bool(_CONNECTION_NAME.fullmatch(name))


def static_connection_first(call: tree_sitter.Node, declared: dict[str, str]) -> bool:
    """`SqlHelper.ExecuteReader(cs, proc)`: a call on a type (a capitalised name the scope does not
    declare) whose first two arguments are strings takes the connection string first."""
    callee = callee_of(call)
    receiver = callee[0] if callee else None
    if receiver is None or receiver.type not in ("identifier", "qualified_name", "member_access_expression"):
        return False
    first = node_text(receiver).split(".", 1)[0]
    if not first[:1].isupper() or first in declared:
        return False
    values = [value for named, value in call_arguments(required_child(call, "arguments")) if named is None]
    return len(values) >= 2 and all(_is_string(value, declared) for value in values[:2])


def _is_string(value: tree_sitter.Node, declared: dict[str, str]) -> bool:
    """A string literal, or a name declared a string."""
    if value.type in ("string_literal", "verbatim_string_literal", "interpolated_string_expression",
                      "raw_string_literal"):
        return True
    return value.type == "identifier" and declared.get(node_text(value)) in _STRING_TYPES
