"""Search latency benchmark: p50/p95 per mode, with and without filters and rerank.

    .venv/bin/python benchmarks/search_bench.py --synthetic 100000 [--json OUT]
    .venv/bin/python benchmarks/search_bench.py --data-dir DATA --repository R --index I [--json OUT]

`--synthetic N` writes an index of N chunks (random unit vectors, code-like texts drawn from a
Zipf vocabulary, 10% of chunks tagged `restricted`) to a scratch folder and queries it with
8-word queries from the same vocabulary; a real index is queried with real issue texts from
../shared/eval (first 30 words). Every figure includes embedding the query (ONNX, one text), which is
also reported on its own; the cross-encoder is left out (no weights on this machine).
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from ragstream.config import load_settings
from ragstream.eval.synthetic_index import Row, write_synthetic_index
from ragstream.index import store
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.types import SearchRequest

EVAL_DIR = Path(__file__).resolve().parents[2] / "shared" / "eval"
CASES = [  # (label, mode, rerank, filtered)
    ("semantic", "semantic", "none", False), ("semantic+filter", "semantic", "none", True),
    ("bm25", "bm25", "none", False), ("bm25+filter", "bm25", "none", True),
    ("hybrid", "hybrid", "none", False), ("hybrid+filter", "hybrid", "none", True),
    ("semantic+keyword_rerank", "semantic", "keyword_rerank", False),
    ("semantic+keyword_rerank+filter", "semantic", "keyword_rerank", True),
]


def main() -> None:
    parser = source_arguments(__doc__, queries=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragstream-search-") as scratch:
        data_dir, repository, index, filters, texts = source_index(args, Path(scratch))
        figures = bench(data_dir, repository, index, filters, texts, args.top_k)
    figures["source"] = f"synthetic {args.synthetic}" if args.synthetic else f"{repository}/{index}"
    for key, value in figures.items():
        print(f"{key:<40} {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


def source_arguments(doc: str, queries: int) -> argparse.ArgumentParser:
    """The options every search benchmark shares: a synthetic or a real index, queries, top-k, output."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--synthetic", type=int, metavar="N")
    parser.add_argument("--data-dir")
    parser.add_argument("--repository")
    parser.add_argument("--index")
    parser.add_argument("--queries", type=int, default=queries)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--json")
    return parser


def source_index(args: argparse.Namespace, scratch: Path) -> tuple[Path, str, str, dict, list[str]]:
    """(data folder, repository, index, filters, queries): a synthetic index written to `scratch`,
    or the real one named."""
    if args.synthetic:
        started = time.perf_counter()
        rows, texts = synthetic_rows(args.synthetic, args.queries)
        write_synthetic_index(scratch, rows)
        print(f"wrote a {args.synthetic}-chunk index in {time.perf_counter() - started:.1f}s")
        return scratch, "synth", "main", {"acl_tags_any": ["restricted"]}, texts
    return (Path(args.data_dir), args.repository, args.index, {"kinds": ["FUNCTION", "METHOD"]},
            eval_queries(args.queries))


def bench(data_dir: Path, repository: str, index: str, filters: dict, texts: list[str], top_k: int) -> dict:
    settings = load_settings(overrides={"index": {"data_dir": str(data_dir)}})
    backend = LocalBackend(settings)
    branch = _branch(data_dir, repository, index)
    started = time.perf_counter()
    backend.search(SearchRequest("bm25", "load", 1, repository, branch, None, index))
    figures: dict = {"load_index_s": round(time.perf_counter() - started, 2)}
    backend.embedder.encode(["warm up"])
    embed = [_timed(lambda q=q: backend.embedder.encode([q])) for q in texts]
    figures["query_embedding_ms_p50"] = round(statistics.median(embed), 1)
    for label, mode, rerank, filtered in CASES:
        def run(q, mode=mode, rerank=rerank, filtered=filtered):
            return backend.search(SearchRequest(mode, q, top_k, repository, branch,
                                                filters if filtered else None, index, rerank))
        run(texts[0])  # first call builds the filter mask; steady state is what we report
        times = [_timed(lambda q=q: run(q)) for q in texts]
        figures[f"{label}_ms_p50"] = round(statistics.median(times), 1)
        figures[f"{label}_ms_p95"] = round(float(np.percentile(times, 95)), 1)
    figures["visible_rows_filtered"] = run(texts[0], filtered=True).debug["visible_rows"]
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return figures


def synthetic_rows(n: int, n_queries: int) -> tuple[list[Row], list[str]]:
    """Code-like texts and queries: identifiers from a Zipf-distributed vocabulary, as real
    code has, so BM25 has real posting lists to score."""
    rng = np.random.default_rng(0)
    vocabulary = [f"{a}_{b}" for a in ("get", "set", "load", "save", "parse", "build", "find", "make")
                  for b in ("invoice", "payment", "customer", "order", "token", "session", "config",
                            "request", "response", "fixture", "plugin", "node", "table", "index")]
    vocabulary += [f"word{i}" for i in range(5000)]
    ranks = np.minimum(rng.zipf(1.3, size=(n + n_queries, 40)), len(vocabulary)) - 1
    rows = [Row(f"py:pkg.mod{i // 50}.f{i}|FUNCTION", " ".join(vocabulary[r] for r in ranks[i]),
                path=f"pkg/mod{i // 50}.py", acl_tags=("restricted",) if i % 10 == 3 else ("public",))
            for i in range(n)]
    queries = [" ".join(vocabulary[r] for r in ranks[n + q][:8]) for q in range(n_queries)]
    return rows, queries


def eval_queries(n: int) -> list[str]:
    texts = []
    for name in ("swebench_lite_retrieval.dev.jsonl", "commit_localization.dev.jsonl"):
        path = EVAL_DIR / name
        if path.exists():
            lines = path.read_text(encoding="utf-8").splitlines()
            texts += [" ".join(json.loads(line)["query"].split()[:30]) for line in lines]
    texts = texts or [f"find_payment for invoice {i} get_customer" for i in range(n)]
    return (texts * (n // len(texts) + 1))[:n]


def _branch(data_dir: Path, repository: str, index: str) -> str:
    return store.load_index(store.IndexLocation(data_dir.resolve(), repository, index)).manifest["branch"]


def _timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


if __name__ == "__main__":
    main()
