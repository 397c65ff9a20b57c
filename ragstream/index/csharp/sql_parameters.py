"""SQL handed to a helper: a method whose string parameter becomes a command's text runs what
its callers pass it.

ADO.NET code keeps the command plumbing in one helper and passes it the text:
`SetCommandType(cmd, CommandType.StoredProcedure, SP_ISSUE_CREATE)` with
`void SetCommandType(IDbCommand c, CommandType t, string text) { c.CommandType = t; c.CommandText = text; }`,
`CreateCommand(sql)`, `ExecuteNonQuery(connectionString, query)`. The helper's own SQL is
unknown (its text is a parameter); the caller's is known. So:

- at parse time a METHOD records `sql_parameters`: the argument positions of its string
  parameters handed as they are to a data-access sink as its command text (`command_text`:
  `CommandText = p`, `new SqlCommand(p, ..)`, the argument after a `CommandType`, Dapper's / EF
  Core's SQL argument after the connection); `sql_parameters_guessed`, those only a sink's name
  (`Execute(p)`) says are SQL; an extension method's receiver is no argument (`conn.Create(sql)`:
  `sql` is argument 0); a lambda passed as an argument, the positions of its parameters its body
  runs so (`lambda_sql` on the call), and a method invoking a delegate parameter with its own
  parameters, which (`delegate_arguments`, `method_groups`);
- each call records the SQL-like strings it passes (`string_arguments`: [position, text]) and
  the plain names it passes that the file does not declare (`member_arguments`: [position,
  name]; a later call's items on the same edge carry its own line third, `passed_at`): a constant of another part of a partial type (C# spec, "Partial types": the parts
  are one type, their members one declaration space) or of a base;
- each type records its own string constants that read as SQL on its FILE node
  (`string_constants`, type id -> name -> text): the parts of a partial type live in several files;
- once calls are resolved (`sql_parameter_references`), a call to such a helper makes the caller
  run the text it passes: CALLS to the procedure a name-only text names (SQL Server runs a batch
  that is only a name as that procedure, and `CommandType.StoredProcedure` says so outright), READS /
  WRITES of the tables SQL text uses; each edge `via="sql_parameter"` with the `helper` it went
  through, a guess where only a sink's name said so. A helper that forwards its own parameter to
  such a helper is one too (`forwards`), so is one handing it to a helper that invokes a lambda
  running it with it, and so is the interface, virtual or abstract method such a method implements
  or overrides (the call names that one; dispatch's rule: `new` hides, it does not override), a guess
  unless it has no other implementation, the edge naming the `implementation`. What each call of a helper passes is kept (`merge_passed`: one edge, two calls).
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import replace
from itertools import dropwhile

import networkx as nx
import tree_sitter

from ragstream.index.csharp.argument_values import is_string_parameter
from ragstream.index.csharp.connection_arguments import declared_types, is_connection, static_connection_first
from ragstream.index.csharp.member_scopes import member_scopes
from ragstream.index.csharp.inline_sql import (
    SqlText, procedure_references, reads_as_sql, sql_arguments, table_references,
)
from ragstream.index.csharp.strings import string_fields, string_value
from ragstream.index.csharp.syntax import (
    call_arguments, called_name, callee_of, descendants, node_text, required_child,
)
from ragstream.index.csharp.table_refs import first_of_each
from ragstream.index.dispatch import dispatch_table, implementation_guessed
from ragstream.index.model import Reference

VIA = "sql_parameter"


# A data-access call's command text follows the connection it runs on (the receiver of an instance
# or extension call, `conn.Query(sql)`; the first argument of a static helper's,
# `SqlHelper.ExecuteReader(connectionString, spName, values)`: `connection_arguments` tells which)
# and, where the call passes one, the `CommandType` that says how to run it (the Data Access
# Application Block's `ExecuteNonQuery(conn, CommandType.StoredProcedure, commandText, ..)`,
# Enterprise Library's `ExecuteReader(CommandType, text)`, a repository's `SetCommandType(cmd,
# CommandType.StoredProcedure, text)`): the signatures all put it there.
_DATA_ACCESS_NAME = re.compile(r"Execute|Command|Query|Sql")
_COMMAND_NAME = re.compile(r"_?(?:cmd|command|sqlCmd|sqlCommand|dbCommand)", re.IGNORECASE)


def command_text(node: tree_sitter.Node, declared: dict[str, str]) -> tuple[tree_sitter.Node, bool] | None:
    """The expression a data-access call or assignment runs as its command text, and whether only
    the call's name says it is one (`Execute(x)`, `Query(x)`: a guess); None for anything else.
    `declared`: the types of the names the scope declares (`declared_types`)."""
    if node.type == "invocation_expression":
        values = [value for named, value in call_arguments(required_child(node, "arguments")) if named is None]
        at = next((i for i, value in enumerate(values[:-1]) if _is_command_type(value)), None)
        if at is not None:
            return values[at + 1], not _data_access_call(node, values[:at], declared)
    arguments = sql_arguments(node)
    if not arguments:
        return None
    if node.type != "invocation_expression":  # `CommandText = p`, `new SqlCommand(p, conn)`
        return arguments[0], False
    skip = 1 if static_connection_first(node, declared) else 0
    text = next(dropwhile(lambda value: is_connection(value, declared), arguments[skip:]), None)
    # Dapper's `Execute(x)` / `Query(x)` are names any API may use; EF's `FromSqlRaw(x)` says SQL
    return (text, "Sql" not in (called_name(node) or "")) if text is not None else None


def _data_access_call(node: tree_sitter.Node, before: list[tree_sitter.Node], declared: dict[str, str]) -> bool:
    """A call passing a `CommandType` that is surely data access: named so (`ExecuteReader`,
    `SetCommandType`), or made on (or passing first) a command or a connection; `Metrics.Count(
    CommandType.StoredProcedure, entity)` is not."""
    if _DATA_ACCESS_NAME.search(called_name(node) or ""):
        return True
    callee = callee_of(node)
    on = [*([callee[0]] if callee and callee[0] is not None else []), *before]
    return any(is_connection(value, declared) or _is_command(value, declared) for value in on)


def _is_command(value: tree_sitter.Node, declared: dict[str, str]) -> bool:
    """A name declared a command (`IDbCommand`, `SqlCommand`), or named one as a whole (`cmd`)."""
    if value.type != "identifier":
        return False
    kind = declared.get(node_text(value))
    return kind.endswith("Command") if kind else bool(_COMMAND_NAME.fullmatch(node_text(value)))


def _is_command_type(value: tree_sitter.Node) -> bool:
    """`CommandType.StoredProcedure`, `System.Data.CommandType.Text`."""
    return value.type == "member_access_expression" \
        and node_text(required_child(value, "expression")).rsplit(".", 1)[-1] == "CommandType"


def sql_parameters(method: tree_sitter.Node, extension: bool) -> dict[int, bool]:
    """Argument positions of the string parameters the method hands as they are to a data-access
    sink as its command text (`command_text`) -> whether only a call's name says so."""
    parameters = method.child_by_field_name("parameters")
    listed = [p for p in parameters.named_children if p.type == "parameter"] if parameters is not None else []
    return _runs(method, {node_text(p.child_by_field_name("name")): position - (1 if extension else 0)
                          for position, p in enumerate(listed) if is_string_parameter(p)})


