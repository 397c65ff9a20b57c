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


def _neighbourhood(tests: int = 9, code: int = 8, seeds: int = 0):
    """A table written by the seed, `code` production methods (the first a guess, the last also
    calling another node), `tests` test methods and `seeds` more search hits."""
    graph = nx.MultiDiGraph(code_root="src/")
    graph.add_node(TABLE, kind="TABLE", name="dbo.Orders", path="src/db/schema.sql", start_line=1, end_line=9)
    _method(graph, "Shop.OrderService.Place", "src/Shop/OrderService.cs", 10)
    graph.add_edge(SEED, TABLE, "WRITES", resolution="inferred", via="type_argument")
    writers = [_method(graph, f"Shop.Jobs.Writer{i}.Run", f"src/Shop/Jobs/Writer{i}.cs", 5 + i) for i in range(code)]
    checks = [_method(graph, f"Shop.Tests.OrderTests.Case{i}", f"src/tests/OrderTests{i}.cs", 20 + i)
              for i in range(tests)]
    hits = [_method(graph, f"Shop.Hits.Hit{i}.Save", f"src/Shop/Hits/Hit{i}.cs", 1) for i in range(seeds)]
    for i, node in enumerate(writers):
        graph.add_edge(node, TABLE, "WRITES", resolution="by_name" if i == 0 else "static",
                       **({"guess": True, "via": "change_tracking"} if i == 0 else {}))
    for node in checks + hits:
        graph.add_edge(node, TABLE, "WRITES", resolution="static")
    leaf = _method(graph, "Shop.Import.Parse", "src/Shop/Import.cs", 40)
    if writers:
        graph.add_edge(writers[-1], leaf, "CALLS", resolution="dispatch")
    nodes = [SEED, TABLE, *writers, *checks, *hits, leaf]
    edges = [{"from_id": u, "to_id": v, "edge_type": k} for u, v, k in graph.edges(keys=True)]
    return graph, nodes, edges, [SEED, *hits], writers, checks


def test_alike_neighbours_beyond_the_count_are_one_labelled_group():
    graph, nodes, edges, seeds, writers, checks = _neighbourhood()
    view = grouped(graph, nodes, edges, seeds)
    assert [g.label for g in view.groups] == ["8 methods", "9 test methods"]
    assert {m.id for m in view.groups[1].members} == set(checks)
    # the seed, the anchor and a node tied only to a member stay drawn
    assert view.nodes == (SEED, TABLE, "cs:Shop.Import.Parse|METHOD")
    code, tests = (g.id for g in view.groups)
    assert [(e["from_id"], e["to_id"], e["edge_type"], e["count"]) for e in view.edges if e.get("group")] == [
        (code, TABLE, "WRITES", 8), (code, "cs:Shop.Import.Parse|METHOD", "CALLS", 1), (tests, TABLE, "WRITES", 9)]
    assert not any(e["from_id"] in writers or e["from_id"] in checks for e in view.edges)
    assert view.group_of()[checks[0]] == tests


def test_grouped_edges_keep_how_each_was_made():
    graph, nodes, edges, seeds, *_ = _neighbourhood()
    writes = next(e for e in grouped(graph, nodes, edges, seeds).edges if e.get("group") and e["count"] == 8)
    assert writes["resolutions"] == {"static": 7, "by_name via change_tracking (guess)": 1}
    assert writes["guesses"] == 1


def test_the_table_lists_code_before_tests_with_each_edge_s_provenance():
    graph, nodes, edges, seeds, writers, checks = _neighbourhood()
    rows = grouped(graph, nodes, edges, seeds).rows()
    assert [r["id"] for r in rows] == [*writers, *checks]  # by file:line within each group
    assert rows[0] == {"group": "8 methods", "resolution": "by_name via change_tracking (guess)",
                       "relation": "this WRITES Orders", "file:line": "src/Shop/Jobs/Writer0.cs:5", "id": writers[0]}
    assert rows[7]["relation"] == "this WRITES Orders; this CALLS Import.Parse"
    assert rows[7]["resolution"] == "static; dispatch"
    assert rows[-1]["group"] == "9 test methods" and rows[-1]["resolution"] == "static"


def test_search_hits_group_apart_and_few_alike_neighbours_stay_drawn():
    graph, nodes, edges, seeds, *_ = _neighbourhood(tests=GROUP_FROM, code=2, seeds=7)
    view = grouped(graph, nodes, edges, seeds)
    assert [g.label for g in view.groups] == ["★ 8 methods"]  # the first seed writes it too
    graph, nodes, edges, seeds, *_ = _neighbourhood(tests=GROUP_FROM, code=2)
    view = grouped(graph, nodes, edges, seeds)
    assert not view.groups and view.nodes == tuple(nodes) and view.edges == tuple(edges)


def test_the_drawing_shows_the_group_node_and_keeps_its_edges_provenance():
    graph, nodes, edges, seeds, *_ = _neighbourhood()
    sp = SuperPrompt(graph_seed_nodes=seeds, graph_expanded_nodes=nodes, graph_edges=edges,
                     graph_debug={"depth": {}, "parent": {}})
    html = graph_html(graph, sp)
    assert '"label": "9 test methods"' in html and '"label": "8 methods"' in html
    assert not re.search(r'"id": "cs:Shop\.Tests\.OrderTests\.Case\d\|METHOD"', html)  # members are not nodes
    # pyvis writes its data as ASCII JSON: × is \u00d7, — is \u2014
    titles = html.encode().decode("unicode_escape", errors="ignore")
    assert "WRITES ×8 (static ×7, by_name via change_tracking (guess) ×1) — 1 a guess" in titles
    assert "alike neighbours grouped" in html  # the legend says what a group node is
    assert "WRITES (inferred via type_argument)" in html  # an edge drawn alone says how it was found too
