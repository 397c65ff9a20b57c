"""`ragstream mcp` latency: how soon a started server serves, and tool calls on a warm server.

    .venv/bin/python benchmarks/mcp_latency.py --synthetic 100000 [--calls 50] [--json OUT]
    .venv/bin/python benchmarks/mcp_latency.py --config SETTINGS.yaml [--calls 50] [--json OUT]

Every figure is measured from the client's side, the official SDK's client driving the server
as a subprocess over stdio (the transport editors use): JSON-RPC, argument validation, the
controller, the reply cut to its token budget. Start: from spawning `ragstream mcp` to the
answer of its first `tools/list` (the median of three starts). Warm: after one call of each
tool has loaded the index, the p50 and p95 of `--calls` calls (a search's also as the backend
timed it, `_backend`: the rest is the protocol and the reply's shaping).

`--synthetic N` writes an index of N chunks (`search_bench.synthetic_rows`: code-like texts from
a Zipf vocabulary, random unit vectors) whose functions each call three others, so `relations`
has callers and callees to list; `--config` benchmarks the one index of a real data folder,
searching with `--queries` (default: questions about the sample repository's billing code) and
asking for the relations of the nodes its searches find.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import numpy as np
from mcp import Client, StdioServerParameters

from ragstream.eval.synthetic_index import write_synthetic_index
from search_bench import synthetic_rows

STARTS = 3
CALLEES = 3  # calls per synthetic function
DEFAULT_QUERIES = ["record a payment on an invoice", "which procedures write the Invoices table",
                   "customer balance", "create an invoice from the controller", "invoice lines total",
                   "payment repository save", "billing context entities", "legacy print statement"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--synthetic", type=int, metavar="N")
    source.add_argument("--config", help="a settings file whose data folder holds the index to serve")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragstream-mcp-bench-") as scratch:
        if args.synthetic:
            config, queries = synthetic_source(args.synthetic, max(args.calls, 8), Path(scratch))
        else:
            config, queries = Path(args.config), DEFAULT_QUERIES
        figures = {"source": f"synthetic {args.synthetic}" if args.synthetic else str(config),
                   **anyio.run(measure, config, queries, args.calls)}
    for key, value in figures.items():
        print(f"{key:<32} {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


def synthetic_source(n: int, n_queries: int, scratch: Path) -> tuple[Path, list[str]]:
    started = time.perf_counter()
    rows, queries = synthetic_rows(n, n_queries)
    rng = np.random.default_rng(1)
    edges = [(row.id, rows[int(target)].id, "CALLS") for i, row in enumerate(rows)
             for target in rng.choice(n, size=CALLEES, replace=False) if int(target) != i]
    write_synthetic_index(scratch / "data", rows, edges=edges)
    config = scratch / "settings.json"  # JSON is YAML
    config.write_text(json.dumps({"index": {"data_dir": str(scratch / "data")}}))
    print(f"wrote a {n}-chunk index with {len(edges)} calls in {time.perf_counter() - started:.1f} s", flush=True)
    return config, queries


def server(config: Path) -> Client:
    command = [sys.executable, "-m", "ragstream", "--config", str(config), "mcp"]
    return Client(StdioServerParameters(command=command[0], args=command[1:], env=os.environ.copy()),
                  read_timeout_seconds=600)


async def measure(config: Path, queries: list[str], calls: int) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    starts = []
    for _ in range(STARTS):
        began = time.perf_counter()
        async with server(config) as client:
            await client.list_tools()
            starts.append(time.perf_counter() - began)
    figures["start_to_first_reply_s"] = round(statistics.median(starts), 2)
    async with server(config) as client:
        began = time.perf_counter()
        first = await call(client, "search", query=queries[0], mode="hybrid", top_k=10)
        figures["first_search_s (loads the index)"] = round(time.perf_counter() - began, 2)
        subjects = [hit["id"] for q in queries[:8]
                    for hit in (await call(client, "search", query=q, mode="bm25", top_k=3))["items"]]
        subjects = list(dict.fromkeys(subjects or [h["id"] for h in first["items"]]))
        await call(client, "relations", subject=subjects[0], relation="callers")  # the graph loaded
        for mode in ("bm25", "semantic", "hybrid"):
            runs = [await timed(client, "search", query=queries[i % len(queries)], mode=mode, top_k=10)
                    for i in range(calls)]
            figures.update(percentiles(f"search_{mode}", [ms for ms, _ in runs]))
            # the backend's own time (the search's debug record): the rest is protocol and shaping
            figures.update(percentiles(f"search_{mode}_backend", [r["debug"]["seconds"] * 1000 for _, r in runs]))
        for relation in ("callers", "callees", "impact"):
            runs = [await timed(client, "relations", subject=subjects[i % len(subjects)], relation=relation)
                    for i in range(calls)]
            figures.update(percentiles(f"relations_{relation}", [ms for ms, _ in runs]))
    return figures


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    if result.is_error or result.structured_content is None:
        raise SystemExit(f"{tool} {arguments}: {result.content}")
    return result.structured_content


async def timed(client: Client, tool: str, **arguments: Any) -> tuple[float, dict[str, Any]]:
    """(milliseconds, the reply) of one call."""
    began = time.perf_counter()
    reply = await call(client, tool, **arguments)
    return (time.perf_counter() - began) * 1000, reply


def percentiles(label: str, times: list[float]) -> dict[str, float]:
    return {f"{label}_ms_p50": round(statistics.median(times), 1),
            f"{label}_ms_p95": round(float(np.percentile(times, 95)), 1)}


if __name__ == "__main__":
    main()
