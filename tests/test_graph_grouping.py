"""Large neighbourhoods grouped in the graph view (issue 38): alike leaf neighbours beyond a count
are one labelled group node, every member listed in a table with its edge's provenance,
production code before tests."""
from __future__ import annotations

import re

import networkx as nx

from ragstream.graph.grouping import GROUP_FROM, grouped
from ragstream.graph.view import graph_html
from ragstream.super_prompt import SuperPrompt

TABLE = "sql:dbo.Orders|TABLE"
SEED = "cs:Shop.OrderService.Place|METHOD"


def _method(graph: nx.MultiDiGraph, name: str, path: str, line: int) -> str:
    node = f"cs:{name}|METHOD"
    graph.add_node(node, kind="METHOD", name=name, path=path, start_line=line, end_line=line + 3)
    return node


def _neighbourhood(tests: int = 9, code: int = 8):
    """A table written by the seed, `code` production methods (one a guess), `tests` test methods,
    a method that also calls another node (tied twice), and a method other nodes hang off."""
    graph = nx.MultiDiGraph(code_root="src/")
    graph.add_node(TABLE, kind="TABLE", name="dbo.Orders", path="src/db/schema.sql", start_line=1, end_line=9)
    _method(graph, "Shop.OrderService.Place", "src/Shop/OrderService.cs", 10)
    graph.add_edge(SEED, TABLE, "WRITES", resolution="inferred", via="type_argument")
    writers = [_method(graph, f"Shop.Jobs.Writer{i}.Run", f"src/Shop/Jobs/Writer{i}.cs", 5 + i) for i in range(code)]
    checks = [_method(graph, f"Shop.Tests.OrderTests.Case{i}", f"src/tests/OrderTests{i}.cs", 20 + i)
              for i in range(tests)]
    for i, node in enumerate(writers):
        graph.add_edge(node, TABLE, "WRITES", resolution="by_name" if i == 0 else "static",
                       **({"guess": True, "via": "change_tracking"} if i == 0 else {}))
    for node in checks:
        graph.add_edge(node, TABLE, "WRITES", resolution="static")
    twice = _method(graph, "Shop.Audit.Log", "src/Shop/Audit.cs", 3)
    graph.add_edge(twice, TABLE, "WRITES")
    graph.add_edge(SEED, twice, "CALLS")
    hub = _method(graph, "Shop.Import.Load", "src/Shop/Import.cs", 4)
    leaf = _method(graph, "Shop.Import.Parse", "src/Shop/Import.cs", 40)
    graph.add_edge(hub, TABLE, "WRITES")
    graph.add_edge(hub, leaf, "CALLS")
    nodes = [SEED, TABLE, *writers, *checks, twice, hub, leaf]
    edges = [{"from_id": u, "to_id": v, "edge_type": k} for u, v, k in graph.edges(keys=True)]
    parent = {TABLE: SEED, twice: SEED, leaf: hub, **{n: TABLE for n in [*writers, *checks, hub]}}
    return graph, nodes, edges, parent, writers, checks


def test_alike_leaf_neighbours_beyond_the_count_are_one_labelled_group():
    graph, nodes, edges, parent, writers, checks = _neighbourhood()
    view = grouped(graph, nodes, edges, [SEED], parent)
    assert [g.label for g in view.groups] == ["8 methods", "9 test methods"]
    assert {m.id for m in view.groups[1].members} == set(checks)
    # the seed, the table, a node tied to two others and a node others hang off stay drawn
    assert view.nodes == (SEED, TABLE, "cs:Shop.Audit.Log|METHOD", "cs:Shop.Import.Load|METHOD",
                          "cs:Shop.Import.Parse|METHOD")
    group_edges = [e for e in view.edges if e.get("group")]
    assert group_edges == [{"from_id": g.id, "to_id": TABLE, "edge_type": "WRITES", "group": g.id}
                           for g in view.groups]
    assert not any(e["from_id"] in writers or e["from_id"] in checks for e in view.edges)
    assert view.group_of()[checks[0]] == view.groups[1].id


def test_the_table_lists_code_before_tests_with_each_edge_s_provenance():
    graph, nodes, edges, parent, writers, checks = _neighbourhood()
    rows = grouped(graph, nodes, edges, [SEED], parent).rows()
    assert [r["id"] for r in rows] == [*writers, *checks]  # by file:line within each group
    assert rows[0] == {"group": "8 methods", "file:line": "src/Shop/Jobs/Writer0.cs:5",
                       "relation": "this WRITES Orders", "resolution": "by_name via change_tracking (guess)",
                       "id": writers[0]}
    assert rows[-1]["group"] == "9 test methods" and rows[-1]["resolution"] == "static"


def test_few_alike_neighbours_stay_drawn_one_by_one():
    graph, nodes, edges, parent, *_ = _neighbourhood(tests=GROUP_FROM, code=2)
    view = grouped(graph, nodes, edges, [SEED], parent)
    assert not view.groups and view.nodes == tuple(nodes) and view.edges == tuple(edges)


def test_the_drawing_shows_the_group_node_and_keeps_its_edges_provenance():
    graph, nodes, edges, parent, writers, checks = _neighbourhood()
    sp = SuperPrompt(graph_seed_nodes=[SEED], graph_expanded_nodes=nodes, graph_edges=edges,
                     graph_debug={"depth": {}, "parent": parent})
    html = graph_html(graph, sp)
    assert '"label": "9 test methods"' in html and '"label": "8 methods"' in html
    assert not re.search(r'"id": "cs:Shop\.Tests\.OrderTests\.Case\d\|METHOD"', html)  # members are not nodes
    # pyvis writes its data as ASCII JSON: × is \u00d7, — is \u2014
    titles = html.encode().decode("unicode_escape", errors="ignore")
    assert "WRITES ×8 (static ×7, by_name via change_tracking (guess) ×1) — 1 a guess" in titles
    assert "alike neighbours grouped" in html  # the legend says what a group node is
    # the seed's own edge still says how it was found
    assert "WRITES (inferred via type_argument)" in html
