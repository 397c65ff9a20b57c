"""Refresh benchmark (issue 40): how long a re-index takes when nothing or one line changed.

    PYTHONPATH=$PWD:benchmarks .venv/bin/python benchmarks/refresh.py PATH [PATH ...] [--runs 3] [--watch]

Each repository's indexable files are copied to a scratch folder (no git history: the edit
must not touch the repository) and built into a fresh data folder with `build_index(...,
fill=False)`, then re-indexed `--runs` times with nothing changed, `--runs` times after a
one-line edit of the largest file (a comment line appended: no flow fact changes, so a Python
call solve is reused) and `--runs` times after a code edit of it (a function that calls two
builtins appended to a Python file: its flow facts change, so Python calls are solved again),
each told which file changed, as `index --watch` tells it (`build_index(..., changed=...)`), and
timed to its first publication ("askable": where the code measured publishes an interim
generation first, its graph marked as updating, `index/graph_interim.py`) and until the call
returns (the garbage of the build before collected first, as
`index --watch` does while the files are quiet), i.e. the new generation is keyword-ready -- askable by
keywords and by the vectors the embedding cache already held; the changed chunks' vectors come
after, from the fill -- or, with nothing changed, nothing was published. A fixed pure-Python loop is timed before and after
the runs: this VM's speed moves by up to 2x within minutes (docs/BENCHMARKS.md). Beside each
wall time the CPU seconds of the build (this process's and its finished children's: parse
workers, a `--fresh` process) are given, which a host shared with other work disturbs less.
With `--fresh` each kind of edit is also re-indexed `--runs` times by a new process (interpreter,
imports and loading the previous index included: what a `ragstream index` after an edit pays
before it hands the fill to the background), timed from the outside.
With `--watch` it also starts `ragstream index --watch` on the copy (index.watch_debounce_ms at
its default) and times each one-line edit until the child prints its refresh line: what a user
of the live index waits for, debounce included.
Run it with `PYTHONPATH` at another tree to measure that tree's code (`unchanged` then reads
"n/a" where the tree has no such report field).
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import inspect
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from index_bench import copy_indexable
from keyword_ready_bench import loop_seconds

from ragstream.config import load_settings
from ragstream.index import store
from ragstream.index.build import Silent, build_index

TAKES_CHANGED = "changed" in inspect.signature(build_index).parameters  # a tree before the told walk does not
COMMENTS = {".py": "#", ".sql": "--", ".cshtml": "@*", ".razor": "@*"}


def cpu_seconds() -> float:
    """CPU used so far by this process and its children that have ended."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def one_line_edit(repo: Path, n: int) -> Path:
    """Append one comment line to the largest indexed file."""
    target = max((p for p in repo.rglob("*") if p.is_file() and p.suffix in {".py", ".cs", ".sql"}),
                 key=lambda p: p.stat().st_size)
    opener = COMMENTS.get(target.suffix, "//")
    with target.open("a", encoding="utf-8") as out:
        out.write(f"\n{opener} refresh benchmark edit {n}\n")
    return target


def code_edit(repo: Path, n: int) -> Path | None:
    """Append a function calling two builtins to the largest Python file (None: there is none)."""
    files = [p for p in repo.rglob("*.py") if p.is_file()]
    if not files:
        return None
    target = max(files, key=lambda p: p.stat().st_size)
    with target.open("a", encoding="utf-8") as out:
        out.write(f"\n\ndef refresh_benchmark_edit_{n}(value):\n    return len(str(value))\n")
    return target


class FirstPublication(Silent):
    """A build's progress that notes the wall and CPU seconds at its first publication: when the
    edit became askable (the interim generation, where the code measured publishes one first)."""

    def __init__(self) -> None:
        self.began, self.used = time.perf_counter(), cpu_seconds()
        self.at: tuple[float, float] | None = None

    def published(self, vectors: dict) -> None:
        if self.at is None:
            self.at = (time.perf_counter() - self.began, cpu_seconds() - self.used)


def timed_edits(copy: Path, settings, runs: int, edit) -> dict:
    """`runs` edits by `edit`, each re-indexed and timed: seconds to askable (the first
    publication) and to the end, phases, whether the solve was reused."""
    seconds, cpu, reused, chunks_reused, moved, phases = [], [], [], [], [], {}
    askable, askable_cpu = [], []
    for n in range(runs):
        target = edit(copy, n)
        if target is None:
            return {}
        gc.collect()  # as `index --watch` does between refreshes, while the files are quiet
        # Told what changed, as `index --watch` tells it (where the tree measured takes it).
        told = {"changed": [target.relative_to(copy).as_posix()]} if TAKES_CHANGED else {}
        first = FirstPublication()
        report = build_index(copy, settings, fill=False, progress=first, **told)
        seconds.append(time.perf_counter() - first.began)
        cpu.append(round(cpu_seconds() - first.used, 2))
        assert first.at is not None
        askable.append(round(first.at[0], 2))
        askable_cpu.append(round(first.at[1], 2))
        assert report.changes.changed == [target.relative_to(copy).as_posix()], report.changes
        reused.append(getattr(report, "python_solve_reused", "n/a"))
        chunks_reused.append(getattr(report, "chunks_reused", "n/a"))
        moved.append(getattr(report, "graph_moved", "n/a"))
        phases = report.seconds
    return {"edited_file": target.relative_to(copy).as_posix(), "askable_s": askable, "askable_cpu_s": askable_cpu,
            "s": [round(s, 2) for s in seconds],
            "median_s": round(statistics.median(seconds), 2), "cpu_s": cpu, "cpu_median_s": statistics.median(cpu),
            "python_solve_reused": reused, "chunks_reused": chunks_reused, "graph_moved": moved, "phases_s": phases}


