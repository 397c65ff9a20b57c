"""The state a question accumulates (`SuperPrompt`); its chunks are `index.model.Chunk`.

Stages read the state and write their own fields; nothing else is shared between stages.
Field groups, and which step writes each field: docs/DESIGN.md (section 1).
"""
from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from ragstream.errors import PipelineError
from ragstream.index.model import Chunk

@dataclass
class SuperPrompt:
    # question
    question_raw: str = ""
    is_english: bool = True
    question_en: str = ""
    body: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    # understanding
    intent: str = "other"
    domain: str = "code"
    concepts: list[str] = field(default_factory=list)
    synonyms: list[str] = field(default_factory=list)
    # plan
    retrieval_mode: str = ""
    retrieval_query: str = ""
    rerank: str = "none"
    # scope and security (retrieval_filters is sacred: only ever narrowed)
    repository: str = ""
    branch: str = ""
    active_index: str | None = None
    index_source: str = ""  # "" the configured retrieval.backend, "local" the data folder, "shared" Milvus
    retrieval_filters: dict[str, list[str]] = field(default_factory=dict)
    # retrieval
    retrieval_seed_nodes: list[str] = field(default_factory=list)
    retrieval_hits: list[dict[str, Any]] = field(default_factory=list)
    base_context_chunks: list[Chunk] = field(default_factory=list)
    views_by_stage: dict[str, list[str]] = field(default_factory=dict)
    final_selection_ids: list[str] = field(default_factory=list)
    # graph
    graph_seed_nodes: list[str] = field(default_factory=list)
    graph_expanded_nodes: list[str] = field(default_factory=list)
    graph_edges: list[dict[str, str]] = field(default_factory=list)
    graph_debug: dict[str, Any] = field(default_factory=dict)
    node_texts: list[dict[str, Any]] = field(default_factory=list)
    # context
    history_for_prompt: list[dict[str, str]] = field(default_factory=list)
    S_CTX_MD: str = ""  # the names docs/DESIGN.md gives the prompt blocks
    System_MD: str = ""
    Prompt_MD: str = ""
    Attachments_MD: str = ""
    prompt_ready: str = ""
    budget: dict[str, Any] = field(default_factory=dict)
    # answer
    answer_en: str = ""
    answer: str = ""
    turn_loop_counter: int = 0
    # bookkeeping
    stage: str = ""
    history_of_stages: list[str] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> str:
        """The whole state as JSON (stable key order), for saving, reloading and diffing."""
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False, indent=1)

    @classmethod
    def from_json(cls, text: str) -> "SuperPrompt":
        """The state `to_json` wrote; unknown fields are an error, not silently dropped."""
        data = json.loads(text)
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise PipelineError(f"unknown SuperPrompt field(s) {unknown}", where="state JSON")
        data["base_context_chunks"] = [Chunk(**c) for c in data.get("base_context_chunks", [])]
        return cls(**data)


def field_default(name: str) -> Any:
    """A fresh default value of one SuperPrompt field (what clearing it means)."""
    spec = next(f for f in fields(SuperPrompt) if f.name == name)
    return spec.default_factory() if spec.default_factory is not MISSING else spec.default


# What a new retrieval invalidates: everything retrieved, expanded or materialised before it.
RETRIEVAL_FIELDS = ("retrieval_seed_nodes", "retrieval_hits", "base_context_chunks", "views_by_stage",
                    "final_selection_ids")
GRAPH_FIELDS = ("graph_seed_nodes", "graph_expanded_nodes", "graph_edges", "graph_debug")
TEXT_FIELDS = ("node_texts", "S_CTX_MD", "Attachments_MD")
