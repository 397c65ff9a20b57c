"""The sidebar: index picker and "index a folder", pipeline picker, models, budgets and
N-constants, security filters. It returns the session's choices; the panels run with them."""
from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import streamlit as st

from ragstream.bounds import LIMITS
from ragstream.catalog import IndexSummary, PipelineSummary, watch_target
from ragstream.config import LLM_ROLES
from ragstream.controller import Scope
from ragstream.errors import RagstreamError
from ragstream.index.embeddings import Embedder
from ragstream.pipeline.loader import Pipeline
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.ui import builds, resources
from ragstream.ui.common import humanise_age, show_error

if TYPE_CHECKING:
    from ragstream.controller import Controller

FOLLOW_SESSION = "index:follow_session"  # this browser session's name for `Controller.follow`
INDEX_LIST_SECONDS = 20  # how long the index list (with its stale-file walk) is reused
BUDGETS = {  # pipeline setting -> (slider minimum, maximum, step)
    "max_context_tokens": (500, 32000, 500),
    "max_history_tokens": (250, 16000, 250),
}
N_CONSTANTS = ("N0_QUERY_PIECES", "N1_RETR_MAX_CANDIDATES", "N2_RERANK_TOP_K", "N3_FINAL_SELECTION_MAX")
FILTER_KEYS = tuple(f.name for f in fields(RetrievalFilters) if f.name != "also")


@dataclass(frozen=True)
class Choices:
    """What the session runs with: scope (None until an index exists), pipeline and overrides."""

    scope: Scope | None
    pipeline_name: str
    overrides: dict[str, Any] = field(default_factory=dict)
    pipeline: Pipeline | None = None

    @property
    def ready(self) -> bool:
        return self.scope is not None and self.pipeline is not None

    @property
    def signature(self) -> tuple:
        """What a run depends on (a manual pass made with other choices is stale)."""
        return (self.scope, self.pipeline_name, sorted(self.overrides.items()))


def render(controller: Controller) -> Choices:
    st.markdown("### ragstream")
    index, card_slot, watch_slot = _index_section(controller)
    name, pipeline, overrides = _pipeline_section(controller)
    filters = _filter_section()
    scope = controller.scope_of(index, filters) if index is not None else None
    if index is not None and scope is not None:  # drawn under the picker, told under the filters
        with card_slot:
            _index_card(controller, index, scope)
        if watch_slot is not None:
            with watch_slot:
                builds.watch_status(controller, _session(), index, filters)
    _model_section(controller)
    return Choices(scope, name, overrides, pipeline)


# --- indexes ------------------------------------------------------------------------------

@st.cache_data(ttl=INDEX_LIST_SECONDS, show_spinner=False)
def _indexes(config: str | None, builds_marker: tuple) -> list[IndexSummary]:
    return resources.controller().indexes()


def _session() -> str:
    """This browser session's name for `Controller.follow`."""
    return st.session_state.setdefault(FOLLOW_SESSION, uuid.uuid4().hex)


def _index_section(controller: Controller) -> tuple[IndexSummary | None, Any, Any]:
    """The chosen index, where its card goes (drawn once the filters are known) and where the
    state of its watcher goes (None: not followed)."""
    st.markdown("**Index**")
    watch = controller.following(_session())
    marker = tuple((str(job.path), job.name, job.finished, job.stage) for job in controller.builds()) + (
        (watch.updates,) if watch is not None else ())
    summaries = _indexes(resources.config_file(), marker)
    usable = [s for s in summaries if s.problem is None]
    if usable:  # with no index yet, the builds are drawn large in the main area instead
        builds.render(controller)
    else:
        st.info("No index yet. Index a folder below" + (" (the default index is being built)."
                                                         if any(j.running for j in controller.builds()) else "."))
    chosen, card_slot = None, None
    if usable:
        labels = [s.label for s in usable]
        wanted = st.session_state.get("index_choice")
        if wanted is not None and wanted not in labels:  # a link or an earlier choice names one gone
            st.warning(f"index `{wanted}` is not available here; choose one below", icon=":material/warning:")
            del st.session_state["index_choice"]
        # the default index (ragstream's own) is chosen on first paint; no index is ever switched silently
        st.session_state.setdefault("index_choice", next((lbl for lbl, s in zip(labels, usable) if s.index == "self"),
                                                         labels[0]))
        label = st.selectbox("index", labels, key="index_choice", label_visibility="collapsed")
        chosen = usable[labels.index(label)]
        card_slot = st.container()
    watch_slot = _follow_changes(controller, chosen)
    for broken in (s for s in summaries if s.problem):
        st.warning(f"{broken.label} cannot be used: {broken.problem}")
    if summaries:
        with st.expander(f"all indexes ({len(summaries)})"):
            st.dataframe([_index_row(s) for s in summaries], hide_index=True, width="stretch")
    _index_folder_form(controller)
    return chosen, card_slot, watch_slot


