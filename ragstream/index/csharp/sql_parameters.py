"""SQL handed to a helper: a method whose string parameter becomes a command's text runs what
its callers pass it.

ADO.NET code keeps the command plumbing in one helper and passes it the text:
`SetCommandType(cmd, CommandType.StoredProcedure, SP_ISSUE_CREATE)` with
`void SetCommandType(IDbCommand c, CommandType t, string text) { c.CommandType = t; c.CommandText = text; }`,
`CreateCommand(sql)`, `ExecuteNonQuery(connectionString, query)`. The helper's own SQL is
unknown (its text is a parameter); the caller's is known. So:

- at parse time a METHOD records `sql_parameters`: the argument positions of its string
  parameters handed as they are to a data-access sink (`CommandText = p`, `new SqlCommand(p, ..)`,
  Dapper's / EF Core's SQL argument: `inline_sql.sql_arguments`); an extension method's
  receiver is no argument (`conn.Create(sql)`: `sql` is argument 0);
- each call records the SQL-like strings it passes (`string_arguments`: [position, text]) and
  the plain names it passes that the file does not declare (`member_arguments`: [position,
  name]): a constant of another part of a partial type (C# spec, "Partial types": the parts
  are one type, their members one declaration space) or of a base;
- each type records its own string constants that read as SQL on its FILE node
  (`string_constants`, type id -> name -> text): the parts of a partial type live in several files;
- once calls are resolved (`sql_parameter_references`), a call to such a helper makes the caller
  run the text it passes: CALLS to the procedure a name-only text names (SQL Server runs a batch
  that is only a name as that procedure, and `CommandType.StoredProcedure` says so outright), READS /
  WRITES of the tables SQL text uses; each edge `via="sql_parameter"` with the `helper` it went
  through. A helper that forwards its own parameter to such a helper is one too (`forwards`).
"""
from __future__ import annotations

from collections import deque
from dataclasses import replace

import networkx as nx
import tree_sitter

from ragstream.index.csharp.argument_values import is_string_parameter
from ragstream.index.csharp.member_scopes import member_scopes
from ragstream.index.csharp.inline_sql import (
    SqlText, procedure_references, reads_as_sql, sql_arguments, table_references,
)
from ragstream.index.csharp.strings import string_fields, string_value
from ragstream.index.csharp.syntax import call_arguments, descendants, node_text
from ragstream.index.csharp.table_refs import first_of_each
from ragstream.index.model import Reference

VIA = "sql_parameter"


def sql_parameters(method: tree_sitter.Node, extension: bool) -> list[int]:
    """Argument positions of the string parameters the method hands as they are to a data-access
    sink (the first SQL argument of a call or command, or `CommandText = p`); a parameter the
    method assigns anew first is another value, so it must not be reassigned."""
    parameters = method.child_by_field_name("parameters")
    listed = [p for p in parameters.named_children if p.type == "parameter"] if parameters is not None else []
    names = {node_text(p.child_by_field_name("name")): position - (1 if extension else 0)
             for position, p in enumerate(listed) if is_string_parameter(p)}
    if not names:
        return []
    reassigned = {node_text(node.child_by_field_name("left")) for node in descendants(method)
                  if node.type == "assignment_expression"}
    found = set()
    for node in descendants(method):
        arguments = sql_arguments(node)
        first = arguments[0] if arguments else None
        if first is not None and first.type == "identifier" and node_text(first) in names \
                and node_text(first) not in reassigned:
            found.add(names[node_text(first)])
    return sorted(position for position in found if position >= 0)