def lambda_sql(value: tree_sitter.Node) -> list[list[int]]:
    """[position, guessed] of each parameter of a lambda or anonymous method that its body runs as a
    command's text (`(sql, p) => SqlHelper.ExecuteNonQuery(conn, CommandType.StoredProcedure, sql, p)`);
    its parameters' types are the delegate's, so an untyped one may be the string."""
    parameters = value.child_by_field_name("parameters") \
        if value.type in ("lambda_expression", "anonymous_method_expression") else None
    if parameters is None:
        return []
    if parameters.type in ("identifier", "implicit_parameter"):
        names = {node_text(parameters): 0}
    else:
        listed = [p for p in parameters.named_children if p.type == "parameter"]
        names = {node_text(p.child_by_field_name("name")): position for position, p in enumerate(listed)
                 if p.child_by_field_name("type") is None or is_string_parameter(p)}
    return [[position, int(guessed)] for position, guessed in sorted(_runs(value, names).items())]


def _runs(scope: tree_sitter.Node, names: dict[str, int]) -> dict[int, bool]:
    """Positions of the names (parameters) the scope hands to a data-access sink as its command
    text -> whether only by-name sinks take it; a parameter assigned anew first is another value."""
    if not names:
        return {}
    reassigned = {node_text(node.child_by_field_name("left")) for node in descendants(scope)
                  if node.type == "assignment_expression"}
    found: dict[int, bool] = {}
    declared = declared_types(scope)
    for node in descendants(scope):
        text = command_text(node, declared)
        if text is None or text[0].type != "identifier":
            continue
        name = node_text(text[0])
        if name in names and name not in reassigned and names[name] >= 0:
            found[names[name]] = found.get(names[name], True) and text[1]
    return found


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
        runs = lambda_sql(value)
        if runs:  # a lambda that runs its parameter: what the callee invokes it with is run (`delegate_arguments`)
            found.setdefault("lambda_sql", []).extend([position, *run] for run in runs)
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


