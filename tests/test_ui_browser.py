"""The workbench in a real browser, as the README's main command starts it: `ragstream ui
--build-default` on an empty data folder paints at once, shows the default index being built,
then a person clicks through the eight stages, sees the graph drawn, and asks in auto mode; then
a three-turn chat with follow-ups survives a reload, the graph has its legend and full-screen
view, no id is cut, and filters that hide everything are said to.

Chromium is Debian's (installed here, as root, when missing), driven by Playwright's Python
package; nothing is downloaded by Playwright. Screenshots go to test-artifacts/.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from ragstream.config import PROJECT_ROOT
from ragstream.ui.graph import ALT as GRAPH_ALT, FULL_HEIGHT
from tests.conftest import SELF_INDEX_IGNORE

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = PROJECT_ROOT / "test-artifacts"
LABELS = ["Normalize", "Route", "Retrieve", "Rerank", "Expand", "Condense", "Build prompt", "Answer"]
QUESTION = "How does the engine check the fields a step writes?"
# Generous waits, never timing assertions: the first one covers building the default index.
BUILD_WAIT_MS = 1_500_000  # ~1 min on an idle machine; far longer on a shared, busy one
STEP_WAIT_MS = 120_000


def ensure_chromium() -> None:
    """Debian's chromium, installed with apt when it is missing (the tests run as root)."""
    if CHROMIUM.exists():
        return
    if os.geteuid() != 0:
        pytest.fail(f"{CHROMIUM} is missing and installing it needs root: apt-get install chromium")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update"], check=True, env=env, capture_output=True)
    subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "chromium"], check=True, env=env,
                   capture_output=True)


@dataclass(frozen=True)
class Workbench:
    url: str
    settings: Path  # the settings file the server runs with (its data folder holds the index)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def workbench(tmp_path_factory, self_index):
    """`ragstream ui --build-default` on a data folder with no index (ragstream's tests left out,
    as in the session's index); yields its URL. Only the
    embedding cache of the session's own build of ragstream is copied in, so the page's build
    (walk, parse, graph, write: all shown live) does not embed the same chunks again."""
    root = tmp_path_factory.mktemp("workbench")
    settings_used, report = self_index
    cache = report.location.embedding_cache
    (root / "data").mkdir()
    shutil.copy(cache, root / "data" / cache.name)
    settings = root / "settings.yaml"
    settings.write_text(yaml.safe_dump({"index": {"data_dir": str(root / "data"), "ignore": SELF_INDEX_IGNORE}}),
                        encoding="utf-8")
    port = free_port()
    log = open(root / "server.log", "wb")
    server = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(settings), "ui", "--port", str(port),
                               "--build-default"], cwd=root, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield Workbench(f"http://127.0.0.1:{port}", settings)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(root / "server.log", ARTIFACTS / "ui-server.log")


@contextmanager
def browser_tab(url: str) -> Iterator:
    """A Debian-chromium tab open on `url`, retried while the server is still starting."""
    ensure_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1600, "height": 1000})
        tab.set_default_timeout(STEP_WAIT_MS)
        for _ in range(120):  # the server starts in a few seconds; the page is retried until then
            try:
                tab.goto(url)
                break
            except Exception:  # noqa: BLE001 - connection refused until the server listens
                tab.wait_for_timeout(500)
        yield tab
        browser.close()


@contextmanager
def served_tab(settings: Path, root: Path) -> Iterator:
    """`ragstream ui` on `settings` (its log in `root`), and a chromium tab open on it; the server
    stops when the tab is done."""
    port = free_port()
    with open(root / "server.log", "wb") as log:
        server = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(settings), "ui",
                                   "--port", str(port)], cwd=root, stdout=log, stderr=subprocess.STDOUT)
        try:
            with browser_tab(f"http://127.0.0.1:{port}") as tab:
                yield tab
        finally:
            server.terminate()
            server.wait(timeout=30)


@pytest.fixture(scope="module")
def page(workbench):
    with browser_tab(workbench.url) as tab:
        yield tab


def settle(page) -> None:
    """Wait until Streamlit has finished the rerun a click or an input started: no status
    widget, and no element left over from the previous run (those are marked stale)."""
    page.wait_for_timeout(300)  # the status widget appears a moment after the rerun starts
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden")
    page.wait_for_function("!document.querySelector('[data-stale=\"true\"]')", timeout=STEP_WAIT_MS)


def current(page):
    """The elements the latest run drew (not the stale ones a rerun is replacing)."""
    return page.locator('[data-testid="stElementContainer"]:not([data-stale="true"])')


