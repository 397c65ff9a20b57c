"""Python call-graph libraries side by side with ragstream's own graph (issue 20).

    .venv/bin/python benchmarks/python_callgraph_libraries.py --python /work/venv-cg/bin/python \
        [--cases tests/python_callgraph/cases] [--repo DIR] [--libraries jedi astroid ...] \
        [--json OUT] [--misses LIBRARY] [--exclude-crashing] [--edges-dir DIR]

Each library runs in its own process under `--python` (an interpreter that has jedi, astroid,
PyCG, pyan3, libcst installed; the project never imports them): benchmarks/
python_callgraph_adapters/run.py maps its output to the construct suite's names. ragstream runs
the same way under this interpreter. For each, the suite's precision and recall per construct
(ragstream.eval.callgraph_suite), the seconds spent on the cases, and with `--repo` the
seconds and peak memory (max RSS of its process) of a whole-repository graph, next to the
stdlib `ast` pass alone (`ast-only`: the call-site list jedi, astroid and libcst resolve, and the
names every adapter maps to). With `--exclude-crashing`, a library that raises on the repository
is timed again without the files it raises on when given each alone. With `--edges-dir`, each
library's repository edges are written there (LIBRARY.json), and every library is compared with
jedi's edges, the most precise on the suite, on the repository where there is no ground truth.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ragstream.eval.callgraph_suite import Report, format_table, load_cases, score

ROOT = Path(__file__).resolve().parent.parent
ADAPTERS = ROOT / "benchmarks" / "python_callgraph_adapters" / "run.py"
LIBRARIES = ["jedi", "astroid", "pycg", "pyan3", "libcst", "ragstream"]


@dataclass
class Run:
    """One adapter process: its JSON lines, last progress line, exit status, time and memory."""

    records: list[dict]
    progress: dict | None
    returncode: int | None
    timed_out: bool
    wall_seconds: float
    peak_rss_mb: float
    stderr_tail: str = ""


@dataclass
class SuiteResult:
    library: str
    report: Report | None = None
    error: str | None = None
    case_errors: dict[str, str] = field(default_factory=dict)
    case_seconds: float = 0.0
    wall_seconds: float = 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", required=True, help="interpreter with the libraries")
    parser.add_argument("--cases", type=Path, default=ROOT / "tests/python_callgraph/cases")
    parser.add_argument("--libraries", nargs="+", choices=LIBRARIES, default=LIBRARIES)
    parser.add_argument("--repo", type=Path, help="a real repository to time whole-graph builds on")
    parser.add_argument("--repo-timeout", type=int, default=600)
    parser.add_argument("--exclude-crashing", action="store_true")
    parser.add_argument("--edges-dir", type=Path, help="write each library's repository edges here")
    parser.add_argument("--case-timeout", type=int, default=60)
    parser.add_argument("--skip-suite", action="store_true")
    parser.add_argument("--misses", choices=LIBRARIES, help="also list one library's wrong/missed edges")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--ragstream-root", type=Path, default=ROOT,
                        help="source tree whose ragstream is measured (default: this one)")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = str(args.ragstream_root.resolve())

    cases = load_cases(args.cases)
    output: dict[str, dict] = {}
    if not args.skip_suite:
        print(f"## Construct suite: {len(cases)} cases under {args.cases}\n")
        for library in args.libraries:
            result = run_suite(library, _interpreter(library, args), cases, args.case_timeout)
            output.setdefault(library, {})["suite"] = _print_suite(result)
            if args.misses == library and result.report:
                _print_misses(result.report)
        _print_side_by_side(output)
    if args.repo:
        lines, files = _count_lines(args.repo)
        print(f"## Whole repository: {args.repo} ({files} files, {lines} lines)\n")
        print("| library | graph seconds | library seconds | ast pass seconds | peak RSS MB "
              "| files | call sites | internal edges | status |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for library in ["ast-only", *args.libraries]:
            edges_out = args.edges_dir / f"{library}.json" if args.edges_dir else None
            figures = run_repo(library, _interpreter(library, args), args.repo, args.repo_timeout,
                               edges_out=edges_out)
            if figures.get("error") and args.exclude_crashing and not figures["timed_out"]:
                print(_repo_row(library, figures), flush=True)
                output.setdefault(library, {})["repo_all_files"] = {**figures, "lines": lines}
                figures = run_repo(library, _interpreter(library, args), args.repo,
                                   args.repo_timeout, exclude_crashing=True, edges_out=edges_out)
                figures["excluded_lines"] = sum(
                    (args.repo / path).read_bytes().count(b"\n") for path in figures.get("excluded", {}))
            output.setdefault(library, {})["repo"] = {**figures, "lines": lines, "files": files}
            print(_repo_row(library, figures), flush=True)
        if args.edges_dir:
            _print_agreement(args.edges_dir, "jedi")
    if args.json:
        args.json.write_text(json.dumps(output, indent=1), encoding="utf-8")


def _interpreter(library: str, args: argparse.Namespace) -> str:
    return sys.executable if library == "ragstream" else args.python


def run_suite(library: str, python: str, cases: list, case_timeout: int) -> SuiteResult:
    """All cases in one process of the library; a case that fails scores as no edges."""
    result = SuiteResult(library)
    run = _run_adapter([python, str(ADAPTERS), library, "suite", *(str(c.path) for c in cases),
                        "--case-timeout", str(case_timeout)],
                       timeout=case_timeout * max(len(cases), 1) + 60)
    result.wall_seconds = run.wall_seconds
    if run.records and "error" in run.records[0] and "case" not in run.records[0]:
        result.error = run.records[0]["error"]
        return result
    by_case = {record["case"]: record for record in run.records}
    if run.returncode != 0 or len(by_case) < len(cases):
        result.error = (f"process ended early (exit {run.returncode}, timed out {run.timed_out}) "
                        f"after {len(by_case)} of {len(cases)} cases: {run.stderr_tail}")
    for record in by_case.values():
        result.case_seconds += record["seconds"]
        if record["error"]:
            result.case_errors[record["case"]] = record["error"]
    result.report = score(cases, lambda path: [tuple(edge) for edge in
                                               by_case.get(str(path), {}).get("edges", [])])
    return result


def run_repo(library: str, python: str, repo: Path, timeout: int,
             exclude_crashing: bool = False, edges_out: Path | None = None) -> dict:
    command = [python, str(ADAPTERS), library, "repo", str(repo)]
    if edges_out:
        command += ["--edges-out", str(edges_out.resolve())]
    run = _run_adapter(command + ["--exclude-crashing"] * exclude_crashing, timeout=timeout)
    record = run.records[-1] if run.records else {}
    figures = {"wall_seconds": run.wall_seconds, "peak_rss_mb": run.peak_rss_mb,
               "timed_out": run.timed_out, "returncode": run.returncode, **record}
    if run.timed_out:
        figures["error"] = f"stopped after {timeout} s; last progress: {run.progress}"
    elif not record:
        figures["error"] = f"exit {run.returncode}: {run.stderr_tail}"
    return figures


def _run_adapter(command: list[str], timeout: int) -> Run:
    """Run one adapter process; wait4 gives this child's own peak RSS."""
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env,
                                   cwd=ADAPTERS.parent, start_new_session=True)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - started > timeout:
                os.killpg(process.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(process.pid, 0)
                timed_out = True
                break
            time.sleep(0.05)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        records = [json.loads(line) for line in out.read().splitlines() if line.startswith("{")]
        stderr = err.read()
    progress = None
    other = []
    for line in stderr.splitlines():
        if line.startswith('{"progress"'):
            progress = json.loads(line)
        else:
            other.append(line)
    return Run(records, progress, process.returncode, timed_out, wall, usage.ru_maxrss / 1024,
               "\n".join(other[-8:]))


def _print_suite(result: SuiteResult) -> dict:
    print(f"### {result.library}\n")
    if result.report is None:
        print(f"not run: {result.error}\n", flush=True)
        return {"error": result.error}
    print(format_table(result.report, result.library))
    overall = result.report.overall()
    print(f"\n{result.case_seconds:.2f} s on the cases (in process), {result.wall_seconds:.2f} s "
          f"wall with interpreter start and imports")
    if result.error:
        print(f"error: {result.error}")
    for case, error in sorted(result.case_errors.items()):
        print(f"- case {Path(case).parent.name}/{Path(case).name} failed: {error}")
    print(flush=True)
    return {"precision": overall.precision, "recall": overall.recall,
            "case_seconds": result.case_seconds, "wall_seconds": result.wall_seconds,
            "case_errors": result.case_errors, "error": result.error,
            "by_construct": {name: {"precision": t.precision, "recall": t.recall}
                             for name, t in result.report.by_construct().items()}}


def _print_side_by_side(output: dict[str, dict]) -> None:
    """One table: precision / recall per construct (rows) and library (columns)."""
    scored = {name: figures["suite"] for name, figures in output.items()
              if figures.get("suite", {}).get("by_construct")}
    if not scored:
        return
    constructs = sorted({c for suite in scored.values() for c in suite["by_construct"]})
    print("### Side by side: precision / recall\n")
    print("| construct | " + " | ".join(scored) + " |")
    print("|---|" + "---:|" * len(scored))
    for construct in constructs:
        cells = [scored[name]["by_construct"].get(construct) for name in scored]
        print(f"| {construct} | " + " | ".join(
            f"{c['precision']:.2f} / {c['recall']:.2f}" if c else "" for c in cells) + " |")
    print("| **overall** | " + " | ".join(
        f"**{suite['precision']:.3f} / {suite['recall']:.3f}**" for suite in scored.values()) + " |")
    print("| seconds on the cases | " + " | ".join(
        f"{suite['case_seconds']:.2f}" for suite in scored.values()) + " |\n", flush=True)


def _print_agreement(edges_dir: Path, reference: str) -> None:
    """Each library's repository edges against the reference's: shared, and the share of each."""
    graphs = {path.stem: {tuple(edge) for edge in json.loads(path.read_text(encoding="utf-8"))}
              for path in sorted(edges_dir.glob("*.json"))}
    if reference not in graphs:
        return
    theirs = graphs[reference]
    print(f"\n| library | edges | also in {reference} | share of its edges {reference} has "
          f"| share of {reference}'s edges it has |")
    print("|---|---:|---:|---:|---:|")
    for library, ours in graphs.items():
        if library == reference or not ours:
            continue
        shared = len(ours & theirs)
        print(f"| {library} | {len(ours)} | {shared} | {shared / len(ours):.3f} "
              f"| {shared / len(theirs):.3f} |")
    print(flush=True)


def _print_misses(report: Report) -> None:
    for result in report.results:
        if result.wrong or result.missed:
            print(f"- {result.case.construct}/{result.case.name}: "
                  f"wrong {sorted(result.wrong)} missed {sorted(result.missed)}")
    print()


def _repo_row(library: str, figures: dict) -> str:
    status = figures.get("error") or "ok"
    if figures.get("excluded"):
        status = (f"without {len(figures['excluded'])} files it fails on alone "
                  f"({figures.get('excluded_lines', '?')} lines): "
                  + "; ".join(f"{path}: {error}" for path, error in figures["excluded"].items())
                  + ("" if status == "ok" else f"; then: {status}"))
    status = status.replace("\n", " ").replace("|", "/")[:400]
    seconds, index_seconds = figures.get("seconds"), figures.get("index_seconds")
    library_seconds = graph_seconds = None
    if seconds is not None:
        library_seconds = seconds - index_seconds
        graph_seconds = seconds if figures.get("needs_call_sites") else library_seconds
    if library == "ast-only":
        graph_seconds = library_seconds = None
    return (f"| {library} | {_fmt(graph_seconds)} | {_fmt(library_seconds)} | {_fmt(index_seconds)} "
            f"| {figures['peak_rss_mb']:.0f} | {figures.get('files', '')} "
            f"| {figures.get('call_sites', '')} | {figures.get('edges', '')} | {status} |")


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _count_lines(root: Path) -> tuple[int, int]:
    files = sorted(root.rglob("*.py"))
    return sum(f.read_bytes().count(b"\n") for f in files), len(files)


if __name__ == "__main__":
    main()
