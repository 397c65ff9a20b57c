"""The workbench's live index (issue 40): how long after an edit the index it serves holds it.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/workbench_watch.py [PATH] [--file REL] [--edits 3]
        [--embedding-cache FILE]

PATH (default: the sample repository of the tests) is copied to a scratch folder (no .git,
virtualenvs, caches or tests/) and indexed completely; then the controller starts the watching
builder the workbench runs (`Controller.follow`: one `ragstream index --watch --events` child,
debounce 200 ms) and `--edits` times a function is appended to REL (default: the largest Python
file). Each edit is timed from the write until the child's refresh ended -- keyword-ready and the
new chunk's vector embedded, what the page's notice then says -- with the child's own
keyword-ready seconds and phases. `--embedding-cache` copies an earlier data folder's
`embedding_cache.sqlite` in first, so the complete build embeds only texts it has not seen. The
child's first build finds nothing to do; once its watcher is up it primes its warm state
(`build.prime_warm_state`), and the first edit is made once the child is idle (its CPU time
still for 0.5 s), so every edit is timed against a warm child.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from ragstream.config import load_settings
from ragstream.controller import Controller
from ragstream.index.build import build_index
from ragstream.index.embeddings import Embedder

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "sample_repo"
SKIPPED = shutil.ignore_patterns(".git", ".venv", "data", "test-artifacts", "__pycache__", "tests")


def until(done, seconds: float = 600.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"no refresh within {seconds} s")
        time.sleep(0.02)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process `pid` and its ended children, its parse workers among them (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(map(int, fields[11:15])) / os.sysconf("SC_CLK_TCK")


def idle(pid: int, still: float = 0.5) -> None:
    """Until process `pid` has used no CPU for `still` seconds."""
    before = cpu_seconds(pid)
    while True:
        time.sleep(still)
        if (now := cpu_seconds(pid)) == before:
            return
        before = now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default=str(SAMPLE))
    parser.add_argument("--file", help="the file edited (repository-relative; default: the largest .py)")
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--embedding-cache", help="an embedding_cache.sqlite to start the data folder with")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="ragstream-watch-bench-"))
    try:
        repo = scratch / "repo"
        shutil.copytree(args.path, repo, ignore=SKIPPED)
        edited = repo / (args.file or max(repo.rglob("*.py"), key=lambda p: p.stat().st_size).relative_to(repo))
        (scratch / "data").mkdir()
        if args.embedding_cache:
            shutil.copy(args.embedding_cache, scratch / "data" / "embedding_cache.sqlite")
        settings = load_settings(overrides={"index": {"data_dir": str(scratch / "data"), "watch_debounce_ms": 200}})
        build_index(repo, settings, embedder=Embedder())
        with Controller(settings) as controller:
            index = next(s for s in controller.indexes() if Path(s.source_root) == repo.resolve())
            started = time.perf_counter()
            job = controller.follow(index)
            assert job is not None
            until(lambda: job.watcher_up and not job.refreshing)
            print(f"{index.files} files, {index.chunks} chunks; edited {edited.relative_to(repo)}")
            first = "nothing to do" if job.report is not None and job.report.unchanged else "built"
            print(f"child started, first build done ({first}): {time.perf_counter() - started:.2f} s")
            assert job.pid is not None
            idle(job.pid)
            print(f"child idle (warm state primed): {time.perf_counter() - started:.2f} s; "
                  f"child CPU so far {cpu_seconds(job.pid):.2f} s")
            for n in range(args.edits):
                before, cpu = job.refreshes, cpu_seconds(job.pid)
                edited.write_text(edited.read_text() + f"\n\ndef watch_bench_{n}(x):\n    return x\n")
                written = time.perf_counter()
                until(lambda before=before: job.refreshes > before and not job.refreshing)
                report = job.report
                assert report is not None and job.error is None, job.error
                phases = ", ".join(f"{k} {v:.2f}" for k, v in report.seconds.items())
                print(f"edit {n + 1}: refreshed {time.perf_counter() - written:.2f} s after the write "
                      f"(debounce 0.2 s included); keyword-ready {report.keyword_ready_seconds:.2f} s; {phases}; "
                      f"child CPU {cpu_seconds(job.pid) - cpu:.2f} s")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
