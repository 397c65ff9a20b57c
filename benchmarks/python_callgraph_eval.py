"""ragstream's Python call graph on the construct suite: precision and recall per construct.

    .venv/bin/python benchmarks/python_callgraph_eval.py [--no-guesses] [--misses] [--index-graph]

Scores the development cases (tests/python_callgraph/cases) and the held-out ones
(tests/python_callgraph/heldout, written without looking at the resolver) separately, with the
by-name fallback on (the default index setting) or off; `--misses` lists every missed and every
wrong edge per case; `--index-graph` scores the index graph instead (nested functions and lambdas
folded into their enclosing function, the truth folded alike: `callgraph_suite.fold`). The same scorer measures the libraries (python_callgraph_libraries.py).
"""
from __future__ import annotations

import argparse
import time
from functools import partial
from pathlib import Path

from ragstream.eval.callgraph_suite import format_table, load_cases, ragstream_edges, score, score_index

SUITE = Path(__file__).resolve().parent.parent / "tests" / "python_callgraph"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--no-guesses", action="store_true", help="without the by-name fallback")
    parser.add_argument("--misses", action="store_true", help="list missed and wrong edges per case")
    parser.add_argument("--index-graph", action="store_true", help="score the index graph (nested scopes folded)")
    args = parser.parse_args()
    for folder in ("cases", "heldout"):
        started = time.perf_counter()
        cases = load_cases(SUITE / folder)
        report = score_index(cases, not args.no_guesses) if args.index_graph \
            else score(cases, partial(ragstream_edges, by_name=not args.no_guesses))
        print(format_table(report, folder))
        print(f"({time.perf_counter() - started:.1f} s)\n")
        if args.misses:
            for result in report.results:
                if result.missed or result.wrong:
                    print(f"{result.case.construct}/{result.case.name}: missed {sorted(result.missed)}, "
                          f"wrong {sorted(result.wrong)}")


if __name__ == "__main__":
    main()
