"""pyan3: `CallGraphVisitor` over the directory; its "uses" edges are its call graph.

pyan draws an edge for every use of a name from a scope (a call, a decorator, also a reference
that is not a call, such as a base class or a returned function), so its edges are kept as they
are when both ends are defined in the directory. pyan names lambdas `scope.lambda.N` from 0 in
source order; they are renamed to the suite's `scope.<lambdaN+1>`.
"""
from __future__ import annotations

import logging
import re

from pyan.analyzer import CallGraphVisitor

from sources import SourceIndex

Edge = tuple[str, str]
LAMBDA = re.compile(r"\.lambda\.(\d+)(?=\.|$)")


def edges(index: SourceIndex, progress=None) -> set[Edge]:
    files = [str(index.root / path) for path in sorted(index.trees)]
    logger = logging.getLogger("pyan-benchmark")
    logger.setLevel(logging.ERROR)
    visitor = CallGraphVisitor(files, root=str(index.root), logger=logger)
    known = set(index.kinds) | set(index.modules.values())
    found: set[Edge] = set()
    for source, targets in visitor.uses_edges.items():
        caller = _suite_name(source.get_name())
        if caller not in known:
            continue
        for target in targets:
            callee = _suite_name(target.get_name())
            if callee in known:
                found.add((caller, callee))
    return found


def _suite_name(name: str) -> str:
    return LAMBDA.sub(lambda match: f".<lambda{int(match.group(1)) + 1}>", name)
