"""Progressive builds: keyword-ready first, vectors filled in behind it, published batch by batch
(real model, FAISS, BM25, real processes killed with SIGKILL)."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from ragstream.cli import main
from ragstream.index import store
from ragstream.index.build import build_index, fill_index, locate, repository_info
from ragstream.index.embeddings import Embedder, EmbeddingCache
from ragstream.index.fill import TextPlan, describe, fill_vectors
from ragstream.index.search_artifacts import read_faiss
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.types import SearchRequest
from tests.conftest import make_settings

QUERIES = ("record a payment on an invoice", "InvoiceService", "customer table foreign key",
           "handler for event 7", "process the event total")


def location_of(repo: Path, settings) -> store.IndexLocation:
    return locate(repository_info(repo), settings)


def search(backend: LocalBackend, repo: Path, mode: str, query: str, k: int = 8):
    return backend.search(SearchRequest(mode, query, k, repo.name, "default"))


def results(settings, repo: Path) -> list:
    """Every mode's hits (ids, scores, ranks, sources) for every query: what must not change."""
    backend = LocalBackend(settings)
    return [[(h.id, h.score, h.rank, h.sources) for h in search(backend, repo, mode, q).hits]
            for mode in ("semantic", "bm25", "hybrid") for q in QUERIES]


def vectors_of(location: store.IndexLocation) -> tuple[np.ndarray, np.ndarray]:
    index, rows = read_faiss(store.load_index(location).faiss_path)
    return index.reconstruct_n(0, index.ntotal), rows


def stop_after(location: store.IndexLocation, batches: int):
    """A fill progress hook that asks the fill to stop (as a re-index does) after `batches` batches."""
    seen = []

    def heard(event: str, amount: int) -> None:
        if event == "advance":
            seen.append(amount)
            if len(seen) == batches:
                (location.index_dir / store.STOP).touch()
    return heard


def partial_fill(repo: Path, settings, batches: int) -> store.IndexLocation:
    """The index keyword-ready, then filled for `batches` batches and stopped (published)."""
    build_index(repo, settings, fill=False)
    location = location_of(repo, settings)
    stored = store.load_index(location)
    chunks = stored.chunks()
    plan = TextPlan.of(chunks, settings.embedding.window_tokens)
    cache = EmbeddingCache(location.embedding_cache)
    try:
        with store.build_lock(location, role="fill"):
            result = fill_vectors(location, plan, chunks, {}, Embedder(), cache,
                                  progress=stop_after(location, batches), publish_every=0)
    finally:
        cache.close()
    assert result.stopped and result.publishes == batches + 1  # its plan first: the keyword-ready index had no windows
    return location


def test_keyword_ready_index_answers_bm25_expand_and_ask(sample_repo: Path, tmp_path: Path, capsys):
    settings = make_settings(tmp_path / "data")
    report = build_index(sample_repo, settings, fill=False)
    assert report.stage == "keyword" and report.vectors["embedded"] == 0 and report.embedded_new == 0
    backend = LocalBackend(settings)
    bm25 = search(backend, sample_repo, "bm25", "record_payment invoice")
    assert bm25.hits and "warnings" not in bm25.debug
    semantic = search(backend, sample_repo, "semantic", "record a payment")
    assert semantic.hits == [] and "no vectors yet" in semantic.debug["warnings"][0]
    hybrid = search(backend, sample_repo, "hybrid", "record_payment invoice")
    assert hybrid.hits and all("semantic" not in h.sources for h in hybrid.hits)
    assert hybrid.debug["warnings"][0].startswith("hybrid without its semantic part: no vectors yet")
    assert hybrid.debug["semantic_coverage"]["embedded"] == 0

    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    capsys.readouterr()
    assert main(["--config", str(config), "expand", "how is a payment recorded on an invoice"]) == 0
    assert "record_payment" in capsys.readouterr().out
    assert main(["--config", str(config), "ask", "how is a payment recorded on an invoice"]) == 0
    out, err = capsys.readouterr()
    assert "record_payment" in out
    assert "warning (retrieve): hybrid without its semantic part: no vectors yet" in err  # the trace says it
    assert store.load_index(location_of(sample_repo, settings)).manifest["vectors"]["stage"] == "keyword"


