"""Stage 6, condense: fit the evidence and the conversation into their budgets.

The evidence (`node_texts`, at most `N3_FINAL_SELECTION_MAX` blocks in priority order) is
rendered into `S_CTX_MD`. While the rendered context is over `max_context_tokens`, the lowest
priority block not yet condensed is cut down extractively: its first line, every line naming a
query keyword, and every definition line stay (identifiers are never rewritten), each with its
line number; each run left out becomes one gap line. When every block is condensed and it is still over, the lowest priority blocks
are dropped. Of the conversation, the most recent turns within `max_history_tokens` are kept
(the count is recorded; `history_for_prompt` itself is input and never rewritten). Every cut,
evidence or turn, is recorded in `budget["context"]` with its reason. Model path: the
`condenser` model shortens a block instead, query-aware; a reply that loses an identifier the
block defines or the question names is refused and the extractive cut is used.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ragstream.errors import ProtocolError
from ragstream.excerpt import Numbers, numbered, selected
from ragstream.graph.render import render_context_blocks
from ragstream.keyword_tokens import keyword_tokens
from ragstream.llm.client import LLMClient
from ragstream.llm.grammars import object_schema, text as text_schema
from ragstream.llm.protocol import parse_json_object
from ragstream.retrieval.types import RetrievalBackend
from ragstream.stages.action import QUESTION, SCOPE, Action
from ragstream.stages.conversation import render_history
from ragstream.stages.model_call import ask
from ragstream.stages.settings import number
from ragstream.super_prompt import SuperPrompt
from ragstream.token_count import TokenCounter

ACTIONS = (Action(
    "condense", "condense", lambda sp, rt, step, settings: run(sp, rt.backend, rt.llm, rt.counter, step, settings),
    ("ok", "condensed"),
    reads=QUESTION | SCOPE | {"retrieval_query", "node_texts", "graph_debug", "history_for_prompt", "extras.loop"},
    writes=frozenset({"S_CTX_MD", "final_selection_ids", "budget.context"})),)

_DEFINITION = re.compile(r"^\s*(?:async\s+def|def|class|CREATE|ALTER|public|private|protected|internal)\b",
                         re.IGNORECASE)
# The name a definition line defines: after def/class/TABLE ... (schema prefix skipped), or before "(".
_DEFINED = re.compile(r"\b(?:def|class|TABLE|VIEW|PROCEDURE|PROC|FUNCTION)\s+(?:\[?\w+\]?\.)?\[?(\w+)|(\w+)\s*\(",
                      re.IGNORECASE)


def condense_text(text: str, query_tokens: set[str], numbers: Numbers | None = None) -> tuple[str, Numbers]:
    """An extractive cut of one snippet, with its lines' numbers: first line, definition lines,
    lines naming the query; a gap line for each run left out."""
    keep = [index for index, line in enumerate(text.split("\n"))
            if index == 0 or _DEFINITION.match(line) or query_tokens & set(keyword_tokens(line))]
    return selected(text, numbers, keep)


def run(sp: SuperPrompt, backend: RetrievalBackend, llm: LLMClient | None, counter: TokenCounter,
        step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    limits = {key: number(settings, key, step) for key in
              ("max_context_tokens", "max_history_tokens", "N3_FINAL_SELECTION_MAX")}
    graph = backend.graph(sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
    layout = settings.get("layout", "tree")
    parent = sp.graph_debug.get("parent", {})
    query = set(keyword_tokens(sp.retrieval_query or sp.question_en or sp.question_raw))
    most = limits["N3_FINAL_SELECTION_MAX"]
    candidates = [dict(item) for item in sp.node_texts]
    carried = _carried_blocks(sp, backend, counter, {item["id"] for item in candidates[:most]})
    # A follow-up search keeps up to half the places for the evidence found before it.
    room = min(len(carried), most // 2)
    blocks = candidates[: most - room] + carried[:room]
    chosen = {item["id"] for item in blocks}
    cuts = [{"id": item["id"], "reason": "over N3_FINAL_SELECTION_MAX"}
            for item in candidates[most - room:] + carried[room:] if item["id"] not in chosen]

    def tokens() -> int:
        return counter.count(render_context_blocks(blocks, graph, parent, layout))

    decisions: dict[str, Any] = {"path": "deterministic", "llm_calls": [], "warnings": []}
    condenser = llm if llm is not None and llm.uses_model("condenser") else None
    for item in reversed(blocks):  # lowest priority first
        if tokens() <= limits["max_context_tokens"]:
            break
        shorter = _model_condense(condenser, item, sp, query, decisions) if condenser is not None else None
        if shorter is not None:  # a model's rewrite quotes no line of the file
            item["text"], item["lines"] = shorter, None
        else:
            item["text"], item["lines"] = condense_text(item["text"], query, item.get("lines"))
        item["tokens"] = counter.count(item["text"])
        cuts.append({"id": item["id"], "reason": "condensed by the model: over max_context_tokens" if shorter
                     is not None else "condensed: over max_context_tokens"})
    while blocks and tokens() > limits["max_context_tokens"]:
        cuts.append({"id": blocks.pop()["id"], "reason": "dropped: over max_context_tokens after condensing"})
    sp.S_CTX_MD = render_context_blocks(blocks, graph, parent, layout)
    sp.final_selection_ids = [item["id"] for item in blocks]
    kept_turns = _recent(sp.history_for_prompt, counter, limits["max_history_tokens"])
    dropped_turns = len(sp.history_for_prompt) - len(kept_turns)
    cuts += [{"id": f"history turn {n + 1}", "reason": "dropped: over max_history_tokens"} for n in range(dropped_turns)]
    sp.budget = {**sp.budget, "context": {
        "tokens": counter.count(sp.S_CTX_MD), "limit": limits["max_context_tokens"],
        "history_turns_kept": len(kept_turns),
        "history_tokens": counter.count(render_history(kept_turns)),
        "history_limit": limits["max_history_tokens"], "cuts": cuts,
        "per_block": {item["id"]: item["tokens"] for item in blocks}, **decisions}}
    return "condensed" if any(c["reason"] != "over N3_FINAL_SELECTION_MAX" for c in cuts) else "ok"


def _carried_blocks(sp: SuperPrompt, backend: RetrievalBackend, counter: TokenCounter,
                    present: set[str]) -> list[dict[str, Any]]:
    """Evidence selected before a follow-up search that this search did not find again, fetched
    anew through the backend (under the caller's filters), in its earlier order."""
    wanted = [i for i in sp.extras.get("loop", {}).get("carried", []) if i not in present]
    texts = backend.fetch_texts(wanted, sp.repository, sp.branch, sp.retrieval_filters, sp.active_index) if wanted else {}
    where = backend.locations(list(texts), sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
    return [{"id": i, "text": texts[i], "lines": numbered(texts[i], where.get(i)), "is_seed": True, "depth": 0,
             "parent_id": None, "carried": True, "tokens": counter.count(texts[i])} for i in wanted if i in texts]


def _model_condense(llm: LLMClient, item: dict[str, Any], sp: SuperPrompt, query: set[str],
                    decisions: dict[str, Any]) -> str | None:
    """The condenser model's shortening of one block, or None when its reply drops an
    identifier the block defines or the question names (then the extractive cut is used)."""
    reply = ask(llm, "condenser", {"question": sp.question_en or sp.question_raw, "id": item["id"],
                                   "text": item["text"], "limit": str(max(1, item["tokens"] // 2))},
                _condensed_text, schema=object_schema(text=text_schema(len(item["text"]))))
    decisions["llm_calls"] += reply.calls
    decisions["warnings"] += reply.warnings
    if reply.value is None:
        return None
    if len(reply.value) >= len(item["text"]):
        decisions["warnings"].append(f"condenser did not shorten {item['id']}: extractive cut used")
        return None
    missing = sorted(must_keep(item["text"], query) - set(re.findall(r"\w+", reply.value)))
    if missing:
        decisions["warnings"].append(f"condenser dropped identifiers {missing} of {item['id']}: extractive cut used")
        return None
    decisions["path"] = "model"
    return reply.value


def _condensed_text(reply: str) -> str:
    text = parse_json_object(reply, "condenser").get("text")
    if not isinstance(text, str) or not text.strip():
        raise ProtocolError('"text" must be a non-empty string', where="condenser")
    return text


def must_keep(text: str, query: set[str]) -> set[str]:
    """Identifiers a condensation must keep: the names the block defines and the query words it has."""
    defined = {name for line in text.split("\n") if _DEFINITION.match(line)
               for match in [_DEFINED.search(line)] if match for name in match.groups() if name}
    words = set(re.findall(r"\w+", text))
    return (defined & words) | {w for w in words if w.lower() in query}


def kept_history(sp: SuperPrompt) -> list[dict[str, str]]:
    """The recent turns condense kept (it records how many; the conversation itself is input)."""
    kept = sp.budget.get("context", {}).get("history_turns_kept", 0)
    return sp.history_for_prompt[len(sp.history_for_prompt) - kept:] if kept else []


def _recent(turns: list[dict[str, str]], counter: TokenCounter, limit: int) -> list[dict[str, str]]:
    """The most recent turns whose rendered history block fits the limit, in their original order."""
    kept: list[dict[str, str]] = []
    for turn in reversed(turns):
        if counter.count(render_history([turn, *kept])) > limit:
            break
        kept.insert(0, turn)
    return kept

