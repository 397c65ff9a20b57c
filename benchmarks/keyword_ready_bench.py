"""Time to keyword-ready: how soon an index can be asked after a build starts (issue 23).

    .venv/bin/python benchmarks/keyword_ready_bench.py PATH [PATH ...] [--runs 5] [--child]

Each run copies the repository's indexable files into a fresh folder with a fresh data folder
and times `build_index(..., fill=False)` in this process (walk, parse, graph, chunks, BM25,
change history, publish). With `--child` it instead launches `ragstream index PATH --events` on
the repository itself (git history included), its stdin a pipe as the workbench's child has
(`start_followed_build`), and times launch -> the first publish, as the workbench's first run
sees it. This VM's speed moves by up to 2x within minutes, so a fixed
pure-Python loop is timed before and after the runs: compare figures only with the loop's
time beside them (docs/BENCHMARKS.md).
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from index_bench import copy_indexable

from ragstream.config import load_settings
from ragstream.index.build import build_index


def loop_seconds() -> float:
    """A fixed 10-million-step Python loop: the host's speed at this moment."""
    started, total = time.perf_counter(), 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - started


def in_process(repo: Path) -> float:
    with tempfile.TemporaryDirectory(prefix="keyword_ready_") as scratch:
        copy = copy_indexable(repo, Path(scratch))
        settings = load_settings(overrides={"index": {"data_dir": str(Path(scratch) / "data")}})
        started = time.perf_counter()
        build_index(copy, settings, fill=False)
        return time.perf_counter() - started


def in_child(repo: Path) -> float:
    with tempfile.TemporaryDirectory(prefix="keyword_ready_") as scratch:
        config = Path(scratch) / "settings.yaml"
        config.write_text(f"index:\n  data_dir: {scratch}/data\n", encoding="utf-8")
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(config), "index", str(repo),
                                  "--events", "--name", "bench"], stdout=subprocess.PIPE, text=True,
                                 stdin=subprocess.PIPE)  # as the workbench's: it ends when this pipe closes
        try:
            for line in child.stdout:
                if '"published"' in line:
                    return time.perf_counter() - started
            raise SystemExit(f"the build of {repo} ended before it published (exit code {child.wait()})")
        finally:
            child.kill()
            child.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", action="store_true", help="time `ragstream index --events` to its first publish")
    args = parser.parse_args()
    print(f"loop before: {loop_seconds():.2f} s")
    for path in args.paths:
        repo = Path(path).resolve()
        seconds = sorted((in_child if args.child else in_process)(repo) for _ in range(args.runs))
        print(f"{repo.name}: keyword-ready {' / '.join(f'{s:.1f}' for s in seconds)} s "
              f"(median {statistics.median(seconds):.1f})")
    print(f"loop after: {loop_seconds():.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