def test_partial_index_reports_coverage_and_never_fails(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    location = partial_fill(sample_repo, settings, batches=3)
    vectors = store.load_index(location).manifest["vectors"]
    assert vectors["stage"] == "keyword" and 0 < vectors["embedded"] < vectors["texts"]
    embedded, rows = vectors_of(location)
    assert len(embedded) == vectors["embedded"] and list(rows) == sorted(rows)  # full-build order
    backend = LocalBackend(settings)
    for mode in ("semantic", "hybrid"):
        response = search(backend, sample_repo, mode, "record a payment on an invoice", k=50)
        note = f"semantic over {vectors['embedded']:,} of {vectors['texts']:,} texts"
        assert response.debug["warnings"][0].endswith(note + f" ({vectors['heads']:,} of {vectors['chunks']:,} "
                                                      "chunks): the semantic fill is not complete")
        assert response.hits
    covered = {store.load_index(location).chunks()[r].id for r in rows}
    semantic = search(backend, sample_repo, "semantic", "record a payment on an invoice", k=50).hits
    assert {h.id for h in semantic} == covered  # every chunk with a vector, and nothing else


def test_a_completed_progressive_build_equals_a_full_build(sample_repo: Path, tmp_path: Path):
    """Stopped after every few batches and resumed each time, the fill ends with the index (and
    the vectors, bit for bit) of one uninterrupted build, which are those of embedding every
    text in one job."""
    full = make_settings(tmp_path / "full")
    build_index(sample_repo, full)
    progressive = make_settings(tmp_path / "progressive")
    location = partial_fill(sample_repo, progressive, batches=2)
    while store.load_index(location).manifest["vectors"]["stage"] != "complete":
        chunks = store.load_index(location).chunks()
        plan = TextPlan.of(chunks, progressive.embedding.window_tokens)
        cache = EmbeddingCache(location.embedding_cache)
        try:
            with store.build_lock(location, role="fill"):
                fill_vectors(location, plan, chunks, cache.get_many(plan.keys), Embedder(), cache,
                             backend=store.load_index(location).manifest["vectors"]["backend"],
                             progress=stop_after(location, 4), publish_every=0)
        finally:
            cache.close()
    (full_vectors, full_rows), (got, rows) = vectors_of(location_of(sample_repo, full)), vectors_of(location)
    assert np.array_equal(full_rows, rows) and np.array_equal(full_vectors, got)
    plan = TextPlan.of(store.load_index(location).chunks(), full.embedding.window_tokens)
    one_job = Embedder().encode(plan.texts, backend=Embedder().choose(len(set(plan.keys))))
    assert np.array_equal(one_job, got)
    assert results(full, sample_repo) == results(progressive, sample_repo)


def _synthetic_repo(root: Path, modules: int = 10) -> Path:
    """Enough code (with long functions, so windows too) that its fill takes seconds."""
    root.mkdir()
    for i in range(modules):
        functions = []
        for j in range(30):
            body = "\n".join(f"    total_{k} = process_{j}(event, {i * j + k})  # step {k} of handler {i}.{j}"
                             for k in range(40 if j % 10 == 0 else 2))
            functions.append(f"def handler_{i}_{j}(event):\n    \"\"\"Handle event {i}.{j}.\"\"\"\n{body}\n"
                             f"    return total_0\n")
        (root / f"module_{i}.py").write_text("\n\n".join(functions))
    return root


def _filling(repo: Path, tmp_path: Path) -> tuple:
    """The repository indexed keyword-ready in tmp_path/data and `ragstream index --fill` running
    on it, once it has published vectors: (settings, location, process, the published coverage)."""
    settings = make_settings(tmp_path / "data")
    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    build_index(repo, settings, fill=False)
    location = location_of(repo, settings)
    process = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(config), "index", str(repo),
                                "--fill"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return settings, location, process, _wait_for_vectors(location, process)


def _wait_for_vectors(location: store.IndexLocation, process: subprocess.Popen) -> dict:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            vectors = store.load_index(location).manifest["vectors"]
        except Exception:  # noqa: BLE001 - CURRENT may be mid-replace: try again
            vectors = {"embedded": 0}
        if vectors["embedded"]:
            return vectors
        if process.poll() is not None:
            pytest.fail(f"the fill ended before it published: {process.stderr.read().decode()}")
        time.sleep(0.05)
    process.kill()
    pytest.fail("the fill published nothing")


@pytest.mark.slow
def test_a_killed_fill_resumes_and_ends_identical_to_a_full_build(tmp_path: Path):
    repo = _synthetic_repo(tmp_path / "repo")
    full = make_settings(tmp_path / "full")
    build_index(repo, full)
    settings, location, process, published = _filling(repo, tmp_path)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=60)
    live = store.load_index(location)  # the last published batch is live and whole
    assert 0 < live.manifest["vectors"]["embedded"] < live.manifest["vectors"]["texts"]
    assert live.manifest["vectors"]["embedded"] >= published["embedded"]
    assert store.lock_holder(location) is None  # the killed holder's note names a process that is gone

    report = build_index(repo, settings)  # the next run resumes from the cache and the published state
    assert report.stage == "complete"
    assert report.embedded_cached >= live.manifest["vectors"]["embedded"]
    assert report.embedded_new < live.manifest["vectors"]["texts"] - live.manifest["vectors"]["embedded"] + 1
    assert report.embedding_backends == {} or set(report.embedding_backends) == {live.manifest["vectors"]["backend"]}
    (want, want_rows), (got, rows) = vectors_of(location_of(repo, full)), vectors_of(location)
    assert np.array_equal(want_rows, rows) and np.array_equal(want, got)
    assert results(full, repo) == results(settings, repo)


