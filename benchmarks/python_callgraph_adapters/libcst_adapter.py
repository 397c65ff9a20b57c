"""libcst: the fully qualified name of each called expression (`FullyQualifiedNameProvider`).

libcst resolves names through scopes and imports (relative ones too), not values: `x = f; x()`,
`self.m()` or `obj.m()` get no name of a definition. A name that is a function or lambda
defined in the directory is the callee (`outer.<locals>.inner` is the suite's `outer.inner`); a
class is called, with the `__init__` defined in its own body (libcst has no class hierarchy,
so an inherited `__init__` is not found).
"""
from __future__ import annotations

from collections import defaultdict

import libcst as cst
from libcst.metadata import FullRepoManager, FullyQualifiedNameProvider, PositionProvider

from sources import CallSite, SourceIndex

Edge = tuple[str, str]
NEEDS_CALL_SITES = True  # resolves the call sites listed by the stdlib `ast` pass


def edges(index: SourceIndex, progress=None) -> set[Edge]:
    paths = sorted(index.trees)
    manager = FullRepoManager(str(index.root), [str(index.root / p) for p in paths],
                              {FullyQualifiedNameProvider})
    sites: dict[str, list[CallSite]] = defaultdict(list)
    for site in index.calls:
        sites[site.path].append(site)
    found: set[Edge] = set()
    for number, path in enumerate(paths, 1):
        if sites[path]:
            found |= _file_edges(index, manager, path, sites[path])
        if progress:
            progress(number, len(paths))
    return found


def _file_edges(index: SourceIndex, manager: FullRepoManager, path: str,
                sites: list[CallSite]) -> set[Edge]:
    wrapper = manager.get_metadata_wrapper_for_path(str(index.root / path))
    names = wrapper.resolve(FullyQualifiedNameProvider)
    positions = wrapper.resolve(PositionProvider)
    by_range = {}
    for node, qualified in names.items():
        if isinstance(node, cst.BaseExpression) and node in positions:
            where = positions[node]
            by_range[(where.start.line, where.start.column, where.end.line, where.end.column)] = qualified
    found = set()
    for site in sites:
        func = site.func
        key = (func.lineno, func.col_offset, func.end_lineno, func.end_col_offset)
        for qualified in by_range.get(key, ()):
            name = qualified.name.replace(".<locals>.", ".")
            kind = index.kinds.get(name)
            if kind in ("function", "lambda", "class"):
                found.add((site.caller, name))
            if kind == "class" and f"{name}.__init__" in index.kinds:
                found.add((site.caller, f"{name}.__init__"))
    return found
