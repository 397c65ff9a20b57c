"""Index builds running in the background, drawn live: one progress bar per phase; and the
watching builder that follows the index the workbench serves, with its last refresh."""
from __future__ import annotations

import time
from collections.abc import Mapping

import streamlit as st

from ragstream.catalog import BuildJob, IndexSummary, WatchJob
from ragstream.index.fill import describe
from ragstream.ui.common import show_error

POLL_SECONDS = 0.5  # also how soon a first index, once askable, opens the question box
WATCH_POLL_SECONDS = 1.0  # how soon the page hears of a refresh
WATCH_SEEN = "watch:seen"
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


def watch_status(controller, session: str, index: IndexSummary, filters: Mapping[str, list[str]]) -> None:
    """The watching builder `session` follows (its own `index`), redrawn every
    WATCH_POLL_SECONDS; when a refresh changed the index (or failed), the page runs again: the
    index card and the notices beside answers say so. (Not on every burst of changes: most touch
    no indexed file.) It names only the changed paths `filters` let the session see
    (`Controller.watch_paths`)."""
    if controller.following(session) is not None:
        _watch_live(controller, session, index, filters)


@st.fragment(run_every=WATCH_POLL_SECONDS)
def _watch_live(controller, session: str, index: IndexSummary, filters: Mapping[str, list[str]]) -> None:
    job = controller.following(session)
    if job is None:
        return
    _draw_watch(job, *controller.watch_paths(job, index, filters))
    now = (job.pid, job.updates)
    seen = st.session_state.get(WATCH_SEEN)
    st.session_state[WATCH_SEEN] = now
    if seen is not None and seen != now:
        st.rerun(scope="app")


def _draw_watch(job: WatchJob, named: tuple[str, ...], others: int) -> None:
    """`named`: the burst's paths the session may see; `others`: how many more to count."""
    seen = ", ".join([f"`{path}`" for path in named[:3]] + (["…"] if len(named) > 3 else [])
                     + ([f"{others} file(s)"] if others else []))
    if not job.running and job.error is not None:
        st.markdown("**Stopped following file changes**")
        show_error(job.error)
        return
    if job.refreshing:
        phase = next((f"{name} {p.done}/{p.total}" if p.total else name
                      for name, p in reversed(job.snapshot()) if not p.finished), "starting")
        what = f"after changes to {seen or 'files'}" if job.bursts else "its first build"
        st.caption(f":material/sync: Following file changes · refreshing {what}: {phase}")
        return
    if job.error is not None:
        st.caption(":material/sync_problem: Following file changes · the last refresh failed; still watching")
        show_error(job.error)
        return
    report = job.report
    when = time.strftime("%H:%M:%S", time.localtime(job.refreshed_at)) if job.refreshed_at else "—"
    last = ("up to date" if report is None or report.unchanged
            else f"{seen or 'files'} re-indexed, {report.published} · {report.chunks} chunks")
    st.caption(f":material/visibility: Following file changes{'' if job.watcher_up else ' (starting)'} · "
               f"last refresh {when}: {last}")
