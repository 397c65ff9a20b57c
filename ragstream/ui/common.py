"""Small drawing helpers every panel uses: errors in place, a step's caption, chunk kinds."""
from __future__ import annotations

import logging
from typing import Any

import streamlit as st

from ragstream.errors import RagstreamError
from ragstream.failures import Failure
from ragstream.llm.turn import Progress, ProgressSink

LOG = logging.getLogger("ragstream")


def show_error(error: BaseException | Failure) -> None:
    """An error in place: its type and message, and a "details" expander with the traceback."""
    failure = error if isinstance(error, Failure) else Failure.of(error)
    if isinstance(error, Exception) and not isinstance(error, RagstreamError):
        LOG.error("%s", failure.traceback)  # a bug: the server log gets its traceback too
    expected = not failure.kind.startswith("unexpected ")
    st.error(f"**{failure.kind}** · {failure.message}",
             icon=":material/error:" if expected else ":material/bug_report:")
    with st.expander("details"):
        st.code(failure.traceback, language="text")


def model_progress(placeholder) -> ProgressSink:
    """A progress sink that shows, in `placeholder`, what a model call is doing: which role,
    which attempt, how long, a retry's reason and wait, a failure (the stage then falls back)."""
    def show(progress: Progress) -> None:
        if progress.event in ("streaming", "done"):
            placeholder.empty()
        elif progress.event == "failed":
            placeholder.warning(f"{progress.line()}; the stage falls back to its deterministic path",
                                icon=":material/warning:")
        else:
            placeholder.caption(f":material/hourglass_top: {progress.line()}")

    return show


def path_label(path: str) -> str:
    if path == "deterministic":
        return "deterministic path (no model)"
    return f"{path} path"


def step_caption(entry: dict[str, Any]) -> None:
    """What one step did: outcome, duration, which path ran, what it changed, its warnings."""
    changed = ", ".join(f"`{name}`" for name in entry["changed"]) or "nothing"
    st.caption(f"step **{entry['step']}** · outcome **{entry['outcome']}** · "
               f"{entry['seconds'] * 1000:.0f} ms · **{path_label(entry['path'])}** · changed {changed}")
    for call in entry.get("llm_calls", []):
        st.caption(f"model call: {call['role']} → `{call['model']}` · {call['prompt_tokens']} + "
                   f"{call['completion_tokens']} tokens · {call['seconds'] * 1000:.0f} ms · {call['retries']} retries"
                   + (" · streamed" if call["streamed"] else ""))
    for warning in entry["warnings"]:
        st.warning(warning, icon=":material/warning:")


def humanise_age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit} ago"
    return "just now"


def rerun_fragment() -> None:
    """Rerun the fragment being drawn when this run is a fragment's own (a click in it), else
    the page (Streamlit refuses a fragment rerun during a full run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    st.rerun(scope="fragment" if ctx is not None and ctx.fragment_ids_this_run else "app")
