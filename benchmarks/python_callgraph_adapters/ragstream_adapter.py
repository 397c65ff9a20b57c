"""ragstream's own graph, for the same measurements: `parse_python` every file, then `build_graph`.

Run under the project's interpreter (the driver starts it with its own `sys.executable` and the
worktree on PYTHONPATH); the edges are those of `ragstream_edges`, the scorer's reference.
"""
from __future__ import annotations

from ragstream.eval.callgraph_suite import ragstream_edges

from sources import SourceIndex

Edge = tuple[str, str]


def edges(index: SourceIndex, progress=None) -> set[Edge]:
    return ragstream_edges(index.root)
