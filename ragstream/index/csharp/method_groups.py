"""A method passed by name as an argument: `ExecuteReaderCmd(cmd, GenerateIssueListFromReader,
ref list)`, `items.Select(ToDto)`, `new Thread(Work)`.

A method group converts to a delegate that the callee may invoke (C# spec, "Method group
conversions"), so the code that runs when the caller's call runs includes that method. Each call
records the plain names it passes that its file does not declare (`member_arguments`, from
`sql_parameters.passed_strings`); once the graph is built, a name that is a method of the caller's
type (any part of it), an enclosing type or a base (`member_scopes`) gives a CALLS edge from the
caller to each method of that name, `via="method_group"`, with the call it was passed to
(`passed_to`) and `resolution="inferred"`: whether and when the callee invokes it is the callee's
business, so the edge is marked as a guess.
"""
from __future__ import annotations

from collections import defaultdict

import networkx as nx

from ragstream.index.csharp.member_scopes import member_scopes
from ragstream.index.graph_edits import add_edge

VIA = "method_group"


def link_method_groups(graph: nx.MultiDiGraph) -> int:
    """CALLS from each method to the methods of its types it passes by name; how many were added."""
    methods: dict[tuple[str, str], list[str]] = defaultdict(list)
    for node, data in graph.nodes(data=True):
        if data.get("kind") == "METHOD" and data.get("language") == "csharp" and isinstance(data.get("parent"), str):
            methods[(data["parent"], data["name"].rsplit(".", 1)[-1])].append(node)
    passed = [(caller, callee, name, data.get("line", 0))
              for caller, callee, key, data in graph.edges(keys=True, data=True)
              if key == "CALLS" and graph.nodes[caller].get("kind") == "METHOD"
              for _, name in data.get("member_arguments", ())]
    added = 0
    for caller, callee, name, line in passed:
        targets = next((methods[(scope, name)] for scope in member_scopes(graph, graph.nodes[caller].get("parent"))
                        if (scope, name) in methods), [])
        for target in targets:
            if target != caller:
                added += add_edge(graph, caller, target, "CALLS", {
                    "via": VIA, "passed_to": callee, "line": line, "resolution": "inferred", "guess": True})
    return added