def _index_card(controller: Controller, s: IndexSummary, scope: Scope) -> None:
    """What the chosen index is; while this workbench builds it, its progress is the build's
    panel above alone (the index's last published figure beside it read as a second one). Under
    security filters nothing that counts or names the whole index is drawn (as MCP's
    `index_status`): it would say how much, and which files, the filters hide."""
    filtered = bool(scope.retrieval_filters)
    building = bool(s.source_root) and Path(s.source_root).resolve() in {
        job.path.resolve() for job in controller.builds() if job.running}
    if s.shared:  # published: nothing of it is walked here, so no stale count
        where, made, stale = f"shared index on `{s.source_root}` · ", "published", ""
    else:
        where, made = "", "built"
        stale = " · " + (f"stale files unknown ({s.stale_note})" if s.stale is None
                         else "0 stale files" if s.stale == 0 else f"**{s.stale} stale file(s)**")
    counts = ("counts withheld under your security filters" if filtered
              else f"{s.files} files · {s.chunks} chunks · {s.nodes} nodes · {s.edges} edges{stale}")
    st.caption(f"{where}branch `{s.branch}` · commit `{(s.commit or 'none')[:10]}` · {made} "
               f"{humanise_age(s.age_seconds)}  \n{counts}  \n"
               f"{'being built: progress above' if building else s.stage_told(filtered)}")
    # does the C# reach the SQL (`index.sql_coverage`): the counts, the warning as one
    for line in s.coverage_told(filtered):
        if line.startswith("warning:"):
            st.warning(line.removeprefix("warning: "), icon=":material/warning:")
        else:
            st.caption(line)
    # an edit published before its calls were linked: the graph says so until they are. From the
    # index list's manifest, not the loaded graph: loading a generation here would block the page
    # on every publication of a fill
    if note := s.graph_note(filtered):
        st.caption(f":material/sync: {note}")


def _follow_changes(controller: Controller, chosen: IndexSummary | None) -> Any:
    """The toggle that keeps the chosen local index following its files (on by default:
    `index.watch_in_workbench`); where the watcher's state goes, None when this session follows
    none. Another index, or none, leaves the watcher to the sessions that still follow it."""
    followed = None
    if watch_target(chosen) is not None:
        on = st.toggle("follow file changes", value=controller.settings.index.watch_in_workbench, key="index:follow",
                       help="A `ragstream index --watch` child re-indexes each edit of the repository's files "
                            "(changed files only); it stops when another index is chosen or the workbench "
                            "stops. Default: index.watch_in_workbench.")
        followed = chosen if on else None
    return st.container() if controller.follow(followed, _session()) is not None else None


def _index_row(s: IndexSummary) -> dict[str, Any]:
    return {"repository": s.repository, "index": s.index, "where": s.source, "branch": s.branch,
            "commit": (s.commit or "")[:10],
            "age": humanise_age(s.age_seconds) if not s.problem else "", "files": s.files, "chunks": s.chunks,
            "stale files": s.stale, "stage": s.stage, "source": s.source_root, "problem": s.problem or ""}


def _index_folder_form(controller: Controller) -> None:
    with st.expander("index a folder"):
        with st.form("index_folder", border=False):
            path = st.text_input("folder", placeholder="/path/to/repository", key="index_folder:path")
            name = st.text_input("index name", placeholder="default: the branch", key="index_folder:name")
            rebuild = st.checkbox("rebuild from scratch", key="index_folder:rebuild")
            submitted = st.form_submit_button("Index", width="stretch", key="index_folder:submit")
        if submitted:
            folder = Path(path.strip()).expanduser()
            if not path.strip():
                st.error("Type the folder to index first.", icon=":material/error:")
            elif not folder.is_dir():
                st.error(f"`{folder}` is not a folder on this machine.", icon=":material/error:")
            else:
                controller.build(folder, name.strip() or None, rebuild)
                time.sleep(0.2)  # let the build reach its first phase before the bars are drawn
                st.rerun()


