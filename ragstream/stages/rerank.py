"""Stage 4, rerank: reorder the top retrieval candidates, then gate out what should not go on.

Deterministic path: at most `N2_RERANK_TOP_K` hits are rescored by a blend of their min-max
normalised retrieval score and the share of the query's keywords their text contains (weights
from `retrieval.keyword_*_weight`). The gate then drops, with a reason per id: `empty` (no
keyword at all), `duplicate of <id>` (keyword sets overlapping >= `gate_duplicate_jaccard` with
a chunk ranked above), and `off_topic` (no query keyword and a retrieval score below the
candidates' median). The best of the rest, as many as retrieve chose seeds (its `top_k`), become
the seeds and `base_context_chunks` (unique by id): a gated seed leaves its place to the next
candidate. Among the seeds, a container (a file's own code, a class) whose member (not its constructor:
wiring, which says less than the outline) is also a seed leaves its place too (`outline of
<member>`): its text elides that member's body, so the place is worth more to the next
candidate than to a second view of the same code. Texts come through the backend, under the caller's filters.

Model path: the `gate` model decides keep / drop_irrelevant / drop_duplicate / drop_conflict for
the best rescored candidates, as many as there are seeds (texts cut to `gate_candidate_chars`);
it can drop, never add, and a seed it drops is not replaced.
"""
from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from ragstream.errors import ProtocolError
from ragstream.index.model import Chunk
from ragstream.keyword_tokens import keyword_tokens
from ragstream.llm.client import LLMClient
from ragstream.llm.grammars import gate_schema
from ragstream.llm.protocol import parse_json_object
from ragstream.retrieval.rerankers import blend, keyword_coverage
from ragstream.retrieval.types import RetrievalBackend
from ragstream.stages.action import QUESTION, SCOPE, Action
from ragstream.stages.model_call import ask
from ragstream.stages.settings import number
from ragstream.super_prompt import SuperPrompt

ACTIONS = (Action(
    "rerank", "rerank", lambda sp, rt, step, settings: run(sp, rt.backend, rt.llm, step, settings),
    ("ok", "no_entry_points"),
    reads=QUESTION | SCOPE | {"retrieval_query", "retrieval_hits"},
    writes=frozenset({"retrieval_seed_nodes", "base_context_chunks", "views_by_stage.rerank", "extras.gate"})),)

GATE_DECISIONS = ("keep", "drop_irrelevant", "drop_duplicate", "drop_conflict")
GATE_REASON_CHARS = 40  # a reason is a few words; a bound keeps a small model from rambling


def run(sp: SuperPrompt, backend: RetrievalBackend, llm: LLMClient | None, step: Mapping[str, Any],
        settings: Mapping[str, Any]) -> str:
    top = number(settings, "N2_RERANK_TOP_K", step)
    jaccard = number(settings, "gate_duplicate_jaccard", step, integer=False, minimum=0)
    weights = (number(settings, "keyword_semantic_weight", step, integer=False, minimum=0),
               number(settings, "keyword_keyword_weight", step, integer=False, minimum=0))
    hits, repeats = _first_of_each_id(sp.retrieval_hits[:top])
    chunks = {c.id: c for c in backend.fetch_chunks([h["id"] for h in hits], sp.repository, sp.branch,
                                                     sp.retrieval_filters, sp.active_index)}
    texts = {cid: chunk.text for cid, chunk in chunks.items()}
    query = set(keyword_tokens(sp.retrieval_query))
    words = {h["id"]: set(keyword_tokens(texts.get(h["id"], ""))) for h in hits}
    coverage = keyword_coverage(query, [words[h["id"]] for h in hits])
    scores = blend([h["score"] for h in hits], coverage, *weights)
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], hits[i]["rank"]))
    ranked = [hits[i]["id"] for i in order]
    seeds = len(sp.retrieval_seed_nodes) or len(ranked)  # as many entry points as retrieve chose
    reasons: dict[str, str | None] = {}
    decisions: dict[str, Any] = {"path": "deterministic", "llm_calls": [], "warnings": []}
    if llm is not None and llm.uses_model("gate") and ranked:
        # The model reads only what can become a seed: N2 candidates' texts would not fit a small
        # model's window. What it drops is not replaced by candidates it has not read.
        judged = ranked[:seeds]
        limit = number(settings, "gate_candidate_chars", step)
        candidates = "\n\n".join(f"### {node}\n{texts.get(node, '')[:limit]}" for node in judged)
        reply = ask(llm, "gate", {"question": sp.question_en or sp.question_raw, "candidates": candidates},
                    lambda text: parse_gate(text, judged), schema=gate_schema(judged, GATE_DECISIONS, GATE_REASON_CHARS))
        decisions = reply.decisions()
        if reply.value is not None:
            reasons, notes = reply.value
            reasons |= {node: f"past the {seeds} the gate model read" for node in ranked[seeds:]}
            decisions["warnings"] = decisions["warnings"] + notes
    if not reasons:
        median = statistics.median(h["score"] for h in hits) if hits else 0.0
        reasons = _rule_gate(order, hits, words, coverage, median, jaccard)
    passed = [node for node in ranked if reasons[node] is None]
    kept, outlines = _seeds_without_outlines(passed, chunks, seeds)
    reasons |= outlines
    dropped = [{"id": h["id"], "reason": "over N2_RERANK_TOP_K"} for h in sp.retrieval_hits[top:]]
    dropped += [{"id": node, "reason": f"duplicate of {node}"} for node in repeats]
    dropped += [{"id": node, "reason": reasons[node]} for node in ranked if reasons[node] is not None]
    dropped += [{"id": node, "reason": f"below the {seeds} seeds"} for node in passed
                if node not in kept and node not in outlines]
    sp.retrieval_seed_nodes = kept
    sp.base_context_chunks = [chunks[node] for node in kept]  # kept ids are unique: so are these
    sp.views_by_stage = {**sp.views_by_stage, "rerank": kept}
    sp.extras = {**sp.extras, "gate": {"dropped": dropped, **decisions,
                                      "scores": {hits[i]["id"]: round(float(scores[i]), 4) for i in order}}}
    return "ok" if kept else "no_entry_points"


