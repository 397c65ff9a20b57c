"""The string values a type's own calls pass to its methods' string parameters.

`foreach (var table in Tables) Cleanup(GetExpireQuery(storage, table))`, with `Tables` a
readonly field holding `{ "Counter", "Job", "Set" }`, passes `GetExpireQuery`'s `table` the
three names; a literal, a constant or a readonly string field passes one, and a caller's own
parameter passes what its callers pass it (a few hops). Only real call sites count: a parameter
no call in the type gives a known value has none, nor one that some call passes a value not
known (`Delete(db, userTable)` beside `Delete(db, "Job")`), and SQL built from it stays unbound. Calls
from other types are not followed (their callee is known only once the graph resolves them).
"""
from __future__ import annotations

import tree_sitter

from ragstream.index.csharp.strings import string_bindings, string_value
from ragstream.index.csharp.syntax import (
    body_members, call_arguments, callee_of, descendants, initializer, node_text, required_child,
    type_name,
)

ParameterValues = dict[str, tuple[str, ...]]  # parameter name -> the values passed, in order
MAX_VALUES = 16  # more values than this say nothing a reader could use: the parameter stays unbound
_HOPS = 3  # a caller's parameter passes on what its own callers pass: this many levels deep
_STRING_TYPES = frozenset({"string", "String", "string?", "System.String"})
_COLLECTIONS = ("array_creation_expression", "implicit_array_creation_expression", "object_creation_expression")


def parameter_values(syntax: tree_sitter.Node, methods: list[tree_sitter.Node],
                     fields: dict[str, str]) -> dict[int, ParameterValues]:
    """Method (its syntax's start byte) -> its string parameters' values, from the calls the
    type's own methods make to it (`Helper(x)`, `this.Helper(x)`, `Type.Helper(x)`)."""
    own_type = node_text(syntax.child_by_field_name("name"))
    by_name: dict[str, list[tree_sitter.Node]] = {}
    for method in methods:
        if any(is_string_parameter(parameter) for parameter in _parameters(method)):
            by_name.setdefault(node_text(method.child_by_field_name("name")), []).append(method)
    if not by_name:
        return {}
    calls = [(caller, [call for call in descendants(caller) if (_own_call(call, own_type) or "") in by_name])
             for caller in methods]
    lists = string_lists(syntax, fields)
    callers = [(caller, found_calls, {**fields, **string_bindings(caller, fields)},
                {**lists, **_local_lists(caller, fields)}) for caller, found_calls in calls if found_calls]
    found: dict[int, dict[str, list[str]]] = {}
    unknown: set[tuple[int, str]] = set()  # a parameter some call passes a value nobody knows
    for _ in range(_HOPS):
        before = repr(found)
        bound: dict[int, dict[str, list[str]]] = {}
        unknown = set()
        for caller, own_calls, strings, known_lists in callers:
            own = {name: tuple(values) for name, values in found.get(caller.start_byte, {}).items()
                   if (caller.start_byte, name) not in unknown}
            for call in own_calls:
                for method in by_name[_own_call(call, own_type) or ""]:
                    for parameter, values in _passed(call, method, strings, known_lists, own):
                        if not values:
                            unknown.add((method.start_byte, parameter))
                        passed = bound.setdefault(method.start_byte, {}).setdefault(parameter, [])
                        passed.extend(value for value in values if value not in passed)
        found = bound
        if repr(found) == before:
            break
    # a parameter bound at some calls only may hold anything: it stays unbound
    return {method: {name: tuple(values) for name, values in parameters.items()
                     if values and len(values) <= MAX_VALUES and (method, name) not in unknown}
            for method, parameters in found.items()}


def string_lists(syntax: tree_sitter.Node, strings: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Readonly fields of the type initialised with strings only (`static readonly string[]
    Tables = { "Job", "Set" }`, `new List<string> { ... }`) -> those strings."""
    found: dict[str, tuple[str, ...]] = {}
    for member in body_members(syntax):
        modifiers = {node_text(child) for child in member.children if child.type == "modifier"}
        if member.type == "field_declaration" and modifiers & {"readonly", "const"}:
            found.update(_local_lists(member, strings))
    return found


def _local_lists(scope: tree_sitter.Node, strings: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Variables declared in `scope` and initialised with a collection of strings only."""
    found: dict[str, tuple[str, ...]] = {}
    for declarator in descendants(scope):
        values = _listed(initializer(declarator), strings) if declarator.type == "variable_declarator" else None
        if values:
            found[node_text(declarator.child_by_field_name("name"))] = values
    return found


def _listed(expression: tree_sitter.Node | None, strings: dict[str, str]) -> tuple[str, ...] | None:
    """The strings of `{ "a", "b" }`, `new[] { ... }`, `new List<string> { ... }`; None unless
    every item is a known string."""
    if expression is not None and expression.type in _COLLECTIONS:
        expression = next((child for child in expression.named_children if child.type == "initializer_expression"), None)
    if expression is None or expression.type != "initializer_expression" or not expression.named_children:
        return None
    values = [string_value(item, strings) for item in expression.named_children]
    return tuple(value for value in values if value is not None) if all(values) else None


def _own_call(call: tree_sitter.Node, own_type: str) -> str | None:
    """The method name of a call on the type itself: no receiver, `this`, or the type's name."""
    callee = callee_of(call)
    if callee is None:
        return None
    receiver, name = callee
    if receiver is not None and receiver.type != "this" and node_text(receiver) != own_type:
        return None
    return type_name(name)


def _passed(call: tree_sitter.Node, method: tree_sitter.Node, strings: dict[str, str],
            lists: dict[str, tuple[str, ...]], own: ParameterValues) -> list[tuple[str, tuple[str, ...]]]:
    """(string parameter, values) for each string argument of `call` (no values: not known), when
    the call's arguments fit `method`'s parameters (an overload of another count is another method)."""
    parameters = _parameters(method)
    arguments = call_arguments(required_child(call, "arguments"))
    required = sum(1 for p in parameters if not any(child.type == "=" for child in p.children))
    if not required <= len(arguments) <= len(parameters):
        return []
    names = [node_text(p.child_by_field_name("name")) for p in parameters]
    found = []
    for position, (named, value) in enumerate(arguments):
        index = names.index(named) if named in names else position if named is None else -1
        if index < 0 or not is_string_parameter(parameters[index]):
            continue
        found.append((names[index], _argument_values(value, call, strings, lists, own)))
    return found


def _parameters(method: tree_sitter.Node) -> list[tree_sitter.Node]:
    return [child for child in required_child(method, "parameters").named_children if child.type == "parameter"]


def is_string_parameter(parameter: tree_sitter.Node) -> bool:
    return node_text(parameter.child_by_field_name("type")) in _STRING_TYPES


def _argument_values(argument: tree_sitter.Node, call: tree_sitter.Node, strings: dict[str, str],
                     lists: dict[str, tuple[str, ...]], own: ParameterValues) -> tuple[str, ...]:
    """What an argument holds: the items of the collection a `foreach` variable walks, the
    values the caller's own parameter receives, else its one string value."""
    name = node_text(argument) if argument.type == "identifier" else None
    loop = call.parent
    while name and loop is not None and loop.type not in ("method_declaration", "constructor_declaration"):
        if loop.type == "foreach_statement" and node_text(loop.child_by_field_name("left")) == name:
            walked = loop.child_by_field_name("right")
            if walked is None:
                return ()
            return lists.get(node_text(walked), ()) if walked.type == "identifier" else _listed(walked, strings) or ()
        loop = loop.parent
    if name and name in own:
        return own[name]
    value = string_value(argument, strings)
    return (value,) if value else ()
