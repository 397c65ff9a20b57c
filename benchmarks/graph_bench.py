"""Graph expansion + node-text fetch latency on a large synthetic graph.

    .venv/bin/python benchmarks/graph_bench.py [--nodes 100000] [--degree 3] [--json OUT]

Writes a synthetic index whose every node has a chunk (random CALLS edges, average out-degree
`--degree`), then times, per query of 5 random seeds: the backend's (filtered) graph view,
expand_dependency_tree (depth 2, at most
40 nodes, CALLS both ways; personalised PageRank when the cut applies) and fetch_node_texts
(balanced, 5,600-token budget) through the backend. Also reports the same with a filter that
hides 10% of nodes.
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
from ragstream.graph.expansion import ExpansionLimits, expand_dependency_tree
from ragstream.graph.node_texts import Budget, fetch_node_texts
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.token_count import token_counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--degree", type=int, default=3)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--json")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = [Row(f"py:pkg.m{i // 40}.f{i}|FUNCTION", f"def f{i}(x):\n    return g{i % 97}(x) + {i}",
                path=f"pkg/m{i // 40}.py", acl_tags=("hidden",) if i % 10 == 9 else ("public",))
            for i in range(args.nodes)]
    sources = rng.integers(0, args.nodes, size=args.nodes * args.degree)
    targets = rng.integers(0, args.nodes, size=args.nodes * args.degree)
    edges = [(rows[s].id, rows[t].id, "CALLS") for s, t in zip(sources, targets) if s != t]
    figures: dict = {"nodes": args.nodes, "edges": len(edges)}
    with tempfile.TemporaryDirectory(prefix="ragstream-graph-") as scratch:
        started = time.perf_counter()
        write_synthetic_index(Path(scratch), rows, edges=edges)
        figures["write_index_s"] = round(time.perf_counter() - started, 1)
        backend = LocalBackend(load_settings(overrides={"index": {"data_dir": scratch}}))
        started = time.perf_counter()
        backend.graph("synth", "main", None)
        figures["load_graph_s"] = round(time.perf_counter() - started, 1)
        limits = ExpansionLimits(2, 40, {"CALLS": "both"})
        counter = token_counter()
        for label, filters in (("unfiltered", RetrievalFilters()),
                               ("filtered", RetrievalFilters.parse({"acl_tags_any": ["public"]}))):
            scope = {"repository": "synth", "branch": "main", "retrieval_filters": filters}
            times, sizes = [], []
            for _ in range(args.queries):
                seeds = [rows[i].id for i in rng.integers(0, args.nodes, size=5)]
                started = time.perf_counter()
                graph = backend.graph("synth", "main", filters)  # a filtered view, as the actions get
                result = expand_dependency_tree(graph, seeds, filters, limits)
                fetch_node_texts(result.nodes, result.seeds, result.depth, result.parent, backend, scope,
                                 Budget(5600, "tokens"), counter)
                times.append((time.perf_counter() - started) * 1000)
                sizes.append(len(result.nodes))
            figures[f"{label}_ms_p50"] = round(statistics.median(times), 1)
            figures[f"{label}_ms_p95"] = round(float(np.percentile(times, 95)), 1)
            figures[f"{label}_nodes_kept_mean"] = round(statistics.mean(sizes), 1)
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    for key, value in figures.items():
        print(f"{key:<28} {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