def _first_of_each_id(hits: list[dict]) -> tuple[list[dict], list[str]]:
    """(hits with each id once, at its best rank; the ids of the repeats)."""
    seen: set[str] = set()
    unique, repeats = [], []
    for hit in hits:
        if hit["id"] in seen:
            repeats.append(hit["id"])
        else:
            unique.append(hit)
            seen.add(hit["id"])
    return unique, repeats


def _rule_gate(order: list[int], hits: list[dict], words: Mapping[str, set[str]], coverage: list[float],
               median: float, jaccard: float) -> dict[str, str | None]:
    """Each ranked id's drop reason (None = kept), by the deterministic rules."""
    reasons: dict[str, str | None] = {}
    kept: list[str] = []
    for i in order:
        node, reason = hits[i]["id"], None
        if not words[node]:
            reason = "empty"
        elif twin := next((k for k in kept if _jaccard(words[node], words[k]) >= jaccard), None):
            reason = f"duplicate of {twin}"
        elif coverage[i] == 0 and hits[i]["score"] < median:
            reason = "off_topic"
        reasons[node] = reason
        if reason is None:
            kept.append(node)
    return reasons


def _seeds_without_outlines(passed: list[str], chunks: Mapping[str, Chunk],
                            seeds: int) -> tuple[list[str], dict[str, str | None]]:
    """(the first `seeds` of `passed` once every container of another seed is taken out; each
    container's reason). Taken in rank order, so a member below its container still displaces it."""
    kept: list[str] = []
    outlines: dict[str, str | None] = {}
    for node in passed:
        if len(kept) == seeds:
            break
        member = next((k for k in kept if _contains(chunks.get(node), chunks.get(k))), None)
        if member is not None:
            outlines[node] = f"outline of {member}"
            continue
        for container in [k for k in kept if _contains(chunks.get(k), chunks.get(node))]:
            outlines[container] = f"outline of {node}"
            kept.remove(container)
        kept.append(node)
    return kept, outlines


def _contains(outer: Chunk | None, inner: Chunk | None) -> bool:
    """Whether `outer` is a container of `inner`'s code: the same file, and `outer` is the file's
    own code (its other chunks are its members) or encloses `inner`'s lines; parts of one node
    never contain each other."""
    if outer is None or inner is None or outer.path != inner.path or outer.node_id == inner.node_id \
            or _is_constructor(inner):
        return False
    if outer.kind == "FILE":
        return inner.kind != "FILE"
    return (outer.start_line <= inner.start_line and inner.end_line <= outer.end_line
            and (outer.start_line, outer.end_line) != (inner.start_line, inner.end_line))


def _is_constructor(chunk: Chunk) -> bool:
    """`Shop.Order.Order` (or `Shop.Order.Order(int)`, `billing.Invoice.__init__`): wiring, which
    says less than the type's outline."""
    parts = chunk.symbol.split("(", 1)[0].rsplit(".", 2)
    return chunk.kind == "METHOD" and len(parts) == 3 and parts[2] in (parts[1], "__init__")


def parse_gate(reply: str, candidates: list[str]) -> tuple[dict[str, str | None], list[str]]:
    """(each candidate's drop reason, None = keep; notes) from the gate model's JSON. Ids it
    invents are ignored and candidates it skips are kept, each with a note: the gate can only
    remove what retrieval found, never add."""
    data = parse_json_object(reply, "gate")
    items = data.get("decisions")
    if not isinstance(items, list) or not all(isinstance(i, dict) and isinstance(i.get("id"), str) for i in items):
        raise ProtocolError('"decisions" must be a list of objects with an "id"', where="gate")
    reasons: dict[str, str | None] = {}
    notes: list[str] = []
    for item in items:
        decision = item.get("decision")
        if decision not in GATE_DECISIONS:
            raise ProtocolError(f"decision {decision!r} for {item['id']!r} is not one of {list(GATE_DECISIONS)}",
                                where="gate")
        if item["id"] not in candidates:
            notes.append(f"gate named an id that is not a candidate, ignored: {item['id']!r}")
            continue
        why = str(item.get("reason", "")).strip()
        reasons[item["id"]] = None if decision == "keep" else f"{decision} (model){': ' + why if why else ''}"
    for node in candidates:
        if node not in reasons:
            notes.append(f"gate gave no decision for {node!r}: kept")
            reasons[node] = None
    return reasons, notes


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0