# What a call passes that a helper may run; a second call of the same helper from the same method
# adds its own to the one CALLS edge both make (`merge_passed`).
PASSED_KEYS = ("string_arguments", "member_arguments", "lambda_sql")


# Of these, the strings and names a call passes keep the line of the call that passed them, where
# it is not the edge's own (the first call's): [position, value, line].
_LINED_KEYS = ("string_arguments", "member_arguments")


def merge_passed(edge: dict, attrs: dict) -> None:
    """Add to a CALLS edge what another call of the same method from the same caller passes."""
    for key in PASSED_KEYS:
        had = [item[:2] if key in _LINED_KEYS else item for item in edge.get(key, ())]
        added = [[*item[:2], attrs["line"]] if key in _LINED_KEYS and "line" in attrs else item
                 for item in attrs.get(key, ()) if (item[:2] if key in _LINED_KEYS else item) not in had]
        if added:
            edge[key] = [*edge.get(key, []), *added]


def passed_at(call: dict, key: str) -> list[tuple[int, str, int]]:
    """(position, value, line of the call passing it) of a CALLS edge's `string_arguments` or
    `member_arguments` (`merge_passed`)."""
    return [(item[0], item[1], item[2] if len(item) > 2 else call.get("line", 0)) for item in call.get(key, ())]


def without_receiver(attrs: dict) -> dict:
    """A static call of an extension method (`Db.Run(connection, sql)`) passes the receiver as its
    first argument: what it passes, by the positions the method's own facts use (receiver excluded)."""
    shifted = {key: [[item[0] - 1, *item[1:]] for item in attrs.get(key, ()) if item[0] > 0] for key in PASSED_KEYS}
    return {**{key: value for key, value in attrs.items() if key not in PASSED_KEYS},
            **{key: items for key, items in shifted.items() if items}}


def sql_parameter_references(graph: nx.MultiDiGraph) -> list[Reference]:
    """READS / WRITES / CALLS of each method that passes SQL or a procedure's name to a helper
    that runs its parameter (`sql_parameters`, also through helpers forwarding it, through a lambda
    the helper invokes with it, and through the interface or base method a call names); each a
    guess where only a call's name said a helper's parameter is SQL."""
    sinks, implemented = _sinks(graph)
    if not sinks:
        return []
    constants = _type_constants(graph)
    found: dict[str, list[Reference]] = {}
    for caller, helper, key, data in graph.edges(keys=True, data=True):
        if key != "CALLS" or graph.nodes[caller].get("kind") != "METHOD":
            continue
        runs = _call_runs(graph, sinks, helper, data)
        if not runs:
            continue
        passed = passed_at(data, "string_arguments")
        passed += [(position, _constant(graph, constants, caller, name) or "", line)
                   for position, name, line in passed_at(data, "member_arguments") if position in runs]
        for position, text, line in passed:
            if position not in runs or not text:
                continue
            sql = [SqlText(text, line, via=VIA)]
            attrs = {"helper": helper, **({"guess": True} if runs[position] else {}),
                     **({"implementation": implemented[helper]} if helper in implemented else {})}
            found.setdefault(caller, []).extend(
                replace(ref, attrs={**ref.attrs, **attrs})
                for ref in (*procedure_references(caller, sql), *table_references(caller, sql)))
    return [ref for refs in found.values() for ref in first_of_each(refs)]


