"""Refresh benchmark (issue 40): how long a re-index takes when nothing or one line changed.

    PYTHONPATH=$PWD:benchmarks .venv/bin/python benchmarks/refresh.py PATH [PATH ...] [--runs 3]

Each repository's indexable files are copied to a scratch folder (no git history: the edit
must not touch the repository) and built into a fresh data folder with `build_index(...,
fill=False)`, then re-indexed `--runs` times with nothing changed and `--runs` times after a
one-line edit of the largest file (a comment line appended: every chunk of that file moves
or changes), each timed until the call returns, i.e. the new generation is keyword-ready (or,
with nothing changed, nothing was published). A fixed pure-Python loop is timed before and after
the runs: this VM's speed moves by up to 2x within minutes (docs/BENCHMARKS.md).
Run it with `PYTHONPATH` at another tree to measure that tree's code (`unchanged` then reads
"n/a" where the tree has no such report field).
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from index_bench import copy_indexable
from keyword_ready_bench import loop_seconds

from ragstream.config import load_settings
from ragstream.index.build import build_index

COMMENTS = {".py": "#", ".sql": "--", ".cshtml": "@*", ".razor": "@*"}


def one_line_edit(repo: Path, n: int) -> Path:
    """Append one comment line to the largest indexed file."""
    target = max((p for p in repo.rglob("*") if p.is_file() and p.suffix in {".py", ".cs", ".sql"}),
                 key=lambda p: p.stat().st_size)
    opener = COMMENTS.get(target.suffix, "//")
    with target.open("a", encoding="utf-8") as out:
        out.write(f"\n{opener} refresh benchmark edit {n}\n")
    return target


def bench(repo: Path, runs: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="ragstream-refresh-") as scratch:
        copy = copy_indexable(repo, Path(scratch))
        settings = load_settings(overrides={"index": {"data_dir": str(Path(scratch) / "data")}})
        started = time.perf_counter()
        cold = build_index(copy, settings, fill=False)
        figures: dict = {"repository": repo.name, "files": cold.files, "chunks": cold.chunks,
                         "cold_keyword_ready_s": round(time.perf_counter() - started, 2)}
        unchanged, edited, flags = [], [], []
        for _ in range(runs):
            started = time.perf_counter()
            report = build_index(copy, settings, fill=False)
            unchanged.append(time.perf_counter() - started)
            flags.append(getattr(report, "unchanged", "n/a"))
        for n in range(runs):
            target = one_line_edit(copy, n)
            started = time.perf_counter()
            report = build_index(copy, settings, fill=False)
            edited.append(time.perf_counter() - started)
            assert report.changes.changed == [target.relative_to(copy).as_posix()], report.changes
        figures["edited_file"] = target.relative_to(copy).as_posix()
        figures["nothing_changed_s"] = [round(s, 3) for s in unchanged]
        figures["nothing_changed_median_s"] = round(statistics.median(unchanged), 3)
        figures["reported_unchanged"] = flags
        figures["one_line_edit_s"] = [round(s, 2) for s in edited]
        figures["one_line_edit_median_s"] = round(statistics.median(edited), 2)
        figures["one_line_edit_phases_s"] = report.seconds
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"loop before: {loop_seconds():.2f} s")
    for path in args.paths:
        for key, value in bench(path.resolve(), args.runs).items():
            print(f"{key:<26} {value}")
    print(f"loop after: {loop_seconds():.2f} s")


if __name__ == "__main__":
    main()
