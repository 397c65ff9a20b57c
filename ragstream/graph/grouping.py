"""Large neighbourhoods made legible: beyond `GROUP_FROM` neighbours of one node that are alike
(the same kind, the same relation to it, all tests or all code, all seeds or none), the drawing
shows one labelled group node ("41 test methods") instead of a row of unreadable bars, and the
table under the drawing lists every member: name, kind, file:line, relation and how each edge
was found (resolution, guess), production code before tests. A member's other edges are drawn
from its group, one per neighbour and edge type, each with the count and provenance of the
edges it stands for.

A pure function of the state's neighbourhood (`graph_expanded_nodes`, `graph_edges`, seeds) and
the graph's node and edge data.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from ragstream.graph.guesses import is_guess
from ragstream.graph.labels import short_labels
from ragstream.graph.relations import in_tests

GROUP_FROM = 6  # more alike neighbours than this are drawn as one group node
GROUP_PREFIX = "group:"
SEED_MARK = "★ "
_PLURAL = {"CLASS": "classes", "PROPERTY": "properties"}

# One relation of a member to its anchor: (edge type, True when the member is the edge's source).
Relation = tuple[str, bool]
# What makes neighbours of an anchor alike: (anchor, relations to it, kind, in tests, seeds).
_Key = tuple[str, tuple[Relation, ...], str, bool, bool]


@dataclass(frozen=True)
class Member:
    """One grouped neighbour as the table lists it."""
    id: str
    name: str  # the short unique label
    kind: str
    where: str  # path:line
    relation: str  # its drawn edges in words: "this WRITES Orders; Controller.run CALLS this"
    resolution: str  # how each was made, in the same order: "static; by_name via message (guess)"


@dataclass(frozen=True)
class Group:
    """Alike neighbours of `anchor`, drawn as one node `id` labelled `label`."""
    id: str
    label: str  # "41 test methods", "★ 12 methods" (search hits)
    anchor: str
    relations: tuple[Relation, ...]  # each member's to the anchor
    kind: str
    tests: bool
    seeds: bool
    members: tuple[Member, ...]


@dataclass(frozen=True)
class GroupedView:
    """What the drawing shows: the nodes drawn one by one, the groups, and the edges between
    them. An edge with a `group` stands for `count` member edges, with the count of each
    `resolutions` and of `guesses` among them."""
    nodes: tuple[str, ...]
    groups: tuple[Group, ...]
    edges: tuple[dict[str, Any], ...] = field(default=())

    def group_of(self) -> dict[str, str]:
        """member id -> its group's id."""
        return {m.id: g.id for g in self.groups for m in g.members}

    def rows(self) -> list[dict[str, Any]]:
        """Every grouped member, production code before tests, each group in file:line order."""
        ordered = sorted(self.groups, key=lambda g: g.tests)
        return [{"group": g.label, "resolution": m.resolution, "relation": m.relation, "file:line": m.where,
                 "id": m.id} for g in ordered for m in g.members]


