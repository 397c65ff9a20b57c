"""Do two ragstream trees build the same index? The check behind every speed change of the cold
build (issue 40): graph nodes and edges with their attributes, chunks, BM25 files and the
change history must be byte-identical.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/same_index.py PATH [PATH ...] \
        --code main=/tmp/main --code new=$PWD [--keep DIR]

Each `--code` tree builds each PATH keyword-ready (`build_index(..., fill=False)`) into a fresh
data folder in a process of its own (its code imported from that tree); the parts are compared
and the first difference of each part is printed. `--keep DIR` writes each build's parts there
(`<path name>.<code name>.json`), for a closer look; `--reuse NAME` reads NAME's parts back from
there instead of building them again (the reference side, when only the other one changed).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def snapshot_child(path: str, out: str) -> None:
    """Run in a child: build `path` into a fresh data folder and write its parts to `out`."""
    from dataclasses import asdict

    import orjson

    from ragstream.config import load_settings
    from ragstream.index import store
    from ragstream.index.build import build_index

    def dump(value) -> str:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()

    with tempfile.TemporaryDirectory(prefix="same_index_") as scratch:
        settings = load_settings(overrides={"index": {"data_dir": scratch}})
        report = build_index(path, settings, fill=False)
        stored = store.load_index(report.location)
        graph = stored.graph()
        parts = {
            "nodes": sorted(f"{node} {dump(data)}" for node, data in graph.nodes(data=True)),
            "edges": sorted(f"{u} {v} {key} {dump(data)}" for u, v, key, data in graph.edges(keys=True, data=True)),
            "chunks": [dump(asdict(chunk)) for chunk in stored.chunks()],
            "bm25": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(stored.bm25_dir.iterdir())},
            "change_history": [dump(row) for row in stored.change_history()],
            "counts": stored.manifest["counts"],
        }
    Path(out).write_text(json.dumps(parts), encoding="utf-8")


def first_difference(left, right) -> str:
    if isinstance(left, list) and isinstance(right, list):
        for index, (a, b) in enumerate(zip(left, right)):
            if a != b:
                return f"item {index}: {str(a)[:300]}\n      vs {str(b)[:300]}"
        return f"{len(left)} items vs {len(right)}"
    return f"{str(left)[:300]}\n      vs {str(right)[:300]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--code", action="append", default=[], metavar="NAME=DIR", required=False)
    parser.add_argument("--keep", help="write each build's parts into this folder")
    parser.add_argument("--reuse", action="append", default=[], metavar="NAME",
                        help="with --keep: take NAME's parts kept there by an earlier run instead of building again")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        snapshot_child(*args.child)
        return 0
    codes = dict(item.split("=", 1) for item in args.code)
    if len(codes) < 2:
        parser.error("give two trees to compare: --code NAME=DIR --code NAME=DIR")
    differs = False
    with tempfile.TemporaryDirectory(prefix="same_index_parts_") as scratch:
        keep = Path(args.keep) if args.keep else Path(scratch)
        keep.mkdir(parents=True, exist_ok=True)
        for path in map(lambda p: Path(p).resolve(), args.paths):
            built = {}
            for name, code in codes.items():
                out = keep / f"{path.name}.{name}.json"
                if name in args.reuse and out.exists():
                    built[name] = json.loads(out.read_text(encoding="utf-8"))
                    continue
                env = {**os.environ, "PYTHONPATH": str(Path(code).resolve())}
                subprocess.run([sys.executable, str(HERE / "same_index.py"), "--child", str(path), str(out)],
                               env=env, check=True)
                built[name] = json.loads(out.read_text(encoding="utf-8"))
            (first, left), *others = built.items()
            for name, right in others:
                bad = [part for part in left if left[part] != right[part]]
                sizes = ", ".join(f"{len(left[p])} {p}" for p in ("nodes", "edges", "chunks", "bm25"))
                print(f"{path.name}: {first} vs {name}: {'identical' if not bad else 'DIFFERENT: ' + ', '.join(bad)}"
                      f" ({sizes})", flush=True)
                for part in bad:
                    print(f"  {part}: {first_difference(left[part], right[part])}")
                differs = differs or bool(bad)
    return 1 if differs else 0


if __name__ == "__main__":
    raise SystemExit(main())
