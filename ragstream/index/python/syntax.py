"""Questions about Python syntax trees that the parser and the flow facts both ask: which names
a scope binds (and whether it is a generator), what a decorator is called, whether a function is
an abstract hook, a subscript's constant key, the class an annotation names, dotted names and modules.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ScopeNames:
    """What one scope binds (Python's rule: any binding makes a name local), what it declares
    `global` / `nonlocal`, and whether it yields (a generator)."""

    bound: set[str] = field(default_factory=set)
    declared: dict[str, str] = field(default_factory=dict)
    generator: bool = False


# What the walk of `scope_names` does with a node, by its class (one isinstance chain per class,
# not per node). Leaves bind nothing and hold no node: a third of a module's nodes (every `Load`,
# operator and constant), not worth a visit.
_PLAIN, _SCOPE, _DECLARES, _NAME, _IMPORT, _HANDLER, _YIELDS, _LEAF = range(8)
_KIND_TYPES: tuple[tuple[int, tuple[type, ...]], ...] = (
    (_SCOPE, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)), (_DECLARES, (ast.Global, ast.Nonlocal)),
    (_NAME, (ast.Name,)), (_IMPORT, (ast.Import, ast.ImportFrom)), (_HANDLER, (ast.ExceptHandler,)),
    (_YIELDS, (ast.Yield, ast.YieldFrom)),
    (_LEAF, (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop, ast.Constant)),
)
_KINDS: dict[type, int] = {}


def _kind(cls: type) -> int:
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = next((k for k, types in _KIND_TYPES if issubclass(cls, types)), _PLAIN)
    return kind


def scope_names(tree: ast.Module) -> dict[ast.AST, ScopeNames]:
    """The names of the module and of every function, class and lambda in it, in one walk.
    Comprehension variables count as their enclosing scope's (the flow facts treat them so)."""
    scopes: dict[ast.AST, ScopeNames] = {tree: ScopeNames()}
    # Any: each node is told apart by its class's kind (`_kind`), which mypy cannot narrow on
    stack: list[tuple[Any, ast.AST]] = [(child, tree) for child in tree.body]
    kinds = _KINDS
    while stack:
        node, owner = stack.pop()
        kind = kinds.get(node.__class__)
        if kind is None:
            kind = _kind(node.__class__)
        if kind == _LEAF:
            continue
        names = scopes[owner]
        if kind == _SCOPE:
            inner = scopes[node] = ScopeNames()
            if isinstance(node, ast.ClassDef):
                names.bound.add(node.name)
                outer = [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
            else:  # parameters are the function's; defaults and decorators its owner's
                args = node.args
                inner.bound.update(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                                   *(a for a in (args.vararg, args.kwarg) if a)])
                outer = [*args.defaults, *(d for d in args.kw_defaults if d)]
                if not isinstance(node, ast.Lambda):
                    names.bound.add(node.name)
                    outer += node.decorator_list
            stack.extend((part, owner) for part in outer)
            stack.extend((part, node) for part in ([node.body] if isinstance(node, ast.Lambda) else node.body))
            continue
        if kind == _NAME:
            if isinstance(node.ctx, ast.Store):
                names.bound.add(node.id)
            continue
        if kind == _IMPORT:
            names.bound.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
            continue
        if kind == _DECLARES:
            declared = "global" if isinstance(node, ast.Global) else "nonlocal"
            names.declared.update({name: declared for name in node.names})
        elif kind == _HANDLER and node.name:
            names.bound.add(node.name)
        elif kind == _YIELDS:
            names.generator = True
        for attr in node._fields:  # `ast.iter_child_nodes`, inline, less the leaves
            value = getattr(node, attr, None)
            if value.__class__ is list:
                stack.extend([(child, owner) for child in value
                              if isinstance(child, ast.AST) and kinds.get(child.__class__) != _LEAF])
            elif isinstance(value, ast.AST) and kinds.get(value.__class__) != _LEAF:
                stack.append((value, owner))
    for names in scopes.values():
        names.bound -= set(names.declared)
    return scopes


def constant(node: ast.expr | None) -> str | int | None:
    """A subscript's or dict key's constant (a string or an integer), else None."""
    if isinstance(node, ast.Constant) and (type(node.value) is str or type(node.value) is int):  # not a bool
        return node.value
    return None


def is_abstract(node: ast.AST) -> bool:
    """`@abstractmethod`, or a body that only raises NotImplementedError: a hook for subclasses."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if any(decorator_name(d) == "abstractmethod" for d in node.decorator_list):
        return True
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return attribute_chain(exc) == ["NotImplementedError"]


def decorator_name(node: ast.expr) -> str | None:
    chain = attribute_chain(node.func if isinstance(node, ast.Call) else node)
    return chain[-1] if chain else None


def absolute_module(module: str, target: str | None, level: int, is_package: bool) -> str | None:
    """The dotted module `from <level dots><target> import ...` names, inside `module`."""
    if level == 0:
        return target
    package = module.split(".")
    if not is_package:
        package = package[:-1]
    if level - 1 > len(package):
        return None  # beyond the top of the repository: nothing to resolve to
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def attribute_chain(expr: ast.expr) -> list[str] | None:
    """`a.b.c` -> ['a', 'b', 'c']; None for anything that is not a plain dotted name."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return parts[::-1]


def unwrap_optional(annotation: ast.expr) -> ast.expr:
    """`Optional[X]`, `X | None` and `"X"` -> X, so the class can be named."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return unwrap_optional(ast.parse(annotation.value, mode="eval").body)
        except SyntaxError:
            return annotation
    if isinstance(annotation, ast.Subscript) and attribute_chain(annotation.value) in (
            ["Optional"], ["typing", "Optional"]):
        return unwrap_optional(annotation.slice)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        left = annotation.left
        if isinstance(left, ast.Constant) and left.value is None:
            return unwrap_optional(annotation.right)
        return unwrap_optional(left)
    return annotation
