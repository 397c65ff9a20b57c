"""Guessed call edges (linked by name only) are marked everywhere and can be left out."""
from __future__ import annotations

from ragstream.graph.expansion import ExpansionLimits, expand_dependency_tree
from ragstream.graph.guesses import graph_for
from ragstream.graph.view import graph_html
from ragstream.index.graph_build import build_graph
from ragstream.index.headers import render_header
from ragstream.index.python.parser import parse_python
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.super_prompt import SuperPrompt

CODE = ("class Store:\n    def save(self, item):\n        return item\n"
        "def sync(thing):\n    return thing.save(1)\n"   # nothing is known of `thing`: a guess
        "def main():\n    return Store().save(2)\n")
SYNC, SAVE = "py:app.sync|FUNCTION", "py:app.Store.save|METHOD"


def _graph(guesses: bool = True):
    graph, _ = build_graph([parse_python("app.py", CODE, "app")], python_guesses=guesses)
    return graph


def test_a_guess_is_labelled_and_the_index_can_do_without():
    data = _graph().edges[SYNC, SAVE, "CALLS"]
    assert data["resolution"] == "by_name" and data["guess"] is True
    assert not _graph(guesses=False).has_edge(SYNC, SAVE, "CALLS")
    assert _graph(guesses=False).has_edge("py:app.main|FUNCTION", SAVE, "CALLS")  # inferred, not a guess


def test_expansion_follows_guesses_unless_the_setting_hides_them():
    limits = ExpansionLimits(max_depth=1, max_nodes=10, edges={"CALLS": "both"})
    graph = _graph()
    shown = expand_dependency_tree(graph_for(graph, {"graph_guesses": "show"}), [SAVE], RetrievalFilters(), limits)
    hidden = expand_dependency_tree(graph_for(graph, {"graph_guesses": "hide"}), [SAVE], RetrievalFilters(), limits)
    assert SYNC in shown.nodes and SYNC not in hidden.nodes
    assert "py:app.main|FUNCTION" in hidden.nodes


def test_headers_and_the_graph_panel_mark_a_guess():
    graph = _graph()
    assert "called by: app.main, app.sync (guess)" in render_header(graph, SAVE, 8, lambda node: True)
    limits = ExpansionLimits(max_depth=1, max_nodes=10, edges={"CALLS": "both"})
    result = expand_dependency_tree(graph, [SAVE], RetrievalFilters(), limits)
    sp = SuperPrompt(repository="r", branch="b", graph_seed_nodes=result.seeds,
                     graph_expanded_nodes=result.nodes, graph_edges=result.edges)
    page = graph_html(graph, sp)
    assert "a guess" in page and '"dashes": true' in page
