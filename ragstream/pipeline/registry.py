"""The actions a pipeline step may name: their parameters (with types) and their outcomes.

A loader rejects anything not declared here, so a typo in a pipeline file fails at load time,
naming the file and the step, instead of silently doing nothing at run time.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


# The fixed stage vocabulary (DESIGN.md): every action belongs to one stage.
STAGES = ("normalize", "route", "retrieve", "rerank", "expand", "condense", "build_prompt", "answer")


@dataclass(frozen=True)
class ActionSpec:
    params: Mapping[str, type | tuple[type, ...]]
    outcomes: tuple[str, ...]
    stage: str


REGISTRY: dict[str, ActionSpec] = {
    # stage 1 (ragstream/stages/normalize.py)
    "normalize": ActionSpec({}, ("ok",), "normalize"),
    # stage 2 (ragstream/stages/route.py)
    "route": ActionSpec({}, ("ok", "direct"), "route"),
    # stage 3 (ragstream/stages/retrieve.py)
    "retrieve": ActionSpec({"top_k": int, "mode": str, "rerank": str}, ("ok", "no_entry_points"), "retrieve"),
    # stage 4 (ragstream/stages/rerank.py)
    "rerank": ActionSpec({}, ("ok", "no_entry_points"), "rerank"),
    # list, impact and flow questions answered from the graph (ragstream/stages/relate.py)
    "relate": ActionSpec({}, ("ok", "no_entry_points"), "expand"),
    # expand_dependency_tree (ragstream/graph/actions.py)
    "expand": ActionSpec({"max_depth_from_settings": str, "max_nodes_from_settings": str,
                          "edge_allowlist_from_settings": str}, ("ok", "no_seeds", "limit_reached"), "expand"),
    # fetch_node_texts (ragstream/graph/actions.py)
    "fetch_node_texts": ActionSpec({"budget_tokens": int, "max_chars": int, "prioritization_mode": str},
                                   ("ok", "no_texts"), "expand"),
    # the conversation, loaded before the router: a follow-up is resolved against it (conversation.py)
    "load_conversation_history": ActionSpec({}, ("ok",), "normalize"),
    # stages 6-8 (ragstream/stages/)
    "condense": ActionSpec({}, ("ok", "condensed"), "condense"),
    "build_prompt": ActionSpec({}, ("ok",), "build_prompt"),
    "answer": ActionSpec({}, ("ok", "no_evidence", "follow_up"), "answer"),
    # the answer loop and the end of a turn (ragstream/stages/answer.py, conversation.py)
    "loop_guard": ActionSpec({}, ("ok", "exhausted"), "answer"),
    "persist_turn_and_finalize": ActionSpec({}, ("ok",), "answer"),
}
