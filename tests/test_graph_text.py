"""The graph's texts (`graph_text`) are made once for graph.json and the compact form: graph.json's
bytes must be orjson's of networkx's node-link data, whatever the attributes are named, and the
texts of a graph whose lines were moved, made from the previous graph's, must be those made from
scratch (the builds that take that path are compared with full builds in `tests/test_graph_reuse.py`)."""
from __future__ import annotations

import networkx as nx
import numpy as np
import orjson

from ragstream.index.graph_text import graph_text
from ragstream.index.line_shift import FileMove, shift_graph


def sample_graph() -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph(name="g", when={1: "non-string key"})
    graph.add_node("m", kind="MODULE", path="a.py", start_line=1, end_line=9, acl={"public": True})
    graph.add_node("f", kind="FUNCTION", path="a.py", start_line=3, end_line=4, docstring="Doc.")
    graph.add_node("g", kind="FUNCTION", path="b.py", start_line=1, end_line=2)
    graph.add_node("bare")  # no attributes at all
    graph.add_node("named", id="its own id attribute", path="c.py")
    graph.add_edge("m", "f", key="CONTAINS")
    graph.add_edge("f", "g", key="CALLS", line=4)
    graph.add_edge("f", "g", key="REFERENCES", line=4)
    graph.add_edge("g", "f", key="CALLS", line=2, source="an attribute named source")
    graph.add_edge("g", "bare", key="USES")  # no attributes
    graph.add_edge("named", "m", key="IMPORTS", line=1)
    return graph


def node_link_bytes(graph: nx.MultiDiGraph) -> bytes:
    return orjson.dumps(nx.node_link_data(graph, edges="edges"), option=orjson.OPT_NON_STR_KEYS)


def assert_same_texts(left, right) -> None:
    for name in ("nodes", "node_items", "link_nodes", "rows_of_path", "edge_texts", "link_edges", "keys"):
        assert getattr(left, name) == getattr(right, name), name
    for name in ("source", "target", "edge_key"):
        assert np.array_equal(getattr(left, name), getattr(right, name)), name
    assert left.graph_json() == right.graph_json()


def test_graph_json_is_orjsons_node_link_data():
    graph = sample_graph()
    assert graph_text(graph).graph_json() == node_link_bytes(graph)
    assert graph_text(nx.MultiDiGraph()).graph_json() == node_link_bytes(nx.MultiDiGraph())


def test_the_texts_of_a_moved_graph_are_made_from_the_previous_ones_as_from_scratch():
    before = sample_graph()
    kept = graph_text(before)
    move = FileMove({2: 3, 3: 4, 4: 6}, {"m": (1, 10, None), "f": (4, 6, "Doc, longer.")})
    moved = shift_graph(before, {"a.py": move})
    assert moved is not None
    made = graph_text(moved, kept, ["a.py"])
    assert_same_texts(made, graph_text(moved))
    assert made.graph_json() == node_link_bytes(moved) != kept.graph_json()
    assert made.node_items[2] is kept.node_items[2]  # b.py's node: taken as it was


def test_texts_said_moved_whose_edges_are_not_those_they_were_moved_from_are_made_whole():
    # same nodes and edge count from `f`, but one edge now goes elsewhere: never the old slots
    before = sample_graph()
    after = sample_graph()
    after.remove_edge("f", "g", key="REFERENCES")
    after.add_edge("f", "bare", key="REFERENCES", line=4)
    assert_same_texts(graph_text(after, graph_text(before), ["a.py"]), graph_text(after))
