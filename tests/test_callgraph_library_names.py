"""The library benchmark's naming (benchmarks/python_callgraph_adapters/sources.py) gives every
definition the name the construct suite uses, so a library's edges are never lost to naming."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragstream.eval.callgraph_suite import load_cases

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "python_callgraph" / "cases"
sys.path.insert(0, str(ROOT / "benchmarks" / "python_callgraph_adapters"))

from sources import index_sources  # noqa: E402  (the adapters' directory, added above)


def _cases():
    return load_cases(CASES) if CASES.is_dir() else []


@pytest.mark.skipif(not _cases(), reason="the construct suite is not in this checkout")
@pytest.mark.parametrize("case", _cases(), ids=lambda case: f"{case.construct}/{case.name}")
def test_every_name_in_the_truth_is_a_definition_or_module(case):
    index = index_sources(case.path)
    names = set(index.kinds) | set(index.modules.values())
    used = {name for edge in case.expected for name in edge}
    assert used <= names, sorted(used - names)


def test_lambdas_are_numbered_per_enclosing_scope(tmp_path):
    (tmp_path / "main.py").write_text(
        "f = lambda: 1\n"
        "def g():\n"
        "    a, b = (lambda: 2), (lambda: (lambda: 3))\n"
        "class C:\n"
        "    h = lambda self: 4\n", encoding="utf-8")
    index = index_sources(tmp_path)
    lambdas = sorted(name for name, kind in index.kinds.items() if kind == "lambda")
    assert lambdas == ["main.<lambda1>", "main.C.<lambda1>", "main.g.<lambda1>",
                       "main.g.<lambda2>", "main.g.<lambda2>.<lambda1>"]
    callers = {site.caller for site in index.calls}
    assert callers == set()  # defining a lambda is not a call
