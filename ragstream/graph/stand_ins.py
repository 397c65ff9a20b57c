"""The node an answer names for a node: a constructor is named by its type; an interface's
member beside its implementation is not named again.

A specification (`Query.Where(...).Include(...)` in its constructor), a validator (`RuleFor`
rules), a mapping profile (`CreateMap`) or an EF configuration is its constructor: a reader looks
for `ProjectByIdWithItemsSpec`, not `ProjectByIdWithItemsSpec.ProjectByIdWithItemsSpec`; and a
service's constructor is wiring, which its type says as well. The type's text holds the
constructor's, so naming the type loses nothing an answer quotes.
"""
from __future__ import annotations

from collections.abc import Iterable

import networkx as nx


def is_constructor(graph: nx.MultiDiGraph, node: str) -> bool:
    """A method named as its type (`Order.Order`, any overload)."""
    data = graph.nodes[node] if node in graph else {}
    name = data.get("name", "")
    return data.get("kind") == "METHOD" and name.rsplit(".", 2)[-2:-1] == name.rsplit(".", 1)[-1:]


def declared_only(graph: nx.MultiDiGraph, node: str) -> bool:
    """A member of an interface: a declaration whose code is in its implementations."""
    parent = graph.nodes[node].get("parent") if node in graph else None
    return parent in graph and graph.nodes[parent].get("attrs", {}).get("type_kind") == "interface"


def named_by_types(graph: nx.MultiDiGraph, ids: Iterable[str]) -> list[str]:
    """`ids` in order, each constructor replaced by its type (when the graph has it), each id once."""
    out: list[str] = []
    for node in ids:
        parent = graph.nodes[node].get("parent") if is_constructor(graph, node) else None
        out.append(parent if isinstance(parent, str) and parent in graph else node)
    return list(dict.fromkeys(out))


def _short(graph: nx.MultiDiGraph, node: str) -> str:
    return str(graph.nodes[node].get("name", "")).split("(", 1)[0].rsplit(".", 1)[-1]


def without_declarations_of(graph: nx.MultiDiGraph, ids: Iterable[str]) -> list[str]:
    """`ids` in order, less each interface member (`declared_only`) that another of them
    implements (a member of that name on a type implementing the interface): the declaration
    repeats the code beside it and says less."""
    listed = list(dict.fromkeys(ids))
    implemented: set[tuple[str, str]] = set()  # (interface, member name) some listed member implements
    for node in listed:
        owner = graph.nodes[node].get("parent") if node in graph else None
        if isinstance(owner, str) and owner in graph and not declared_only(graph, node):
            implemented |= {(interface, _short(graph, node)) for _, interface, key in graph.out_edges(owner, keys=True)
                            if key in ("IMPLEMENTS", "INHERITS")}
    return [node for node in listed
            if not (declared_only(graph, node) and (graph.nodes[node].get("parent"), _short(graph, node)) in implemented)]
