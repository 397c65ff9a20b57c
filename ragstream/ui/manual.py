"""Manual mode: a question, then one button per stage, in order. Only the stages already run
and the next one are enabled; re-running an earlier stage clears what it and the later ones
wrote. Each stage's panel shows what it changed, how long it took and which path ran."""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from ragstream.controller import ManualSession
from ragstream.pipeline.registry import STAGES
from ragstream.ui import budget, graph, stage_panels
from ragstream.ui.common import model_progress, path_label, show_error, step_caption
from ragstream.ui.sidebar import Choices

if TYPE_CHECKING:
    from ragstream.controller import Controller

LABELS = {"normalize": "Normalize", "route": "Route", "retrieve": "Retrieve", "rerank": "Rerank",
          "expand": "Expand", "condense": "Condense", "build_prompt": "Build prompt", "answer": "Answer"}
SESSION, SIGNATURE, ERROR, LAST = "manual:session", "manual:signature", "manual:error", "manual:last"
PRESSED = "manual:pressed"  # the stage button pressed, noted by its callback
QUESTION, GRAPH_KEY = "manual:question", "manual:graph"
# The typed question, kept outside the widget: Streamlit drops a widget's value after a run that
# did not draw it (Auto mode shown, or a full-page rerun from a build or watch poll racing a click).
KEPT_QUESTION = "manual:question:kept"
SAMPLE_QUESTION = "How does the engine check the fields a step writes?"
INTRO = ("**ragstream** answers questions about a codebase (C#, SQL, Python) from its index: search, the "
         "code graph, evidence in a token budget, a ready prompt. **Manual**: press the stages 1 → 8 and see what "
         "each one did; **Auto**: chat, with follow-ups (“and who calls it?”). Try the sample question.")


def render(controller: Controller, choices: Choices) -> None:
    st.caption(INTRO)
    _workspace(controller, choices)


def _current(signature: tuple) -> ManualSession | None:
    """The pass in progress, if it was started for this question and these choices."""
    session = st.session_state.get(SESSION)
    return session if session is not None and st.session_state.get(SIGNATURE) == signature else None


@st.fragment
def _workspace(controller: Controller, choices: Choices) -> None:
    """Everything a stage click changes. A fragment: a click reruns this, not the page (the
    sidebar keeps its state and is not drawn again)."""
    top = st.columns([5, 1.3], vertical_alignment="bottom")
    if QUESTION not in st.session_state and KEPT_QUESTION in st.session_state:
        st.session_state[QUESTION] = st.session_state[KEPT_QUESTION]
    question = top[0].text_area("Question", key=QUESTION, height=68, placeholder=f"e.g. {SAMPLE_QUESTION}")
    st.session_state[KEPT_QUESTION] = question
    is_english = top[1].toggle("in English", value=True, key="manual:english",
                               help="Off: without a model the question is used as written, and the trace says so.")
    top[1].button("Sample question", key="manual:sample", on_click=_use_sample, disabled=question == SAMPLE_QUESTION,
                  help=f"“{SAMPLE_QUESTION}”, about ragstream's own code (the default index)")
    signature = (question.strip(), is_english, choices.signature)
    # A stage button's callback notes the press before this run: the stage runs first, and the
    # buttons and panels are drawn once, after it (no second rerun). Taken once: later reruns
    # (opening a panel) do not run it again.
    pressed = st.session_state.pop(PRESSED, None)
    working = st.container()  # drawn in every run, so that what follows keeps its place
    if pressed:
        with working:
            _press(controller, choices, pressed, question, is_english, signature, _current(signature))
    session = _current(signature)  # the pass for this question and these choices (None: none, or a stale one)
    if session is None and st.session_state.get(SESSION) is not None:
        st.caption("The question or the sidebar choices changed: **Normalize** starts a new pass.")
    _buttons(session, ready=choices.ready)
    if not choices.ready:
        st.info("Choose an index and a pipeline in the sidebar to start.")
    if session is not None and session.ran and st.session_state.get(graph.full_screen_key(GRAPH_KEY)):
        graph.render(controller, session.state, key=GRAPH_KEY)  # full screen: the whole page width
        return
    # The stage panels take the whole width (their tables' status, why and id columns read whole);
    # the graph, budget and state follow below them, as wide.
    if session is not None:
        _panels(controller, session)
    _error_in_place()
    if session is not None and session.ran:
        with st.container():
            # lazy: only the open tab is drawn (a click reruns this fragment, and a drawing that
            # nobody looks at would cost every click its time)
            graph_tab, budget_tab, state_tab = st.tabs(["Graph", "Budget", "State"], key="manual:side",
                                                        on_change="rerun")
            if graph_tab.open:
                with graph_tab:
                    graph.render(controller, session.state, key=GRAPH_KEY)
            if budget_tab.open:
                with budget_tab:
                    budget.render(session.state, key="manual:budget")
            if state_tab.open:
                with state_tab:
                    # drawn on request: the whole state (texts, prompt) is heavy to send on every click
                    if st.toggle("Show the whole state (SuperPrompt)", key="manual:state"):
                        st.caption("Open a field to read it.")
                        st.json(session.state.to_json(), expanded=1)