@pytest.mark.slow
def test_the_workbench_builds_the_default_index_then_runs_both_modes(page):
    from playwright.sync_api import expect

    expect.set_options(timeout=STEP_WAIT_MS)
    ARTIFACTS.mkdir(exist_ok=True)
    # First paint while the default index is still being built, with its progress live.
    expect(current(page).get_by_role("button", name="1 Normalize")).to_be_visible()
    expect(page.get_by_text("Indexing").first).to_be_visible()
    expect(page.locator('[data-testid="stProgress"]').first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "ui-building.png"))
    # A question typed (not yet sent) while the index builds survives the build's end.
    page.get_by_label("Question").fill(QUESTION)
    # Built: the sidebar describes the chosen index.
    expect(page.get_by_text(re.compile(r"\d+ files · \d+ chunks")).first).to_be_visible(timeout=BUILD_WAIT_MS)
    # The manual pass below runs on the complete index: the fill's end reruns the page, and a pass
    # it lands in is reset to Normalize (with the ONNX path the fill ends within the pass).
    expect(page.get_by_text(re.compile(r"complete: [\d,]+ texts embedded")).first).to_be_visible(timeout=BUILD_WAIT_MS)
    settle(page)
    expect(page.get_by_label("Question")).to_have_value(QUESTION)

    # Manual mode: the eight stages in order.
    page.get_by_label("Question").press("Control+Enter")
    settle(page)
    expect(page.get_by_label("Question")).to_have_value(QUESTION)
    for number, label in enumerate(LABELS, start=1):
        button = current(page).get_by_role("button", name=f"{number} {label}")
        expect(button).to_be_enabled()
        button.click()
        settle(page)
        expect(page.get_by_text(f"{number} {label} · ").first).to_be_visible()
    expect(page.get_by_text("Not written by a model").first).to_be_visible()

    # The graph panel draws the neighbourhood: vis-network holds the nodes inside the iframe.
    frame = page.locator('iframe[title="dependency graph around the question"]').element_handle().content_frame()
    frame.wait_for_function("typeof network !== 'undefined' && network.body.data.nodes.length > 0")
    assert frame.evaluate("network.body.data.nodes.length") > 0
    page.screenshot(path=str(ARTIFACTS / "ui-manual.png"), full_page=True)

    # One click on a row of the node list focuses that node in the drawing of the same rerun.
    nodes = page.locator('.st-key-manual-graph-nodes:not([data-stale="true"])')
    nodes.scroll_into_view_if_needed()
    nodes.hover(position={"x": 12, "y": 35 + 17})
    nodes.click(position={"x": 12, "y": 35 + 17})  # the first row's selection marker, under the header
    settle(page)
    focus = current(page).get_by_text(re.compile(r"^focus ")).first
    expect(focus).to_be_visible()
    frame = page.locator('iframe[title="dependency graph around the question"]').element_handle().content_frame()
    frame.wait_for_function("typeof network !== 'undefined' && network.getSelectedNodes().length === 1")
    assert frame.evaluate("network.getSelectedNodes()[0]") in focus.inner_text()

    # Auto mode: one question, answered with its trace, graph and budget.
    page.get_by_role("radio", name="Auto").click()
    settle(page)
    chat = page.get_by_test_id("stChatInputTextArea")
    chat.fill("How are secrets redacted from indexed files?")
    chat.press("Enter")
    settle(page)
    expect(page.get_by_text("turn 1: trace, graph and budget")).to_be_visible()
    expect(page.get_by_test_id("stChatMessage")).to_have_count(2)
    expect(page.get_by_test_id("stChatMessage").nth(1)).to_contain_text("redactor.py")
    page.screenshot(path=str(ARTIFACTS / "ui-auto.png"), full_page=True)


def _subject_and_callers(workbench: Workbench, conversation: str, filters: dict) -> tuple[str, set[str]]:
    """The first symbol the conversation's first answer cited, and its callers in the graph
    under `filters` (read from the server's own data folder: what the answer must name)."""
    from ragstream.catalog import list_indexes
    from ragstream.config import load_settings
    from ragstream.history import HistoryStore
    from ragstream.retrieval.local_backend import LocalBackend
    from ragstream.stages.follow_up import cited_subjects

    settings = load_settings(str(workbench.settings))
    [index] = [s for s in list_indexes(settings) if s.index == "self"]
    first = HistoryStore(Path(settings.index.data_dir) / "history.sqlite").turns(conversation)[0]
    subject = cited_subjects(first.state)[0]
    graph = LocalBackend(settings).graph(index.repository, index.branch, filters, "self")
    return subject, {source for source, _, key in graph.in_edges(subject, keys=True) if key == "CALLS"}


