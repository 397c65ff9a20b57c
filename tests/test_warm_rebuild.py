"""A process that re-indexes again (`index --watch`, issue 40) keeps its previous build's pieces
and reuses them: each reuse must give what making them anew gives -- BM25's score matrix (and
bm25s's own files), the embedding plan, word pieces, the parsed records' JSON, chunks -- and a
re-index in a warm process must equal a full build."""
from __future__ import annotations

import filecmp
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import bm25s
import networkx as nx
import numpy as np
import orjson

from ragstream.config import load_settings
from ragstream.index import store
from ragstream.index.build import build_index, locate, prime_warm_state, repository_info
from ragstream.index.chunk_reuse import BuiltChunks, reusable_chunks
from ragstream.index.chunks import build_chunks, keyword_text
from ragstream.index.embedding_windows import LinePieces
from ragstream.index.fill import TextPlan
from ragstream.index.graph_build import build_graph
from ragstream.index.keyword_scores import (EMPTY_TOKEN, FORGOTTEN_TOKENS, Terms, TokenNumbers, save_matrix,
                                            score_matrix)
from ragstream.index.search_artifacts import keyword_documents, write_bm25
from ragstream.index.warm_state import forget, has_warm_state, parsed_json
from ragstream.token_count import TokenCounter
from tests.conftest import make_settings

SETTINGS = load_settings()


def indexed(repo: Path, data: Path):
    settings = make_settings(data)
    report = build_index(repo, settings, fill=False)
    return settings, report, store.load_index(locate(repository_info(repo), settings))


