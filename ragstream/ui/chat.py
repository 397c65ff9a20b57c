"""Auto mode: a chat over the same engine. Each turn runs the whole pipeline; its answer is
shown with an expander holding the turn's trace, graph and budget.

`perform_turn` is the one place a turn happens; the conversation is kept in the session.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import streamlit as st

from ragstream.controller import Controller
from ragstream.errors import RagstreamError
from ragstream.pipeline.engine import StepResult
from ragstream.super_prompt import SuperPrompt
from ragstream.ui import budget, graph
from ragstream.ui.common import path_label, show_error
from ragstream.ui.sidebar import Choices

TURNS = "auto:turns"


@dataclass
class Turn:
    question: str
    state: SuperPrompt | None = None
    steps: list[StepResult] = field(default_factory=list)
    error: RagstreamError | None = None
    seconds: float = 0.0


def perform_turn(controller: Controller, choices: Choices, question: str, is_english: bool) -> Turn:
    """One question through the whole pipeline; a failure becomes the turn's error."""
    started = time.perf_counter()
    try:
        state, steps = controller.run(question, choices.scope, choices.pipeline, is_english)
    except RagstreamError as exc:
        return Turn(question, error=exc, seconds=time.perf_counter() - started)
    return Turn(question, state, steps, seconds=time.perf_counter() - started)


def render(controller: Controller, choices: Choices) -> None:
    turns: list[Turn] = st.session_state.setdefault(TURNS, [])
    bar = st.columns([1, 1, 4], vertical_alignment="center")
    is_english = bar[0].toggle("in English", value=True, key="auto:english",
                               help="Off: without a model the question is used as written, and the trace says so.")
    if bar[1].button("Clear conversation", disabled=not turns, icon=":material/delete:"):
        turns.clear()
        st.rerun()
    if not choices.ready:
        st.info("Choose an index and a pipeline in the sidebar to start.")
    for number, turn in enumerate(turns, start=1):
        _draw(controller, turn, number, latest=number == len(turns))
    question = st.chat_input("Ask about the code", disabled=not choices.ready, key="auto:input")
    if question:
        with st.chat_message("user"):
            st.markdown(question)
        with st.chat_message("assistant"), st.spinner("Running the pipeline…"):
            turns.append(perform_turn(controller, choices, question, is_english))
        st.rerun()


def _draw(controller: Controller, turn: Turn, number: int, latest: bool) -> None:
    with st.chat_message("user"):
        st.markdown(turn.question)
    with st.chat_message("assistant"):
        if turn.error:
            show_error(turn.error)
            return
        sp = turn.state
        st.markdown(sp.answer or f"(no answer: the pipeline ended at {turn.steps[-1].step})")
        paths = ", ".join(dict.fromkeys(path_label(t["path"]) for t in sp.trace))
        st.caption(f"{len(turn.steps)} steps · {turn.seconds:.2f} s · {paths}")
        with st.expander(f"turn {number}: trace, graph and budget", expanded=latest):
            trace_tab, graph_tab, budget_tab = st.tabs(["Trace", "Graph", "Budget"])
            with trace_tab:
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
            "warnings": "; ".join(entry["warnings"])}
