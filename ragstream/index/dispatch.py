"""Dynamic dispatch in the graph: a call resolved to an interface method, or to a virtual or
abstract one, may run any implementation in the repository, so it also links to each.

A pure pass over the built graph, after every reference is linked: the INHERITS / IMPLEMENTS
edges give each type its descendants, and a call to `Base.M` gets a CALLS edge (attrs
resolution="dispatch", via=the called method) to every descendant's own `M`: any method of
an interface's implementer, only an `override` of a class's. An interface member with several
implementations, or a virtual or abstract member with several overrides (`BlogProvider.InsertPost`:
the database's and the XML file's), runs one of them, chosen by the object at run time (often by
configuration): each of those edges is a guess and names them (`candidates`, the first
MAX_CANDIDATES, and `candidate_count` when there are more); so is the one override of a virtual
member with a body of its own, which may run instead. One implementation of an interface member
or one override of an abstract one is a firm edge. Calls made through `base.`
(attrs via_base) are not dispatched: they run the base's method itself. A call made on a
receiver of a declared type (`receiver_type`: `_tagXrefs.Save()` on a `CrossRef_TagRepository`
reaching `BaseRepository<T>.Save`) runs an implementation of that type's own line only: its
descendants' or, inherited, its ancestors' (and, for an interface, what its implementers inherit),
never a sibling subclass's override (`receivers`). A dispatch edge keeps
what the call says of its arguments and of the parameter it is made on (`BINDING_KEYS`): a walk
binds the implementation by the argument a caller passed.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

import networkx as nx

from ragstream.index.graph_edits import add_edge, named_candidates

HIERARCHY_EDGES = frozenset({"INHERITS", "IMPLEMENTS"})
# A call edge's facts of its arguments and receiver (`graph_build`), kept on its dispatch edges.
BINDING_KEYS = ("argument_types", "forwards", "receiver_parameter")


def link_dispatch(graph: nx.MultiDiGraph) -> Counter:
    """Add dispatch CALLS edges; returns how many were added, by edge type."""
    descendants = _descendants(graph)
    ancestors = _ancestors(descendants)
    methods = _methods_by_type(graph)
    added: Counter = Counter()
    calls = [(source, target, data) for source, target, data in graph.edges(data=True)
             if data["type"] == "CALLS" and data.get("resolution") != "dispatch"
             and not data.get("via_base")]
    for source, called, data in calls:
        if not dispatched(graph, descendants, called):
            continue
        # a call that was a guess stays one through every implementation
        attrs = {"line": data.get("line", 0), "resolution": "dispatch", "via": called,
                 **({"guess": True} if data.get("guess") else {}),
                 **({"receiver_type": receiver} if (receiver := single_receiver(data)) else {}),
                 # a job library runs the implementation later as well (`csharp/job_handoffs`)
                 **({"enqueued_by": data["enqueued_by"]} if data.get("enqueued_by") else {}),
                 # what binds the implementation a walk may follow (`relations.table_paths`)
                 **{key: data[key] for key in BINDING_KEYS if key in data}}
        line = _receivers_line(graph, descendants, ancestors, data)
        targets = [method for method in implementations(graph, descendants, methods, called)
                   if method != source and (line is None or graph.nodes[method]["parent"] in line)]
        if implementation_guessed(graph, called, targets):
            attrs = {**attrs, "guess": True, **named_candidates(targets)}
        for method in targets:
            if add_edge(graph, source, method, "CALLS", attrs):
                added["CALLS"] += 1
    return added


def receivers(edge: dict) -> list[str] | None:
    """The declared types of the receivers a CALLS edge's calls are made on; None when one of
    them is not known (a call on the method's own type, or one the resolver did not type) or the
    call was found by name only (its receiver's type is then a guess too): then any
    implementation may run."""
    if edge.get("receiver_open") or edge.get("guess") or not edge.get("receiver_type"):
        return None
    return edge.get("receiver_types") or [edge["receiver_type"]]


def single_receiver(edge: Mapping[str, Any]) -> str | None:
    """The one receiver type the calls of a CALLS edge are made on, which binds `this` for a walk
    (`relations.table_paths`); None when its calls have several (`_a.Save(); _b.Save()`) or one
    not known: then `this` is bound to none of them."""
    if edge.get("receiver_open") or len(edge.get("receiver_types") or ()) > 1:
        return None
    return edge.get("receiver_type")


def merge_receivers(edge: dict, other: dict) -> None:
    """One CALLS edge for two calls (`_a.Save()`, `_b.Save()`): dispatch may run what either
    receiver's line runs, and anything when either receiver's type is not known."""
    mine, theirs = receivers(edge), receivers(other)
    if mine is None or theirs is None:
        if edge.get("receiver_type"):  # (an edge without one is open already)
            edge["receiver_open"] = True
            edge.pop("receiver_types", None)
    elif set(theirs) - set(mine):
        edge["receiver_types"] = sorted({*mine, *theirs})


def dispatch_table(graph: nx.MultiDiGraph) -> dict[str, list[str]]:
    """Interface, virtual or abstract method -> the implementations a call to it may run."""
    descendants, methods = _descendants(graph), _methods_by_type(graph)
    found = {called: implementations(graph, descendants, methods, called)
             for called in graph if dispatched(graph, descendants, called)}
    return {called: targets for called, targets in found.items() if targets}


def dispatched(graph: nx.MultiDiGraph, descendants: dict[str, set[str]], called: str) -> bool:
    """A method of a type something in the repository inherits or implements."""
    return graph.nodes[called].get("kind") == "METHOD" and graph.nodes[called].get("parent") in descendants


def implementations(graph: nx.MultiDiGraph, descendants: dict[str, set[str]],
                    methods: dict[tuple[str, str], list[str]], called: str) -> list[str]:
    """The descendants' own methods a call to `called` may run: any same-named one of an
    interface's implementer, only an `override` of a class's (`new` hides, it does not override)."""
    interface = _interface_member(graph, called)
    # sorted: a set's order changes with the process, and so would the order edges are added in
    return [method for implementer in sorted(descendants[graph.nodes[called]["parent"]])
            for method in _implementations(graph, methods, implementer, called, interface)]


def implementation_guessed(graph: nx.MultiDiGraph, called: str, targets: list[str]) -> bool:
    """Which implementation runs, the object decides: with several (or the base's own body
    beside an override), each is a guess."""
    return len(targets) > 1 or bool(targets) and not _interface_member(graph, called) and not _abstract(graph, called)


def _interface_member(graph: nx.MultiDiGraph, method: str) -> bool:
    return graph.nodes[graph.nodes[method]["parent"]].get("attrs", {}).get("type_kind") == "interface"


def _receivers_line(graph: nx.MultiDiGraph, descendants: dict[str, set[str]],
                    ancestors: dict[str, set[str]], call: dict) -> set[str] | None:
    """The types whose implementation a call on its receivers' declared types can run: each
    receiver type, its descendants (the object may be one) and every ancestor of those (an
    implementation they inherit); None when a receiver is not known (no limit)."""
    declared = receivers(call)
    if declared is None or any(t not in graph for t in declared):
        return None
    objects = {t for r in declared for t in (r, *descendants.get(r, ()))}
    return objects | {a for t in objects for a in ancestors.get(t, ())}


def _ancestors(descendants: dict[str, set[str]]) -> dict[str, set[str]]:
    """Type id -> every type it inherits or implements, transitively (`_descendants` inverted)."""
    found: dict[str, set[str]] = defaultdict(set)
    for base, below in descendants.items():
        for child in below:
            found[child].add(base)
    return found


def _descendants(graph: nx.MultiDiGraph) -> dict[str, set[str]]:
    """Type id -> every type in the repository that inherits or implements it, transitively."""
    children: dict[str, set[str]] = defaultdict(set)
    for child, base, key in graph.edges(keys=True):
        if key in HIERARCHY_EDGES and graph.nodes[base].get("kind") == "TYPE":
            children[base].add(child)
    found: dict[str, set[str]] = {}
    for base in children:
        seen: set[str] = set()
        stack = list(children[base])
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(children.get(current, ()))
        found[base] = seen
    return found


def _methods_by_type(graph: nx.MultiDiGraph) -> dict[tuple[str, str], list[str]]:
    """(type id, method short name) -> METHOD node ids the type declares itself."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for node, data in graph.nodes(data=True):
        if data.get("kind") == "METHOD" and data.get("parent"):
            found[(data["parent"], data["name"].rsplit(".", 1)[-1])].append(node)
    return found


def _implementations(graph: nx.MultiDiGraph, methods: dict[tuple[str, str], list[str]],
                     implementer: str, called: str, interface: bool) -> list[str]:
    """The implementer's own methods that a call to `called` may run."""
    short = graph.nodes[called]["name"].rsplit(".", 1)[-1]
    own = methods.get((implementer, short), [])
    same_signature = [m for m in own if _signature(m) == _signature(called)]
    chosen = same_signature or own
    if interface:
        return chosen
    return [m for m in chosen if "override" in graph.nodes[m].get("attrs", {}).get("modifiers", ())]


def _abstract(graph: nx.MultiDiGraph, method: str) -> bool:
    """A method without a body of its own: only an override can run."""
    return "abstract" in graph.nodes[method].get("attrs", {}).get("modifiers", ())


def _signature(method_id: str) -> str:
    """The parameter list an overload's id carries (`M(int,string)`), else ""."""
    name = method_id.rsplit("|", 1)[0]
    return name[name.index("("):] if "(" in name else ""
