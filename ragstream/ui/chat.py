"""Auto mode: a chat over the same engine. Each question runs the whole pipeline as a turn of a
conversation kept in the history store, with its final state, so the conversation survives a
page reload (its id is in the page's URL) with every turn's trace, graph and budget. A model's
answer streams in as it is written. A follow-up ("and who calls it?") is resolved against the
previous turn by the pipeline itself.

Conversations obey the session's security filters: only those bound to the current index and
filters are listed or opened (the controller refuses the others, a URL naming one included), and
turns kept in this browser session are shown only under the scope they were asked under.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import streamlit as st

from ragstream.controller import scope_key
from ragstream.errors import RagstreamError
from ragstream.failures import Failure
from ragstream.pipeline.engine import StepResult
from ragstream.super_prompt import SuperPrompt
from ragstream.ui import budget, changes, graph
from ragstream.ui.stage_panels import follow_ups
from ragstream.ui.common import model_progress, path_label, rerun_fragment, show_error
from ragstream.ui.sidebar import Choices

if TYPE_CHECKING:
    from ragstream.controller import Controller, Scope

ASKED = "auto:asked"  # the turns asked in this browser session, with their states
CONVERSATION = "conversation"  # the URL query parameter naming the conversation
PENDING = "auto:pending"  # a conversation just created, for the picker to show on the next run
PICKER = "auto:conversation"
INPUT = "auto:input"
REFUSED = "auto:refused"  # a question check_question refused, with why: shown again in the box
HELD = "auto:held"  # each index's (scope's) last conversation in this browser session, resumed on a switch back
NEW = "(new conversation)"


@dataclass
class Turn:
    question: str
    conversation: str
    scope: str  # the key of the index and filters it was asked under
    state: SuperPrompt | None = None
    steps: list[StepResult] = field(default_factory=list)
    error: Failure | None = None  # a failed turn: no state
    seconds: float = 0.0
    restored: bool = False  # read back from the history store (a reload, an earlier visit)

    @property
    def turn_id(self) -> int | None:
        """The id the history store gave the turn (None when it was not persisted)."""
        return self.state.extras.get("persist", {}).get("turn_id") if self.state else None


def perform_turn(controller: Controller, choices: Choices, question: str, is_english: bool, conversation: str,
                 on_token=None, on_progress=None) -> Turn:
    """One question through the whole pipeline as a turn of `conversation`; a failure becomes
    the turn's error. `on_token` receives a model's answer as it streams; `on_progress` what
    each model call is doing."""
    started = time.perf_counter()
    scope, pipeline = choices.scope, choices.pipeline
    assert scope is not None and pipeline is not None, "a turn is asked only when the choices are ready"
    key = scope_key(scope)
    try:
        state, steps = controller.run(question, scope, pipeline, is_english,
                                      session_id=conversation, on_token=on_token, on_progress=on_progress)
    except Exception as exc:  # noqa: BLE001 - any failure is the turn's error, shown in place (the controller logs it)
        return Turn(question, conversation, key, error=Failure.of(exc), seconds=time.perf_counter() - started)
    return Turn(question, conversation, key, state, steps, seconds=time.perf_counter() - started)


def render(controller: Controller, choices: Choices) -> None:
    if choices.scope is None:
        st.info("Choose an index and a pipeline in the sidebar to start.")
        return
    _conversation(controller, choices)


@st.fragment
def _conversation(controller: Controller, choices: Choices) -> None:
    """The conversation and its input. A fragment: a turn reruns this, not the page."""
    scope = choices.scope
    assert scope is not None, "render() draws the conversation only once there is a scope"
    conversation = _conversation_picker(controller, scope)
    is_english = st.toggle("in English", value=True, key="auto:english",
                           help="Off: without a model the question is used as written, and the trace says so.")
    if not choices.ready:
        st.info("Choose an index and a pipeline in the sidebar to start.")
    kept: list[Turn] = st.session_state.setdefault(ASKED, [])
    visible = [t for t in kept if t.scope == scope_key(scope)]
    if len(visible) < len(kept):
        st.caption(f":material/visibility_off: {len(kept) - len(visible)} earlier turn(s) of this browser session "
                   "are hidden: they were asked under another index or other security filters.")
    asked = {t.turn_id: t for t in visible if t.conversation == conversation}
    # Every stored turn, with the trace, graph and budget it was answered with (after a reload
    # too); then this session's turns that were not stored (a failure).
    turns = [asked.get(t.id) or _restored(t, conversation, scope) for t in
             _stored_turns(controller, conversation, scope)] if conversation else []
    kept_failures = {t.question for t in turns if t.error}
    turns += [t for t in visible if t.conversation == conversation and t.turn_id is None
              and not (t.error and t.question in kept_failures)]
    for number, turn in enumerate(turns, start=1):
        _draw(controller, turn, number, latest=turn is turns[-1])
    refused = st.session_state.pop(REFUSED, None)
    if refused is not None:  # said beside the box, which gets the question back to be shortened
        show_error(refused[1])
        st.session_state[INPUT] = refused[0]
    question = st.chat_input("Ask about the code", disabled=not choices.ready, key=INPUT)
    if question is not None:
        assert choices.pipeline is not None, "the input is disabled until the choices are ready"
        try:  # an empty or over-long question is said here, before a conversation is made for it
            question = controller.check_question(question, choices.pipeline)  # once: the turn does not again
        except RagstreamError as exc:
            st.session_state[REFUSED] = (question, Failure.of(exc))
            rerun_fragment()
        if not conversation:
            conversation = controller.new_conversation(question[:80], scope)
            st.query_params[CONVERSATION] = st.session_state[PENDING] = conversation
        _message("user", question)
        with st.chat_message("assistant"):
            streamed = st.empty()
            pieces: list[str] = []

            def on_token(piece: str) -> None:
                pieces.append(piece)
                streamed.markdown("".join(pieces) + " ▌")

            progress = model_progress(st.empty())
            with st.spinner("Running the pipeline…", show_time=True):
                turn = perform_turn(controller, choices, question, is_english, conversation, on_token, progress)
        st.session_state[ASKED].append(turn)
        rerun_fragment()


def _restored(stored, conversation: str, scope: Scope) -> Turn:
    """A stored turn as it was answered: its failure, its state when it was kept, else its answer alone."""
    if stored.failed:
        return Turn(stored.question_raw, conversation, scope_key(scope), error=Failure.from_json(stored.error),
                    restored=True)
    if stored.state:
        state = SuperPrompt.from_json(stored.state)
        return Turn(stored.question_raw, conversation, scope_key(scope), state,
                    seconds=sum(entry["seconds"] for entry in state.trace), restored=True)
    state = SuperPrompt(question_raw=stored.question_raw, answer=stored.answer)
    return Turn(stored.question_raw, conversation, scope_key(scope), state, restored=True)


def _stored_turns(controller: Controller, conversation: str | None, scope: Scope) -> list:
    if not conversation:
        return []
    try:
        return controller.conversation_turns(conversation, scope)
    except RagstreamError as exc:
        show_error(exc)
        return []


def _conversation_picker(controller: Controller, scope: Scope) -> str | None:
    """The conversation in the URL, or one chosen from those held under `scope` (None: a new one)."""
    # Oldest first: a new conversation is appended, so the positions of the others never shift
    # (a widget's value may travel as its position among the options).
    sessions = controller.conversations(scope)[::-1]
    ids = [s.id for s in sessions]
    current = st.query_params.get(CONVERSATION)
    labels = {s.id: f"{s.title[:60]} · {s.turns} turn(s) · "
                    f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(s.created))} · {s.id}"
              for s in sessions}
    options = [NEW, *ids]
    held: dict[str, str] = st.session_state.setdefault(HELD, {})  # scope key -> its last conversation
    key = scope_key(scope)
    if PENDING in st.session_state:  # created after the picker was drawn: show it now
        st.session_state[PICKER] = st.session_state.pop(PENDING)
    elif st.session_state.get(PICKER) not in options:  # a fresh page or another index: the URL, else its own
        if current in ids:
            st.session_state[PICKER] = current
        elif held.get(key) in ids:
            st.session_state[PICKER] = held[key]
            st.caption(":material/history: Resumed this index's own conversation.")
        else:
            st.session_state[PICKER] = NEW
            if current:  # a quiet note, no error: the conversation stays with its own index
                st.caption(f":material/info: Conversation {current} belongs to another index or other security "
                           "filters (or was deleted); a new conversation starts here.")
    chosen = st.selectbox("conversation", options, format_func=lambda option: labels.get(option, option),
                          key=PICKER)
    if chosen == NEW:
        held.pop(key, None)
        st.query_params.pop(CONVERSATION, None)
        return None
    held[key] = st.query_params[CONVERSATION] = chosen
    return chosen


def _message(role: str, text: str) -> None:
    with st.chat_message(role):
        st.markdown(text)


def _draw(controller: Controller, turn: Turn, number: int, latest: bool) -> None:
    _message("user", turn.question)
    with st.chat_message("assistant"):
        if turn.error:
            st.caption(f"turn {number} · failed" + (" · from the history" if turn.restored else ""))
            show_error(turn.error)
            return
        sp = turn.state
        assert sp is not None, "a turn without an error has its state"
        st.markdown(sp.answer or "(no answer: the pipeline ended early; see its trace)")
        if not sp.trace:  # stored before turns kept their state
            st.caption(f"turn {number} · from the history (its trace, graph and budget were not kept)")
            return
        paths = ", ".join(dict.fromkeys(path_label(t["path"]) for t in sp.trace))
        source = " · from the history" if turn.restored else ""
        st.caption(f"{len(sp.trace)} steps · {turn.seconds:.2f} s · {paths}{source}")
        changes.notice(controller, sp)
        with st.expander(f"turn {number}: trace, graph and budget", expanded=latest):
            trace_tab, graph_tab, budget_tab = st.tabs(["Trace", "Graph", "Budget"])
            with trace_tab:  # every step, a follow-up loop's included
                follow_ups(sp)
                st.dataframe([_trace_row(entry) for entry in sp.trace], hide_index=True, width="stretch")
            with graph_tab:
                if latest or st.toggle("draw the graph", key=f"auto:graph:{number}"):
                    graph.render(controller, sp, key=f"auto:{number}:graph")
            with budget_tab:
                budget.render(sp, key=f"auto:{number}:budget")


def _trace_row(entry: dict) -> dict:
    return {"stage": entry["stage"], "step": entry["step"], "outcome": entry["outcome"],
            "ms": round(entry["seconds"] * 1000), "path": entry["path"],
            "counts": ", ".join(f"{name} {n}" for name, n in entry["counts"].items()),
            "models": ", ".join(f"{c['role']}: {c['model']}" for c in entry.get("llm_calls", [])),
            "warnings": "; ".join(entry["warnings"])}
