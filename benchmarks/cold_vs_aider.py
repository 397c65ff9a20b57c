"""Keyword-ready from cold against aider's cold repository map, side by side (issue 40).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/cold_vs_aider.py PATH [PATH ...] [--rounds 3] \
        [--aider /work/aider-venv/bin/python] [--code NAME=DIR ...] [--cli] [--json OUT]

For each repository the files ragstream indexes are listed once; then, round after round, each
contender runs in a fresh process on the same files, in an order that rotates every round
(this VM's speed moves within minutes, so no contender always goes first):

- `aider`: `benchmarks/aider_repomap_bench.py` in aider's own virtual environment (a cold tag
  cache, 1,024-token map, no chat files);
- each `--code NAME=DIR` (default: this checkout as `ragstream`): `build_index(..., fill=False)`
  on a copy into a fresh data folder, with ragstream's code imported from DIR (so a checkout of
  main and this branch compare in the same hour); with `--cli`, also `NAME+cli`: the same build
  reporting to `ragstream index`'s progress bars, as the command runs it.

Each row is the timed section's wall seconds (imports excluded, as in aider's bench) and its CPU
seconds (this process's and its finished children's: parse workers, git), then the medians.
A ragstream row also has `ready_s` / `ready_cpu_s`: the same at the first generation the build
published, where the index answers `ragstream search` -- before the graph is linked when the
build publishes its keyword index first (the twelfth pass), else the whole build.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cpu_seconds() -> float:
    """User + system seconds of this process and its waited-for children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def keyword_ready_child(path: str, cli: bool, in_place: bool = False) -> None:
    """Run in a child: one cold keyword-ready build of a copy of `path` (with `in_place`, of
    `path` itself: a git work tree keeps its history); prints its figures as JSON. With `cli`,
    the build reports to the progress bars `ragstream index` draws (its `_RichProgress`, on
    stderr), as the command's own build does."""
    sys.path.insert(0, str(HERE))
    from contextlib import nullcontext

    from index_bench import copy_indexable

    from ragstream.cli.index_commands import _RichProgress
    from ragstream.config import load_settings
    from ragstream.index.build import Silent, build_index

    class FirstPublished(Silent):
        """Reports to `inner` (the CLI's bars, if any) and notes when a generation first went live."""

        def __init__(self, inner) -> None:
            self.inner, self.ready = inner, None

        def start(self, phase, total):
            if self.inner:
                self.inner.start(phase, total)

        def advance(self, phase, amount=1):
            if self.inner:
                self.inner.advance(phase, amount)

        def finish(self, phase):
            if self.inner:
                self.inner.finish(phase)

        def published(self, vectors):
            if self.ready is None:
                self.ready = (round(time.perf_counter() - started, 2), round(cpu_seconds() - cpu, 2))
            if self.inner:
                self.inner.published(vectors)

    with tempfile.TemporaryDirectory(prefix="cold_vs_aider_") as scratch:
        copy = Path(path) if in_place else copy_indexable(Path(path), Path(scratch))
        settings = load_settings(overrides={"index": {"data_dir": str(Path(scratch) / "data")}})
        cpu, started = cpu_seconds(), time.perf_counter()
        with _RichProgress() if cli else nullcontext() as bars:
            progress = FirstPublished(bars)
            report = build_index(copy, settings, fill=False, progress=progress)
        seconds = time.perf_counter() - started
        print(json.dumps({"seconds": round(seconds, 2), "cpu_s": round(cpu_seconds() - cpu, 2),
                          "ready_s": progress.ready[0], "ready_cpu_s": progress.ready[1],
                          "files": report.files, "chunks": report.chunks, "phases": report.seconds,
                          "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))


def indexed_files(path: Path, listing: Path) -> int:
    """Write `ragstream index --dry-run`'s lines for `path` to `listing` (what aider's bench maps)."""
    from ragstream.config import load_settings
    from ragstream.index.walk import walk_repository

    files = walk_repository(path, load_settings().index, with_text=False).files
    listing.write_text("".join(f"index  {f.path}  [{f.language}]\n" for f in files), encoding="utf-8")
    return len(files)


def run_contender(name: str, command: list[str], env: dict[str, str]) -> dict:
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{name} failed ({done.returncode}): {done.stderr[-2000:]}")
    figures = json.loads(lines[-1])
    if "repo_map_s" in figures:  # aider's bench names its figures its own way
        figures["seconds"] = figures["repo_map_s"]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--aider", default="/work/aider-venv/bin/python", help="aider's venv's python; '' to skip")
    parser.add_argument("--code", action="append", default=[], metavar="NAME=DIR",
                        help="a ragstream tree to time (default: this checkout)")
    parser.add_argument("--json", help="also write every run's figures here")
    parser.add_argument("--cli", action="store_true",
                        help="also time each code's build as `ragstream index` runs it (its progress bars): NAME+cli")
    parser.add_argument("--in-place", action="store_true",
                        help="build each PATH itself, not a copy of what ragstream indexes: a git work tree "
                             "keeps its history, which the build reads into the change history")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-cli", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        keyword_ready_child(args.child, args.child_cli, args.in_place)
        return 0
    codes = dict(item.split("=", 1) for item in args.code) or {"ragstream": str(HERE.parent)}
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="cold_vs_aider_lists_") as lists:
        for path in map(lambda p: Path(p).resolve(), args.paths):
            listing = Path(lists) / f"{path.name}.files"
            count = indexed_files(path, listing)
            contenders = {name: ([sys.executable, str(HERE / "cold_vs_aider.py"), "--child", str(path),
                                  *(["--in-place"] if args.in_place else [])],
                                 {**os.environ, "PYTHONPATH": f"{Path(code).resolve()}:{HERE}"})
                          for name, code in codes.items()}
            if args.cli:
                contenders.update({f"{name}+cli": ([*command, "--child-cli"], env)
                                   for name, (command, env) in list(contenders.items())})
            if args.aider:
                contenders["aider"] = ([args.aider, str(HERE / "aider_repomap_bench.py"), str(path),
                                        "--files", str(listing)], dict(os.environ))
            names = list(contenders)
            for round_ in range(args.rounds):
                for name in names[round_ % len(names):] + names[:round_ % len(names)]:
                    figures = run_contender(name, *contenders[name])
                    row = {"repository": path.name, "files": count, "contender": name, "round": round_, **figures}
                    print(json.dumps(row), flush=True)
                    rows.append(row)
            for name in names:
                mine = [r for r in rows if r["repository"] == path.name and r["contender"] == name]
                ready = "" if "ready_s" not in mine[0] else (
                    f"; searchable at wall {' / '.join(str(r['ready_s']) for r in mine)} s"
                    f" (median {statistics.median(r['ready_s'] for r in mine):.2f}),"
                    f" CPU {' / '.join(str(r['ready_cpu_s']) for r in mine)} s"
                    f" (median {statistics.median(r['ready_cpu_s'] for r in mine):.2f})")
                print(f"{path.name} ({count} files) {name}: wall "
                      f"{' / '.join(str(r['seconds']) for r in mine)} s (median {statistics.median(r['seconds'] for r in mine):.2f}),"
                      f" CPU {' / '.join(str(r.get('cpu_s')) for r in mine)} s"
                      f" (median {statistics.median(r['cpu_s'] for r in mine):.2f}){ready}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
