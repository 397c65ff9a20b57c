"""A build without a previous index publishes its keyword index before the graph is linked
(`index/build.py`, `_Early`): chunks and BM25 from the unlinked graph (`graph_build.unlinked_graph`),
the generation marked as linking; then the linked generation, whose BM25 files are the first
one's. On a small real tree (ragstream's own `index` package, copied): the first generation
answers every keyword query as the linked one does, says the graph is linking wherever the graph
is read, holds no call yet; a build killed there leaves it to the next build to link. That the
linked generation is what a build without the keyword phase makes: `tests/test_replay.py` (each
commit's incremental build, which has a previous index and no such phase, against a full build)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ragstream import catalog
from ragstream.controller import resolve_scope, search
from ragstream.index import store
from ragstream.index.build import Silent, build_index, locate, repository_info
from ragstream.index.graph_build import build_graph, unlinked_graph
from ragstream.index.graph_mark import GRAPH_UPDATE
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.types import SearchRequest
from tests.conftest import make_settings

PACKAGE = Path(__file__).resolve().parent.parent / "ragstream" / "index"
QUERIES = ("build_graph", "publish a generation atomically", "BM25 keyword tokens", "redacted texts walk",
           "ParseRecord", "chunk header relation rows", "sweep_generations keep", "python call memo")
KEYWORD = "graph: linking, the keyword index is ready"


class Interrupted(Exception):
    """Stands for the process being killed once the first generation is live."""


class AtFirstPublication(Silent):
    """Reads the live index when the build first publishes: the keyword hits of `QUERIES`, the
    search's warnings, the graph's mark and edges, the BM25 files' inodes; with `stop`, ends the
    build there, as a kill at that moment would."""

    def __init__(self, settings, repo: Path, stop: bool = False):
        self.settings, self.repo, self.stop = settings, repo, stop
        self.seen: dict | None = None

    def published(self, vectors: dict) -> None:
        if self.seen is not None:
            return
        stored = store.load_index(locate(repository_info(self.repo), self.settings))
        _, response, _ = search(self.settings, resolve_scope(self.settings), "bm25", "build_graph", 5)
        graph = stored.graph()
        self.seen = {"manifest": stored.manifest, "graph_attrs": dict(graph.graph), "hits": keyword_hits(self.settings, self.repo),
                     "warnings": response.debug.get("warnings", []),
                     "edge_types": {key for _, _, key in graph.edges(keys=True)},
                     "bm25": inodes(stored.bm25_dir), "chunks": len(stored.chunks()),
                     "history": stored.change_history()}
        if self.stop:
            raise Interrupted


def keyword_hits(settings, repo: Path) -> list:
    """Each query's BM25 hits: ids, scores and ranks."""
    backend = LocalBackend(settings)
    return [[(h.id, h.score, h.rank) for h in backend.search(SearchRequest("bm25", q, 10, repo.name, "default")).hits]
            for q in QUERIES]


