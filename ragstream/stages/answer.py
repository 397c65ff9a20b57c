"""Stage 8, answer, and the guard of its follow-up loop.

Model path: the ready prompt goes to the `answer` model (streamed when the caller streams). Its
reply starts with `[Answer:]` (the answer, translated out when the question was not English)
or `[Requesting data on:]` (outcome `follow_up`: `loop_guard` sends the request back through
retrieval, or, past `max_turn_loops`, finalises with what is missing). Markers never reach the
user, not even while streaming.

Deterministic path (no model): an honest extractive answer, labelled as such. The graph's
answer to a list, impact or flow question (stage relate) comes first, complete; then it quotes the
best evidence blocks (at most `answer_max_citations`, in selection order): for each, its
file:lines, how the graph connects it to a search hit, and its lines that name the question's
keywords; and it points to the ready prompt for any model. It never writes prose that pretends
to be an answer.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ragstream.excerpt import GAP_LINE, quoted, selected
from ragstream.keyword_tokens import keyword_tokens
from ragstream.llm.client import LLMClient
from ragstream.llm.protocol import AnswerStream, parse_answer, plain_text
from ragstream.retrieval.types import RetrievalBackend
from ragstream.stages.action import QUESTION, SCOPE, Action
from ragstream.stages.model_call import ask
from ragstream.stages.relate import graph_answer_ids, graph_answer_markdown
from ragstream.stages.settings import number
from ragstream.index.model import PART_MARK
from ragstream.super_prompt import SuperPrompt

ACTIONS = (
    Action("answer", "answer", lambda sp, rt, step, settings: run(sp, rt.backend, rt.llm, rt.on_token, step, settings),
           ("ok", "no_evidence", "follow_up"),
           reads=QUESTION | SCOPE | {"is_english", "body", "prompt_ready", "System_MD", "node_texts",
                                     "final_selection_ids", "graph_debug", "graph_seed_nodes", "retrieval_query",
                                     "extras.relations"},
           writes=frozenset({"answer_en", "answer", "extras.answer"})),
    # the answer loop: a follow-up search, at most max_turn_loops times
    Action("loop_guard", "answer", lambda sp, rt, step, settings: loop_guard(sp, rt.llm, step, settings),
           ("ok", "exhausted"),
           reads=frozenset({"question_raw", "is_english", "body", "final_selection_ids", "extras.answer",
                            "extras.loop"}),
           writes=frozenset({"turn_loop_counter", "retrieval_query", "retrieval_mode", "rerank", "answer_en", "answer",
                             "extras.loop"})),
)
MIN_CITED_NAME = 5  # characters a name needs to count as cited on its own
NOTICE = ("> **Not written by a model.** {why}: the evidence ragstream found for the question, best first. "
          "The ready prompt (`prompt_ready`, or `ragstream ask --show-prompt`) can be pasted into any model.")
NO_ANSWER_MODEL = "No model plays the answering role (llm.provider, llm.roles.answer), so this is the deterministic answer"


def notice(failure: str = "") -> str:
    """The answer's header when no model wrote it: why not, honestly."""
    why = f"The answering model failed: {failure.rstrip('.')}; this is the deterministic answer" if failure else NO_ANSWER_MODEL
    return NOTICE.format(why=why)


