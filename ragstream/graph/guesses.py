"""Guessed edges (`guess: True`: linked by name only, or dispatched from such a link) shown or
hidden. The `graph_guesses` pipeline setting decides for the expand and relate stages, so the
graph panel, `expand` output and the context follow it; headers mark a guessed neighbour.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import networkx as nx

GUESS_MODES = ("show", "hide")


def is_guess(data: Mapping[str, Any]) -> bool:
    return bool(data.get("guess"))


def without_guesses(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A read-only view of `graph` without its guessed edges."""
    return nx.subgraph_view(graph, filter_edge=lambda u, v, k: not is_guess(graph.edges[u, v, k]))


def graph_for(graph: nx.MultiDiGraph, settings: Mapping[str, Any]) -> nx.MultiDiGraph:
    """`graph` as the pipeline's `graph_guesses` setting wants it (default: show)."""
    return without_guesses(graph) if settings.get("graph_guesses", "show") == "hide" else graph