def passed_strings(call: tree_sitter.Node, strings: dict[str, str], known: set[str]) -> dict:
    """What a call passes that a helper may run: SQL-like strings (`string_arguments`) and names
    the method's file does not declare (`member_arguments`, `this.X` as `X`), by position."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return {}
    found: dict[str, list] = {}
    for position, (named, value) in enumerate(call_arguments(arguments)):
        if named is not None:
            continue
        text = string_value(value, strings)
        if text:
            if reads_as_sql(text):
                found.setdefault("string_arguments", []).append([position, text])
            continue
        name = _member_name(value)
        if name and name not in known:
            found.setdefault("member_arguments", []).append([position, name])
    return found


def _member_name(value: tree_sitter.Node) -> str | None:
    """`X` of an argument written `X` or `this.X`."""
    if value.type == "identifier":
        return node_text(value)
    if value.type == "member_access_expression":
        receiver = value.child_by_field_name("expression")
        if receiver is not None and receiver.type == "this":
            return node_text(value.child_by_field_name("name"))
    return None


def sql_constants(syntax: tree_sitter.Node) -> dict[str, str]:
    """The type's string fields, constants and properties whose value reads as SQL or a name."""
    return {name: text for name, text in string_fields(syntax).items()
            if not name.startswith("typeof(") and reads_as_sql(text)}


def sql_parameter_references(graph: nx.MultiDiGraph) -> list[Reference]:
    """READS / WRITES / CALLS of each method that passes SQL or a procedure's name to a helper
    that runs its parameter (`sql_parameters`, also through helpers forwarding it)."""
    sinks = _sinks(graph)
    if not sinks:
        return []
    constants = _type_constants(graph)
    found: dict[str, list[Reference]] = {}
    for caller, helper, key, data in graph.edges(keys=True, data=True):
        if key != "CALLS" or helper not in sinks or graph.nodes[caller].get("kind") != "METHOD":
            continue
        passed = {position: text for position, text in data.get("string_arguments", ())}
        named = {position: name for position, name in data.get("member_arguments", ())}
        for position in sinks[helper]:
            text = passed.get(position) or (_constant(graph, constants, caller, named[position])
                                            if position in named else None)
            if not text:
                continue
            sql = [SqlText(text, data.get("line", 0), via=VIA)]
            found.setdefault(caller, []).extend(
                replace(ref, attrs={**ref.attrs, "helper": helper})
                for ref in (*procedure_references(caller, sql), *table_references(caller, sql)))
    return [ref for refs in found.values() for ref in first_of_each(refs)]


def _sinks(graph: nx.MultiDiGraph) -> dict[str, set[int]]:
    """Method -> the argument positions it runs as SQL: its own (`sql_parameters`), and those of
    its parameters it forwards to a position another such method runs."""
    sinks = {node: set(positions) for node, data in graph.nodes(data=True)
             if (positions := (data.get("attrs") or {}).get("sql_parameters"))}
    queue = deque(sinks)
    while queue:
        helper = queue.popleft()
        for caller, _, key, data in graph.in_edges(helper, keys=True, data=True):
            if key != "CALLS" or graph.nodes[caller].get("kind") != "METHOD":
                continue
            shift = 1 if (graph.nodes[caller].get("attrs") or {}).get("extension") else 0
            forwarded = {parameter - shift for argument, parameter in data.get("forwards", ())
                         if argument in sinks[helper] and parameter - shift >= 0}
            if forwarded - sinks.get(caller, set()):
                sinks.setdefault(caller, set()).update(forwarded)
                queue.append(caller)
    return sinks


def _type_constants(graph: nx.MultiDiGraph) -> dict[str, dict[str, str]]:
    """Type id -> its SQL-like string constants, from every file a part of it is declared in."""
    merged: dict[str, dict[str, str]] = {}
    for _, data in graph.nodes(data=True):
        for type_id, constants in ((data.get("attrs") or {}).get("string_constants") or {}).items():
            merged.setdefault(type_id, {}).update(constants)
    return merged


def _constant(graph: nx.MultiDiGraph, constants: dict[str, dict[str, str]], method: str, name: str) -> str | None:
    """The value of the constant `name` as the method's type sees it (`member_scopes`)."""
    return next((constants[scope][name] for scope in member_scopes(graph, graph.nodes[method].get("parent"))
                 if name in constants.get(scope, {})), None)