def run(sp: SuperPrompt, backend: RetrievalBackend, llm: LLMClient | None, stream_to: Callable[[str], None] | None,
        step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    decisions: dict[str, Any] = {"path": "deterministic", "warnings": [], "llm_calls": []}
    outcome, failure = "", ""
    if llm is not None and llm.uses_model("answer") and sp.prompt_ready:
        reply = ask(llm, "answer", {"prompt": sp.prompt_ready.removeprefix(sp.System_MD).strip()}, parse_answer,
                    stream=(lambda: AnswerStream(stream_to)) if stream_to else None)
        decisions, failure = reply.decisions(), reply.failure
        if reply.value is not None and reply.value.kind == "request":
            sp.extras = {**sp.extras, "answer": {**decisions, "request": reply.value.text}}
            return "follow_up"
        if reply.value is not None:
            sp.answer_en, outcome = reply.value.text, "ok"
            decisions["shown_while_streaming"] = stream_to is not None
            decisions["citations"] = cited_by_name(sp.answer_en, [*graph_answer_ids(sp), *sp.final_selection_ids])
    if not outcome:
        outcome, decisions["citations"] = _extractive(sp, backend, step, settings, notice(failure))
    sp.extras = {**sp.extras, "answer": finalise(sp, llm, decisions)}
    return outcome


def finalise(sp: SuperPrompt, llm: LLMClient | None, decisions: dict[str, Any]) -> dict[str, Any]:
    """Set `answer` from `answer_en`: translated out when the question was not English (by the
    translator model, else as written, and said); returns `decisions` with what that did."""
    if sp.is_english:
        sp.answer = sp.answer_en
        return decisions
    if llm is None or not llm.uses_model("translator"):
        sp.answer = sp.answer_en
        return {**decisions, "translation": "none", "warnings": [*decisions.get("warnings", []),
                                                               "not translated: no model plays the translator"]}
    target = "the language of this question: " + (sp.body.get("task") or sp.question_raw)
    reply = ask(llm, "translator", {"text": sp.answer_en, "target": target}, lambda r: plain_text(r, "translator"))
    sp.answer = reply.value if reply.value is not None else sp.answer_en
    return {**decisions, "translation": reply.path, "shown_while_streaming": False,
            "llm_calls": [*decisions.get("llm_calls", []), *reply.calls],
            "warnings": [*decisions.get("warnings", []), *reply.warnings]}


def loop_guard(sp: SuperPrompt, llm: LLMClient | None, step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    """Send the answering model's request for more data back through retrieval, at most
    `max_turn_loops` times, with the evidence it has seen carried along; past that, finalise
    with an honest account of what is missing."""
    request = sp.extras.get("answer", {}).get("request", "")
    requests = [*sp.extras.get("loop", {}).get("requests", []), request]
    carried = list(dict.fromkeys([*sp.extras.get("loop", {}).get("carried", []), *sp.final_selection_ids]))
    limit = number(settings, "max_turn_loops", step, minimum=0)
    if sp.turn_loop_counter < limit:
        sp.turn_loop_counter += 1
        sp.retrieval_query = request
        if sp.retrieval_mode == "direct":  # routed past retrieval, but the model wants evidence
            sp.retrieval_mode, sp.rerank = "hybrid", "none"
        sp.extras = {**sp.extras, "loop": {"requests": requests, "carried": carried,
                                           "decision": f"follow-up {sp.turn_loop_counter} of {limit}"}}
        return "ok"
    sp.answer_en = (
        f"I cannot answer this from the evidence found. After {sp.turn_loop_counter} follow-up "
        f"search{'es' if sp.turn_loop_counter != 1 else ''} (the limit, `max_turn_loops`, is {limit}) the model "
        "still needed more data on:\n\n" + "\n".join(f"- {r}" for r in requests)
        + "\n\nThe evidence that was found: " + (", ".join(f"`{i}`" for i in sp.final_selection_ids) or "none")
        + ". Nothing was guessed to fill the gap.")
    decisions = finalise(sp, llm, {"requests": requests, "carried": carried,
                                   "decision": "loops exhausted: finalised without an answer"})
    sp.extras = {**sp.extras, "loop": decisions}
    return "exhausted"


def _extractive(sp: SuperPrompt, backend: RetrievalBackend, step: Mapping[str, Any],
                settings: Mapping[str, Any], header: str) -> tuple[str, list[str]]:
    """(outcome, the node ids the answer cites, in its order), under `header`."""
    texts = {item["id"]: item for item in sp.node_texts}
    chosen = [i for i in sp.final_selection_ids if i in texts][: number(settings, "answer_max_citations", step)]
    best_lines = number(settings, "answer_best_lines", step)
    from_graph = graph_answer_markdown(sp)
    if not chosen and not from_graph:
        sp.answer_en = f"{header}\n\n{nothing_found(sp.retrieval_filters)}"
        return "no_evidence", []
    spans = backend.locations(chosen, sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
    query = set(keyword_tokens(sp.retrieval_query or sp.question_en or sp.question_raw))
    parent = sp.graph_debug.get("parent", {})
    # A line of its own between the graph's answer and the evidence: both are lists, which
    # Markdown would otherwise run together into one.
    lines = [header, "", *([from_graph, "", "**The evidence**, best first:", ""] if from_graph else [])]
    for node in chosen:
        lines.append(f"- **{node}** — `{spans.get(node, '?')}` ({_connection(node, parent, sp.graph_seed_nodes)})")
        text, numbers = texts[node]["text"], texts[node].get("lines")
        best = [i for i, line in enumerate(text.split("\n"))
                if query & set(keyword_tokens(line)) and (numbers is None or numbers[i] != GAP_LINE)]
        if best:  # the lines as the file has them: numbered, a gap marked wherever lines are left out
            lines.extend(["  ```", quoted(*selected(text, numbers, best[:best_lines]), indent="  "), "  ```"])
    sp.answer_en = "\n".join(lines)
    return "ok", list(dict.fromkeys([*graph_answer_ids(sp), *chosen]))


def nothing_found(filters: Mapping[str, Any]) -> str:
    """Why there is nothing to quote. With filters set it says they may hide relevant code, and
    nothing more: whether, how much or what they hid would leak what they hide."""
    if filters:  # an empty allowlist is a filter too: it hides everything
        return ("No visible evidence was found: your retrieval filters are set and may hide relevant code, "
                "so there is nothing to quote. Try other words, or ask with wider filters if you may.")
    return ("Nothing in the index matches this question, so there is nothing to quote. "
            "Try other words or another pipeline.")


def cited_by_name(answer_text: str, ids: list[str]) -> list[str]:
    """The evidence a model's answer names (by its short name or its file), in evidence order:
    what a follow-up ("and who calls it?") refers back to."""
    def named(chunk_id: str) -> bool:
        parts = chunk_id.split(":", 1)[-1].split("|", 1)[0].split(PART_MARK)[0].split(".")
        # a short last name ("run") alone is too common a word: then its owner must be named too
        wanted = parts[-1] if len(parts[-1]) >= MIN_CITED_NAME else ".".join(parts[-2:])
        return re.search(rf"(?<![\w.]){re.escape(wanted)}(?!\w)", answer_text) is not None
    return list(dict.fromkeys(i for i in ids if named(i)))


def _connection(node: str, parent: Mapping[str, str | None], seeds: list[str]) -> str:
    """`search hit`, or the graph path from the hit it was reached from: `hit → a → node`."""
    if node in seeds:
        return "search hit"
    path, current = [node], parent.get(node)
    while current is not None and current not in path:
        path.append(current)
        current = parent.get(current)
    return "reached from the search hit by the graph: " + " → ".join(reversed(path))
