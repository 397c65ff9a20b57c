"""Stage 8, answer, and the guard of its follow-up loop.

Model path: the ready prompt goes to the `answer` model (streamed when the caller streams). Its
reply starts with `[Answer:]` (the answer, translated out when the question was not English)
or `[Requesting data on:]` (outcome `follow_up`: `loop_guard` sends the request back through
retrieval, or, past `max_turn_loops`, finalises with what is missing). Markers never reach the
user, not even while streaming.

Deterministic path (no model): an honest extractive answer, labelled as such. It quotes the
best evidence blocks (at most `answer_max_citations`, in selection order): for each, its
file:lines, how the graph connects it to a search hit, and its lines that name the question's
keywords; and it points to the ready prompt for any model. It never writes prose that pretends
to be an answer.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ragstream.index.keywords import keyword_tokens
from ragstream.llm.client import LLMClient
from ragstream.llm.protocol import AnswerReply, AnswerStream, parse_answer, plain_text
from ragstream.retrieval.types import RetrievalBackend
from ragstream.stages.model_path import ask
from ragstream.stages.settings import number
from ragstream.super_prompt import SuperPrompt

WRITES = frozenset({"answer_en", "answer", "extras.answer"})
OUTCOMES = ("ok", "no_evidence", "follow_up")
LOOP_WRITES = frozenset({"turn_loop_counter", "retrieval_query", "answer_en", "answer", "extras.loop"})
NOTICE = ("> **Not written by a model.** No language model is configured, so this is the evidence "
          "ragstream found for the question, best first. The ready prompt (`prompt_ready`, or "
          "`ragstream ask --show-prompt`) can be pasted into any model.")


def run(sp: SuperPrompt, backend: RetrievalBackend, llm: LLMClient | None, stream_to: Callable[[str], None] | None,
        step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    if llm is not None and llm.uses_model("answer") and sp.prompt_ready:
        reply = ask(llm, "answer", {"prompt": sp.prompt_ready.removeprefix(sp.System_MD).strip()}, parse_answer,
                    stream=(lambda: AnswerStream(stream_to)) if stream_to else None)
        if reply.value is not None:
            return _model_answer(sp, llm, reply.value, reply.decisions())
        decisions = reply.decisions()
    else:
        decisions = {"path": "deterministic", "warnings": [], "llm_calls": []}
    outcome = _extractive(sp, backend, step, settings)
    if not sp.is_english:
        decisions["warnings"] = [*decisions["warnings"], "not translated: translation needs a model"]
    sp.extras = {**sp.extras, "answer": decisions}
    return outcome


def _model_answer(sp: SuperPrompt, llm: LLMClient, reply: AnswerReply, decisions: dict[str, Any]) -> str:
    if reply.kind == "request":
        sp.extras = {**sp.extras, "answer": {**decisions, "request": reply.text}}
        return "follow_up"
    sp.answer_en = sp.answer = reply.text
    if not sp.is_english:
        sp.answer, translation = translate(llm, reply.text, "the language of this question: "
                                           + (sp.body.get("task") or sp.question_raw))
        decisions = {**decisions, "llm_calls": decisions["llm_calls"] + translation["llm_calls"],
                     "warnings": decisions["warnings"] + translation["warnings"], "translation": translation["path"]}
    sp.extras = {**sp.extras, "answer": decisions}
    return "ok"


def translate(llm: LLMClient, text: str, target: str) -> tuple[str, dict[str, Any]]:
    """`text` in `target` by the translator model; as written (and said) when there is none."""
    if not llm.uses_model("translator"):
        return text, {"path": "deterministic", "llm_calls": [],
                      "warnings": ["not translated: no model plays the translator"]}
    reply = ask(llm, "translator", {"text": text, "target": target}, lambda r: plain_text(r, "translator"))
    return (reply.value if reply.value is not None else text), reply.decisions()


def loop_guard(sp: SuperPrompt, step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    """Send the answering model's request for more data back through retrieval, at most
    `max_turn_loops` times; past that, finalise with an honest account of what is missing."""
    request = sp.extras.get("answer", {}).get("request", "")
    requests = [*sp.extras.get("loop", {}).get("requests", []), request]
    limit = number(settings, "max_turn_loops", step, minimum=0)
    if sp.turn_loop_counter < limit:
        sp.turn_loop_counter += 1
        sp.retrieval_query = request
        sp.extras = {**sp.extras, "loop": {"requests": requests, "decision": f"follow-up {sp.turn_loop_counter} of {limit}"}}
        return "ok"
    sp.answer_en = sp.answer = (
        f"I cannot answer this from the evidence found. After {sp.turn_loop_counter} follow-up "
        f"search{'es' if sp.turn_loop_counter != 1 else ''} (the limit, `max_turn_loops`, is {limit}) the model "
        "still needed more data on:\n\n" + "\n".join(f"- {r}" for r in requests)
        + "\n\nThe evidence that was found: " + (", ".join(f"`{i}`" for i in sp.final_selection_ids) or "none")
        + ". Nothing was guessed to fill the gap.")
    sp.extras = {**sp.extras, "loop": {"requests": requests, "decision": "loops exhausted: finalised without an answer"}}
    return "exhausted"


def _extractive(sp: SuperPrompt, backend: RetrievalBackend, step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
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
