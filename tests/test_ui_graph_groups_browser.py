"""A large neighbourhood made legible, in a real browser (Debian's chromium, issue 38), on a real
index (ragstream's own source, tests included): "What calls load_settings?" reaches some forty
callers, most of them tests; the drawing shows them as group nodes ("★ 32 test functions")
and the table under it lists every member, production code first, with how each edge was
found. Screenshots go to test-artifacts/ (docs/workbench-graph-groups*.png are copies)."""
from __future__ import annotations

import re

import pytest
import yaml

from ragstream.config import PROJECT_ROOT, load_settings
from ragstream.index.build import build_index
from tests.test_ui_browser import ARTIFACTS, STEP_WAIT_MS, current, served_tab, settle

QUESTION = "What calls load_settings?"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """`ragstream ui` on ragstream's own source, keyword-ready (the graph needs no vectors)."""
    root = tmp_path_factory.mktemp("groups")
    path = root / "settings.yaml"
    path.write_text(yaml.safe_dump({"index": {"data_dir": str(root / "data")}}), encoding="utf-8")
    build_index(PROJECT_ROOT, load_settings(path), name="groups", fill=False)
    with served_tab(path, root) as tab:
        yield tab


def open_graph(page, question: str) -> None:
    """Manual mode up to Expand on `question`, then the Graph tab."""
    page.get_by_role("radio", name="Manual").click()
    settle(page)
    page.get_by_label("Question").fill(question)
    settle(page)
    for number, label in enumerate(("Normalize", "Route", "Retrieve", "Rerank", "Expand"), start=1):
        current(page).get_by_role("button", name=f"{number} {label}").click()
        settle(page)
    page.get_by_role("tab", name="Graph").click()
    settle(page)


def drawn_labels(page) -> list[str]:
    iframe = page.locator('iframe[title="dependency graph around the question"]').last
    iframe.scroll_into_view_if_needed()
    frame = iframe.element_handle().content_frame()
    frame.wait_for_function("typeof network !== 'undefined' && network.body.data.nodes.length > 0")
    page.wait_for_timeout(500)  # the fit after the frame settles
    return frame.evaluate("network.body.data.nodes.get().map(n => n.label)")


@pytest.mark.slow
def test_many_alike_callers_are_group_nodes_listed_in_a_table_code_first(page):
    from playwright.sync_api import expect

    expect.set_options(timeout=STEP_WAIT_MS)
    ARTIFACTS.mkdir(exist_ok=True)
    settle(page)
    open_graph(page, QUESTION)
    labels = drawn_labels(page)
    groups = [label for label in labels if re.fullmatch(r"(★ )?\d+ (test )?\w+", label)]
    assert any("test functions" in label for label in groups), labels
    assert len(labels) <= 20, labels  # some forty nodes drawn as a readable handful
    page.screenshot(path=str(ARTIFACTS / "ui-graph-groups.png"), full_page=True)

    expect(page.get_by_text("grouped in the drawing")).to_be_visible()
    table = page.locator('[data-testid="stDataFrame"]:not([data-stale="true"])').filter(
        has=page.locator('[role="gridcell"]', has_text="test functions")).first
    table.scroll_into_view_if_needed()
    texts = table.locator('[role="gridcell"]').all_inner_texts()  # listed, hidden (a canvas draws them)
    in_group = [t for t in texts if re.fullmatch(r"(★ )?\d+ (test )?functions", t)]
    assert in_group and not in_group[0].endswith("test functions"), texts  # production code first
    assert "static" in texts, texts  # how each edge was found
    page.screenshot(path=str(ARTIFACTS / "ui-graph-groups-table.png"), full_page=True)