def ask_in_chat(page, question: str, messages: int) -> None:
    chat = page.get_by_test_id("stChatInputTextArea")
    chat.fill(question)
    chat.press("Enter")
    settle(page)
    expect_count(page.get_by_test_id("stChatMessage"), messages)


def expect_count(locator, count: int) -> None:
    from playwright.sync_api import expect

    expect(locator).to_have_count(count)


@pytest.mark.slow
def test_follow_ups_survive_a_reload_and_the_graph_ids_and_filters_read_well(page, workbench):
    from playwright.sync_api import expect

    expect.set_options(timeout=STEP_WAIT_MS)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(workbench.url)  # a fresh session (the default index may still be building when run alone)
    expect(page.get_by_text(re.compile(r"\d+ files · \d+ chunks")).first).to_be_visible(timeout=BUILD_WAIT_MS)
    settle(page)
    expect(page.get_by_text("answers questions about a codebase").first).to_be_visible()  # what the tool is

    # Manual mode: hits and reranked rows read by a short name; the whole id is never cut.
    page.get_by_role("button", name="Sample question").click()
    settle(page)
    for number, label in enumerate(LABELS[:5], start=1):
        current(page).get_by_role("button", name=f"{number} {label}").click()
        settle(page)
    page.get_by_text(re.compile(r"^3 Retrieve ·")).first.click()  # its panel holds the hits table
    settle(page)
    grid = page.locator('[data-testid="stDataFrame"]:not([data-stale="true"]) [role="gridcell"]')
    grid.first.wait_for(state="attached")  # the table lists its cells (hidden: a canvas draws them) after the panel opens
    cells = grid.all_inner_texts()
    assert cells and not any("…" in cell for cell in cells)
    page.screenshot(path=str(ARTIFACTS / "ui-manual-1280.png"), full_page=True)

    # Auto mode under a filter, three turns: "and who calls it?" names the callers of the first answer's symbol.
    page.get_by_role("radio", name="Auto").click()
    settle(page)
    page.get_by_text("security filters (retrieval_filters)").click()
    page.get_by_label("languages").fill("python")
    page.get_by_label("languages").press("Enter")
    settle(page)
    ask_in_chat(page, "What does node_of do?", 2)
    ask_in_chat(page, "and who calls it?", 4)
    conversation = re.search(r"conversation=(\w+)", page.url).group(1)
    subject, callers = _subject_and_callers(workbench, conversation, {"languages": ["python"]})
    follow_up = page.get_by_test_id("stChatMessage").nth(3)
    expect(follow_up).to_contain_text("From the graph (callers)")
    assert callers and all(caller in follow_up.inner_text() for caller in callers), (subject, callers)
    ask_in_chat(page, "what does it call?", 6)
    expect(page.get_by_test_id("stChatMessage").nth(5)).to_contain_text("From the graph (callees)")

    # Reload: mode, index, filters and the conversation come back, each turn with its trace.
    page.reload()
    settle(page)
    assert f"conversation={conversation}" in page.url and "filter.languages=python" in page.url
    expect(page.get_by_role("radio", name="Auto")).to_be_checked()
    expect(page.get_by_label("languages")).to_have_value("python")
    expect(page.get_by_test_id("stChatMessage")).to_have_count(6)
    expect(page.get_by_test_id("stChatMessage").nth(3)).to_contain_text("From the graph (callers)")
    expect(page.get_by_text("turn 3: trace, graph and budget")).to_be_visible()
    expect(page.get_by_text("from the history").first).to_be_visible()

    # The latest turn's graph: its legend, then full screen.
    page.get_by_role("tab", name="Graph").last.click()
    frame = page.locator(f'iframe[title="{GRAPH_ALT}"]').last.element_handle().content_frame()
    frame.wait_for_function("typeof network !== 'undefined' && network.body.data.nodes.length > 0")
    assert "★ seed" in frame.locator(".ragstream-legend").inner_text()
    page.screenshot(path=str(ARTIFACTS / "ui-auto.png"), full_page=True)
    page.get_by_text("Full screen").last.click()
    settle(page)
    assert page.locator(f'iframe[title="{GRAPH_ALT}"]').last.bounding_box()["height"] >= FULL_HEIGHT - 5
    page.screenshot(path=str(ARTIFACTS / "ui-graph-full.png"), full_page=True)

    # A filter that hides everything: the answer says the filters may hide code, and names nothing.
    page.get_by_text("security filters (retrieval_filters)").click()  # closed again by the reload
    page.get_by_label("paths_include").fill("nothing-here/**")
    page.get_by_label("paths_include").press("Enter")
    settle(page)
    ask_in_chat(page, "How does the engine check the fields a step writes?", 2)
    expect(page.get_by_test_id("stChatMessage").nth(1)).to_contain_text("your retrieval filters are set and may hide")
