"""The conversation around a question: load it into `history_for_prompt` within its budget
(before the router, which resolves a follow-up against the previous turn: `extras.history.
follow_up`), and persist the finished turn with its state (trace, graph, budget, citations).

History for the prompt is the raw turns while they fit `max_history_tokens`. Past that, a
query-aware summary (persisted, versioned, with a pointer to the last turn it covers) takes at
most `history_summary_share` of the budget and the newest raw turns take the rest. When the
summary and the turns after it overflow again, the summary and the older of those turns are
summarised into the next version: the whole raw log is never summarised again.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragstream.history import HistoryStore, Summary, Turn
from ragstream.keyword_tokens import keyword_tokens
from ragstream.llm.client import LLMClient
from ragstream.llm.protocol import plain_text
from ragstream.stages import follow_up
from ragstream.stages.action import QUESTION, SCOPE, WHOLE_STATE, Action
from ragstream.stages.model_call import ask
from ragstream.stages.settings import number
from ragstream.super_prompt import SuperPrompt
from ragstream.token_count import TokenCounter

ACTIONS = (
    # the conversation, loaded before the router: a follow-up is resolved against it
    Action("load_conversation_history", "normalize",
           lambda sp, rt, step, settings: load_conversation_history(sp, rt.history, rt.llm, rt.counter, step, settings),
           reads=QUESTION | SCOPE | {"extras.session", "index_source"},
           writes=frozenset({"history_for_prompt", "extras.history"})),
    # the end of a turn: the whole state is stored with it
    Action("persist_turn_and_finalize", "answer",
           lambda sp, rt, step, settings: persist_turn_and_finalize(sp, rt.history, step, settings),
           reads=WHOLE_STATE,
           writes=frozenset({"extras.persist"})),
)


@dataclass(frozen=True)
class Window:
    """What the prompt gets: an optional summary, the raw turns after it, and the turns to fold
    into a new summary version first (empty when the stored summary still fits)."""

    summary: Summary | None
    raw: list[Turn]
    fold: list[Turn]


HISTORY_HEADING = "## Recent conversation\n\n"


def render_message(message: Mapping[str, str]) -> str:
    return f"**{message['role']}**: {message['content']}"


def render_history(messages: Sequence[Mapping[str, str]]) -> str:
    """The prompt's history block, as budgets count it (empty without messages)."""
    return HISTORY_HEADING + "\n".join(map(render_message, messages)) if messages else ""


def turn_messages(turn: Turn) -> list[dict[str, str]]:
    return [{"role": "user", "content": turn.question_en}, {"role": "assistant", "content": turn.answer_en}]


def summary_message(text: str) -> dict[str, str]:
    return {"role": "summary", "content": text}


def message_cost(message: Mapping[str, str], count: Callable[[str], int]) -> int:
    """Tokens a message adds to the history block: its rendered line and the line break."""
    return count(render_message(message)) + 1


def turn_cost(turn: Turn, count: Callable[[str], int]) -> int:
    return sum(message_cost(m, count) for m in turn_messages(turn))


def history_window(turns: Sequence[Turn], summary: Summary | None, budget: int, summary_limit: int,
                   count: Callable[[str], int]) -> Window:
    """Which turns go in raw and which must be summarised, so the history fits `budget` (the
    summary's rendered line taking at most `summary_limit` of it)."""
    if sum(turn_cost(t, count) for t in turns) <= budget:
        return Window(None, list(turns), [])
    newer = [t for t in turns if summary is None or t.id > summary.last_turn_id]
    summary_cost = message_cost(summary_message(summary.text), count) if summary else 0
    if summary is not None and summary_cost + sum(turn_cost(t, count) for t in newer) <= budget:
        return Window(summary, newer, [])
    room = budget - summary_limit
    recent: list[Turn] = []
    for turn in reversed(newer):
        room -= turn_cost(turn, count)
        if room < 0:
            break
        recent.insert(0, turn)
    return Window(summary, recent, newer[: len(newer) - len(recent)])


def extractive_summary(previous: str, fold: Sequence[Turn], query: set[str], limit: int,
                       counter: TokenCounter) -> str:
    """One line per folded turn (its question, and the answer's first line or the lines naming
    the query) after the previous summary's lines; lines without the query's words go first,
    oldest first, until it fits `limit`."""
    lines = [line for line in previous.split("\n") if line.strip()]
    for turn in fold:
        answer = [a for a in turn.answer_en.split("\n") if a.strip() and not a.startswith(">")]
        relevant = [a.strip() for a in answer if query & set(keyword_tokens(a))][:2] or answer[:1]
        lines.append(f"- Q: {' '.join(turn.question_en.split())} | A: {' '.join(' '.join(relevant).split())}")
    order = sorted(range(len(lines)), key=lambda i: (bool(query & set(keyword_tokens(lines[i]))), i))
    dropped: set[int] = set()
    # the last line standing is cut to fit rather than dropped: a summary is never empty
    while counter.count("\n".join(lines[i] for i in range(len(lines)) if i not in dropped)) > limit \
            and len(order) > 1:
        dropped.add(order.pop(0))
    return counter.truncate("\n".join(lines[i] for i in range(len(lines)) if i not in dropped), limit)