def _call_runs(graph: nx.MultiDiGraph, sinks: dict[str, dict[int, bool]], helper: str, call: dict) -> dict[int, bool]:
    """The argument positions one call of `helper` runs as SQL -> guessed: those the helper always
    runs, and those it hands to a delegate parameter that this call fills with a lambda running it."""
    runs = dict(sinks.get(helper, {}))
    lambdas = {(argument, parameter): bool(guessed) for argument, parameter, guessed in call.get("lambda_sql", ())}
    for delegate, argument, parameter in (graph.nodes[helper].get("attrs") or {}).get("delegate_arguments", ()):
        if (delegate, argument) in lambdas:
            runs[parameter] = runs.get(parameter, True) and lambdas[(delegate, argument)]
    return runs


def _sinks(graph: nx.MultiDiGraph) -> tuple[dict[str, dict[int, bool]], dict[str, str]]:
    """Method -> the argument positions it runs as SQL -> guessed: its own (`sql_parameters`), those
    of its parameters it forwards to a position a call it makes runs, and an implementation's on the
    interface, virtual or abstract method it implements or overrides (a call names that one; dispatch
    reaches this one), a guess unless that one has no other implementation; and that method -> the
    implementation whose SQL it runs."""
    sinks: dict[str, dict[int, bool]] = {}
    implemented: dict[str, str] = {}
    for node, data in graph.nodes(data=True):
        attrs = data.get("attrs") or {}
        if attrs.get("sql_parameters"):
            guessed = set(attrs.get("sql_parameters_guessed", ()))
            sinks[node] = {position: position in guessed for position in attrs["sql_parameters"]}
    declared = _declarations(graph)
    queue = deque([*sinks, *(node for node, data in graph.nodes(data=True)
                             if (data.get("attrs") or {}).get("delegate_arguments"))])
    while queue:
        helper = queue.popleft()
        for method, several in declared.get(helper, ()):
            lent = {position: several or was for position, was in sinks.get(helper, {}).items()}
            if _add_runs(sinks, method, lent):
                implemented.setdefault(method, implemented.get(helper, helper))
                queue.append(method)
        for caller, _, key, data in graph.in_edges(helper, keys=True, data=True):
            if key != "CALLS" or graph.nodes[caller].get("kind") != "METHOD":
                continue
            runs = _call_runs(graph, sinks, helper, data)
            shift = 1 if (graph.nodes[caller].get("attrs") or {}).get("extension") else 0
            forwarded = {parameter - shift: runs[argument] for argument, parameter in data.get("forwards", ())
                         if argument in runs and parameter - shift >= 0}
            if _add_runs(sinks, caller, forwarded):
                queue.append(caller)
    return sinks, implemented


def _add_runs(sinks: dict[str, dict[int, bool]], method: str, runs: dict[int, bool]) -> bool:
    """Add positions a method runs (a position known for sure stays sure); whether any changed."""
    mine = sinks.setdefault(method, {})
    changed = False
    for position, guessed in runs.items():
        if position not in mine or mine[position] and not guessed:
            mine[position] = guessed
            changed = True
    if not mine:
        del sinks[method]
    return changed


def _declarations(graph: nx.MultiDiGraph) -> dict[str, list[tuple[str, bool]]]:
    """Method -> the interface, virtual or abstract methods a call to which may run it, by
    dispatch's rule (`dispatch_table`), and whether which runs is a guess there."""
    found: dict[str, list[tuple[str, bool]]] = {}
    for declaration, targets in dispatch_table(graph).items():
        guessed = implementation_guessed(graph, declaration, targets)
        for target in targets:
            found.setdefault(target, []).append((declaration, guessed))
    return found


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
