"""What the workbench asks the controller for: indexes with staleness, pipelines, background
builds with progress, and manual mode one stage button at a time."""
from __future__ import annotations

import os
import signal

import pytest

from ragstream import catalog
from ragstream.controller import Controller, ManualSession, Scope
from ragstream.errors import IndexingError
from ragstream.index.background import start_followed_build
from ragstream.index.build_events import child_exit_code
from tests.conftest import make_settings


def test_indexes_list_counts_and_stale_files(sample_repo, tmp_path, monkeypatch):
    controller = Controller(make_settings(tmp_path / "data"))
    assert controller.indexes() == []
    job = controller.build(sample_repo, "main")
    job.wait()
    assert job.error is None and not job.running
    [summary] = controller.indexes()
    assert (summary.repository, summary.index, summary.stale, summary.problem) == ("sample_repo", "main", 0, None)
    assert (summary.files, summary.chunks) == (job.report.files, job.report.chunks) and summary.nodes > summary.chunks
    assert summary.source_root == str(sample_repo) and summary.age_seconds >= 0
    # what the build counted of C# -> SQL, kept for every front end (`index.sql_coverage`)
    assert summary.sql_coverage is not None and summary.sql_coverage.procedures_called > 0
    assert summary.sql_coverage.lines()[0].startswith("C# -> SQL: ") and summary.sql_coverage.warning is None
    # under retrieval filters what counts the whole index is withheld (the workbench's card, MCP index_status)
    assert summary.coverage_told(False) == summary.sql_coverage.lines() and summary.coverage_told(True) == []
    assert summary.stage_told(False) == summary.stage and summary.stage_told(True) == summary.vectors["stage"]
    target = next(sample_repo.rglob("*.py"))
    target.write_text(target.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    (sample_repo / "new_module.py").write_text("def added():\n    return 1\n", encoding="utf-8")
    assert controller.indexes()[0].stale == 2

    def unreadable(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(sample_repo))

    monkeypatch.setattr("ragstream.catalog.walk_repository", unreadable)
    [summary] = controller.indexes()  # listed, its staleness unknown and why
    assert summary.problem is None and summary.stale is None and "Permission denied" in summary.stale_note


def test_a_background_build_reports_every_phase_and_is_not_started_twice(sample_repo, tmp_path):
    controller = Controller(make_settings(tmp_path / "data"))
    job = controller.build(sample_repo, "main")
    again = controller.build(sample_repo, "main")
    job.wait()
    assert again is job  # a second press while it runs joins it
    phases = dict(job.snapshot())
    # keyword-ready (written) before the vectors are embedded
    assert list(phases) == ["walk", "parse", "write", "embed"] and all(p.finished for p in phases.values())
    assert job.stage == "complete" and job.vectors["embedded"] == job.vectors["texts"]
    assert phases["parse"].done == phases["parse"].total == job.report.files
    assert phases["embed"].done == phases["embed"].total == job.report.embedded_new
    assert controller.builds()[0] is job and job.finished >= job.started
    # loaded here as soon as it could be asked, so the first question does not wait for it
    loaded = controller.runtime.backend.store.generations.loaded[("sample_repo", "main")]
    assert loaded.graph is not None and loaded.bm25 is not None


def test_a_failed_build_keeps_its_error(tmp_path):
    controller = Controller(make_settings(tmp_path / "data"))
    job = controller.build(tmp_path / "no-such-folder", "x")
    job.wait()
    assert isinstance(job.error, IndexingError) and job.report is None and controller.indexes() == []


def test_pipelines_say_what_they_extend(tmp_path):
    summaries = {p.name: p for p in Controller(make_settings(tmp_path / "data")).pipelines()}
    assert summaries["base"].extends == () and summaries["code"].extends == ("base",)
    assert summaries["base"].settings["top_k"] == 8 and all(p.problem is None for p in summaries.values())


def test_stage_buttons_run_whole_stages_and_refuse_later_ones(built_sample):
    _, settings, report = built_sample
    controller = Controller(settings)
    scope = Scope(report.info.repository, report.info.branch)
    session = ManualSession(controller, controller.pipeline("base"), "How is a payment recorded?", scope)
    assert session.enabled_stages == ["normalize"]
    [refused] = session.click_stage("retrieve")
    assert refused.error and "not available now" in refused.error.message and session.ran == []
    for stage in ("normalize", "route", "retrieve", "rerank"):
        assert all(click.result for click in session.click_stage(stage))
    expand = session.click_stage("expand")
    assert [c.result.step for c in expand] == ["relate", "expand", "fetch_texts"]  # one button, the stage's steps
    assert session.enabled_stages == ["normalize", "route", "retrieve", "rerank", "expand", "condense"]
    again = session.click_stage("expand")
    assert [c.result.step for c in again] == ["relate", "expand", "fetch_texts"] and session.state.stage == "condense"


def test_a_build_started_before_the_workbench_is_followed_to_its_end(sample_repo, tmp_path):
    # `ragstream ui --build-default` starts the default index's build before Streamlit; the page
    # follows that child's events as if it had started it.
    settings = make_settings(tmp_path / "data")
    process, events = start_followed_build(settings, sample_repo, "main", False)
    heard: list[tuple[str, str, int]] = []
    job = catalog.BuildJob(sample_repo, "main", settings,
                           on_askable=lambda j: heard.append(("askable", j.stage, j.vectors["embedded"])),
                           on_semantic=lambda j: heard.append(("semantic", j.stage, j.vectors["embedded"]))
                           ).follow(events, child_exit_code(process.pid))
    job.wait(120)
    assert job.error is None and job.stage == "complete" and job.report.files == dict(job.snapshot())["parse"].total
    # the index is loaded for questions at keyword-ready; the question model once every chunk has a vector
    assert heard[0] == ("askable", "keyword", 0) and [h[:1] for h in heard] == [("askable",), ("semantic",)]
    assert heard[1][1] in ("heads", "complete")
    assert not events.exists()  # the events and the settings written for the child are gone
    with pytest.raises(ChildProcessError):
        os.waitpid(process.pid, os.WNOHANG)  # reaped by the follower: no zombie is left

    # the launcher starts it on every run; with nothing to build, it says so and the page shows no build
    process, events = start_followed_build(settings, sample_repo, "main", None)
    job = catalog.BuildJob(sample_repo, "main", settings).follow(events, child_exit_code(process.pid))
    job.wait(60)
    assert job.up_to_date and job.error is None and job.report is None and job.phases == {}

    process, events = start_followed_build(make_settings(tmp_path / "other"), sample_repo, "main", False)
    os.kill(process.pid, signal.SIGKILL)
    job = catalog.BuildJob(sample_repo, "main", settings).follow(events, child_exit_code(process.pid))
    job.wait(60)
    assert isinstance(job.error, IndexingError) and "exit code -9" in job.error.message and job.report is None


def test_the_bundled_default_index_is_named_after_the_project_not_its_checkout_folder(tmp_path):
    from ragstream.catalog import IndexSummary
    from ragstream.config import PROJECT_ROOT

    bundled = IndexSummary("main", "self", source_root=str(PROJECT_ROOT))  # checked out as /work/main
    assert bundled.label == "ragstream's own source (self)"
    assert IndexSummary("main", "self", source_root=str(tmp_path)).label == "main / self"  # another project's
    assert IndexSummary("main", "default", source_root=str(PROJECT_ROOT)).label == "main / default"
