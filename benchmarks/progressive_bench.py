"""Progressive build benchmark: when is an index keyword-ready, when has every chunk a vector,
when is it complete, and how fast do searches answer while the fill runs.

    .venv/bin/python benchmarks/progressive_bench.py PATH [PATH ...] [--textbook] [--json OUT]
    .venv/bin/python benchmarks/progressive_bench.py PATH [PATH ...] --background-fill SECONDS

Each repository's indexable files are copied to a scratch folder and built into a fresh data
folder (cold embedding cache) in this process, the model loaded before the clock starts (as in
a workbench or a second build). While the fill runs, the main thread runs a hybrid and a bm25
search about once a second on the live index; the same searches run again once it is complete
(idle). `--textbook` also times the textbook pipeline over the same files: one
sentence-transformers vector per function, method or class (its source, no header, no windows)
into a flat FAISS index, fp32 as the library loads it. Peak RSS is the process's (it grows
monotonically: read it per repository in the order given). `--background-fill` measures only
the searches, with the fill where the product runs it: a child process at background priority.
"""
from __future__ import annotations

import argparse
import ast
import json
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from benchmarks.index_bench import copy_indexable
from ragstream.config import load_settings
from ragstream.index.build import Silent, build_index
from ragstream.index.embeddings import Embedder, load_model
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.types import SearchRequest

QUERIES = ("how is a call's inferred return type cached", "parse a module from source text",
           "where are decorators resolved", "what raises an error when a name is not found")


