"""PyCG 0.0.8: `CallGraphGenerator` over every file of the directory as an entry point.

PyCG names its nodes with the suite's own scheme (`pkg.mod.Class.method`, `f.<lambdaN>`), so
its edges are kept as they are, less the ones with an end outside the directory (builtins,
the standard library). Two translations: PyCG records `A(...)` as a call of `A.__init__` only,
so an edge to a class's `__init__` also counts as a call of the class (an explicit
`A.__init__(self)` is then over-counted); and the PyPI wheel ships its package as `PyCG` while
its code imports `pycg`, so the import is aliased (it fails on a case-sensitive file system).
"""
from __future__ import annotations

import importlib
import sys

sys.modules.setdefault("pycg", importlib.import_module("PyCG"))
from pycg.pycg import CallGraphGenerator  # noqa: E402  (after the alias above)

from sources import SourceIndex  # noqa: E402

Edge = tuple[str, str]


def edges(index: SourceIndex, progress=None) -> set[Edge]:
    entry_points = [str(index.root / path) for path in sorted(index.trees)]
    generator = CallGraphGenerator(entry_points, str(index.root), -1, "call-graph")
    generator.analyze()
    known = set(index.kinds) | set(index.modules.values())
    found: set[Edge] = set()
    for caller, callees in generator.output().items():
        if caller not in known:
            continue
        for callee in callees:
            if callee in known:
                found.add((caller, callee))
            owner, _, attribute = callee.rpartition(".")
            if attribute == "__init__" and index.kinds.get(owner) == "class":
                found.add((caller, owner))
    return found
