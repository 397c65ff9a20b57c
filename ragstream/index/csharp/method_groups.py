"""A method passed by name to a method that invokes it: `ExecuteReaderCmd(cmd,
GenerateIssueListFromReader, ref list)` where `ExecuteReaderCmd` runs `gcfr(reader, ref list)`.

A method group converts to a delegate (C# spec, "Method group conversions"), and invoking a
delegate parameter (`handler(x)`, `handler.Invoke(x)`) calls the method it holds ("Delegate
invocation"). So a METHOD records the argument positions of the parameters it invokes
(`invoked_parameters`; an extension method's receiver is no argument), each call the plain names
it passes that its file does not declare (`member_arguments`, from `sql_parameters.passed_strings`),
and once the graph is built a name that is a method of the caller's type (any part of it), an
enclosing type or a base (`member_scopes`), passed where the callee invokes it, gives a CALLS edge
from the caller to each method of that name: `via="method_group"`, the call it was passed to
(`passed_to`), `resolution="inferred"`, a guess (when the callee invokes it is the callee's
business). A method group handed on to a framework (`MapPost(CreateTodoItem)`, an endpoint
registered, not called) makes no edge: the repository's code does not invoke it. Which of its own
parameters a method invokes a delegate parameter with (`delegate_arguments`) tells `sql_parameters`
what a lambda passed there runs (`query(sql, parameters)`).
"""
from __future__ import annotations

from collections import defaultdict

import networkx as nx
import tree_sitter

from ragstream.index.csharp.member_scopes import member_scopes
from ragstream.index.csharp.sql_parameters import passed_at
from ragstream.index.csharp.syntax import call_arguments, callee_of, descendants, node_text, type_name
from ragstream.index.graph_edits import add_edge

VIA = "method_group"


_INVOKES = frozenset({"Invoke", "BeginInvoke", "DynamicInvoke", "InvokeAsync"})


def invoked_parameters(method: tree_sitter.Node, extension: bool) -> list[int]:
    """Argument positions of the parameters the method invokes as delegates (`p(..)`, `p.Invoke(..)`,
    `p?.Invoke(..)`)."""
    return sorted({position for position, _ in _delegate_invocations(method, extension)})


def delegate_arguments(method: tree_sitter.Node, extension: bool) -> list[list[int]]:
    """[delegate, argument, parameter]: the method invokes its parameter `delegate` with its own
    parameter `parameter` as the invocation's argument `argument` (`query(sql, parameters)`), all
    as argument positions of the method (an extension's receiver excluded)."""
    names = _parameter_positions(method, extension)
    found = []
    for position, invocation in _delegate_invocations(method, extension):
        arguments = invocation.child_by_field_name("arguments")
        for index, (named, value) in enumerate(call_arguments(arguments) if arguments is not None else ()):
            if named is None and value.type == "identifier" and names.get(node_text(value), -1) >= 0:
                found.append([position, index, names[node_text(value)]])
    return sorted(found)


def _parameter_positions(method: tree_sitter.Node, extension: bool) -> dict[str, int]:
    parameters = method.child_by_field_name("parameters")
    listed = [p for p in parameters.named_children if p.type == "parameter"] if parameters is not None else []
    return {node_text(p.child_by_field_name("name")): position - (1 if extension else 0)
            for position, p in enumerate(listed)}


def _delegate_invocations(method: tree_sitter.Node, extension: bool) -> list[tuple[int, tree_sitter.Node]]:
    """Each invocation of one of the method's parameters as a delegate, with that parameter's position."""
    names = _parameter_positions(method, extension)
    found = []
    for node in descendants(method):
        if node.type != "invocation_expression":
            continue
        function = node.child_by_field_name("function")
        callee = callee_of(node)
        if function is not None and function.type == "identifier":
            held = node_text(function)
        elif callee is not None and callee[0] is not None and type_name(callee[1]) in _INVOKES:
            held = node_text(callee[0])
        else:
            continue
        if names.get(held, -1) >= 0:
            found.append((names[held], node))
    return found


def link_method_groups(graph: nx.MultiDiGraph) -> int:
    """CALLS from each method to the methods of its types it passes by name; how many were added."""
    methods: dict[tuple[str, str], list[str]] = defaultdict(list)
    for node, data in graph.nodes(data=True):
        if data.get("kind") == "METHOD" and data.get("language") == "csharp" and isinstance(data.get("parent"), str):
            methods[(data["parent"], data["name"].rsplit(".", 1)[-1])].append(node)
    passed = [(caller, callee, name, line)
              for caller, callee, key, data in graph.edges(keys=True, data=True)
              if key == "CALLS" and graph.nodes[caller].get("kind") == "METHOD"
              for position, name, line in passed_at(data, "member_arguments")
              if position in (graph.nodes[callee].get("attrs") or {}).get("invoked_parameters", ())]
    added = 0
    for caller, callee, name, line in passed:
        targets = next((methods[(scope, name)] for scope in member_scopes(graph, graph.nodes[caller].get("parent"))
                        if (scope, name) in methods), [])
        for target in targets:
            if target != caller:
                added += add_edge(graph, caller, target, "CALLS", {
                    "via": VIA, "passed_to": callee, "line": line, "resolution": "inferred", "guess": True})
    return added
