"""What a path is for: code, or tests, fixtures, samples, examples and benchmarks (which exercise
the code rather than being it: a question about the code rarely wants them first, and a semantic
fill embeds them last). A path is read below the code's root, the folder all of an index's files
share: an application whose code all lives under `sample/src/` is the code, not a sample."""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

TEST_PATH = re.compile(r"(^|/)(tests?|testing|samples?|examples?|fixtures?|benchmarks?)/|(^|/)test_[^/]*$|_test\.\w+$")


def is_test_path(path: str, root: str = "") -> bool:
    """Whether the path, below `root` (`code_root`), is a test's, a fixture's, a sample's ..."""
    return bool(TEST_PATH.search(path[len(root):] if root and path.startswith(root) else path))


def in_tests(graph: Any, node: str) -> bool:
    """Whether a graph's node is code of a test, fixture, sample or benchmark (its `path` below
    the graph's `code_root`)."""
    return node in graph and is_test_path(graph.nodes[node].get("path") or "", graph.graph.get("code_root", ""))


def code_root(paths: Iterable[str]) -> str:
    """The folder (ending in `/`) every path lies under; "" when they share none."""
    folders = [path.split("/")[:-1] for path in paths if path]
    if not folders:
        return ""
    shared = folders[0]
    for parts in folders[1:]:
        same = 0
        while same < min(len(shared), len(parts)) and shared[same] == parts[same]:
            same += 1
        shared = shared[:same]
    return "/".join(shared) + "/" if shared else ""
