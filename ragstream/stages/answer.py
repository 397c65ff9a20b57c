"""Stage 8, answer. With no model configured: an honest extractive answer, labelled as such.

It quotes the best evidence blocks (at most `answer_max_citations`, in selection order): for
each, its file:lines, how the graph connects it to a search hit, and its lines that name the
question's keywords; and it points to the ready prompt for any model. It never writes prose
that pretends to be an answer. (The model path arrives with the language-model issue.)
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragstream.index.keywords import keyword_tokens
from ragstream.retrieval.types import RetrievalBackend
from ragstream.stages.settings import number
from ragstream.super_prompt import SuperPrompt

WRITES = frozenset({"answer_en", "answer"})
OUTCOMES = ("ok", "no_evidence")
NOTICE = ("> **Not written by a model.** No language model is configured, so this is the evidence "
          "ragstream found for the question, best first. The ready prompt (`prompt_ready`, or "
          "`ragstream ask --show-prompt`) can be pasted into any model.")


def run(sp: SuperPrompt, backend: RetrievalBackend, step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    texts = {item["id"]: item for item in sp.node_texts}
    chosen = [i for i in sp.final_selection_ids if i in texts][: number(settings, "answer_max_citations", step)]
    best_lines = number(settings, "answer_best_lines", step)
    if not chosen:
        sp.answer_en = sp.answer = (f"{NOTICE}\n\nNo evidence was found that this caller may see, so there is "
                                    "nothing to quote. Try other words, another pipeline, or wider filters.")
        return "no_evidence"
    spans = backend.locations(chosen, sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
    query = set(keyword_tokens(sp.retrieval_query or sp.question_en or sp.question_raw))
    parent = sp.graph_debug.get("parent", {})
    lines = [NOTICE, ""]
    for node in chosen:
        lines.append(f"- **{node}** — `{spans.get(node, '?')}` ({_connection(node, parent, sp.graph_seed_nodes)})")
        best = [line.rstrip() for line in texts[node]["text"].split("\n") if query & set(keyword_tokens(line))]
        if best:
            lines.extend(["  ```", *(f"  {line}" for line in best[:best_lines]), "  ```"])
    sp.answer_en = sp.answer = "\n".join(lines)
    return "ok"


def _connection(node: str, parent: Mapping[str, str | None], seeds: list[str]) -> str:
    """`search hit`, or the graph path from the hit it was reached from: `hit → a → node`."""
    if node in seeds:
        return "search hit"
    path, current = [node], parent.get(node)
    while current is not None and current not in path:
        path.append(current)
        current = parent.get(current)
    return "reached from the search hit by the graph: " + " → ".join(reversed(path))
