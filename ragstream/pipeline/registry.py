"""The actions a pipeline step may name: their parameters (with types) and their outcomes.

A loader rejects anything not declared here, so a typo in a pipeline file fails at load time,
naming the file and the step, instead of silently doing nothing at run time.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ActionSpec:
    params: Mapping[str, type | tuple[type, ...]]
    outcomes: tuple[str, ...]


REGISTRY: dict[str, ActionSpec] = {
    # stage 1 (ragstream/stages/normalize.py)
    "normalize": ActionSpec({}, ("ok",)),
    # stage 2 (ragstream/stages/route.py)
    "route": ActionSpec({}, ("ok", "direct")),
    # stage 3 (ragstream/stages/retrieve.py)
    "retrieve": ActionSpec({"top_k": int, "mode": str, "rerank": str}, ("ok", "no_entry_points")),
    # stage 4 (ragstream/stages/rerank.py)
    "rerank": ActionSpec({}, ("ok", "no_entry_points")),
    # expand_dependency_tree (ragstream/graph/actions.py)
    "expand": ActionSpec({"max_depth_from_settings": str, "max_nodes_from_settings": str,
                          "edge_allowlist_from_settings": str}, ("ok", "no_seeds", "limit_reached")),
    # fetch_node_texts (ragstream/graph/actions.py)
    "fetch_node_texts": ActionSpec({"budget_tokens": int, "max_chars": int, "prioritization_mode": str},
                                   ("ok", "no_texts")),
    # stages 6-8 (ragstream/stages/)
    "condense": ActionSpec({}, ("ok", "condensed")),
    "build_prompt": ActionSpec({}, ("ok",)),
    "answer": ActionSpec({}, ("ok", "no_evidence")),
}
