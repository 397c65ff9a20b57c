"""Where a code edit's re-index goes, step by step (issue 40, sixth pass).

    PYTHONPATH=$PWD:benchmarks .venv/bin/python benchmarks/code_edit_steps.py PATH [--runs 3]

The repository's indexable files are copied and built (`build_index(..., fill=False)`), then
`--runs` code edits are made as `benchmarks/refresh.py` makes them (a function calling two
builtins appended to the largest Python file), each re-indexed told what changed, and the CPU
seconds of each step printed: the steps are timed by wrapping the functions that make them
(`time.process_time`, this process only: the parse of one file runs here). A step's figure
includes the steps inside it (`resolve_calls` holds `solve`, which holds `definitions`). Then
the Python call solve of the last build's files is counted (each edit's first publication --
askable, the interim generation where the code measured makes one -- is timed too): scopes, items, item evaluations,
scope rounds and restarts for changed class bases.
"""
from __future__ import annotations

import argparse
import functools
import gc
import tempfile
import time
from collections import Counter
from pathlib import Path

from index_bench import copy_indexable
from refresh import FirstPublication, code_edit, cpu_seconds

import ragstream.index.build as build
import ragstream.index.graph_build as graph_build
import ragstream.index.python.calls.link as link
from ragstream.config import load_settings
from ragstream.index.python.calls.program import Program
from ragstream.index.python.calls.solver import Solver
from ragstream.index.python.calls.value_tables import Memo

SPENT: Counter = Counter()
STEPS = [(build, "build_graph"), (build, "_graph_text"), (build, "write_compact_forms"), (build, "build_chunks"),
         (build, "reusable_chunks"), (build, "_parse_all"), (build, "write_bm25"), (build, "parsed_json"),
         (build, "label_access"), (graph_build, "link_python_calls"), (graph_build, "settle_ef_mappings"),
         (graph_build, "link_dispatch"), (link, "resolve_calls"), (link, "solve_key"), (link, "_strongest"),
         (link, "_guesses"), (link, "_externals"), (Solver, "solve"), (Solver, "calls"),
         (Solver, "_solve_definitions"), (Solver, "__init__"), (graph_build, "evolve_schema"),
         (Program, "from_records")]
if hasattr(link, "LineFreeFacts"):  # each file's line-free facts kept (seventh pass): what making them costs
    STEPS.append((link.LineFreeFacts, "of"))
if hasattr(build, "interim_graph"):  # the interim generation published first (eighth pass)
    STEPS += [(build, "interim_graph"), (build, "_interim_text")]


def timed(owner, name: str) -> None:
    """Replace `owner.name` by a wrapper adding its CPU seconds to SPENT."""
    inner = getattr(owner, name)
    label = f"{getattr(owner, '__name__', owner)}.{name}".rsplit(".", 2)[-2:]

    @functools.wraps(inner)
    def wrapper(*args, **kwargs):
        started = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            SPENT[".".join(label)] += time.process_time() - started

    setattr(owner, name, wrapper)


def solve_counts(files: list) -> dict:
    """How much work one solve of `files` is: items evaluated, scope rounds, MRO restarts."""
    records = [f.flow for f in files if f.language == "python" and f.flow]
    program = Program.from_records([[link._without_lines(r) for r in scopes] for scopes in records])
    solver = Solver(program)
    counts = Counter({"scope rounds": 0, "item evaluations": 0, "MRO restarts": 0})
    run_round, clear = Solver._round, Memo.clear

    def counted_round(self, scope, record, stale):
        counts["scope rounds"] += 1
        counts["item evaluations"] += sum(1 for item, _, _ in self.items[scope] if item in stale)
        return run_round(self, scope, record, stale)

    def counted_clear(self):
        counts["MRO restarts"] += 1
        return clear(self)

    Solver._round, Memo.clear = counted_round, counted_clear  # type: ignore[method-assign]
    try:
        solver.solve()
    finally:
        Solver._round, Memo.clear = run_round, clear  # type: ignore[method-assign]
    return {"scopes": len(program.scopes), "items": len(solver.tracker.scope_of), **counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for owner, name in STEPS:
        timed(owner, name)
    with tempfile.TemporaryDirectory(prefix="ragstream-steps-") as scratch:
        copy = copy_indexable(args.path.resolve(), Path(scratch))
        settings = load_settings(overrides={"index": {"data_dir": str(Path(scratch) / "data")}})
        build.build_index(copy, settings, fill=False)
        for n in range(args.runs):
            target = code_edit(copy, n)
            if target is None:
                raise SystemExit("no Python file to edit")
            gc.collect()
            SPENT.clear()
            first = FirstPublication()
            report = build.build_index(copy, settings, fill=False, changed=[target.relative_to(copy).as_posix()],
                                       progress=first)
            assert first.at is not None
            print(f"code edit {n + 1}: askable {first.at[0]:.2f} s wall, {first.at[1]:.2f} CPU s; all "
                  f"{time.perf_counter() - first.began:.2f} s wall, {cpu_seconds() - first.used:.2f} CPU s;"
                  f" phases {report.seconds}")
            for step, seconds in SPENT.most_common():
                print(f"  {step:<32} {seconds:.3f}")
        files = [record.parsed for record in build.warm_state(build.locate(build.repository_info(copy), settings),
                                                              start_over=False).linked.records.values()]
        print("solve:", solve_counts(files))


if __name__ == "__main__":
    main()
