"""The call-graph suite's hand-written truths agree with what the programs really do.

Why: a wrong truth is worse than a missing case. Each case runs under a profiler in a fresh
interpreter; every internal call it makes must be listed in its calls.json (the truth may list
more: class edges, which a profiler cannot see, and callees of branches a run did not take).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragstream.eval.callgraph_suite import Case, load_cases

CASES = load_cases(Path(__file__).parent / "python_callgraph" / "cases")
CONSTRUCTS = {"assignments", "arguments", "classes", "decorators", "dicts", "direct_calls",
              "exceptions", "functions", "generators", "imports", "kwargs", "lambdas", "lists",
              "mro", "returns", "attributes_init", "receivers", "annotations", "combinations"}
REPO_ROOT = Path(__file__).parent.parent


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.construct}/{case.name}")
def test_runtime_calls_are_in_the_truth(case: Case) -> None:
    run = subprocess.run([sys.executable, "-m", "ragstream.eval.callgraph_trace", str(case.path)],
                         capture_output=True, text=True, timeout=60, cwd=REPO_ROOT,
                         env={"PYTHONPATH": str(REPO_ROOT), "PYTHONDONTWRITEBYTECODE": "1"})
    assert run.returncode == 0, run.stderr[-2000:]
    observed = {tuple(edge) for edge in json.loads(run.stdout.strip().splitlines()[-1])}
    assert observed, "the program made no internal call"
    assert not observed - case.expected, f"called but not in calls.json: {sorted(observed - case.expected)}"


def test_every_construct_has_cases() -> None:
    per_construct = {construct: sum(case.construct == construct for case in CASES)
                     for construct in CONSTRUCTS}
    assert {case.construct for case in CASES} == CONSTRUCTS
    assert min(per_construct.values()) >= 4, per_construct
    assert all(case.expected for case in CASES)
