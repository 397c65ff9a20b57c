"""Parser and resolver coverage of a repository folder: nodes by kind, edges by type and how
they were resolved. Parsing and graph building only (no chunks, no embedding), so it runs in
seconds and shows what a parser or resolver change did to the graph.

    .venv/bin/python benchmarks/graph_coverage.py PATH [PATH ...] [--json OUT]

Per folder: Python lines, seconds (wall and CPU) spent parsing (CPU also by language) and building
the graph (reference resolution and the Python call solver), nodes by kind, edges by type, CALLS by resolution, edges from C# into SQL by type
and target kind (CALLS -> PROCEDURE is the C# -> stored procedure link), edges by the construct
that made them (`via`), guesses (by_name),
and the resolver's counts of dropped and EXTERNAL references.
"""
from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from ragstream.config import load_settings
from ragstream.index.graph_build import build_graph
from ragstream.index.parse import parse_source
from ragstream.index.python.parser import module_names
from ragstream.index.walk import too_large, walk_repository


def coverage(path: str) -> dict:
    """Counts for one repository folder."""
    settings = load_settings()
    started = time.perf_counter()
    walked = walk_repository(path, settings.index)
    modules = module_names([f.path for f in walked.files if f.language == "python"])
    dialect = settings.index.sql_dialect
    parse_started, parse_cpu = time.perf_counter(), time.process_time()
    parsed, cpu_by_language = [], Counter[str]()
    for f in walked.files:
        file_cpu = time.process_time()
        parsed.append(parse_source(f, modules.get(f.path), dialect))
        cpu_by_language[f.language] += time.process_time() - file_cpu
    build_started, build_cpu = time.perf_counter(), time.process_time()
    graph, stats = build_graph(parsed)
    build_seconds, done_cpu = time.perf_counter() - build_started, time.process_time()
    nodes = graph.nodes
    edges = list(graph.edges(data=True))
    into_sql = Counter(
        f"{data['type']} -> {nodes[target].get('kind')}" for source, target, data in edges
        if nodes[source].get("language") == "csharp" and nodes[target].get("language") == "sql")
    return {
        "path": path,
        "files": Counter(f.language for f in walked.files),
        "degraded_files": sum(1 for p in parsed if p.error),
        "too_large": too_large(walked.skipped),  # files over index.max_file_bytes: in no graph
        "nodes_by_kind": Counter(data.get("kind", "<bare>") for _, data in nodes(data=True)),
        "edges_by_type": Counter(data["type"] for _, _, data in edges),
        "calls_by_resolution": Counter(
            data.get("resolution", "in-file") for _, _, data in edges if data["type"] == "CALLS"),
        "edges_by_resolution": Counter(data.get("resolution", "in-file") for _, _, data in edges),
        "csharp_into_sql": into_sql,
        # how the edges a construct makes were made: CALLS via message, READS via type_argument, ...
        "edges_by_via": Counter(f"{data['type']} via {data['via']}" for _, _, data in edges
                                if data.get("via") and not str(data["via"]).startswith(("cs:", "py:"))),
        "guesses": sum(1 for _, _, data in edges if data.get("guess")),
        "dropped": stats.dropped,
        "external": stats.external,
        "by_name": stats.by_name,
        "python_lines": sum(f.text.count("\n") + 1 for f in walked.files if f.language == "python"),
        "parse_seconds": round(build_started - parse_started, 1),
        "graph_seconds": round(build_seconds, 1),
        # CPU seconds: what the two phases cost where nothing else competes for the cores
        "parse_cpu_seconds": round(build_cpu - parse_cpu, 1),
        "graph_cpu_seconds": round(done_cpu - build_cpu, 1),
        # the parse's CPU by language: a C# change measured apart from a repository's SQL scripts
        "parse_cpu_by_language": {language: round(cpu, 1) for language, cpu in sorted(cpu_by_language.items())},
        "seconds": round(time.perf_counter() - started, 1),
    }


def _print(report: dict) -> None:
    print(f"== {report['path']}  ({report['seconds']} s)")
    for key, value in report.items():
        if isinstance(value, Counter):
            shown = ", ".join(f"{k}: {v}" for k, v in sorted(value.items()))
            print(f"  {key} ({sum(value.values())}): {shown}")
        elif key not in ("path", "seconds"):
            print(f"  {key}: {value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--json", help="also write the counts to this file")
    args = parser.parse_args()
    reports = [coverage(path) for path in args.paths]
    for report in reports:
        _print(report)
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=2, default=dict), encoding="utf-8")


if __name__ == "__main__":
    main()
