"""Stage 7, build prompt: system, question with its format rules, evidence (the graph's answer to
a list, impact or flow question first), raw attachments and recent conversation, in that order,
into `prompt_ready`, with the tokens of every block.

Attachments are raw excerpts (fenced, with SOURCE and SPAN) of selected blocks that condense had
to shorten, added in priority order while they fit their own budget, `max_attachment_tokens`
(the context budget is what forced the shortening, so it has no room for them). The system
text is the system part of `config/prompts/answer.md`; with a model playing `format`, the
user's format wish becomes explicit rules (the format enforcer).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragstream.llm.client import LLMClient
from ragstream.llm.prompts import system_text
from ragstream.llm.protocol import plain_text
from ragstream.retrieval.types import RetrievalBackend
from ragstream.stages.action import QUESTION, SCOPE, Action
from ragstream.stages.condense import kept_history
from ragstream.stages.conversation import render_history
from ragstream.stages.model_call import ask
from ragstream.stages.relate import graph_answer_markdown
from ragstream.stages.settings import number
from ragstream.super_prompt import SuperPrompt
from ragstream.token_count import TokenCounter

ACTIONS = (Action(
    "build_prompt", "build_prompt",
    lambda sp, rt, step, settings: run(sp, rt.backend, rt.llm, rt.counter, step, settings),
    reads=QUESTION | SCOPE | {"body", "S_CTX_MD", "final_selection_ids", "history_for_prompt", "turn_loop_counter",
                              "budget.context", "extras.loop", "extras.relations"},
    writes=frozenset({"System_MD", "Prompt_MD", "Attachments_MD", "prompt_ready", "budget.prompt"})),)

DEFAULT_FORMAT = "Markdown. Lead with the direct answer, then the evidence, citing file:lines."


def run(sp: SuperPrompt, backend: RetrievalBackend, llm: LLMClient | None, counter: TokenCounter,
        step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    sp.System_MD = system_text("answer")
    question = sp.question_en or sp.question_raw
    rules, decisions = _format_rules(sp, llm, question)
    sp.Prompt_MD = f"## Question\n\n{question}\n\n## Answer format\n\n{rules}"
    if requests := sp.extras.get("loop", {}).get("requests"):
        sp.Prompt_MD += ("\n\n## Data you asked for\n\nThe evidence below was searched again for: "
                         + "; ".join(requests) + f". Follow-up searches left: "
                         f"{max(0, number(settings, 'max_turn_loops', step, minimum=0) - sp.turn_loop_counter)}.")
    sp.Attachments_MD = _attachments(sp, backend, counter, number(settings, "max_attachment_tokens", step))
    history = render_history(kept_history(sp))
    evidence = "\n\n".join(part for part in (graph_answer_markdown(sp), sp.S_CTX_MD) if part)
    blocks = {"system": sp.System_MD, "prompt": sp.Prompt_MD,
              "context": f"## Evidence\n\n{evidence}" if evidence else "",
              "attachments": f"## Attachments\n\n{sp.Attachments_MD}" if sp.Attachments_MD else "",
              "history": history}
    sp.prompt_ready = "\n\n".join(text for text in blocks.values() if text)
    sp.budget = {**sp.budget, "prompt": {
        "blocks": {name: counter.count(text) for name, text in blocks.items()},
        "limits": {"context": settings["max_context_tokens"], "history": settings["max_history_tokens"],
                   "attachments": settings["max_attachment_tokens"]},
        "total": counter.count(sp.prompt_ready), **decisions}}
    return "ok"


def _format_rules(sp: SuperPrompt, llm: LLMClient | None, question: str) -> tuple[str, dict[str, Any]]:
    """The answer format: as the user wrote it (or the default), or as rules the `format` model
    made of it."""
    written = sp.body.get("format") or DEFAULT_FORMAT
    if llm is None or not llm.uses_model("format"):
        return written, {"path": "deterministic", "llm_calls": [], "warnings": []}
    values = {"question": question, "format": written,
              **{key: sp.body.get(key) or "unspecified" for key in ("audience", "tone", "depth")}}
    reply = ask(llm, "format", values, lambda text: plain_text(text, "format"))
    return (reply.value if reply.value is not None else written), reply.decisions()


def _attachments(sp: SuperPrompt, backend: RetrievalBackend, counter: TokenCounter, room: int) -> str:
    condensed = {c["id"] for c in sp.budget.get("context", {}).get("cuts", []) if c["reason"].startswith("condensed")}
    wanted = [i for i in sp.final_selection_ids if i in condensed]
    if not wanted:
        return ""
    scope = (sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
    texts = backend.fetch_texts(wanted, *scope)
    spans = backend.locations(wanted, *scope)
    parts = []
    for node in wanted:
        if node not in texts:
            continue
        part = f"```text\nSOURCE: {node}\nSPAN: {spans[node]}\n{texts[node]}\n```"
        cost = counter.count(part)
        if cost <= room:  # atomic, like node texts: skip what does not fit, keep scanning
            parts.append(part)
            room -= cost
    return "\n\n".join(parts)
