"""Where the CPU seconds of a cold keyword-ready build go, step by step, for one or more codes
side by side (issue 40).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/cold_steps.py PATH [PATH ...] \
        --code main=/tmp/main --code new=$PWD [--rounds 3] [--json OUT]

Each round, each `--code` tree builds a copy of each PATH keyword-ready (`build_index(...,
fill=False)`, a fresh data folder) in a process of its own, codes in a rotating order. The build
runs in one process, its workers off (a thread waits beside it, so nothing forks: the steps the
workers take over elsewhere are timed here), and each step is timed in process CPU seconds
(`time.process_time` around the function; nested steps counted in their parent too): the walk,
of it the secret redaction; the parse; the graph, of it the Python call solve; the chunks (their
token counts included); BM25; the garbage collector's passes; the build as a whole. Medians over
the rounds are printed per repository and step.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (label, module, function): wrapped where the build calls it
STEPS = (
    ("walk", "ragstream.index.build", "walk_repository"),
    ("  redaction", "ragstream.index.walk", "redact"),
    ("parse", "ragstream.index.build", "_parse_all"),
    ("graph", "ragstream.index.build", "build_graph"),
    ("  Python call solve", "ragstream.index.python.calls.link", "resolve_calls"),
    ("chunks", "ragstream.index.build", "build_chunks"),
    ("BM25", "ragstream.index.build", "write_bm25"),
)


def steps_child(path: str) -> None:
    """Run in a child: one cold build of a copy of `path`, its steps' CPU seconds as JSON."""
    sys.path.insert(0, str(HERE))
    from index_bench import copy_indexable

    from ragstream.config import load_settings
    from ragstream.index.build import build_index

    spent: Counter = Counter()

    def timed(label: str, function):
        def step(*args, **kwargs):
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - started
        return step

    collecting: list[float] = []

    def collector(phase: str, info: dict) -> None:
        if phase == "start":
            collecting.append(time.process_time())
        elif collecting:
            spent["garbage collector"] += time.process_time() - collecting.pop()

    with tempfile.TemporaryDirectory(prefix="cold_steps_") as scratch:
        copy = copy_indexable(Path(path), Path(scratch))
        settings = load_settings(overrides={"index": {"data_dir": str(Path(scratch) / "data")}})
        for label, module, name in STEPS:
            owner = importlib.import_module(module)
            setattr(owner, name, timed(label, getattr(owner, name)))
        held = threading.Event()
        threading.Thread(target=held.wait, daemon=True).start()  # no fork while it runs: one process
        gc.callbacks.append(collector)
        started = time.process_time()
        report = build_index(copy, settings, fill=False)
        spent["build"] = time.process_time() - started
        gc.callbacks.remove(collector)
        held.set()
    print(json.dumps({"files": report.files, "chunks": report.chunks,
                      **{label: round(seconds, 3) for label, seconds in spent.items()}}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--code", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write every run's figures here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        steps_child(args.child)
        return 0
    codes = dict(item.split("=", 1) for item in args.code) or {"ragstream": str(HERE.parent)}
    rows: list[dict] = []
    labels = ["build", *(label for label, _, _ in STEPS), "garbage collector"]
    for path in map(lambda p: Path(p).resolve(), args.paths):
        names = list(codes)
        for round_ in range(args.rounds):
            for name in names[round_ % len(names):] + names[:round_ % len(names)]:
                env = {**os.environ, "PYTHONPATH": f"{Path(codes[name]).resolve()}:{HERE}"}
                done = subprocess.run([sys.executable, str(HERE / "cold_steps.py"), "--child", str(path)],
                                      capture_output=True, text=True, env=env, check=False)
                lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
                if done.returncode != 0 or not lines:
                    raise SystemExit(f"{name} failed on {path.name} ({done.returncode}): {done.stderr[-2000:]}")
                rows.append({"repository": path.name, "code": name, "round": round_, **json.loads(lines[-1])})
        print(f"{path.name} (CPU s, median of {args.rounds}): " + " | ".join(names))
        for label in labels:
            medians = [statistics.median(r.get(label, 0.0) for r in rows
                                         if r["repository"] == path.name and r["code"] == name) for name in names]
            print(f"  {label:22s} " + " | ".join(f"{m:6.2f}" for m in medians), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
