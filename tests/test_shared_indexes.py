"""Shared indexes (issue 21): with `retrieval.backend: milvus`, the workbench's index picker lists
the indexes published to Milvus beside the data folder's own, each labelled, and a question
asked against a shared one is served from Milvus (a local one from the data folder).

The machine here holds one small local index (`notes`); the sample repository is published to
a Milvus Lite server from another data folder, so whatever names billing/ came from Milvus.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ragstream.config import load_settings
from ragstream.controller import Controller, ManualSession, Scope
from ragstream.index.build import build_index
from ragstream.retrieval import milvus_store
from tests.test_milvus import milvus_server  # noqa: F401  (the Milvus Lite server fixture)
from tests.test_ui_browser import ARTIFACTS, STEP_WAIT_MS, served_tab, settle

QUESTION = "How is a payment recorded on an invoice?"
LOCAL, SHARED = "notes / default", "sample_repo / default (shared)"


@pytest.fixture(scope="module")
def settings_file(built_sample, milvus_server, tmp_path_factory) -> Path:  # noqa: F811
    """Settings of a machine with one local index and the sample repository on Milvus."""
    _, _, report = built_sample
    milvus_store.publish(milvus_store.connect(milvus_server), report.location)
    root = tmp_path_factory.mktemp("shared")
    repo = root / "notes"
    repo.mkdir()
    (repo / "notes.py").write_text('def reminder() -> str:\n    """Water the plants on Fridays."""\n'
                                   '    return "plants"\n', encoding="utf-8")
    path = root / "settings.yaml"
    path.write_text(yaml.safe_dump({"index": {"data_dir": str(root / "data")}, "retrieval": {"backend": "milvus"},
                                    "milvus": {"uri": milvus_server}}), encoding="utf-8")
    build_index(repo, load_settings(path))  # local only: build_index never publishes
    return path


@pytest.mark.slow  # a Milvus Lite server and two index builds: ~15 s
def test_the_controller_lists_shared_indexes_and_serves_each_from_its_source(settings_file):
    with Controller(load_settings(settings_file)) as controller:
        summaries = controller.indexes()
        assert [(s.label, s.source) for s in summaries] == [(LOCAL, "local"), (SHARED, "shared")]
        shared = summaries[1]
        assert shared.problem is None and shared.chunks > 0 and shared.branch == "default"
        scope = Scope(shared.repository, shared.branch, shared.index, index_source="shared")
        sp, _ = controller.run(QUESTION, scope, controller.pipeline("base"))
        assert sp.index_source == "shared"
        assert "billing/service.py" in {c.path for c in sp.base_context_chunks}  # only on Milvus
        assert controller.locations(sp, sp.final_selection_ids)  # the state's calls go to Milvus too
        local = summaries[0]
        sp, _ = controller.run("Where is the reminder defined?",
                               Scope(local.repository, local.branch, local.index, index_source="local"),
                               controller.pipeline("base"))
        assert {c.path for c in sp.base_context_chunks} == {"notes.py"}  # from the data folder


@pytest.mark.slow  # the same Milvus Lite server
def test_a_manual_pass_is_served_from_the_source_of_its_index_as_auto_mode_is(settings_file):
    with Controller(load_settings(settings_file)) as controller:
        local, shared = controller.indexes()
        for summary, paths in ((local, {"notes.py"}), (shared, {"billing/service.py"})):
            session = ManualSession(controller, controller.pipeline("base"), QUESTION if summary is shared else
                                    "Where is the reminder defined?", controller.scope_of(summary))
            for stage in ("normalize", "route", "retrieve", "rerank"):
                assert all(click.error is None for click in session.click_stage(stage)), stage
            assert session.engine.runtime.backend is controller.backend_for(summary.source)
            assert paths <= {c.path for c in session.state.base_context_chunks}, summary.label


@pytest.fixture(scope="module")
def page(settings_file, tmp_path_factory):
    """`ragstream ui` on those settings, in Debian's chromium."""
    with served_tab(settings_file, settings_file.parent) as tab:
        yield tab


@pytest.mark.slow
def test_the_picker_lists_a_shared_index_and_a_question_is_answered_from_it(page):
    from playwright.sync_api import expect

    expect.set_options(timeout=STEP_WAIT_MS)
    picker = page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first
    expect(picker).to_be_visible()
    settle(page)
    picker.click()
    options = page.get_by_role("option")
    expect(options).to_have_count(2)
    assert options.all_inner_texts() == [LOCAL, SHARED]
    page.get_by_role("option", name=SHARED).click()
    settle(page)
    expect(page.get_by_text("shared index on").first).to_be_visible()

    page.get_by_role("radio", name="Auto").click()
    settle(page)
    chat = page.get_by_test_id("stChatInputTextArea")
    chat.fill(QUESTION)
    chat.press("Enter")
    settle(page)
    expect(page.get_by_text("turn 1: trace, graph and budget")).to_be_visible()
    answer = page.get_by_test_id("stChatMessage").nth(1)
    expect(answer).to_contain_text("billing/")  # the sample repository: only Milvus holds it
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui-shared-index.png"), full_page=True)