@pytest.mark.slow
def test_an_incremental_reindex_during_a_fill_takes_it_over(tmp_path: Path):
    repo = _synthetic_repo(tmp_path / "repo")
    settings, location, process, _ = _filling(repo, tmp_path)
    assert store.lock_holder(location).startswith("fill pid")
    (repo / "module_3.py").write_text("def settle_ledger(entries):\n    return sum(e.amount for e in entries)\n")
    (repo / "module_4.py").unlink()

    report = build_index(repo, settings)  # asks the fill to stop, takes the lock, re-indexes, fills
    assert process.wait(timeout=60) == 0  # the fill stopped cleanly after its batch
    assert report.incremental and report.changes.changed == ["module_3.py"]
    assert report.changes.deleted == ["module_4.py"]
    assert report.stage == "complete"
    stored = store.load_index(location)
    ids = {c.id for c in stored.chunks()}
    assert "py:module_3.settle_ledger|FUNCTION" in ids and not any(i.startswith("py:module_4.") for i in ids)
    _, rows = vectors_of(location)
    assert sorted(set(rows)) == list(range(len(ids)))  # every chunk, and only the live ones, has vectors
    fresh = make_settings(tmp_path / "fresh")  # a full build of the changed repository, same vectors
    (tmp_path / "fresh").mkdir()
    shutil.copy(location.embedding_cache, tmp_path / "fresh" / location.embedding_cache.name)
    build_index(repo, fresh, rebuild=True)
    assert results(fresh, repo) == results(settings, repo)