# --- pipeline, budgets, N-constants ------------------------------------------------------

@st.cache_data(ttl=INDEX_LIST_SECONDS, show_spinner=False)
def _pipelines(config: str | None) -> list[PipelineSummary]:
    return resources.controller().pipelines()


def _pipeline_section(controller: Controller) -> tuple[str, Pipeline | None, dict[str, Any]]:
    st.markdown("**Pipeline**")
    summaries = {p.name: p for p in _pipelines(resources.config_file())}
    names = list(summaries)
    if st.session_state.get("pipeline_choice") not in names:
        st.session_state["pipeline_choice"] = "base" if "base" in names else names[0]
    name = st.selectbox("pipeline", names, key="pipeline_choice", label_visibility="collapsed")
    summary = summaries[name]
    if summary.problem:
        st.error(summary.problem)
        return name, None, {}
    extends = " → ".join([*summary.extends, name]) if summary.extends else f"{name} (root)"
    st.caption(f"extends: {extends}  \n" + " · ".join(f"{k} {v}" for k, v in summary.settings.items()))
    try:
        defaults = controller.pipeline(name).settings
    except RagstreamError as exc:  # the list said it loads; it changed on disk since
        show_error(exc)
        return name, None, {}
    overrides = _budget_inputs(name, defaults)
    try:
        pipeline = controller.pipeline(name, overrides)
    except RagstreamError as exc:
        show_error(exc)
        return name, None, overrides
    for warning in pipeline.warnings:  # unreachable steps, budgets lowered for a local model
        st.caption(f":material/warning: {warning}")
    return name, pipeline, overrides


def _budget_inputs(pipeline: str, defaults: dict[str, Any]) -> dict[str, Any]:
    """Sliders and number inputs starting at the pipeline's values; returns what differs."""
    chosen: dict[str, Any] = {}
    with st.expander("budgets and N-constants", expanded=True):
        for key, (low, high, step) in BUDGETS.items():
            value = int(defaults[key])
            chosen[key] = st.slider(key, min(low, value), max(high, value), value, step, key=f"{pipeline}:{key}")
        columns = st.columns(2)
        for i, key in enumerate(N_CONSTANTS):
            chosen[key] = columns[i % 2].number_input(key, min_value=1, max_value=int(LIMITS[key].high),
                                                      value=int(defaults[key]), step=1, key=f"{pipeline}:{key}")
    return {key: value for key, value in chosen.items() if value != defaults[key]}


# --- security filters and models ----------------------------------------------------------

def _filter_section() -> dict[str, list[str]]:
    """The session's retrieval_filters: a filled box is an allowlist, an empty one no filter."""
    filters: dict[str, list[str]] = {}
    with st.expander("security filters (retrieval_filters)"):
        st.caption("Comma-separated. An empty box constrains nothing; path boxes take gitignore-style globs.")
        for key in FILTER_KEYS:
            text = st.text_input(key, key=f"filter:{key}")
            values = [v.strip() for v in text.split(",") if v.strip()]
            if values:
                filters[key] = values
    return filters


def _model_section(controller: Controller) -> None:
    """The `llm` settings as this process runs them: provider, endpoint, the model of each role.
    API keys are only ever read from the environment; whether one is set is all that is shown."""
    settings, client = controller.settings, controller.runtime.llm
    assert client is not None, "the controller always connects a client (provider none included)"
    with st.expander("models"):
        if not client.enabled:
            st.caption("Provider **none**: every stage runs its deterministic path (the trace and every "
                       "panel say so).")
        else:
            key = "set" if os.environ.get("OPENAI_API_KEY") else "not set"
            st.caption(f"provider **{settings.llm.provider}** · {client.base_url or 'the OpenAI API'} · "
                       f"OPENAI_API_KEY {key} in the environment")
        rows = [{"role": role, "model": client.model_for(role) if client.uses_model(role) else "deterministic path"}
                for role in LLM_ROLES]
        rows += [{"role": "embedding", "model": f"{Embedder.model_name} ({settings.embedding.dtype})"},
                 {"role": "cross-encoder", "model": settings.retrieval.cross_encoder_model or "none"},
                 {"role": "tokenizer", "model": settings.tokens.encoding}]
        st.dataframe(rows, hide_index=True, width="stretch")
        st.caption(f"From {resources.config_file() or 'config/defaults.yaml'} (`llm:`); "
                   "change them there or with `ragstream --config FILE ui`.")