def test_the_score_matrix_is_bm25s_own_to_the_byte(sample_repo: Path, tmp_path: Path):
    _, _, stored = indexed(sample_repo, tmp_path / "data")
    texts = [keyword_text(c) for c in stored.chunks()] + ["", "a a a b", "a a a b"]  # empty and twice the same
    documents = [tokens or [EMPTY_TOKEN] for tokens in keyword_documents(texts, None, "")]
    vocabulary = {token: i for i, token in enumerate(sorted({t for d in documents for t in d}))}
    theirs = bm25s.BM25()
    theirs.index(([[vocabulary[t] for t in d] for d in documents], vocabulary), show_progress=False)
    theirs.save(str(tmp_path / "theirs"))
    save_matrix(tmp_path / "ours", score_matrix([Terms.of(d) for d in keyword_documents(texts, None, "")]))
    names = sorted(p.name for p in (tmp_path / "theirs").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ours").iterdir())
    assert all(filecmp.cmp(tmp_path / "theirs" / n, tmp_path / "ours" / n, shallow=False) for n in names)


def test_a_keyword_ready_build_writes_bm25_without_importing_bm25s(sample_repo: Path, tmp_path: Path):
    # bm25s's import (scipy's sparse arrays) was ~0.09 CPU s of a cold build; its loader still reads the files.
    script = ("import sys\n"
              "from ragstream.config import load_settings\n"
              "from ragstream.index.build import build_index\n"
              f"settings = load_settings(overrides={{'index': {{'data_dir': {str(tmp_path / 'data')!r}}}}})\n"
              f"build_index({str(sample_repo)!r}, settings, fill=False)\n"
              "print(sorted(m for m in ('bm25s', 'scipy') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.stdout.strip().splitlines()[-1] == "[]"
    stored = store.load_index(locate(repository_info(sample_repo), make_settings(tmp_path / "data")))
    assert bm25s.BM25.load(str(stored.generation / store.BM25_DIR)).scores["num_docs"] == len(stored.chunks())


def test_kept_keyword_terms_give_the_files_made_from_scratch(tmp_path: Path):
    before = ["def alpha(): return beta()", "class Gamma: pass", "delta epsilon"]
    after = ["def alpha(): return beta_two()", "class Gamma: pass", "zeta", "delta epsilon"]
    kept: dict = {}
    write_bm25(tmp_path / "first", before, kept=kept)
    first_terms = dict(kept)
    write_bm25(tmp_path / "warm", after, kept=kept)
    write_bm25(tmp_path / "cold", after)
    for path in (tmp_path / "cold").iterdir():
        assert filecmp.cmp(path, tmp_path / "warm" / path.name, shallow=False), path.name
    assert len(kept) == 4 and sum(kept[k] is first_terms.get(k) for k in kept) == 2  # two taken as they were


def test_kept_token_numbers_give_the_matrix_made_from_scratch(sample_repo: Path, tmp_path: Path):
    _, _, stored = indexed(sample_repo, tmp_path / "data")
    chunks = [Terms.of(d) for d in keyword_documents([keyword_text(c) for c in stored.chunks()], None, "")]
    new_token, no_token = Terms.of(["zzz_only_here", "alpha"]), Terms.of([])
    builds = [chunks, chunks[:-1] + [new_token], chunks[1:], [no_token, *chunks[5:]], chunks[:3], chunks]
    kept = TokenNumbers()
    for documents in builds:  # vocabulary the same, grown, shrunk, an empty text, most documents gone
        warm, cold = score_matrix(documents, kept), score_matrix(documents)
        assert warm.vocabulary == cold.vocabulary and warm.documents == cold.documents
        for name in ("data", "indices", "indptr"):
            assert np.array_equal(getattr(warm, name), getattr(cold, name)), name
            assert getattr(warm, name).dtype == getattr(cold, name).dtype
        assert len(kept.of) == len(documents)  # only these documents' numbers are kept
    many = [Terms.of([f"t{i}"]) for i in range(FORGOTTEN_TOKENS + 10)]
    score_matrix(many, kept)
    score_matrix(chunks[:2], kept)
    assert len(kept.number) > FORGOTTEN_TOKENS
    score_matrix(chunks[:2], kept)  # the forgotten tokens' numbers are dropped
    assert len(kept.number) == len(kept.vocabulary) == len(score_matrix(chunks[:2]).vocabulary)


def test_a_kept_plan_is_the_plan_made_from_scratch(sample_repo: Path, tmp_path: Path):
    settings, _, stored = indexed(sample_repo, tmp_path / "data")
    chunks = stored.chunks()
    window = 48  # small: long chunks get windows
    kept: dict = {}
    TextPlan.of(chunks, window, kept=kept)
    changed = [chunks[0].__class__(**{**asdict(chunks[0]), "text": chunks[0].text + "\n# edited"}), *chunks[1:]]
    warm = TextPlan.of(changed, window, kept=kept)
    cold = TextPlan.of(changed, window)
    assert warm.texts == cold.texts and warm.keys == cold.keys
    assert np.array_equal(warm.rows, cold.rows) and np.array_equal(warm.heads, cold.heads)
    assert len(warm.texts) > len(chunks) and len(kept) == len(chunks)


def test_known_line_pieces_are_the_tokenizers():
    lines = ["def f(x):", "    return x + 1", "", "class K:  # ünïcode"]
    known = LinePieces(["\n".join(lines[:2])]).counted
    assert LinePieces(["\n".join(lines)], known).of(lines) == LinePieces(["\n".join(lines)]).of(lines)


def test_parsed_records_written_from_the_parsers_json_are_write_jsons(sample_repo: Path, tmp_path: Path):
    _, _, stored = indexed(sample_repo, tmp_path / "data")  # written from the JSON the parse made
    records = stored.parse_records()
    store.write_json(tmp_path / "parsed.json", records)
    expected = (tmp_path / "parsed.json").read_bytes()
    assert (stored.generation / store.PARSED).read_bytes() == expected
    some = {r.key: orjson.dumps(r.parsed) for path, r in records.items() if path.endswith(".py")}
    assert parsed_json(records, some) == expected


def graph_of(edges: list[tuple[str, str, dict]], names: dict[str, str]) -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph()
    for node, path in (("a", "x.py"), ("b", "y.py"), ("c", "z.py"), ("d", "z.py")):
        graph.add_node(node, name=names.get(node, node), path=path, parent="c" if node == "d" else None)
    for source, target, attrs in edges:
        graph.add_edge(source, target, key="CALLS", **attrs)
    return graph


def test_chunks_are_reused_only_where_nothing_they_are_made_of_changed():
    texts = {"x.py": "x", "y.py": "y", "z.py": "z"}
    limits = (100, 8, "cl100k_base")
    before = BuiltChunks(graph_of([("a", "b", {"line": 1})], {}), texts,
                         {node: [] for node in "abcd"}, limits)
    same = reusable_chunks(before, graph_of([("a", "b", {"line": 1})], {}), texts, limits)
    assert set(same) == set("abcd")
    moved = reusable_chunks(before, graph_of([("a", "b", {"line": 2})], {}), texts, limits)  # an edge's attributes
    assert set(moved) == {"c", "d"}
    renamed = reusable_chunks(before, graph_of([("a", "b", {"line": 1})], {"c": "c2"}), texts, limits)
    assert set(renamed) == {"a", "b"}  # c's data changed: its file's chunks and its child's header
    assert reusable_chunks(before, before.graph, {**texts, "y.py": "y2"}, limits).keys() == set("acd")
    assert reusable_chunks(before, before.graph, texts, (100, 9, "cl100k_base")) == {}


def _equals_a_full_build(repo: Path, settings, tmp_path: Path, files: tuple[str, ...]):
    """The index `settings` holds for `repo` equals a full build of the same tree: its chunks, its
    BM25 files and the generation's `files`, byte for byte. Returns the warm index."""
    full = make_settings(tmp_path / "full")
    build_index(repo, full, rebuild=True, fill=False)
    warm_index, full_index = (store.load_index(locate(repository_info(repo), s)) for s in (settings, full))
    assert [asdict(c) for c in warm_index.chunks()] == [asdict(c) for c in full_index.chunks()]
    for path in full_index.bm25_dir.iterdir():
        assert filecmp.cmp(path, warm_index.bm25_dir / path.name, shallow=False)
    for name in files:
        assert (warm_index.generation / name).read_bytes() == (full_index.generation / name).read_bytes()
    return warm_index


def test_a_warm_reindex_after_edits_equals_a_full_build(sample_repo: Path, tmp_path: Path):
    settings, _, _ = indexed(sample_repo, tmp_path / "data")
    util = sample_repo / "billing" / "util.py"
    util.write_text(util.read_text(encoding="utf-8") + "\n\ndef audit(message):\n    log_event(message)\n",
                    encoding="utf-8")
    (sample_repo / "billing" / "legacy.py").unlink()
    report = build_index(sample_repo, settings, fill=False)
    assert report.incremental and report.chunks_reused > 0
    warm_index = _equals_a_full_build(sample_repo, settings, tmp_path, (store.PARSED, store.CHUNKS))  # written from kept JSON, and anew
    chunks = warm_index.chunks()
    assert any("audit" in c.metadata["header"] for c in chunks if c.symbol.endswith("log_event"))


def test_build_chunks_takes_reusable_chunks_as_they_are(sample_repo: Path, tmp_path: Path):
    _, _, stored = indexed(sample_repo, tmp_path / "data")
    graph, _ = build_graph([record.parsed for record in stored.parse_records().values()])
    texts = {p: (sample_repo / p).read_text(encoding="utf-8") for p in stored.manifest["files"]}
    counter = TokenCounter()
    made = build_chunks(graph, texts, counter, SETTINGS.chunks.max_chunk_tokens, SETTINGS.chunks.header_max_names)
    kept = BuiltChunks.of(graph, texts, made, (1,))
    again = build_chunks(graph, texts, counter, SETTINGS.chunks.max_chunk_tokens, SETTINGS.chunks.header_max_names,
                         reusable_chunks(kept, graph, texts, (1,)))
    assert again == made and all(a is b for a, b in zip(again, made))


def test_a_primed_state_gives_a_full_builds_index_after_the_next_edit(sample_repo: Path, tmp_path: Path):
    """A watching process whose first build found nothing to do primes its state from the live
    index (`prime_warm_state`) without publishing; its first edit is then re-indexed warm."""
    settings, _, before = indexed(sample_repo, tmp_path / "data")
    location = locate(repository_info(sample_repo), settings)
    forget(location)  # as a new process finds it
    assert prime_warm_state(sample_repo, settings)
    assert has_warm_state(location) and store.current_generation(location) == before.generation
    assert [p for p in location.index_dir.glob("gen-*")] == [before.generation]  # nothing staged is left
    assert not prime_warm_state(sample_repo, settings)  # warm already
    service = sample_repo / "billing" / "service.py"
    service.write_text(service.read_text(encoding="utf-8") + "\n\ndef audit_total(x):\n    return x\n",
                       encoding="utf-8")
    report = build_index(sample_repo, settings, fill=False)
    assert report.incremental and report.chunks_reused > 0  # the primed build's chunks, taken as they were
    _equals_a_full_build(sample_repo, settings, tmp_path, (store.PARSED, store.CHUNKS, store.GRAPH))