def grouped(graph: nx.MultiDiGraph, nodes: list[str], edges: list[dict[str, Any]], seeds: list[str],
            group_from: int = GROUP_FROM) -> GroupedView:
    """The neighbourhood with alike neighbours grouped (see the module docstring). Larger groups
    form first; a group's anchor stays drawn, and a node is in one group at most."""
    shown = set(nodes)
    drawn_edges = [e for e in edges if e["from_id"] in shown and e["to_id"] in shown and e["from_id"] != e["to_id"]]
    to_anchor: dict[tuple[str, str], set[Relation]] = {}
    for edge in drawn_edges:
        to_anchor.setdefault((edge["from_id"], edge["to_id"]), set()).add((edge["edge_type"], True))
        to_anchor.setdefault((edge["to_id"], edge["from_id"]), set()).add((edge["edge_type"], False))
    seed_set = set(seeds)
    candidates: dict[_Key, list[str]] = {}
    for (member, anchor), relations in to_anchor.items():
        kind = graph.nodes[member].get("kind", "") if member in graph else ""
        key = (anchor, tuple(sorted(relations)), kind, in_tests(graph, member), member in seed_set)
        candidates.setdefault(key, []).append(member)
    taken: dict[str, _Key] = {}  # member -> the key of its group
    anchors: set[str] = set()
    for key, members in sorted(candidates.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        free = [m for m in members if m not in taken and m not in anchors]
        if len(free) > group_from and key[0] not in taken:
            anchors.add(key[0])
            taken |= {m: key for m in free}
    if not taken:
        return GroupedView(tuple(nodes), (), tuple(drawn_edges))
    labels = short_labels(nodes)
    ids = {key: _group_id(key) for key in set(taken.values())}
    member_of = {m: ids[key] for m, key in taken.items()}
    groups = [_group(graph, key, ids[key], sorted(m for m, k in taken.items() if k == key), drawn_edges, labels)
              for key in sorted(ids, key=lambda k: ids[k])]
    return GroupedView(tuple(n for n in nodes if n not in member_of), tuple(groups),
                       tuple(_merged_edges(graph, drawn_edges, member_of)))


def _group_id(key: _Key) -> str:
    anchor, relations, kind, tests, seeds = key
    return GROUP_PREFIX + "|".join([anchor, *(f"{t}{'>' if out else '<'}" for t, out in relations), kind,
                                    "tests" if tests else "code", "seeds" if seeds else "reached"])


def _group(graph: nx.MultiDiGraph, key: _Key, group_id: str, members: list[str], edges: list[dict[str, Any]],
           labels: Mapping[str, str]) -> Group:
    anchor, relations, kind, tests, seeds = key
    rows = sorted((_member(graph, node, edges, labels) for node in members), key=lambda m: (m.where, m.id))
    noun = _PLURAL.get(kind, f"{kind.lower()}s") if kind else "nodes"
    label = f"{SEED_MARK if seeds else ''}{len(members)} {'test ' if tests else ''}{noun}"
    return Group(group_id, label, anchor, relations, kind, tests, seeds, tuple(rows))


def _member(graph: nx.MultiDiGraph, node: str, edges: list[dict[str, Any]], labels: Mapping[str, str]) -> Member:
    data = graph.nodes[node] if node in graph else {}
    own = [e for e in edges if node in (e["from_id"], e["to_id"])]
    relation = "; ".join(f"this {e['edge_type']} {labels.get(e['to_id'], e['to_id'])}" if e["from_id"] == node
                         else f"{labels.get(e['from_id'], e['from_id'])} {e['edge_type']} this" for e in own)
    resolution = "; ".join(provenance(_edge_data(graph, e)) for e in own)
    return Member(node, labels.get(node, node), data.get("kind", ""),
                  f"{data.get('path', '?')}:{data.get('start_line', '?')}", relation, resolution)


def _edge_data(graph: nx.MultiDiGraph, edge: Mapping[str, Any]) -> Mapping[str, Any]:
    ends = (edge["from_id"], edge["to_id"], edge["edge_type"])
    return graph.edges[ends] if graph.has_edge(*ends) else {}


def provenance(data: Mapping[str, Any]) -> str:
    """How an edge was made, as a table or a tooltip says it: its resolution, the construct, a
    guess mark."""
    via = f" via {data['via']}" if data.get("via") else ""
    return f"{data.get('resolution') or 'static'}{via}{' (guess)' if is_guess(data) else ''}"


def _merged_edges(graph: nx.MultiDiGraph, edges: list[dict[str, Any]],
                  member_of: Mapping[str, str]) -> list[dict[str, Any]]:
    """The drawn edges with each member replaced by its group: edges between the same two drawn
    ends and of one type become one, counting the edges it stands for and how each was made."""
    merged: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    kept: list[dict[str, Any]] = []
    for edge in edges:
        source, target = member_of.get(edge["from_id"], edge["from_id"]), member_of.get(edge["to_id"], edge["to_id"])
        if source == edge["from_id"] and target == edge["to_id"]:
            kept.append(edge)
        elif source != target:  # two members of one group: inside the group, listed in the table
            merged.setdefault((source, target, edge["edge_type"]), []).append(_edge_data(graph, edge))
    for (source, target, edge_type), found in merged.items():
        group = source if source.startswith(GROUP_PREFIX) else target
        kept.append({"from_id": source, "to_id": target, "edge_type": edge_type, "group": group,
                     "count": len(found), "resolutions": dict(Counter(provenance(d) for d in found).most_common()),
                     "guesses": sum(is_guess(d) for d in found)})
    return kept