def inodes(folder: Path) -> dict[str, int]:
    return {path.name: path.stat().st_ino for path in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("tree") / "repo"
    shutil.copytree(PACKAGE, repo / "index", ignore=shutil.ignore_patterns("__pycache__"))
    return repo


def test_a_cold_build_is_searchable_by_keyword_before_its_graph_is_linked(tree: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    first = AtFirstPublication(settings, tree)
    report = build_index(tree, settings, fill=False, progress=first)
    seen = first.seen
    assert seen is not None and report.askable_seconds is not None and report.graph_deferred == []
    # the first generation: marked as linking, in its manifest and in its graph, and every search says so
    assert seen["manifest"][GRAPH_UPDATE] == {"files": [], "unlinked": True} == seen["graph_attrs"][GRAPH_UPDATE]
    assert any(w.startswith(KEYWORD) for w in seen["warnings"])
    assert seen["edge_types"] == {"DEFINES"}  # definitions only: no call, import or inheritance linked yet
    assert seen["chunks"] == report.chunks and seen["history"] is None  # no wait for `git log`
    # then the linked generation: the same keyword answers, from the same BM25 files (hard links)
    stored = store.load_index(report.location)
    assert GRAPH_UPDATE not in stored.manifest and GRAPH_UPDATE not in stored.graph().graph
    assert {"CALLS", "INHERITS"} <= {key for _, _, key in stored.graph().edges(keys=True)}
    assert keyword_hits(settings, tree) == seen["hits"] and all(seen["hits"])
    assert inodes(stored.bm25_dir) == seen["bm25"]
    _, response, _ = search(settings, resolve_scope(settings), "bm25", "build_graph", 5)
    assert not any(w.startswith("graph:") for w in response.debug.get("warnings", []))
    # the headers gained their relation rows; the chunks are the same otherwise
    assert any("calls: " in c.metadata["header"] for c in stored.chunks())


def test_an_index_with_a_live_graph_publishes_once(tree: Path, tmp_path: Path):
    """A re-index over a previous index (updated, not replaced) publishes the linked generation
    only: a reader never trades a linked graph for an unlinked one."""
    settings = make_settings(tmp_path / "data")
    build_index(tree, settings, fill=False)
    (tree / "index" / "extra.py").write_text("def extra_helper():\n    return 1\n", encoding="utf-8")
    try:
        first = AtFirstPublication(settings, tree)
        report = build_index(tree, settings, fill=False, progress=first)
        assert report.incremental and report.askable_seconds is None
        assert first.seen is not None and GRAPH_UPDATE not in first.seen["manifest"]
    finally:
        os.remove(tree / "index" / "extra.py")


def test_a_keyword_generation_left_behind_says_so_and_is_linked_next(tree: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    with pytest.raises(Interrupted):
        build_index(tree, settings, fill=False, progress=AtFirstPublication(settings, tree, stop=True))
    location = locate(repository_info(tree), settings)
    assert store.load_index(location).manifest[GRAPH_UPDATE]["unlinked"] is True
    summary = next(s for s in catalog.list_indexes(settings) if s.index == location.active_index)
    assert (summary.graph_note(filtered=False) or "").startswith(KEYWORD)
    assert (summary.graph_note(filtered=True) or "").startswith(KEYWORD)
    assert catalog.build_wanted(settings, tree, None) is False  # built again, not from scratch: its graph is linked
    report = build_index(tree, settings, fill=False)
    assert not report.unchanged and report.incremental
    stored = store.load_index(location)
    assert GRAPH_UPDATE not in stored.manifest and "CALLS" in {key for _, _, key in stored.graph().edges(keys=True)}


def test_the_search_command_answers_from_the_keyword_generation_and_says_the_graph_is_linking(
        tree: Path, tmp_path: Path, capsys):
    import json

    from ragstream.cli import main

    settings = make_settings(tmp_path / "data")
    with pytest.raises(Interrupted):
        build_index(tree, settings, fill=False, progress=AtFirstPublication(settings, tree, stop=True))
    config = tmp_path / "settings.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n", encoding="utf-8")
    assert main(["--config", str(config), "search", "build_graph", "--mode", "bm25", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert any("build_graph" in hit["id"] for hit in result["hits"])
    assert any(w.startswith(KEYWORD) for w in result["debug"]["warnings"])
    assert main(["--config", str(config), "search", "build_graph", "--mode", "bm25"]) == 0
    assert f"warning (search): {KEYWORD}" in capsys.readouterr().err


def test_linking_adds_no_node_and_changes_none_a_chunk_is_made_from(tree: Path, tmp_path: Path):
    """Why the two generations' keyword texts agree: every node of the unlinked graph is in the
    linked one with the same data, and the nodes linking adds (external ones) have no file."""
    settings = make_settings(tmp_path / "data")
    build_index(tree, settings, fill=False)
    parsed = [record.parsed for record in store.load_index(locate(repository_info(tree), settings)).parse_records().values()]
    unlinked, (linked, _) = unlinked_graph(parsed), build_graph(parsed)
    assert all(linked.nodes[node] == data for node, data in unlinked.nodes(data=True))
    assert not any(linked.nodes[node].get("path") for node in set(linked) - set(unlinked))
    assert unlinked.graph == linked.graph
