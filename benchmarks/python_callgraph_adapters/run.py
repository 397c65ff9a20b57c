"""Run one library's call graph on the suite's cases or on a repository; JSON lines on stdout.

    PYTHON run.py LIBRARY suite CASE_DIR...   one line per case: {"case", "edges", "seconds"}
    PYTHON run.py LIBRARY repo ROOT            one line: {"files", "call_sites", "edges", ...}
    PYTHON run.py LIBRARY repo ROOT --exclude-crashing   the same, without the files that the
        library fails on when given each file alone (found first, untimed; listed in the line)

`seconds` counts from after the library's import; it includes `index_seconds`, the stdlib `ast`
pass that lists the call sites and names the definitions (jedi and astroid need the call sites;
the others only use the names to keep internal edges).

Started by benchmarks/python_callgraph_libraries.py under the interpreter that has the libraries
(`--python`), one process per library, so the project never imports them. A library that is not
installed answers one line {"error": "not installed: ..."}. A case that raises or runs past
`--case-timeout` seconds is reported with its error and scores as no edges.
"""
from __future__ import annotations

import argparse
import importlib
import json
import signal
import sys
import time
import traceback
from pathlib import Path

from sources import index_sources

ADAPTERS = {"jedi": "jedi_adapter", "astroid": "astroid_adapter", "pycg": "pycg_adapter",
            "pyan3": "pyan_adapter", "libcst": "libcst_adapter", "ragstream": "ragstream_adapter",
            "ast-only": "ast_only_adapter"}


RETRIES = 5  # whole-repository runs that may each exclude one more file a library fails on


class CaseTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise CaseTimeout("ran past the case timeout")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("library", choices=sorted(ADAPTERS))
    parser.add_argument("mode", choices=["suite", "repo"])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--case-timeout", type=int, default=60)
    parser.add_argument("--exclude-crashing", action="store_true")
    parser.add_argument("--edges-out", type=Path, help="repo mode: write the edges here (JSON)")
    args = parser.parse_args()
    started = time.perf_counter()
    try:
        adapter = importlib.import_module(ADAPTERS[args.library])
    except ImportError as error:
        _emit({"error": f"not installed: {error}"})
        return
    import_seconds = time.perf_counter() - started
    if args.mode == "suite":
        signal.signal(signal.SIGALRM, _alarm)
        for case in args.dirs:
            _emit(_run_case(adapter, case, args.case_timeout))
    else:
        root = args.dirs[0]
        excluded = _crashing_files(adapter, root) if args.exclude_crashing else {}
        if args.exclude_crashing:
            print(json.dumps({"fail_alone": sorted(excluded)}), file=sys.stderr, flush=True)
        record = _run_repo(adapter, root, import_seconds, excluded)
        for _ in range(RETRIES if args.exclude_crashing else 0):
            failed = record.pop("failed_file", None)
            if not record["error"] or failed is None or failed in excluded:
                break
            excluded[failed] = record["error"].splitlines()[0] + " (only with the other files)"
            print(json.dumps({"retry_without": failed, "after_seconds": record["seconds"]}),
                  file=sys.stderr, flush=True)
            record = _run_repo(adapter, root, import_seconds, excluded)
        record.pop("failed_file", None)
        edges = record.pop("found")
        if args.edges_out:
            args.edges_out.write_text(json.dumps(sorted(edges)), encoding="utf-8")
        _emit(record)


def _run_case(adapter, case: Path, timeout: int) -> dict:
    if hasattr(adapter, "reset"):  # outside the timing: a library's fresh state between cases
        adapter.reset()
    started = time.perf_counter()
    signal.alarm(timeout)
    try:
        index = index_sources(case)
        found = sorted(adapter.edges(index))
        error = None
    except Exception as exc:  # noqa: BLE001 - a library crash is a result to report, not a reason to stop
        found, error = [], f"{type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
    return {"case": str(case), "edges": found, "seconds": time.perf_counter() - started,
            "error": error}


def _crashing_files(adapter, root: Path) -> dict[str, str]:
    """The files the library raises on when it is given each one alone, with the error."""
    crashing = {}
    for path in sorted(index_sources(root).trees):
        if hasattr(adapter, "reset"):
            adapter.reset()
        try:
            adapter.edges(index_sources(root, only={path}))
        except Exception as exc:  # noqa: BLE001 - the crash is what this looks for
            crashing[path] = f"{type(exc).__name__}: {exc}"
    return crashing


def _run_repo(adapter, root: Path, import_seconds: float, excluded: dict[str, str]) -> dict:
    """Time one whole-repository graph: the `ast` pass (`index_seconds`), then the library."""
    only = {p.relative_to(root).as_posix() for p in root.rglob("*.py")} - set(excluded)
    if hasattr(adapter, "reset"):
        adapter.reset()
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        print(json.dumps({"progress": done, "of": total,
                          "seconds": time.perf_counter() - started}), file=sys.stderr, flush=True)

    index = index_sources(root, only)
    index_seconds = time.perf_counter() - started
    try:
        found = adapter.edges(index, progress=progress)
        error = None
        failed = None
    except Exception as exc:  # noqa: BLE001 - a library crash is reported with the file it was on
        found, error = set(), f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3)}"
        failed = _file_being_processed(exc, index)
    return {"failed_file": failed, "found": found,
            "files": len(index.modules), "unparsable": len(index.errors),
            "call_sites": len(index.calls), "edges": len(found),
            "seconds": time.perf_counter() - started, "index_seconds": index_seconds,
            "import_seconds": import_seconds, "excluded": excluded,
            "needs_call_sites": getattr(adapter, "NEEDS_CALL_SITES", False), "error": error}


def _file_being_processed(exc: Exception, index) -> str | None:
    """The directory's file the library was working on when it raised (its `self.filename`)."""
    found = None
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        owner = frame.f_locals.get("self")
        path = index.relative(getattr(owner, "filename", None)) if owner is not None else None
        if path in index.modules:
            found = path
    return found


def _emit(record: dict) -> None:
    print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
