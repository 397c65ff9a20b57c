"""Large neighbourhoods made legible: beyond `GROUP_FROM` neighbours of one node that are alike
(the same kind, the same relation to it, all tests or all code) and lead nowhere else, the
drawing shows one labelled group node ("41 test methods") instead of a row of unreadable bars,
and the table under the drawing lists every member: name, kind, file:line, relation and how
each edge was found (resolution, guess), production code before tests.

A pure function of the state's neighbourhood (`graph_expanded_nodes`, `graph_edges`, seeds,
parents) and the graph's node and edge data.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx

from ragstream.graph.guesses import is_guess
from ragstream.graph.labels import short_labels
from ragstream.graph.relations import in_tests

GROUP_FROM = 6  # more alike neighbours than this are drawn as one group node
GROUP_PREFIX = "group:"
_PLURAL = {"CLASS": "classes", "PROPERTY": "properties"}

# One relation of a member to its anchor: (edge type, True when the member is the edge's source).
Relation = tuple[str, bool]


@dataclass(frozen=True)
class Member:
    """One grouped neighbour as the table lists it."""
    id: str
    name: str  # the short unique label
    kind: str
    where: str  # path:line
    relation: str  # "this WRITES dbo.Invoices", "Controller.run CALLS this"
    resolution: str  # how the edge was made: "static", "by_name (guess)", "dispatch via message"
    guess: bool


@dataclass(frozen=True)
class Group:
    """Alike neighbours of `anchor`, drawn as one node `id` labelled `label`."""
    id: str
    label: str  # "41 test methods"
    anchor: str
    relations: tuple[Relation, ...]
    kind: str
    tests: bool
    members: tuple[Member, ...]

    @property
    def guesses(self) -> int:
        return sum(m.guess for m in self.members)

    @property
    def resolutions(self) -> dict[str, int]:
        return dict(Counter(m.resolution for m in self.members).most_common())


@dataclass(frozen=True)
class GroupedView:
    """What the drawing shows: the nodes drawn one by one, the groups, and the edges between
    them (a group's edges are one per relation, `from_id`/`to_id` its group id)."""
    nodes: tuple[str, ...]
    groups: tuple[Group, ...]
    edges: tuple[dict[str, Any], ...]

    def group_of(self) -> dict[str, str]:
        """member id -> its group's id."""
        return {m.id: g.id for g in self.groups for m in g.members}

    def rows(self) -> list[dict[str, Any]]:
        """Every grouped member, production code before tests, each group in member order."""
        ordered = sorted(self.groups, key=lambda g: g.tests)
        return [{"group": g.label, "file:line": m.where, "relation": m.relation, "resolution": m.resolution,
                 "id": m.id} for g in ordered for m in g.members]


def grouped(graph: nx.MultiDiGraph, nodes: list[str], edges: list[dict[str, Any]], seeds: list[str],
            parent: Mapping[str, str | None], group_from: int = GROUP_FROM) -> GroupedView:
    """The neighbourhood with alike leaf neighbours grouped (see the module docstring). A seed,
    a node other nodes hang off, and a node tied to more than one other node stay drawn."""
    shown = set(nodes)
    ties: dict[str, set[str]] = {n: set() for n in nodes}
    relations: dict[str, set[Relation]] = {n: set() for n in nodes}
    for edge in edges:
        source, target = edge["from_id"], edge["to_id"]
        if source in shown and target in shown:
            ties[source].add(target)
            ties[target].add(source)
            relations[source].add((edge["edge_type"], True))
            relations[target].add((edge["edge_type"], False))
    parents = {p for p in parent.values() if p}
    kept_alone = set(seeds) | parents
    candidates: dict[tuple[str, tuple[Relation, ...], str, bool], list[str]] = {}
    for node in nodes:
        if node in kept_alone or len(ties[node]) != 1:
            continue
        anchor = next(iter(ties[node]))
        kind = graph.nodes[node].get("kind", "") if node in graph else ""
        key = (anchor, tuple(sorted(relations[node])), kind, in_tests(graph, node))
        candidates.setdefault(key, []).append(node)
    labels = short_labels(nodes)
    groups = [_group(graph, anchor, rels, kind, tests, members, labels)
              for (anchor, rels, kind, tests), members in candidates.items() if len(members) > group_from]
    member_of = {m.id: g.id for g in groups for m in g.members}
    drawn = tuple(n for n in nodes if n not in member_of)
    kept_edges = [e for e in edges if e["from_id"] not in member_of and e["to_id"] not in member_of]
    group_edges = [_group_edge(g, edge_type, outgoing) for g in groups for edge_type, outgoing in g.relations]
    return GroupedView(drawn, tuple(groups), tuple(kept_edges + group_edges))


def _group(graph: nx.MultiDiGraph, anchor: str, relations: tuple[Relation, ...], kind: str, tests: bool,
           members: list[str], labels: Mapping[str, str]) -> Group:
    rows = sorted((_member(graph, node, anchor, relations, labels) for node in members),
                  key=lambda m: (m.where, m.id))
    noun = _PLURAL.get(kind, f"{kind.lower()}s") if kind else "nodes"
    label = f"{len(members)} {'test ' if tests else ''}{noun}"
    key = "|".join([anchor, *(f"{t}{'>' if out else '<'}" for t, out in relations), kind, "tests" if tests else ""])
    return Group(f"{GROUP_PREFIX}{key}", label, anchor, relations, kind, tests, tuple(rows))


def _member(graph: nx.MultiDiGraph, node: str, anchor: str, relations: tuple[Relation, ...],
            labels: Mapping[str, str]) -> Member:
    data = graph.nodes[node] if node in graph else {}
    where = f"{data.get('path', '?')}:{data.get('start_line', '?')}"
    found = [(t, out, _edge_data(graph, node, anchor, t, out)) for t, out in relations]
    name = labels.get(anchor, anchor)
    relation = "; ".join(f"this {t} {name}" if out else f"{name} {t} this" for t, out, _ in found)
    resolution = "; ".join(_provenance(d) for _, _, d in found)
    return Member(node, labels.get(node, node), data.get("kind", ""), where, relation, resolution,
                  any(is_guess(d) for _, _, d in found))


def _edge_data(graph: nx.MultiDiGraph, member: str, anchor: str, edge_type: str, outgoing: bool) -> Mapping[str, Any]:
    source, target = (member, anchor) if outgoing else (anchor, member)
    return graph.edges[source, target, edge_type] if graph.has_edge(source, target, edge_type) else {}


def _provenance(data: Mapping[str, Any]) -> str:
    """How an edge was made, as the table says it: its resolution, the construct, a guess mark."""
    via = f" via {data['via']}" if data.get("via") else ""
    return f"{data.get('resolution') or 'static'}{via}{' (guess)' if is_guess(data) else ''}"


def _group_edge(group: Group, edge_type: str, outgoing: bool) -> dict[str, Any]:
    ends = (group.id, group.anchor) if outgoing else (group.anchor, group.id)
    return {"from_id": ends[0], "to_id": ends[1], "edge_type": edge_type, "group": group.id}
