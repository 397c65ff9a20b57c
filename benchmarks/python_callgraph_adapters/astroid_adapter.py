"""astroid: for each call site, `infer()` on the called expression (astroid's inference).

Each file is built with an `AstroidManager` whose search path is the directory, so imports
between the directory's modules resolve. A function, bound/unbound method or lambda inferred is
the callee; a class inferred is called (the class, and the first `__init__` along astroid's own
`mro()`); an instance is called through its class's `__call__` (`getattr`). Uninferable results
and definitions outside the directory are dropped.
"""
from __future__ import annotations

import sys
from collections import defaultdict

from astroid import bases, nodes
from astroid.exceptions import AstroidError
from astroid.manager import AstroidManager

from sources import CallSite, SourceIndex

Edge = tuple[str, str]
NEEDS_CALL_SITES = True  # resolves the call sites listed by the stdlib `ast` pass
Position = tuple[int, int, int | None, int | None]


def reset() -> None:
    """Forget the previous case (the cases reuse module names such as `main`)."""
    AstroidManager().clear_cache()


def edges(index: SourceIndex, progress=None) -> set[Edge]:
    manager = AstroidManager()
    sys.path.insert(0, str(index.root))
    try:
        return _edges(index, manager, progress)
    finally:
        sys.path.remove(str(index.root))


def _edges(index: SourceIndex, manager: AstroidManager, progress) -> set[Edge]:
    sites: dict[str, list[CallSite]] = defaultdict(list)
    for site in index.calls:
        sites[site.path].append(site)
    found: set[Edge] = set()
    for number, (path, file_sites) in enumerate(sorted(sites.items()), 1):
        module = manager.ast_from_file(str(index.root / path), index.modules[path], source=True)
        expressions = _expressions_by_position(module)
        for site in file_sites:
            node = expressions.get(_position(site.func))
            if node is None:
                continue
            for callee in _callees(index, node):
                found.add((site.caller, callee))
        if progress:
            progress(number, len(sites))
    return found


def _position(node) -> Position:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def _expressions_by_position(module: nodes.Module) -> dict[Position, nodes.NodeNG]:
    """astroid keeps the stdlib parser's positions, so a call site finds its astroid node."""
    found = {}
    for node in module.nodes_of_class(nodes.NodeNG):
        if getattr(node, "lineno", None) is not None and not node.is_statement:
            found.setdefault(_position(node), node)
    return found


def _callees(index: SourceIndex, node: nodes.NodeNG) -> list[str]:
    try:
        values = list(node.infer())
    except (AstroidError, RecursionError):
        return []
    callees = []
    for value in values:
        while isinstance(value, bases.UnboundMethod):  # a bound method proxies an unbound one
            value = value._proxied
        if isinstance(value, nodes.ClassDef):
            callees += [name for name in (_name_of(index, value), _init_of(index, value)) if name]
        elif isinstance(value, nodes.FunctionDef | nodes.Lambda):
            callees += [name for name in [_name_of(index, value)] if name]
        elif isinstance(value, bases.Instance) and not isinstance(value, nodes.Const):
            callees += _call_of(index, value)
    return callees


def _init_of(index: SourceIndex, cls: nodes.ClassDef) -> str | None:
    try:
        order = cls.mro()
    except (AstroidError, RecursionError):
        order = [cls, *cls.ancestors()]
    for klass in order:
        if "__init__" in klass.locals:
            method = klass.locals["__init__"][0]
            return _name_of(index, method) if isinstance(method, nodes.FunctionDef) else None
    return None


def _call_of(index: SourceIndex, instance: bases.Instance) -> list[str]:
    try:
        methods = instance._proxied.getattr("__call__")
    except (AstroidError, RecursionError):
        return []
    return [name for method in methods if isinstance(method, nodes.FunctionDef)
            for name in [_name_of(index, method)] if name]


def _name_of(index: SourceIndex, node: nodes.NodeNG) -> str | None:
    path = index.relative(node.root().file)
    if path is None:
        return None
    if isinstance(node, nodes.Lambda) and not isinstance(node, nodes.FunctionDef):
        return index.name_of(path, node.lineno, "<lambda>", node.col_offset)
    position = node.position  # the `def`/`class` line; `lineno` is the first decorator's
    return index.name_of(path, position.lineno if position else node.lineno, node.name)