def test_two_builds_exclude_each_other_and_a_fill_stays_resumable(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    location = location_of(sample_repo, settings)
    with store.build_lock(location):
        with pytest.raises(Exception, match="another build of this index is running \\(build pid"):
            build_index(sample_repo, settings)
        with pytest.raises(Exception, match="another build"):
            fill_index(sample_repo, settings)
    report = fill_index(sample_repo, settings)
    assert report.stage == "complete" and report.embedded_new == report.vectors["texts"]


def test_cli_returns_keyword_ready_and_fills_in_the_background(sample_repo: Path, tmp_path: Path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    assert main(["--config", str(config), "index", str(sample_repo)]) == 0
    out, err = (" ".join(text.split()) for text in capsys.readouterr())  # rich folds long lines
    assert "keyword-ready after" in err and "bm25, the graph, expand and ask work now" in err
    assert "semantic fill going on in the background (pid" in out
    deadline = time.monotonic() + 120
    while True:
        assert main(["--config", str(config), "index", "--status", str(sample_repo)]) == 0
        status = " ".join(capsys.readouterr().out.split())
        if "stage: complete" in status or time.monotonic() > deadline:
            break
        assert "semantic over" in status
        time.sleep(0.5)
    assert re.search(r"stage: complete: \d+ texts embedded", status)
    settings = make_settings(tmp_path / "data")
    while store.lock_holder(location_of(sample_repo, settings)):  # the background process exits
        time.sleep(0.1)


def test_the_embedding_cache_serves_every_repository_and_the_old_per_repository_one(sample_repo: Path,
                                                                                       tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    first = build_index(sample_repo, settings)
    fork = tmp_path / "fork"
    shutil.copytree(sample_repo, fork)
    again = build_index(fork, settings)  # another repository, the same texts
    assert first.embedded_new == first.vectors["texts"] and again.embedded_new == 0
    assert again.location.repository_dir != first.location.repository_dir

    moved = first.location.repository_embedding_cache  # the layout before: one cache per repository
    first.location.embedding_cache.rename(moved)
    rebuilt = build_index(sample_repo, settings, rebuild=True)
    assert rebuilt.embedded_new == 0 and rebuilt.stage == "complete"
    assert first.location.embedding_cache.is_file()  # what it read was copied into the shared one


def test_searches_during_a_fill_follow_its_batches_and_never_fail(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    location = location_of(sample_repo, settings)
    stored = store.load_index(location)
    chunks = stored.chunks()
    plan = TextPlan.of(chunks, settings.embedding.window_tokens)
    backend, seen, errors = LocalBackend(settings), [], []
    done = threading.Event()

    def searching() -> None:
        while not done.is_set():
            try:
                response = search(backend, sample_repo, "hybrid", "record a payment on an invoice")
                seen.append(response.debug.get("semantic_coverage", {}).get("embedded", "complete"))
                backend.graph(sample_repo.name, "default", None)  # a lazy load from the live generation
            except Exception as exc:  # noqa: BLE001 - what the test is about
                errors.append(exc)

    reader = threading.Thread(target=searching)
    reader.start()
    cache = EmbeddingCache(location.embedding_cache)
    try:
        with store.build_lock(location, role="fill"):
            result = fill_vectors(location, plan, chunks, {}, Embedder(), cache, publish_every=0)
    finally:
        cache.close()
        done.set()
        reader.join()
    assert not errors and result.publishes > 3
    assert len(set(seen)) >= 2  # it saw batches arrive
    assert "semantic_coverage" not in search(backend, sample_repo, "hybrid", "record a payment").debug


def test_keyword_ready_plans_no_window_and_takes_the_cached_heads(sample_repo: Path, tmp_path: Path):
    """The window plan is the fill's: a keyword-ready index carries the vectors the cache holds
    for each chunk's own text, says its window count is not known yet, and its fill publishes
    the plan (here complete at once: every text was embedded by another repository's build)."""
    settings = make_settings(tmp_path / "data")
    first = build_index(sample_repo, settings)
    fork = tmp_path / "fork"
    shutil.copytree(sample_repo, fork)
    ready = build_index(fork, settings, fill=False)
    vectors = ready.vectors
    assert vectors["texts"] is None and vectors["stage"] == "heads"
    assert vectors["embedded"] == vectors["heads"] == vectors["chunks"] == first.chunks
    assert len(vectors_of(ready.location)[0]) == first.chunks  # the heads' vectors are live already
    assert "semantic over" in describe(vectors) and "windows not planned yet" in describe(vectors)
    filled = fill_index(fork, settings)
    assert filled.embedded_new == 0 and filled.stage == "complete"
    assert filled.vectors["texts"] == first.vectors["texts"] > first.chunks  # windows counted by the fill
    (want, want_rows), (got, rows) = vectors_of(first.location), vectors_of(ready.location)
    assert np.array_equal(want_rows, rows) and np.array_equal(want, got)


def test_a_keyword_ready_build_loads_neither_the_model_tokenizer_nor_a_session(sample_repo: Path, tmp_path: Path):
    script = (
        "import sys\n"
        "from ragstream.index.build import build_index\n"
        "from ragstream.index.embedding_windows import model_tokenizer\n"
        "from ragstream.index.onnx_model import onnx_encoder\n"
        "from tests.conftest import make_settings\n"
        f"report = build_index({str(sample_repo)!r}, make_settings({str(tmp_path / 'data')!r}), fill=False)\n"
        "print(report.stage, model_tokenizer.cache_info().currsize, onnx_encoder.cache_info().currsize,\n"
        "      'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parent.parent).stdout
    assert out.split() == ["keyword", "0", "0", "False"]
