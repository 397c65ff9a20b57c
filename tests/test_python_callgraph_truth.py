"""The call-graph suite's hand-written truths agree with what the programs really do.

Why: a wrong truth is worse than a missing case. Each case (the development cases and the
held-out ones) runs under a profiler in a fresh interpreter; every internal call it makes must be
listed in its calls.json (the truth may list more: class edges, which a profiler cannot see, and
callees of branches a run did not take). A run may also make calls the spec says are not edges
(property getters, implicit dunders such as __enter__, callbacks invoked by builtins, generator
bodies started by their consumer); a case lists those under "not_edges" with the reason.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragstream.eval.callgraph_suite import Case, Edge, load_cases

SUITE = Path(__file__).parent / "python_callgraph"
CASES = load_cases(SUITE / "cases")
HELDOUT_CASES = load_cases(SUITE / "heldout")
CONSTRUCTS = {"assignments", "arguments", "classes", "decorators", "dicts", "direct_calls",
              "exceptions", "functions", "generators", "imports", "kwargs", "lambdas", "lists",
              "mro", "returns", "attributes_init", "receivers", "annotations", "combinations"}
HELDOUT_CONSTRUCTS = {"realistic_apps", "realistic_libs", "mixins", "callbacks", "registries",
                      "factories", "chaining", "packages", "closures", "misc"}
REPO_ROOT = Path(__file__).parent.parent


def not_edges(case: Case) -> set[Edge]:
    """Runtime calls the spec excludes, listed in calls.json as [caller, callee, reason]."""
    data = json.loads((case.path / "calls.json").read_text(encoding="utf-8"))
    return {(caller, callee) for caller, callee, _reason in data.get("not_edges", [])}


@pytest.mark.slow  # 205 fresh interpreters
@pytest.mark.parametrize("case", CASES + HELDOUT_CASES,
                         ids=lambda case: f"{case.path.parent.parent.name}/{case.construct}/{case.name}")
def test_runtime_calls_are_in_the_truth(case: Case) -> None:
    run = subprocess.run([sys.executable, "-m", "ragstream.eval.callgraph_trace", str(case.path)],
                         capture_output=True, text=True, timeout=60, cwd=REPO_ROOT,
                         env={"PYTHONPATH": str(REPO_ROOT), "PYTHONDONTWRITEBYTECODE": "1"})
    assert run.returncode == 0, run.stderr[-2000:]
    observed = {tuple(edge) for edge in json.loads(run.stdout.strip().splitlines()[-1])}
    excluded = not_edges(case)
    assert observed, "the program made no internal call"
    assert not excluded & case.expected, f"both an edge and a not-edge: {sorted(excluded & case.expected)}"
    assert not excluded - observed, f"not-edges the run never made: {sorted(excluded - observed)}"
    unexpected = observed - case.expected - excluded
    assert not unexpected, f"called but not in calls.json: {sorted(unexpected)}"


@pytest.mark.parametrize("cases, constructs", [(CASES, CONSTRUCTS), (HELDOUT_CASES, HELDOUT_CONSTRUCTS)],
                         ids=["cases", "heldout"])
def test_every_construct_has_cases(cases: list[Case], constructs: set[str]) -> None:
    per_construct = {construct: sum(case.construct == construct for case in cases)
                     for construct in constructs}
    assert {case.construct for case in cases} == constructs
    assert min(per_construct.values()) >= 4, per_construct
    assert all(case.expected for case in cases)
