"""Stage 7, build prompt: system, question with its format rules, evidence, raw attachments and
recent conversation, in that order, into `prompt_ready`, with the tokens of every block.

Attachments are raw excerpts (fenced, with SOURCE and SPAN) of selected blocks that condense had
to shorten, added in priority order while they fit their own budget, `max_attachment_tokens`
(the context budget is what forced the shortening, so it has no room for them).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragstream.config import PROJECT_ROOT
from ragstream.retrieval.types import RetrievalBackend
from ragstream.stages.condense import kept_history
from ragstream.stages.settings import number
from ragstream.super_prompt import SuperPrompt
from ragstream.tokens import TokenCounter

WRITES = frozenset({"System_MD", "Prompt_MD", "Attachments_MD", "prompt_ready", "budget.prompt"})
OUTCOMES = ("ok",)
SYSTEM_PROMPT = PROJECT_ROOT / "config" / "prompts" / "answer_system.md"
DEFAULT_FORMAT = "Markdown. Lead with the direct answer, then the evidence, citing file:lines."


def run(sp: SuperPrompt, backend: RetrievalBackend, counter: TokenCounter, step: Mapping[str, Any],
        settings: Mapping[str, Any]) -> str:
    sp.System_MD = SYSTEM_PROMPT.read_text(encoding="utf-8").strip()
    question = sp.question_en or sp.question_raw
    sp.Prompt_MD = f"## Question\n\n{question}\n\n## Answer format\n\n{sp.body.get('format') or DEFAULT_FORMAT}"
    sp.Attachments_MD = _attachments(sp, backend, counter, number(settings, "max_attachment_tokens", step))
    history = "\n".join(f"**{turn['role']}**: {turn['content']}" for turn in kept_history(sp))
    blocks = {"system": sp.System_MD, "prompt": sp.Prompt_MD,
              "context": f"## Evidence\n\n{sp.S_CTX_MD}" if sp.S_CTX_MD else "",
              "attachments": f"## Attachments\n\n{sp.Attachments_MD}" if sp.Attachments_MD else "",
              "history": f"## Recent conversation\n\n{history}" if history else ""}
    sp.prompt_ready = "\n\n".join(text for text in blocks.values() if text)
    sp.budget = {**sp.budget, "prompt": {
        "blocks": {name: counter.count(text) for name, text in blocks.items()},
        "limits": {"context": settings["max_context_tokens"], "history": settings["max_history_tokens"],
                   "attachments": settings["max_attachment_tokens"]},
        "total": counter.count(sp.prompt_ready)}}
    return "ok"


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
