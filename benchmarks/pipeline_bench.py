"""Full-pipeline benchmark: per-stage p50/p95 of a pipeline (default: base) on a real index.

    .venv/bin/python benchmarks/pipeline_bench.py --repo PATH [--json OUT]
    .venv/bin/python benchmarks/pipeline_bench.py --data-dir DATA --repository R --index I [--json OUT]

`--repo` indexes the repository into a scratch folder first (its build time is reported, not
benchmarked); otherwise an existing index is used. Questions are real issue texts from
../shared/eval (first 30 words, as in search_bench.py). Every step runs in auto mode through
the Engine with no language model configured (the deterministic paths); the first question
warms the models and the index and is not counted.
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from ragstream.config import load_settings
from ragstream.controller import Controller, Scope
from ragstream.index import store
from ragstream.index.build import build_index
from search_bench import eval_queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", help="index this repository into a scratch folder, then run on it")
    parser.add_argument("--data-dir")
    parser.add_argument("--repository")
    parser.add_argument("--index")
    parser.add_argument("--pipeline", default="base")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragstream-pipeline-") as scratch:
        figures: dict = {}
        if args.repo:
            data_dir = Path(scratch)
            started = time.perf_counter()
            report = build_index(args.repo, load_settings(overrides={"index": {"data_dir": scratch}}))
            figures["index_build_s"] = round(time.perf_counter() - started, 1)
            repository, index = report.info.repository, report.location.active_index
        else:
            data_dir, repository, index = Path(args.data_dir).resolve(), args.repository, args.index
        figures.update(bench(data_dir, repository, index, args.pipeline, eval_queries(args.queries + 1)))
    print_table(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


def bench(data_dir: Path, repository: str, index: str, pipeline_name: str, questions: list[str]) -> dict:
    settings = load_settings(overrides={"index": {"data_dir": str(data_dir)}})
    stored = store.load_index(store.IndexLocation(data_dir, repository, index))
    controller = Controller(settings)
    pipeline = controller.pipeline(pipeline_name)
    scope = Scope(repository, stored.manifest["branch"], index)
    per_step: dict[str, list[float]] = defaultdict(list)
    totals, outcomes = [], defaultdict(int)
    for number, question in enumerate(questions):
        started = time.perf_counter()
        _, results = controller.run(question, scope, pipeline)
        if number == 0:
            continue  # warm-up: model and index loading
        totals.append((time.perf_counter() - started) * 1000)
        for result in results:
            per_step[f"{result.step} ({result.action})"].append(result.seconds * 1000)
        outcomes[results[-1].step + ":" + results[-1].outcome] += 1
    steps = {name: {"runs": len(ms), "p50_ms": round(statistics.median(ms), 1),
                    "p95_ms": round(float(np.percentile(ms, 95)), 1)} for name, ms in per_step.items()}
    return {"index": f"{repository}/{index}", "chunks": stored.manifest["counts"]["chunks"],
            "pipeline": pipeline_name, "questions": len(totals), "steps": steps,
            "total_p50_ms": round(statistics.median(totals), 1),
            "total_p95_ms": round(float(np.percentile(totals, 95)), 1),
            "ended_at": dict(outcomes),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def print_table(figures: dict) -> None:
    table = Table("step (action)", "runs", "p50 ms", "p95 ms", title=(
        f"pipeline {figures['pipeline']} on {figures['index']} ({figures['chunks']} chunks), "
        f"{figures['questions']} questions"), title_justify="left")
    for name, row in figures["steps"].items():
        table.add_row(name, str(row["runs"]), f"{row['p50_ms']:.1f}", f"{row['p95_ms']:.1f}")
    table.add_row("whole question", str(figures["questions"]), f"{figures['total_p50_ms']:.1f}",
                  f"{figures['total_p95_ms']:.1f}")
    console = Console()
    console.print(table)
    console.print({k: v for k, v in figures.items() if k not in ("steps",)})


if __name__ == "__main__":
    main()
