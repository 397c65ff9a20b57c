"""Mapping edges of built indexes, by the construct that made them: what `ef`, `ef_configured` and
`ef_graph` put in the graph (issue 36). Reads each repository's current `graph.json` under a data
folder's `indexes/` (what `ragstream eval --data-dir` builds), so two data folders built by two
versions of the code compare before and after.

    .venv/bin/python benchmarks/mapping_coverage.py DATA_DIR [DATA_DIR ...]
"""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import networkx as nx

MAPPING_VIAS = ("entity_type_configuration", "mapping_class", "model_builder", "value_converter", "object_mapping")


def graphs(data_dir: Path) -> dict[str, Path]:
    """{repository folder: its current graph.json} (the first commit folder holding one)."""
    found: dict[str, Path] = {}
    for current in sorted(data_dir.glob("indexes/*/*/CURRENT")):
        graph = current.parent / current.read_text().strip() / "graph.json"
        if graph.exists():
            found.setdefault(current.parent.parent.name, graph)
    return found


def counts(path: Path) -> Counter:
    """MAPS_TO by `via`, REFERENCES made by mapping code by `via`, and the properties the mapping
    code names (`members`)."""
    graph: nx.MultiDiGraph = nx.node_link_graph(json.loads(path.read_text()), directed=True, multigraph=True,
                                                 edges="edges")  # type: ignore[assignment]
    found: Counter = Counter()
    for _, _, key, data in graph.edges(keys=True, data=True):
        via = data.get("via") or "-"
        if key == "MAPS_TO":
            found[f"MAPS_TO {via}"] += 1
        elif key == "REFERENCES" and via in MAPPING_VIAS:
            found[f"REFERENCES {via}"] += 1
            found["configured properties"] += len(data.get("members") or ())
            found["registers subtypes"] += data.get("registers") == "subtypes"
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dirs", nargs="+", type=Path)
    args = parser.parse_args()
    tables = {str(d): {repo: counts(g) for repo, g in graphs(d).items()} for d in args.data_dirs}
    repos = sorted({repo for table in tables.values() for repo in table})
    for repo in repos:
        rows = sorted({k for table in tables.values() for k in table.get(repo, {})})
        print(f"\n{repo}\n| edges | " + " | ".join(Path(d).name for d in tables) + " |")
        print("|---|" + "---:|" * len(tables))
        for row in rows:
            print(f"| {row} | " + " | ".join(str(table.get(repo, Counter())[row]) for table in tables.values()) + " |")


if __name__ == "__main__":
    main()