class Clock(Silent):
    """The build's Progress: remembers when each stage was first published."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.stages: dict[str, float] = {}
        self.vectors: dict = {}

    def published(self, vectors: dict) -> None:
        self.vectors = vectors
        self.stages.setdefault(vectors["stage"], round(time.perf_counter() - self.started, 2))


def bench(repo: Path, data_dir: Path) -> dict:
    settings = load_settings(overrides={"index": {"data_dir": str(data_dir)}})
    embedder = Embedder(settings.embedding.dtype, settings.embedding.batch_size, settings.embedding.onnx_below)
    load_model(settings.embedding.dtype)
    clock, outcome = Clock(), {}
    thread = threading.Thread(target=lambda: outcome.update(report=build_index(repo, settings, progress=clock,
                                                                                embedder=embedder)))
    thread.start()
    backend = LocalBackend(settings, embedder)
    during: list[float] = []
    while thread.is_alive():
        if clock.vectors:
            during += _search_times(backend, repo.name, settings, 1)
        time.sleep(1.0)
    thread.join()
    report = outcome["report"]
    idle = _search_times(backend, repo.name, settings, 3)
    lines = sum((repo / path).read_text(errors="replace").count("\n")
                for path in (p.relative_to(repo) for p in repo.rglob("*") if p.is_file()))
    embed_s = report.seconds.get("embed", 0.0)
    return {"repository": repo.name, "lines": lines, "files": report.files, "chunks": report.chunks,
            "texts": report.vectors["texts"], "keyword_ready_s": clock.stages.get("keyword"),
            "every_chunk_has_a_vector_s": clock.stages.get("heads", clock.stages.get("complete")),
            "complete_s": clock.stages.get("complete"), "phase_s": report.seconds,
            "texts_per_s": round(report.embedded_new / embed_s, 1) if embed_s else None,
            "search_ms_during_fill": _median_ms(during), "search_ms_idle": _median_ms(idle),
            "hybrid_ms_during_fill": _median_ms(during, "hybrid"), "hybrid_ms_idle": _median_ms(idle, "hybrid"),
            "searches_during_fill": len(during),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def background_fill(repo: Path, data_dir: Path, seconds: float) -> dict:
    """Searches while the fill runs as the product runs it: the keyword-ready build in this
    process, then `ragstream index --fill` in a child at the background priority (what `ragstream
    index` and a workbench build start), searched here about once a second for `seconds`; the
    same searches once the child is stopped (idle, on the same partly filled index)."""
    import subprocess
    import sys

    import yaml

    settings = load_settings(overrides={"index": {"data_dir": str(data_dir)}})
    embedder = Embedder(settings.embedding.dtype, settings.embedding.batch_size, settings.embedding.onnx_below)
    build_index(repo, settings, embedder=embedder, fill=False)
    config = data_dir / "settings.yaml"
    config.write_text(yaml.safe_dump({"index": {"data_dir": str(data_dir)}}), encoding="utf-8")
    child = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(config), "index", str(repo), "--fill"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    backend, during = LocalBackend(settings, embedder), []
    started = time.perf_counter()
    while child.poll() is None and time.perf_counter() - started < seconds:
        if _embedded(backend, repo.name):  # a hybrid search embeds the question only once vectors exist
            during += _search_times(backend, repo.name, settings, 1)
        time.sleep(1.0)
    child.terminate()
    child.wait()
    idle = _search_times(backend, repo.name, settings, 3)
    return {"repository": repo.name, "fill_seconds": round(time.perf_counter() - started, 1),
            "embedded_when_stopped": _embedded(backend, repo.name),
            "search_ms_during_background_fill": _median_ms(during), "search_ms_idle": _median_ms(idle),
            "hybrid_ms_during_background_fill": _median_ms(during, "hybrid"),
            "hybrid_ms_idle": _median_ms(idle, "hybrid"), "searches_during_fill": len(during)}


def _embedded(backend: LocalBackend, repository: str) -> int:
    found = backend.search(SearchRequest("hybrid", QUERIES[0], 10, repository, "default"))
    return found.debug.get("semantic_coverage", {}).get("embedded") or 0


def _search_times(backend: LocalBackend, repository: str, settings, rounds: int) -> list[tuple[str, float]]:
    times = []
    for _ in range(rounds):
        for query in QUERIES:
            for mode in ("hybrid", "bm25"):
                started = time.perf_counter()
                backend.search(SearchRequest(mode, query, 10, repository, "default"))
                times.append((mode, time.perf_counter() - started))
    return times


def _median_ms(times: list[tuple[str, float]], mode: str | None = None) -> float | None:
    chosen = [seconds for searched, seconds in times if mode in (None, searched)]
    return round(statistics.median(chosen) * 1000, 1) if chosen else None


def textbook(repo: Path) -> dict:
    """One vector per Python function, method or class (its source) with sentence-transformers
    as it loads (fp32, batch 32), into FAISS IndexFlatIP: the pipeline a tutorial builds."""
    import faiss
    from sentence_transformers import SentenceTransformer

    from ragstream import offline

    model = SentenceTransformer(offline.embedding_model_path(), device="cpu")
    started = time.perf_counter()
    texts = []
    for path in sorted(repo.rglob("*.py")):
        source = path.read_text(errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        texts += [ast.get_source_segment(source, node) or "" for node in ast.walk(tree)
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    parsed = time.perf_counter() - started
    vectors = model.encode(texts, batch_size=32, convert_to_numpy=True, normalize_embeddings=True)
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    total = time.perf_counter() - started
    return {"repository": repo.name, "textbook_texts": len(texts), "textbook_parse_s": round(parsed, 2),
            "textbook_total_s": round(total, 2), "textbook_texts_per_s": round(len(texts) / (total - parsed), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--textbook", action="store_true",
                        help="also time the textbook one-vector-per-function pipeline")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--background-fill", type=float, metavar="SECONDS",
                        help="instead: search for SECONDS while a background `ragstream index --fill` runs")
    args = parser.parse_args()
    figures = []
    for path in args.paths:
        with tempfile.TemporaryDirectory(prefix="ragstream-progressive-") as scratch:
            repo = copy_indexable(Path(path).resolve(), Path(scratch))
            if args.background_fill:
                row = background_fill(repo, Path(scratch) / "data", args.background_fill)
            else:
                row = bench(repo, Path(scratch) / "data")
            if args.textbook:
                row.update(textbook(repo))
            print(json.dumps(row), flush=True)
            figures.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
