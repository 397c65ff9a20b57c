"""Index builds running in the background, drawn live: one progress bar per phase."""
from __future__ import annotations

import time

import streamlit as st

from ragstream.catalog import BuildJob
from ragstream.index.fill import describe
from ragstream.ui.common import show_error

POLL_SECONDS = 0.5  # also how soon a first index, once askable, opens the question box
SHOW_FINISHED_FOR = 30.0  # a finished build's summary stays this long
STOPS_WITH_THE_WORKBENCH = ("Stops when the workbench stops (the index built so far stays; a fill resumes next "
                            "time). To build on your own: `ragstream index PATH --background`.")


def render(controller) -> None:
    """The builds of this process; while any runs, the panel redraws itself every POLL_SECONDS."""
    jobs = _recent(controller)
    if not jobs:
        return
    if any(job.running for job in jobs):
        _live(controller)
    else:
        _draw(jobs)


@st.fragment(run_every=POLL_SECONDS)
def _live(controller) -> None:
    jobs = _recent(controller)
    _draw(jobs)
    stages = tuple(job.stage for job in jobs)
    seen = st.session_state.get("build_stages")
    st.session_state["build_stages"] = stages
    # A build finished, or one became keyword-ready (askable): the index list and the pickers change.
    if not any(job.running for job in jobs) or (seen is not None and seen != stages):
        st.rerun(scope="app")


def _recent(controller) -> list[BuildJob]:
    return [job for job in controller.builds() if not job.up_to_date
            and (job.running or (job.finished or 0) > time.time() - SHOW_FINISHED_FOR)]


def _draw(jobs: list[BuildJob]) -> None:
    for job in jobs:
        title = f"{job.path.name} → index `{job.name or 'default'}`"
        if job.running:
            st.markdown(f"**Indexing** {title} · {time.time() - job.started:.0f} s")
            if job.vectors:  # published: questions can be asked while the vectors fill in
                st.caption(describe(job.vectors, "build"))
            st.caption(STOPS_WITH_THE_WORKBENCH)
        elif job.error:
            st.markdown(f"**Indexing failed** {title}")
            show_error(job.error)
            continue
        else:
            report = job.report
            assert report is not None, "a build that ended without an error has its report"
            st.success(f"Indexed {title}: {report.files} files, {report.chunks} chunks, "
                       f"{report.embedded_new} embedded in {sum(report.seconds.values()):.1f} s "
                       f"(keyword-ready after {report.keyword_ready_seconds:.1f} s)",
                       icon=":material/check_circle:")
            continue
        for phase, progress in job.snapshot():
            if progress.total:
                fraction = min(progress.done / progress.total, 1.0)
                st.progress(fraction, text=f"{phase} {progress.done}/{progress.total}")
            else:
                st.progress(1.0 if progress.finished else 0.0, text=f"{phase} {'done' if progress.finished else '…'}")
