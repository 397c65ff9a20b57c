"""Stage 2, route: choose the retrieval mode and query, as one prefix line.

The deterministic path writes the same line a model would and reads it back with the same
strict parser. Rules: quoted strings and error messages in a short question lean to BM25
(exact tokens matter; a long issue report with a traceback is prose naming code: HYBRID),
a question that is mostly identifiers to BM25, identifiers inside prose to HYBRID, prose to
HYBRID (on code, keyword evidence is too strong to drop), and a question that shares no
keyword with anything the caller may see to DIRECT. A follow-up ("and who calls it?") is never
DIRECT: the previous turn's subjects (`extras.history.follow_up`, resolved when the conversation
was loaded) are added to what is searched. Model path: the `router` model writes the line,
seeing the conversation and those subjects (a malformed line is asked for again once, then the
rules decide).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ragstream.keyword_tokens import keyword_tokens
from ragstream.llm.client import LLMClient
from ragstream.llm.protocol import format_route, parse_route
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.types import RetrievalBackend, SearchRequest
from ragstream.stages.action import QUESTION, SCOPE, Action
from ragstream.stages.conversation import render_history
from ragstream.stages.follow_up import short_name
from ragstream.stages.model_call import ask
from ragstream.stages.settings import number
from ragstream.super_prompt import SuperPrompt

ACTIONS = (Action(
    "route", "route", lambda sp, rt, step, settings: run(sp, rt.backend, rt.llm, step, settings), ("ok", "direct"),
    reads=QUESTION | SCOPE | {"intent", "domain", "concepts", "history_for_prompt", "extras.history"},
    writes=frozenset({"retrieval_mode", "retrieval_query", "rerank", "extras.route"})),)

# Quotes that open and close outside words: an apostrophe (doesn't, the loader's) is not one.
_QUOTED = re.compile(r"(?<!\w)\"([^\"]{2,})\"(?!\w)|(?<!\w)'([^']{2,})'(?!\w)|`([^`]{2,})`")
_ERROR = re.compile(r"Traceback|\b\w*(?:Error|Exception|Warning)\b\s*:|\bline \d+\b|^\s*File \"", re.M)
_IDENTIFIER = re.compile(r"\b(?:[A-Za-z_]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\w+\.\w+(?:\.\w+)*|\w+\(\))")


def rule_route(question: str, has_overlap: bool, short_words: int, lookup_words: int) -> tuple[str, list[str]]:
    """(prefix line, reasons) for a question; `short_words` or fewer words made of identifiers
    are a lookup, not prose; quoted text and error messages are looked up exactly in a question
    of at most `lookup_words` words (a longer one, an issue report, is prose that names code)."""
    text = " ".join(question.split())
    if not has_overlap:
        return format_route("DIRECT", "no keyword of the question occurs in the visible index"), [
            "no overlap with the index vocabulary"]
    short = len(text.split()) <= lookup_words
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(question)]
    if quoted and short:
        return format_route("BM25", " ".join(quoted)), [f"quoted text: {quoted}"]
    if _ERROR.search(question) and short:
        return format_route("BM25", text), ["looks like an error message or traceback"]
    identifiers = _IDENTIFIER.findall(question)
    if identifiers and len(text.split()) <= short_words:
        return format_route("BM25", text), [f"short and made of identifiers: {identifiers}"]
    if identifiers:
        return format_route("HYBRID", text), [f"prose naming identifiers: {identifiers}"]
    return format_route("HYBRID", text), ["prose"]


def run(sp: SuperPrompt, backend: RetrievalBackend, llm: LLMClient | None, step: Mapping[str, Any],
        settings: Mapping[str, Any]) -> str:
    """Write the plan (mode, query, rerank) and the raw line; outcome `direct` skips retrieval."""
    subjects = (sp.extras.get("history", {}).get("follow_up") or {}).get("subjects", [])
    question = " ".join([sp.question_en or sp.question_raw, *map(short_name, subjects)])
    overlap = _visible_overlap(sp, backend, question)
    line, reasons = rule_route(question, overlap, number(settings, "route_short_question_words", step),
                               number(settings, "route_lookup_max_words", step))
    decisions: dict[str, Any] = {"path": "deterministic", "llm_calls": [], "warnings": []}
    # With no visible keyword in common there is nothing to search: no model is asked.
    if overlap and llm is not None and llm.uses_model("router"):
        values = {"question": sp.question_en or sp.question_raw, "intent": sp.intent, "domain": sp.domain,
                  "concepts": ", ".join(sp.concepts), "history": render_history(sp.history_for_prompt) or "(none)",
                  "subjects": ", ".join(map(short_name, subjects)) or "(none)"}
        reply = ask(llm, "router", values, _model_line)
        decisions = reply.decisions()
        if reply.value is not None and subjects and parse_route(reply.value).mode == "direct":
            reasons = [*reasons, "the router model chose DIRECT for a follow-up about code: the rules decide"]
        elif reply.value is not None:
            line, reasons = reply.value, ["chosen by the router model"]
    plan = parse_route(line)
    sp.retrieval_mode = plan.mode
    sp.retrieval_query = plan.query if plan.mode != "direct" else ""
    sp.rerank = plan.rerank
    if subjects:
        reasons = [*reasons, f"a follow-up: the previous turn's subjects {[short_name(s) for s in subjects]} "
                             "are searched with it"]
    sp.extras = {**sp.extras, "route": {"line": line, "reasons": reasons, **decisions}}
    return "direct" if plan.mode == "direct" else "ok"


def _model_line(reply: str) -> str:
    """The router model's line, checked by the strict parser."""
    parse_route(reply)
    return reply.strip()


def _visible_overlap(sp: SuperPrompt, backend: RetrievalBackend, question: str) -> bool:
    """Whether any chunk the caller may see shares a keyword with the question (asked of the
    backend, under the caller's filters: the index's full vocabulary would leak hidden words)."""
    if not keyword_tokens(question):
        return False
    hits = backend.search(SearchRequest("bm25", question, 1, sp.repository, sp.branch,
                                        RetrievalFilters.parse(sp.retrieval_filters), sp.active_index)).hits
    return bool(hits)