def scope_key(sp: SuperPrompt) -> str:
    """The repository, branch, index and filters a question runs under, as a stable string."""
    return make_scope_key(sp.repository, sp.branch, sp.active_index, sp.retrieval_filters, sp.index_source)


def make_scope_key(repository: str, branch: str, active_index: str | None,
                   retrieval_filters: Mapping[str, Sequence[str]], index_source: str = "") -> str:
    """The one format of a conversation's scope (the history store compares these strings). A
    shared index and a local one of the same name are two scopes (they may differ); only a shared
    source is written, so conversations held on local indexes keep the key they always had."""
    filters = {key: sorted(values) for key, values in retrieval_filters.items()}
    source = {"source": index_source} if index_source == "shared" else {}
    return json.dumps({"repository": repository, "branch": branch, "index": active_index,
                       "filters": filters, **source}, sort_keys=True)


def load_conversation_history(sp: SuperPrompt, store: HistoryStore | None, llm: LLMClient | None,
                              counter: TokenCounter, step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    session = sp.extras.get("session", {}).get("id")
    if store is None or not session:
        sp.history_for_prompt = []
        sp.extras = {**sp.extras, "history": {"path": "deterministic", "note": "no conversation: a single question"}}
        return "ok"
    store.bind_scope(session, scope_key(sp))
    budget = number(settings, "max_history_tokens", step)
    share = number(settings, "history_summary_share", step, integer=False, minimum=0)
    room = budget - counter.count(HISTORY_HEADING)
    summary_limit = int(room * share)
    summary_text_limit = summary_limit - message_cost(summary_message(""), counter.count)
    turns = [t for t in store.turns(session) if not t.failed]  # a failed turn has no answer to recall
    stored = store.latest_summary(session)
    window = history_window(turns, stored, room, summary_limit, counter.count)
    decisions: dict[str, Any] = {"path": "deterministic"}
    if window.fold and summary_text_limit > 0:
        previous = stored.text if stored else ""
        text, decisions = _summarise(previous, window.fold, sp, llm, counter, summary_text_limit)
        made = store.add_summary(session, text, window.fold[-1].id, (stored.version if stored else 0) + 1)
        # another writer may have stored this version first: the window follows what is stored
        window = Window(made, history_window(turns, made, room, summary_limit, counter.count).raw, window.fold)
    elif window.fold:
        decisions["warnings"] = [f"no room for a summary (history_summary_share {share}): turns "
                                 f"{[t.id for t in window.fold]} left out of the prompt"]
    messages = [summary_message(window.summary.text)] if window.summary else []
    messages += [m for turn in window.raw for m in turn_messages(turn)]
    while messages and counter.count(render_history(messages)) > budget:  # tokens merging at joins
        del messages[1 if messages[0]["role"] == "summary" and len(messages) > 1 else 0]
    sp.history_for_prompt = messages
    summary = window.summary
    last = turns[-1] if turns else None
    sp.extras = {**sp.extras, "history": {
        **decisions, "raw_turns": [t.id for t in window.raw], "folded_turns": [t.id for t in window.fold],
        "summary": {"version": summary.version, "last_turn_id": summary.last_turn_id} if summary else None,
        "tokens": counter.count(render_history(messages)), "limit": budget,
        "follow_up": follow_up.resolve(sp.question_en or sp.question_raw, last.id if last else None,
                                        last.state if last else None)}}
    return "ok"


def _summarise(previous: str, fold: Sequence[Turn], sp: SuperPrompt, llm: LLMClient | None, counter: TokenCounter,
               limit: int) -> tuple[str, dict[str, Any]]:
    """The next summary text (a model's when one plays `summarizer`), never over `limit` tokens."""
    query = set(keyword_tokens(sp.question_en or sp.question_raw))
    if llm is not None and llm.uses_model("summarizer"):
        turns = "\n".join(f"Q: {t.question_en}\nA: {t.answer_en}" for t in fold)
        reply = ask(llm, "summarizer", {"question": sp.question_en or sp.question_raw, "previous": previous or "(none)",
                                        "turns": turns, "limit": str(limit)}, lambda text: plain_text(text, "summarizer"))
        if reply.value is not None:
            text = counter.truncate(reply.value, limit)
            cut = ["the summary was cut to its token limit"] if text != reply.value else []
            return text, {**reply.decisions(), "warnings": reply.warnings + cut}
        return extractive_summary(previous, fold, query, limit, counter), reply.decisions()
    return extractive_summary(previous, fold, query, limit, counter), {"path": "deterministic"}


def persist_turn_and_finalize(sp: SuperPrompt, store: HistoryStore | None, step: Mapping[str, Any],
                              settings: Mapping[str, Any]) -> str:
    session = sp.extras.get("session", {})
    if store is None or not session.get("id"):
        sp.extras = {**sp.extras, "persist": {"turn_id": None, "note": "not persisted: no conversation session"}}
        return "ok"
    store.bind_scope(session["id"], scope_key(sp))
    turn_id = store.add_turn(session["id"], question_raw=sp.question_raw, question_en=sp.question_en or sp.question_raw,
                             answer_en=sp.answer_en, answer=sp.answer, pipeline=session.get("pipeline", ""),
                             index_name=sp.active_index or "", state=sp.to_json())
    sp.extras = {**sp.extras, "persist": {"turn_id": turn_id, "session": session["id"]}}
    return "ok"
