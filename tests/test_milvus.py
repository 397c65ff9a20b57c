"""The Milvus backend (Milvus Lite, real engine): publishing, filters as engine expressions,
the local backend's contract and rankings, and the command line against a Milvus server.

The contract tests imported from test_retrieval run here against this module's `acl_backend`
fixture, which serves the same fixture index from Milvus instead of the local files.
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ragstream.cli import main
from ragstream.config import load_settings
from ragstream.controller import Controller, Scope
from ragstream.errors import IndexLoadError, RetrievalError
from ragstream.eval.synthetic_index import Row, write_synthetic_index
from ragstream.index import store
from ragstream.retrieval import milvus_store
from ragstream.retrieval.backends import make_backend
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.milvus_backend import MilvusBackend
from ragstream.retrieval.milvus_filters import NOTHING, to_expression
from ragstream.retrieval.scope import default_scope
from ragstream.retrieval.types import SearchRequest
from tests.conftest import make_settings
from tests.test_retrieval import (  # noqa: F401  (collected here: the contract, on Milvus)
    test_a_router_payload_cannot_lift_a_negated_glob, test_acl_tags_come_from_the_index_policy,
    test_every_mode_and_fetch_respect_filters, test_fetch_chunks_visible_unique_and_whole,
    test_keyword_rerank_only_reorders_widened_candidates, test_modes_find_the_payment_code,
    test_results_are_deterministic, test_scope_must_match_the_index,
    test_search_nodes_clears_then_writes_ids_in_rank_order)

# The seed-exact configuration: RRF of the semantic and the bm25 ranking only.
SEED_EXACT = {"mention_weight": 0.0, "change_history_weight": 0.0, "file_evidence_weight": 0.0, "symptom_weight": 1.0}
QUERIES = ["record a payment", "customer balance", "invoices table", "log payment event", "RecordPayment amount",
           "what happens when an invoice is overdue", "sql schema for customers"]
FILTERS = [None, {"acl_tags_any": ["public"]}, {"acl_tags_any": ["dba"]}, {"paths_include": ["**", "!db/**"]},
           {"kinds": ["METHOD", "FUNCTION"]}, {"languages": ["csharp"], "paths_exclude": ["src/Models/"]},
           {"classification_labels_all": ["confidential"]}]


@pytest.fixture(scope="module")
def published(acl_backend, tmp_path_factory):
    """The fixture index (db/ restricted to `dba`) published to a Milvus Lite file."""
    uri = str(tmp_path_factory.mktemp("milvus") / "acl.db")
    data = Path(acl_backend.settings.index.data_dir)
    report = milvus_store.publish(milvus_store.connect(uri), store.IndexLocation(data, "sample_repo", "default"))
    return uri, report


@pytest.fixture(scope="module")
def acl_backend(acl_backend, published):  # the conftest fixture, served from Milvus
    settings = replace(acl_backend.settings, retrieval=replace(acl_backend.settings.retrieval, backend="milvus"),
                       milvus=replace(acl_backend.settings.milvus, uri=published[0]))
    backend = make_backend(settings, acl_backend.embedder)
    assert isinstance(backend, MilvusBackend)
    return backend


def local_twin(backend: MilvusBackend, **retrieval) -> LocalBackend:
    settings = backend.settings
    return LocalBackend(replace(settings, retrieval=replace(settings.retrieval, backend="local", **retrieval)),
                        backend.embedder)


# --- filters as expressions -----------------------------------------------------------------

PATHS = ("db/schema.sql", "src/a.py", "src/b/c.py", "docs/readme.md")


@pytest.mark.parametrize("filters, expected", [
    ({}, ""),
    ({"acl_tags_any": ["dev", "public"]}, '(array_contains_any(acl_tags, ["dev","public"]))'),
    ({"classification_labels_all": ["a", "b"]}, '(array_contains_all(classification_labels, ["a","b"]))'),
    ({"kinds": ["METHOD"], "languages": ["sql"]}, '(kind in ["METHOD"]) and (language in ["sql"])'),
    ({"paths_include": ["**", "!db/**"]}, '(path in ["docs/readme.md","src/a.py","src/b/c.py"])'),
    ({"paths_exclude": ["src/b/", "*.md"]}, '(path in ["db/schema.sql","src/a.py"])'),
    ({"acl_tags_any": []}, NOTHING),
    ({"kinds": []}, NOTHING),
    ({"paths_include": ["nowhere/"]}, NOTHING),
    ({"languages": ["python"], "paths_exclude": ["**"]}, NOTHING),
])
def test_filters_translate_exactly_or_to_nothing(filters, expected):
    assert to_expression(RetrievalFilters.parse(filters), PATHS) == expected


def test_narrowed_filters_and_every_clause():
    filters = RetrievalFilters.parse({"acl_tags_any": ["a"]}).narrowed_by(RetrievalFilters.parse({"kinds": ["X"]}))
    assert to_expression(filters, PATHS) == '(array_contains_any(acl_tags, ["a"])) and (kind in ["X"])'


def test_an_untranslatable_filter_is_refused_not_dropped():
    @dataclass_with_extra_field
    class Wider(RetrievalFilters):
        owners: tuple[str, ...] | None = None

    with pytest.raises(RetrievalError, match=r"\['owners'\] have no Milvus translation"):
        to_expression(Wider(owners=("data",)), PATHS)
    assert to_expression(Wider(), PATHS) == ""  # unset: constrains nothing, so nothing is lost


def dataclass_with_extra_field(cls):
    from dataclasses import dataclass

    return dataclass(frozen=True)(cls)


# --- parity with the local backend ----------------------------------------------------------

@pytest.mark.parametrize("mode", ["semantic", "bm25", "hybrid"])
def test_seed_exact_rankings_match_the_local_backend(acl_backend, mode):
    """Same index, same model: the same top-k in the same order, scores equal to float precision."""
    milvus = MilvusBackend(replace(acl_backend.settings, retrieval=replace(acl_backend.settings.retrieval,
                                                                           **SEED_EXACT)),
                           acl_backend.embedder, client=acl_backend.client)
    local = local_twin(acl_backend, **SEED_EXACT)
    compared = 0
    for query in QUERIES:
        for filters in FILTERS:
            request = SearchRequest(mode, query, 8, "sample_repo", "default", filters)
            expected, got = local.search(request).hits, milvus.search(request).hits
            assert [h.id for h in got] == [h.id for h in expected], (query, filters)
            assert [h.sources for h in got] == [h.sources for h in expected]
            assert [h.score for h in got] == pytest.approx([h.score for h in expected], rel=1e-4, abs=1e-5)
            compared += bool(expected)
    assert compared >= len(QUERIES) * (len(FILTERS) - 2)  # most combinations find something


def test_default_hybrid_matches_too(acl_backend):
    """With every fusion source on (names, file evidence, exception types) the rankings agree too:
    they read the same chunk table, which every worker loads from the server."""
    local = local_twin(acl_backend)
    for query in QUERIES:
        request = SearchRequest("hybrid", query, 8, "sample_repo", "default", {"acl_tags_any": ["public"]})
        assert [h.id for h in acl_backend.search(request).hits] == [h.id for h in local.search(request).hits]


def test_graph_texts_and_locations_come_from_the_server(acl_backend):
    local = local_twin(acl_backend)
    public = {"acl_tags_any": ["public"]}
    graph = acl_backend.graph("sample_repo", "default", public)
    assert set(graph.nodes) == set(local.graph("sample_repo", "default", public).nodes)
    assert not any(node.startswith("sql:") for node in graph.nodes)
    ids = [h.id for h in local.search(SearchRequest("semantic", "invoice", 30, "sample_repo", "default")).hits]
    for filters in FILTERS:
        assert acl_backend.fetch_texts(ids, "sample_repo", "default", filters) == \
            local.fetch_texts(ids, "sample_repo", "default", filters)
        assert acl_backend.locations(ids, "sample_repo", "default", filters) == \
            local.locations(ids, "sample_repo", "default", filters)


def test_filtered_search_fills_top_k_when_one_percent_is_visible(tmp_path: Path):
    rows = [Row(f"py:m.f{i}|FUNCTION", f"def f{i}(): return compute_total({i})",
                acl_tags=("rare",) if i % 100 == 7 else ("public",)) for i in range(3000)]
    location = write_synthetic_index(tmp_path / "data", rows)
    client = milvus_store.connect(str(tmp_path / "m.db"))
    milvus_store.publish(client, location)
    backend = MilvusBackend(make_settings(tmp_path / "data"), client=client)
    for mode in ("semantic", "bm25", "hybrid"):
        request = SearchRequest(mode, "compute total", 10, "synth", "main", {"acl_tags_any": ["rare"]})
        hits = backend.search(request).hits
        assert len(hits) == 10 and all(int(h.id.split(".f")[1].split("|")[0]) % 100 == 7 for h in hits), mode


# --- publishing -----------------------------------------------------------------------------

def test_publish_switches_atomically_and_a_killed_publish_leaves_the_old_one_live(tmp_path: Path):
    data = tmp_path / "data"
    client = milvus_store.connect(str(tmp_path / "m.db"))
    first = milvus_store.publish(client, write_synthetic_index(data, [Row("py:a.old|FUNCTION", "ledger old")]))
    backend = MilvusBackend(make_settings(data), client=client)
    ledger = SearchRequest("bm25", "ledger", 5, "synth", "main")
    assert [h.id for h in backend.search(ledger).hits] == ["py:a.old|FUNCTION"]

    # A publish killed before its alias switch: the whole new generation exists, nothing points at it.
    location = write_synthetic_index(data, [Row("py:a.new|FUNCTION", "ledger new")])
    orphan = milvus_store.write_generation(client, store.load_index(location))
    assert [h.id for h in backend.search(ledger).hits] == ["py:a.old|FUNCTION"]
    assert backend.generation("synth", "main", None) == first.collection

    second = milvus_store.publish(client, location)
    assert [h.id for h in backend.search(ledger).hits] == ["py:a.new|FUNCTION"]  # followed, no restart
    assert milvus_store.files_name(orphan) in second.dropped and orphan in second.dropped
    assert first.collection in client.list_collections()  # the previous one stays for readers mid-search
    third = milvus_store.publish(client, location)
    assert first.collection in third.dropped and second.collection in client.list_collections()


def test_unpublished_index_and_missing_uri_are_clear_errors(tmp_path: Path):
    backend = MilvusBackend(make_settings(tmp_path), client=milvus_store.connect(str(tmp_path / "m.db")))
    with pytest.raises(IndexLoadError, match="no such index in Milvus") as error:
        backend.search(SearchRequest("bm25", "x", 3, "nowhere", "main"))
    assert "ragstream publish --repository nowhere --name main" in str(error.value)
    with pytest.raises(RetrievalError, match="no Milvus server or file is configured"):
        milvus_store.connect("")
    with pytest.raises(RetrievalError, match="must end in .db") as error:
        milvus_store.connect(str(tmp_path / "milvus.sqlite"))
    assert error.value.where == "milvus.uri"


# --- a Milvus server shared by machines -----------------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def milvus_server(tmp_path_factory):
    """Milvus Lite as a local gRPC server process: what a Standalone server is to a client."""
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "milvus_lite", "server", "--data-dir",
                                str(tmp_path_factory.mktemp("server")), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.slow
def test_cli_publish_then_search_expand_ask_from_another_machine(acl_backend, milvus_server, tmp_path: Path, capsys):
    """Published from this machine's index; searched by a process that has only the uri."""
    source = tmp_path / "source.yaml"
    source.write_text(f"index:\n  data_dir: {Path(acl_backend.settings.index.data_dir)}\n"
                      f"milvus:\n  uri: {milvus_server}\n")
    assert main(["--config", str(source), "publish"]) == 0
    assert "published" in capsys.readouterr().err
    elsewhere = tmp_path / "elsewhere.yaml"  # an empty data folder: nothing local to read
    elsewhere.write_text(f"index:\n  data_dir: {tmp_path / 'empty'}\nretrieval:\n  backend: milvus\n"
                         f"milvus:\n  uri: {milvus_server}\n")
    scope = ["--repository", "sample_repo", "--index", "default"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    searched = subprocess.run([sys.executable, "-m", "ragstream", "--config", str(elsewhere), "search",
                               "record payment", "--mode", "hybrid", "--top-k", "3", *scope,
                               "--filter", "acl_tags_any=public"], capture_output=True, text=True, env=env,
                              timeout=300)
    assert searched.returncode == 0, searched.stderr
    assert "hybrid search" in searched.stdout and "semantic #" in searched.stdout
    assert "sql:" not in searched.stdout and "db/" not in searched.stdout
    assert main(["--config", str(elsewhere), "expand", "customer invoices balance", "--top-k", "2", *scope]) == 0
    assert re.search(r"step expand \(expand\): (?:ok|limit_reached)", capsys.readouterr().out)
    assert main(["--config", str(elsewhere), "ask", "how is a payment recorded", *scope]) == 0
    assert "Not written by a model" in capsys.readouterr().out
    assert not (tmp_path / "empty" / "indexes").exists()


def test_cli_source_picks_the_data_folder_or_the_published_index(acl_backend, milvus_server, tmp_path: Path, capsys):
    """`--source local` reads the data folder even where Milvus is the configured backend (here an
    address nothing listens on: it is never called); `--source shared` the published index; a
    shared index asked for with no Milvus configured is an error naming the setting."""
    data = Path(acl_backend.settings.index.data_dir)
    source = tmp_path / "source.yaml"
    source.write_text(f"index:\n  data_dir: {data}\nmilvus:\n  uri: {milvus_server}\n")
    assert main(["--config", str(source), "publish"]) == 0
    capsys.readouterr()
    query = ["search", "record payment", "--mode", "bm25", "--top-k", "3", "--repository", "sample_repo",
             "--index", "default", "--json"]
    nowhere = tmp_path / "nowhere.yaml"
    nowhere.write_text(f"index:\n  data_dir: {data}\nretrieval:\n  backend: milvus\nmilvus:\n  uri: http://127.0.0.1:9\n")
    assert main(["--config", str(nowhere), *query, "--source", "local"]) == 0
    local = [hit["id"] for hit in json.loads(capsys.readouterr().out)["hits"]]
    shared_config = tmp_path / "shared.yaml"
    shared_config.write_text(f"index:\n  data_dir: {tmp_path / 'empty'}\nretrieval:\n  backend: milvus\n"
                             f"milvus:\n  uri: {milvus_server}\n")
    assert main(["--config", str(shared_config), *query, "--source", "shared"]) == 0
    shared = [hit["id"] for hit in json.loads(capsys.readouterr().out)["hits"]]
    assert local and local[0] == shared[0]
    assert main(["--config", str(source), *query, "--source", "shared"]) == 2
    assert "no shared index is configured" in capsys.readouterr().err
    # a conversation asked from the CLI on the configured (shared) index is the workbench's too
    assert main(["--config", str(shared_config), "ask", "how is a payment recorded", "--repository", "sample_repo",
                 "--index", "default", "--session", "new"]) == 0
    capsys.readouterr()
    settings = load_settings(str(shared_config))
    _, _, branch = default_scope(settings, "sample_repo", "default", None, "shared")
    with Controller(settings) as controller:
        held = controller.conversations(Scope("sample_repo", branch, "default", index_source="shared"))
        assert [s for s in held if s.scope is not None]


@pytest.mark.slow
def test_cli_index_on_the_milvus_backend_publishes_what_it_built(sample_repo, tmp_path: Path, capsys):
    config = tmp_path / "milvus.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\nretrieval:\n  backend: milvus\n"
                      f"milvus:\n  uri: {tmp_path / 'm.db'}\n")
    assert main(["--config", str(config), "index", str(sample_repo), "--name", "default"]) == 0
    assert "published" in capsys.readouterr().err
    assert main(["--config", str(config), "search", "record payment", "--repository", "sample_repo",
                 "--index", "default", "--mode", "bm25", "--top-k", "3"]) == 0
    assert "bm25 #1" in capsys.readouterr().out
