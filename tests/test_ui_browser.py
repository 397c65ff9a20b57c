"""The workbench in a real browser, as the README's main command starts it: `ragstream ui
--build-default` on an empty data folder paints at once, shows the default index being built,
then a person clicks through the eight stages, sees the graph drawn, and asks in auto mode.

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
from pathlib import Path

import pytest
import yaml

from ragstream.config import PROJECT_ROOT

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def workbench(tmp_path_factory, self_index):
    """`ragstream ui --build-default` on a data folder with no index; yields its URL. Only the
    embedding cache of the session's own build of ragstream is copied in, so the page's build
    (walk, parse, graph, write: all shown live) does not embed the same chunks again."""
    root = tmp_path_factory.mktemp("workbench")
    settings_used, report = self_index
    cache = report.location.embedding_cache
    (root / "data").mkdir()
    shutil.copy(cache, root / "data" / cache.name)
    settings = root / "settings.yaml"
    settings.write_text(yaml.safe_dump({"index": {"data_dir": str(root / "data")}}), encoding="utf-8")
    port = free_port()
    log = open(root / "server.log", "wb")
    server = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(settings), "ui", "--port", str(port),
                               "--build-default"], cwd=root, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(root / "server.log", ARTIFACTS / "ui-server.log")


@pytest.fixture(scope="module")
def page(workbench):
    ensure_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1600, "height": 1000})
        tab.set_default_timeout(STEP_WAIT_MS)
        for _ in range(120):  # the server starts in a few seconds; the page is retried until then
            try:
                tab.goto(workbench)
                break
            except Exception:  # noqa: BLE001 - connection refused until the server listens
                tab.wait_for_timeout(500)
        yield tab
        browser.close()


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
    expect(page.get_by_test_id("stChatMessage").nth(1)).to_contain_text("secrets.py")
    page.screenshot(path=str(ARTIFACTS / "ui-auto.png"), full_page=True)
