"""Local backend against Milvus (Milvus Lite by default) on the same index: publish time, p50/p95
per mode with and without filters, memory, and recall of Milvus' top-k against the local top-k.

    .venv/bin/python benchmarks/milvus_bench.py --synthetic 10000 [--uri URI] [--json OUT]
    .venv/bin/python benchmarks/milvus_bench.py --data-dir DATA --repository R --index I

The synthetic index and the queries are search_bench.py's. `--uri` defaults to a Milvus Lite file
in a scratch folder (in-process gRPC server); pass http://host:19530 for a Standalone server.
"""
from __future__ import annotations

import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from ragstream.config import load_settings
from ragstream.index import store
from ragstream.retrieval import milvus_store
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.milvus_backend import MilvusBackend
from ragstream.retrieval.types import SearchRequest
from search_bench import _branch, source_arguments, source_index

CASES = [(label, mode, filtered) for mode in ("semantic", "bm25", "hybrid")
         for label, filtered in ((mode, False), (f"{mode}+filter", True))]


def main() -> None:
    parser = source_arguments(__doc__, queries=40)
    parser.add_argument("--uri", help="default: a Milvus Lite file in a scratch folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragstream-milvus-") as scratch:
        data_dir, repository, index, filters, texts = source_index(args, Path(scratch) / "data")
        uri = args.uri or str(Path(scratch) / "bench.db")
        figures = bench(data_dir, repository, index, uri, filters, texts, args.top_k)
    figures["source"] = f"synthetic {args.synthetic}" if args.synthetic else f"{repository}/{index}"
    for key, value in figures.items():
        print(f"{key:<36} {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


def bench(data_dir: Path, repository: str, index: str, uri: str, filters: dict, texts: list[str],
          top_k: int) -> dict:
    settings = load_settings(overrides={"index": {"data_dir": str(data_dir)}, "milvus": {"uri": uri}})
    branch = _branch(data_dir, repository, index)
    figures: dict = {}
    local = LocalBackend(settings)
    started = time.perf_counter()
    local.search(SearchRequest("bm25", "load", 1, repository, branch, None, index))
    figures["local_load_s"] = round(time.perf_counter() - started, 2)
    figures["rss_after_local_mb"] = _rss_mb()
    client = milvus_store.connect(uri)
    report = milvus_store.publish(client, store.IndexLocation(data_dir.resolve(), repository, index))
    figures["milvus_publish_s"] = round(report.seconds, 1)
    milvus = MilvusBackend(settings, local.embedder, client=client)
    started = time.perf_counter()
    milvus.search(SearchRequest("bm25", "load", 1, repository, branch, None, index))
    figures["milvus_load_s"] = round(time.perf_counter() - started, 2)
    figures["rss_after_milvus_mb"] = _rss_mb()
    local.embedder.encode(["warm up"])
    for label, mode, filtered in CASES:
        requests = [SearchRequest(mode, q, top_k, repository, branch, filters if filtered else None, index)
                    for q in texts]
        found = {}
        for name, backend in (("local", local), ("milvus", milvus)):
            backend.search(requests[0])
            timed = [_timed_search(backend, r) for r in requests]
            times = [ms for ms, _ in timed]
            found[name] = [ids for _, ids in timed]
            figures[f"{label}_{name}_ms"] = f"{statistics.median(times):.1f} / {np.percentile(times, 95):.1f}"
        overlap = [len(set(m) & set(lo)) / max(1, len(lo)) for m, lo in zip(found["milvus"], found["local"])]
        figures[f"{label}_recall_vs_local"] = round(statistics.mean(overlap), 4)
    return figures


def _timed_search(backend, request: SearchRequest) -> tuple[float, list[str]]:
    started = time.perf_counter()
    hits = backend.search(request).hits
    return (time.perf_counter() - started) * 1000, [h.id for h in hits]


def _rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


if __name__ == "__main__":
    main()
