"""Score a Python call graph against the construct suite: small programs with their true calls.

Each case is a directory of `.py` files and a `calls.json` listing every internal call edge as
[caller, callee] qualified names (conventions in tests/python_callgraph/README.md). Any call
graph generator that names its edges the same way can be scored: ragstream's own graph, or a
library's (benchmarks/python_callgraph_libraries.py). Precision and recall are counted per
construct (the case's parent directory) and over all cases.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

Edge = tuple[str, str]


@dataclass(frozen=True)
class Case:
    construct: str
    name: str
    path: Path
    expected: frozenset[Edge]


@dataclass
class Tally:
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    cases: int = 0
    empty_cases: int = 0  # cases with expected calls of which none was found

    @property
    def precision(self) -> float:
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else 1.0

    @property
    def recall(self) -> float:
        expected = self.true_positives + self.false_negatives
        return self.true_positives / expected if expected else 1.0


@dataclass
class CaseResult:
    case: Case
    found: frozenset[Edge]

    @property
    def missed(self) -> set[Edge]:
        return set(self.case.expected - self.found)

    @property
    def wrong(self) -> set[Edge]:
        return set(self.found - self.case.expected)


@dataclass
class Report:
    results: list[CaseResult] = field(default_factory=list)

    def by_construct(self) -> dict[str, Tally]:
        tallies: dict[str, Tally] = {}
        for result in self.results:
            _add(tallies.setdefault(result.case.construct, Tally()), result)
        return dict(sorted(tallies.items()))

    def overall(self) -> Tally:
        tally = Tally()
        for result in self.results:
            _add(tally, result)
        return tally


def _add(tally: Tally, result: CaseResult) -> None:
    hits = len(result.case.expected & result.found)
    tally.true_positives += hits
    tally.false_positives += len(result.wrong)
    tally.false_negatives += len(result.missed)
    tally.cases += 1
    tally.empty_cases += bool(result.case.expected) and hits == 0


def load_cases(root: Path) -> list[Case]:
    """Every `<construct>/<case>/calls.json` under `root`, in a stable order."""
    cases = []
    for spec in sorted(root.glob("*/*/calls.json")):
        data = json.loads(spec.read_text(encoding="utf-8"))
        edges = frozenset((caller, callee) for caller, callee in data["edges"])
        cases.append(Case(spec.parent.parent.name, spec.parent.name, spec.parent, edges))
    return cases


def score(cases: Iterable[Case], edges_of: Callable[[Path], Iterable[Edge]]) -> Report:
    """Run a generator (`edges_of(case directory)`) on every case and compare with the truth."""
    return Report([CaseResult(case, frozenset(edges_of(case.path))) for case in cases])


def score_index(cases: Iterable[Case], by_name: bool = True) -> Report:
    """The index graph (nested functions and lambdas folded into their enclosing function) scored
    against the truth folded the same way (`fold`)."""
    results = []
    for case in cases:
        named, found = index_edges(case.path, by_name)
        results.append(CaseResult(replace(case, expected=fold(case.expected, named)), frozenset(found)))
    return Report(results)


def fold(edges: Iterable[Edge], named: set[str]) -> frozenset[Edge]:
    """The truth as the index graph can hold it: a caller without a node of its own is its nearest
    enclosing scope that has one; a call of a scope without a node (a nested function or lambda) is
    no call of anything the index holds, so it is left out; a call of a class is one edge, to the
    class, not also to the `__init__` it runs."""
    def nearest(scope: str) -> str:
        while scope not in named and "." in scope:
            scope = scope.rsplit(".", 1)[0]
        return scope

    edges = set(edges)
    return frozenset((nearest(caller), callee) for caller, callee in edges
                     if callee in named and (nearest(caller) != callee or caller == callee)
                     and (caller, callee.removesuffix(".__init__")) not in edges - {(caller, callee)})


def format_table(report: Report, title: str) -> str:
    """Markdown table: per construct and overall precision, recall and empty cases."""
    lines = [f"| {title} | cases | expected | found | precision | recall | cases with none found |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    rows = [*report.by_construct().items(), ("**overall**", report.overall())]
    for construct, tally in rows:
        expected = tally.true_positives + tally.false_negatives
        found = tally.true_positives + tally.false_positives
        lines.append(f"| {construct} | {tally.cases} | {expected} | {found} | {tally.precision:.3f} "
                     f"| {tally.recall:.3f} | {tally.empty_cases} |")
    return "\n".join(lines)


def index_edges(case_dir: Path, by_name: bool = True) -> tuple[set[str], set[Edge]]:
    """(names of the Python nodes, CALLS edges between them) of the index graph of a directory."""
    from ragstream.index.graph_build import build_graph

    graph, _ = build_graph(_parsed(case_dir), python_guesses=by_name)
    names = {node: attrs["name"] for node, attrs in graph.nodes(data=True) if node.startswith("py:")}
    return set(names.values()), {(names[source], names[target]) for source, target, kind in graph.edges(keys=True)
                                 if kind == "CALLS" and source in names and target in names}


def _parsed(case_dir: Path) -> list:
    from ragstream.index.python.parser import module_names, parse_python

    paths = sorted(p.relative_to(case_dir).as_posix() for p in case_dir.rglob("*.py"))
    modules = module_names(paths)
    return [parse_python(path, (case_dir / path).read_text(encoding="utf-8"), modules[path]) for path in paths]


def ragstream_edges(case_dir: Path, by_name: bool = True) -> set[Edge]:
    """ragstream's Python call graph of a directory (nested functions and lambdas as callers
    and callees of their own, before the index folds them into their enclosing function)."""
    from ragstream.index.python.calls.link import resolve_calls

    program, calls = resolve_calls(_parsed(case_dir), by_name=by_name)
    return {(program.display(call.caller), program.display(call.callee)) for call in calls
            if call.how != "external"}