def _use_sample() -> None:
    st.session_state[QUESTION] = SAMPLE_QUESTION


def _note_press(stage: str) -> None:
    st.session_state[PRESSED] = stage


def _buttons(session: ManualSession | None, ready: bool) -> None:
    """The eight stage buttons; a press is noted by its callback (`_workspace` runs it)."""
    enabled = session.enabled_stages if session else [STAGES[0]]
    done = {session.stage_of(step) for step in session.ran} if session else set()
    upcoming = session.stage_of(session.state.stage) if session and session.state.stage else None
    for n, (column, stage) in enumerate(zip(st.columns(len(STAGES)), STAGES), start=1):
        column.button(f"{n} {LABELS[stage]}", key=f"stage:{stage}", width="stretch", on_click=_note_press, args=(stage,),
                      disabled=not ready or stage not in enabled,
                      type="primary" if stage == upcoming or (session is None and n == 1) else "secondary",
                      help="done: its panel is below" if stage in done else None)  # no icon: labels fit at 1280 px


def _press(controller: Controller, choices: Choices, stage: str, question: str, is_english: bool,
           signature: tuple, session: ManualSession | None) -> None:
    st.session_state[ERROR] = None
    try:
        pipeline, scope = choices.pipeline, choices.scope
        assert pipeline is not None and scope is not None, "the stage buttons are disabled until the choices are ready"
        question = controller.check_question(question, pipeline)  # once: the session does not again
        if session is None:  # a new pass: the first stage with the question and choices as they are now
            session = ManualSession(controller, pipeline, question, scope, is_english)
            st.session_state[SESSION], st.session_state[SIGNATURE] = session, signature
        session.on_progress = model_progress(st.empty())
        with st.spinner(f"{LABELS[stage]}…", show_time=True):
            clicks = session.click_stage(stage)
    except Exception as exc:  # noqa: BLE001 - any failure is shown in place, never as a stack-trace page
        st.session_state[ERROR] = (stage, exc)
        return
    error = next((click.error for click in clicks if click.error), None)
    st.session_state[ERROR] = (stage, error) if error else None
    st.session_state[LAST] = stage
    for other in STAGES:  # the pressed stage's panel opens, the others close
        st.session_state[_panel_key(other)] = other == stage


def _panel_key(stage: str) -> str:
    return f"manual:panel:{stage}"


def _panels(controller: Controller, session: ManualSession) -> None:
    """One expander per stage run in this pass, in order; the last one pressed is open. Lazy:
    only an open panel is drawn (opening one reruns this fragment), so a click redraws the
    panel it changed, not every panel of the pass."""
    entries = {entry["step"]: entry for entry in session.state.trace}  # the latest entry per step
    by_stage: dict[str, list[dict]] = {}
    for step in dict.fromkeys(session.ran):
        by_stage.setdefault(session.stage_of(step), []).append(entries[step])
    for stage, steps in by_stage.items():
        seconds = sum(e["seconds"] for e in steps)
        paths = ", ".join(dict.fromkeys(path_label(e["path"]) for e in steps))
        label = f"{STAGES.index(stage) + 1} {LABELS[stage]} · {seconds * 1000:.0f} ms · {paths}"
        st.session_state.setdefault(_panel_key(stage), stage == st.session_state.get(LAST))
        with st.expander(label, key=_panel_key(stage), on_change="rerun") as panel:
            if panel.open:
                for entry in steps:
                    step_caption(entry)
                stage_panels.render(controller, session.state, stage, key=f"manual:{stage}")


def _error_in_place() -> None:
    failed = st.session_state.get(ERROR)
    if failed:
        stage, error = failed
        st.markdown(f"**{STAGES.index(stage) + 1} {LABELS[stage]}** did not run:")
        show_error(error)