# A re-index by a process of its own (`--fresh`): PYTHONPATH picks the tree measured, as above.
FRESH_BUILD = ("import sys; from pathlib import Path; from ragstream.config import load_settings; "
               "from ragstream.index.build import build_index; "
               "build_index(Path(sys.argv[1]), load_settings(overrides={'index': {'data_dir': sys.argv[2]}}), fill=False)")


def fresh_process_edits(copy: Path, data_dir: Path, runs: int, edit) -> dict:
    """Wall and CPU seconds of `runs` re-indexes after an edit each, each by a new Python process."""
    seconds, cpu = [], []
    for n in range(runs):
        edit(copy, 100 + n)
        started, used = time.perf_counter(), cpu_seconds()
        subprocess.run([sys.executable, "-c", FRESH_BUILD, str(copy), str(data_dir)], check=True)
        seconds.append(round(time.perf_counter() - started, 2))
        cpu.append(round(cpu_seconds() - used, 2))
    return {"s": seconds, "cpu_s": cpu}


def bench(repo: Path, runs: int, fresh: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="ragstream-refresh-") as scratch:
        copy = copy_indexable(repo, Path(scratch))
        settings = load_settings(overrides={"index": {"data_dir": str(Path(scratch) / "data")}})
        started, used = time.perf_counter(), cpu_seconds()
        cold = build_index(copy, settings, fill=False)
        figures: dict = {"repository": repo.name, "files": cold.files, "chunks": cold.chunks,
                         "cold_keyword_ready_s": round(time.perf_counter() - started, 2),
                         "cold_keyword_ready_cpu_s": round(cpu_seconds() - used, 2)}
        unchanged, unchanged_cpu, flags = [], [], []
        for _ in range(runs):
            started, used = time.perf_counter(), cpu_seconds()
            report = build_index(copy, settings, fill=False)
            unchanged.append(time.perf_counter() - started)
            unchanged_cpu.append(round(cpu_seconds() - used, 3))
            flags.append(getattr(report, "unchanged", "n/a"))
        figures["nothing_changed_s"] = [round(s, 3) for s in unchanged]
        figures["nothing_changed_median_s"] = round(statistics.median(unchanged), 3)
        figures["nothing_changed_cpu_s"] = unchanged_cpu
        figures["reported_unchanged"] = flags
        for name, edit in (("comment_edit", one_line_edit), ("code_edit", code_edit)):
            figures.update({f"{name}_{key}": value for key, value in timed_edits(copy, settings, runs, edit).items()})
            if fresh and f"{name}_s" in figures:
                fresh_runs = fresh_process_edits(copy, Path(scratch) / "data", runs, edit)
                figures.update({f"{name}_fresh_process_{key}": value for key, value in fresh_runs.items()})
        return figures


def stop_fills(pids: list[int]) -> None:
    """End the background fills the watch started (the scratch folder goes next); a killed
    fill leaves the index whole."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while any(store.pid_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)


def watch_latency(repo: Path, runs: int) -> dict:
    """Seconds from each one-line edit to the refresh line of a `ragstream index --watch` child.
    Each edit comes a second after the previous refresh line, while the background fill that
    refresh started is getting going: the refresh first waits for it to stop (the line's
    "in all" against its "keyword-ready in")."""
    with tempfile.TemporaryDirectory(prefix="ragstream-watch-") as scratch:
        copy = copy_indexable(repo, Path(scratch))
        config = Path(scratch) / "settings.yaml"
        config.write_text(f"index:\n  data_dir: {Path(scratch) / 'data'}\n", encoding="utf-8")
        child = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(config), "index", str(copy),
                                  "--watch"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 env={**os.environ, "COLUMNS": "1000"},
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert child.stdout is not None
        waits: list[float] = []
        fills: list[int] = []  # the background fills the refreshes started
        try:
            for line in child.stdout:
                fills += [int(pid) for pid in re.findall(r"\(pid (\d+),", line)]
                if line.startswith("refreshed") and waits:
                    waits[-1] = time.perf_counter() - waits[-1]
                    print(f"  {line.split('; stage')[0]}")
                if line.startswith("watching") or (line.startswith("refreshed") and waits):
                    if len(waits) == runs:
                        break
                    time.sleep(1)  # let the background fill the last refresh started get going
                    one_line_edit(copy, len(waits))
                    waits.append(time.perf_counter())
        finally:
            child.send_signal(signal.SIGINT)
            child.wait(timeout=60)
            stop_fills(fills)
        return {"repository": repo.name, "watch_edit_to_refresh_line_s": [round(s, 2) for s in waits],
                "watch_edit_to_refresh_line_median_s": round(statistics.median(waits), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fresh", action="store_true", help="also time re-indexes after an edit by a new process")
    parser.add_argument("--watch", action="store_true", help="also time edit -> refresh line of `index --watch`")
    args = parser.parse_args()
    print(f"loop before: {loop_seconds():.2f} s")
    for path in args.paths:
        figures = bench(path.resolve(), args.runs, args.fresh)
        if args.watch:
            figures.update(watch_latency(path.resolve(), args.runs))
        for key, value in figures.items():
            print(f"{key:<36} {value}")
    print(f"loop after: {loop_seconds():.2f} s")


if __name__ == "__main__":
    main()
