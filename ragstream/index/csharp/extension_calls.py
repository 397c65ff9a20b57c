"""How a call of an extension method passes its receiver: an instance-form call (`bus.Run(x)`)
passes it as the method's `this` parameter, so the call's argument i fills parameter i + 1; a
static-form call (`BusExt.Run(bus, x)`) passes it as argument 0, like any other static call."""
from __future__ import annotations

import networkx as nx


def static_extension_call(graph: nx.MultiDiGraph, method: str, call: dict) -> bool:
    """`Db.Run(connection, sql)`: an extension method called on its own static class, the receiver
    passed as the first argument."""
    node = graph.nodes[method]
    owner = graph.nodes[node["parent"]]["name"] if node.get("parent") in graph else None
    return bool((node.get("attrs") or {}).get("extension")) and owner in call["receiver"].get("types", ())


def instance_extension_call(graph: nx.MultiDiGraph, method: str, call: dict) -> bool:
    """`bus.Run(x)`: an extension method called on its receiver, which fills its `this` parameter."""
    return bool((graph.nodes[method].get("attrs") or {}).get("extension")) \
        and not static_extension_call(graph, method, call)
