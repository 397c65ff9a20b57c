"""The change history: past commits' messages and the definitions they touched, read from a real
git repository made here, indexed, and searched as hybrid search's "history" ranking."""
from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import make_settings

from ragstream.index.build import build_index
from ragstream.index.change_history import PastChange, header_name, read_change_history
from ragstream.index.store import IndexLocation, load_index
from ragstream.retrieval.history_search import HistoryIndex
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.types import SearchRequest
from ragstream.stages import retrieve
from ragstream.super_prompt import SuperPrompt

LEDGER_V1 = '''class Ledger:
    def __init__(self, owner):
        self.owner = owner
        self.lines = []

    def add(self, amount):
        self.lines.append(amount)


class Archive:
    def __init__(self, path):
        self.path = path


def refund(amount):
    return -amount
'''
# The second commit rounds refunds, the third fixes Ledger.__init__ (not Archive.__init__).
LEDGER_V2 = LEDGER_V1.replace("    return -amount", "    return -round(amount, 2)")
LEDGER_V3 = LEDGER_V2.replace("        self.lines = []", "        self.lines = list()\n        self.closed = False")
OTHER = 'def summarise(lines):\n    """Total of the lines."""\n    return sum(lines)\n'


def _git(where: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


def _commit(work: Path, files: dict[str, str], message: str) -> None:
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", message)


@pytest.fixture(scope="module")
def ledger_repo(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("history") / "ledger"
    work.mkdir()
    _git(work, "init", "-q")
    _commit(work, {"books/ledger.py": LEDGER_V1, "books/report.py": OTHER}, "Add the ledger and reports")
    _commit(work, {"books/ledger.py": LEDGER_V2}, "Round refunds to whole cents")
    _commit(work, {"books/ledger.py": LEDGER_V3}, "Ledger keeps a closed flag from the start\n\nTried on staging with key AKIAABCDEFGHIJKLMNOP.")
    _commit(work, {"docs/notes.txt": "refunds are rounded\n"}, "Note about refunds (no code)")
    _commit(work, {"books/report.py": OTHER.replace("sum(lines)", "round(sum(lines), 2)")}, "Reports show rounded totals")
    return work


@pytest.fixture(scope="module")
def ledger_backend(ledger_repo, tmp_path_factory):
    settings = make_settings(tmp_path_factory.mktemp("history-data"))
    build_index(ledger_repo, settings)
    return LocalBackend(settings)


def _search(backend: LocalBackend, query: str, filters: dict | None = None):
    return backend.search(SearchRequest(query=query, repository="ledger", branch=_branch(backend),
                                        search_type="hybrid", top_k=10, retrieval_filters=filters))


def _branch(backend: LocalBackend) -> str:
    return next((backend.data_dir / "indexes" / "ledger").iterdir()).name


def test_a_hunk_header_names_the_definition_it_sits_in():
    assert header_name("def refund(amount):") == "refund"
    assert header_name("    async def fetch(self, url):") == "fetch"
    assert header_name("class Ledger(Base):") == "Ledger"
    assert header_name("public decimal Refund(decimal amount)") == "Refund"
    assert header_name("public sealed class Invoice : Document") == "Invoice"
    assert header_name("import os") is None


def test_the_index_holds_each_commit_that_touched_a_definition_with_what_it_touched(ledger_backend):
    location = IndexLocation(ledger_backend.data_dir, "ledger", _branch(ledger_backend))
    stored = load_index(location)
    changes = {c.message.split("\n")[0]: c for c in stored.change_history()}
    assert changes["Round refunds to whole cents"].targets == ("py:books.ledger.refund|FUNCTION",)
    # Two __init__ methods in the file: the definition line tells them apart.
    closed_flag = changes["Ledger keeps a closed flag from the start"]
    assert closed_flag.targets == ("py:books.ledger.Ledger.__init__|METHOD",)
    assert "AKIA" not in closed_flag.message and "[REDACTED" in closed_flag.message  # stored like code: redacted
    assert "Note about refunds (no code)" not in changes  # it touched no indexed definition
    assert stored.manifest["counts"]["past_changes"] == len(changes)


def test_no_change_history_outside_a_git_work_tree_or_when_switched_off(ledger_repo, ledger_backend, tmp_path):
    chunks = load_index(IndexLocation(ledger_backend.data_dir, "ledger", _branch(ledger_backend))).chunks()
    assert len(read_change_history(ledger_repo, chunks, 100)) == 3
    assert read_change_history(tmp_path, chunks, 100) == []  # not a git work tree
    assert read_change_history(ledger_repo, chunks, 0) == []


def test_hybrid_ranks_what_past_changes_with_matching_messages_touched(ledger_backend):
    response = _search(ledger_backend, "refunds are not rounded to cents")
    by_id = {hit.id: hit for hit in response.hits}
    assert by_id["py:books.ledger.refund|FUNCTION"].sources.get("history") == 1
    assert response.debug["change_history"] == "3 past changes"


def test_the_change_history_never_ranks_what_the_filters_hide(ledger_backend):
    hidden = _search(ledger_backend, "refunds are not rounded to cents",
                     {"paths_include": ["books/report.py"]})
    assert all(hit.id.startswith("py:books.report") for hit in hidden.hits)
    assert [hit.id for hit in hidden.hits if "history" in hit.sources] == ["py:books.report.summarise|FUNCTION"]


def test_a_past_change_that_touched_only_hidden_code_takes_no_place(ledger_backend):
    one_match = LocalBackend(replace(ledger_backend.settings, retrieval=replace(
        ledger_backend.settings.retrieval, change_history_matches=1)))
    query, hide_ledger = "refunds are not rounded to cents", {"paths_exclude": ["books/ledger.py"]}
    assert [h.id for h in _search(one_match, query).hits if "history" in h.sources] == [
        "py:books.ledger.refund|FUNCTION"]
    # The refund commit matches best but its code is hidden: the next commit takes the place.
    assert [h.id for h in _search(one_match, query, hide_ledger).hits if "history" in h.sources] == [
        "py:books.report.summarise|FUNCTION"]


def test_an_older_matching_change_counts_less_by_its_half_life():
    history = HistoryIndex.build([PastChange("c3", "Round the invoice totals", ("py:new|FUNCTION",)),
                                  PastChange("c2", "Add a logo to the report", ("py:logo|FUNCTION",)),
                                  PastChange("c1", "Round the invoice totals", ("py:old|FUNCTION",))])
    shown = lambda node: True  # noqa: E731
    undecayed = dict(history.ranking("invoice totals are not rounded", shown, commits=2, k=5))
    assert undecayed["py:new|FUNCTION"] == pytest.approx(undecayed["py:old|FUNCTION"])
    decayed = dict(history.ranking("invoice totals are not rounded", shown, commits=2, k=5, half_life=1))
    # Two changes back at a half-life of one change: a quarter of the newest one's score.
    assert decayed["py:old|FUNCTION"] == pytest.approx(decayed["py:new|FUNCTION"] / 4)


def test_the_half_life_can_give_a_newer_weaker_match_the_place_of_an_older_better_one():
    history = HistoryIndex.build([PastChange("c2", "Invoices: rounding", ("py:new|FUNCTION",)),
                                  PastChange("c1", "Invoice totals rounding of invoice totals", ("py:old|FUNCTION",))])
    query, shown = "invoice totals rounding", lambda node: True
    assert [n for n, _ in history.ranking(query, shown, commits=1, k=5)] == ["py:old|FUNCTION"]
    assert [n for n, _ in history.ranking(query, shown, commits=1, k=5, half_life=0.25)] == ["py:new|FUNCTION"]


def test_the_backend_weighs_past_changes_by_the_configured_half_life(ledger_backend):
    def history_hits(half_life: float) -> list[str]:
        backend = LocalBackend(replace(ledger_backend.settings, retrieval=replace(
            ledger_backend.settings.retrieval, change_history_matches=1, change_history_half_life=half_life)))
        return [h.id for h in _search(backend, "refunds are not rounded to cents").hits if "history" in h.sources]

    assert history_hits(0) == ["py:books.ledger.refund|FUNCTION"]  # "Round refunds to whole cents"
    # Two past changes back at a tenth of a change's half-life, the refund commit weighs 2**-20:
    # the newest change that says "rounded" takes the one place.
    assert history_hits(0.1) == ["py:books.report.summarise|FUNCTION"]


def test_an_index_without_change_history_says_so(ledger_repo, tmp_path):
    settings = make_settings(tmp_path, index={"change_history_commits": 0})
    build_index(ledger_repo, settings)
    response = _search(LocalBackend(settings), "refunds are not rounded to cents")
    assert not any("history" in hit.sources for hit in response.hits)
    assert response.debug["change_history"].startswith("none")


def test_the_retrieve_trace_lists_the_hits_the_change_history_ranked(ledger_backend):
    sp = SuperPrompt(repository="ledger", branch=_branch(ledger_backend), question_raw="refunds are not rounded",
                     retrieval_query="refunds are not rounded", retrieval_mode="hybrid")
    retrieve.run(sp, ledger_backend, {"id": "retrieve"},
                  {"top_k": 8, "N0_QUERY_PIECES": 1, "N1_RETR_MAX_CANDIDATES": 10, "logavgexp_tau": 9,
                   "entry_tests_share": 0.7, "tests_penalty": 0.5, "generated_penalty": 0.5, "mixed_domain_share": 0.25})
    assert "py:books.ledger.refund|FUNCTION" in sp.extras["retrieve"]["attempts"][0]["from_change_history"]
