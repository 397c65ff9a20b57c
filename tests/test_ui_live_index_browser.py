"""The workbench follows the index it serves, in a real browser (Debian's chromium): `ragstream
ui` on a small repository's index, the sidebar says it follows file changes, a question is
answered in chat (no model: the deterministic path), a file is edited, and the page says -- next
to the answer -- which file changed since it was made and that the index was refreshed to include
it; a new question then finds the new code; then the same beside a step-by-step answer. Screenshots go to test-artifacts/
(docs/workbench-live-index-*.png are copies)."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
import yaml

from ragstream.config import load_settings
from ragstream.index.build import build_index
from ragstream.index.embeddings import Embedder
from tests.conftest import SAMPLE_REPO
from tests.test_ui_browser import ARTIFACTS, LABELS, STEP_WAIT_MS, current, served_tab, settle

REFRESH_WAIT_MS = 300_000  # the child's refresh embeds the new chunk (its model loads first) on a busy machine


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """`ragstream ui` on the sample repository's complete index; yields (tab, repository)."""
    root = tmp_path_factory.mktemp("live")
    repo = root / "sample_repo"
    shutil.copytree(SAMPLE_REPO, repo)
    path = root / "settings.yaml"
    path.write_text(yaml.safe_dump({"index": {"data_dir": str(root / "data"), "watch_debounce_ms": 200}}),
                    encoding="utf-8")
    build_index(repo, load_settings(path), embedder=Embedder())
    with served_tab(path, root) as tab:
        yield tab, repo
    deadline = time.monotonic() + 15  # the server is stopped (SIGTERM): its watching child goes with it
    while watching(repo) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not watching(repo), "the watching child outlived the workbench"


def watching(repo: Path) -> list[int]:
    """The `ragstream index REPO --watch` processes running now."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
            state = (cmdline.parent / "status").read_text()
        except OSError:
            continue
        if b"--watch" in args and str(repo).encode() in args and "\nState:\tZ" not in state:
            found.append(int(cmdline.parent.name))
    return found


def ask(page, question: str) -> None:
    chat = page.get_by_test_id("stChatInputTextArea")
    chat.fill(question)
    chat.press("Enter")
    settle(page)


@pytest.mark.slow
def test_an_edit_is_followed_and_said_beside_the_answer(live):
    from playwright.sync_api import expect

    page, repo = live
    expect.set_options(timeout=STEP_WAIT_MS)
    ARTIFACTS.mkdir(exist_ok=True)
    settle(page)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("follow file changes")).to_be_visible()
    expect(sidebar.get_by_text("Following file changes")).to_be_visible()
    expect(sidebar.get_by_text("last refresh")).to_be_visible()  # the child's first build: up to date
    assert len(watching(repo)) == 1  # one watching child for the index served

    page.get_by_role("radio", name="Auto").click()
    settle(page)
    ask(page, "How is a ledger entry refreshed?")
    answer = page.get_by_test_id("stChatMessage").nth(1)
    expect(answer).to_contain_text("No file of the index changed since this answer.")
    answer.get_by_text("No file of the index changed").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "ui-live-index-before.png"), full_page=True)

    util = repo / "billing" / "util.py"
    util.write_text(util.read_text() + "\n\ndef quokka_ledger_refresh(entry):\n    return entry\n")
    expect(answer).to_contain_text("1 file(s) changed since this answer.", timeout=REFRESH_WAIT_MS)
    expect(answer).to_contain_text("modified billing/util.py")
    expect(answer).to_contain_text("The index has been refreshed to include them", timeout=REFRESH_WAIT_MS)
    expect(sidebar.get_by_text("billing/util.py re-indexed")).to_be_visible(timeout=REFRESH_WAIT_MS)
    answer.get_by_text("changed since this answer").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "ui-live-index-after.png"), full_page=True)

    ask(page, "Where is quokka_ledger_refresh defined?")
    latest = page.get_by_test_id("stChatMessage").nth(3)
    expect(latest).to_contain_text("billing/util.py")
    expect(latest).to_contain_text("No file of the index changed since this answer.")

    # Step mode: the answer panel says the same after the next edit (a file added).
    page.get_by_role("radio", name="Manual").click()
    settle(page)
    page.get_by_label("Question").fill("Where is quokka_ledger_refresh defined?")
    settle(page)
    for number, label in enumerate(LABELS, start=1):
        current(page).get_by_role("button", name=f"{number} {label}").click()
        settle(page)
    panel = page.get_by_test_id("stExpander").filter(has_text="8 Answer")
    expect(panel).to_contain_text("No file of the index changed since this answer.")
    (repo / "billing" / "ledger.py").write_text("def ledger_total(entries):\n    return sum(entries)\n")
    expect(panel).to_contain_text("1 file(s) changed since this answer.", timeout=REFRESH_WAIT_MS)
    expect(panel).to_contain_text("added billing/ledger.py")
    expect(panel).to_contain_text("The index has been refreshed to include them", timeout=REFRESH_WAIT_MS)
    panel.get_by_text("changed since this answer").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "ui-live-index-manual.png"), full_page=True)
