"""Callers checked against the code: for functions sampled from a repository's Python call graph
(as the index draws it), is each caller's own text naming the callee (its name, or its class's
for a constructor)? A caller that never names it reaches it through a value (a callback, an
alias, a dispatch) -- or is a false caller; those are listed for reading.

    .venv/bin/python benchmarks/caller_check.py [PATH] [--sample 20] [--seed 38]
"""
from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

from ragstream.index.graph_build import build_graph
from ragstream.index.python.parser import module_names, parse_python


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("path", nargs="?", default="ragstream", help="the folder whose Python is checked")
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    root = Path(args.path).resolve()
    base = root.parent if (root / "__init__.py").exists() else root  # a package keeps its dotted names
    paths = sorted(p.relative_to(base).as_posix() for p in root.rglob("*.py"))
    modules = module_names(paths)
    graph, _ = build_graph([parse_python(p, (base / p).read_text(encoding="utf-8"), modules[p]) for p in paths])
    callees = sorted(n for n, d in graph.nodes(data=True) if d.get("kind") in ("FUNCTION", "METHOD")
                     and any(k == "CALLS" and s.startswith("py:") for s, _, k in graph.in_edges(n, keys=True)))
    sample = random.Random(args.seed).sample(callees, min(args.sample, len(callees)))
    edges = named = 0
    unnamed = []
    for callee in sample:
        name = graph.nodes[callee]["name"].rsplit(".", 1)[-1]
        for caller, _, kind in graph.in_edges(callee, keys=True):
            if kind != "CALLS" or not caller.startswith("py:"):
                continue
            data = graph.nodes[caller]
            lines = (base / data["path"]).read_text(encoding="utf-8").split("\n")[data["start_line"] - 1: data["end_line"]]
            edges += 1
            if re.search(rf"\b{re.escape(name)}\b", "\n".join(lines)):
                named += 1
            else:
                unnamed.append(f"{graph.nodes[caller]['name']} -> {graph.nodes[callee]['name']}")
    print(f"{len(sample)} functions, {edges} caller edges: {named} name the callee, {len(unnamed)} do not")
    for line in unnamed:
        print("  not named:", line)


if __name__ == "__main__":
    main()
