"""Questions about Python syntax trees that the parser and the flow facts both ask: which names
a scope binds, what a decorator is called, whether a function is a generator or an abstract
hook, a subscript's constant key, the class an annotation names, dotted names and modules.
"""
from __future__ import annotations

import ast


def local_names(node: ast.AST) -> tuple[set[str], dict[str, str]]:
    """Names bound in the scope of `node` (Python's rule: any binding makes a name local) and
    those declared `global` / `nonlocal` there."""
    bound: set[str] = set()
    declared: dict[str, str] = {}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        bound.update(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs)
        bound.update(a.arg for a in (args.vararg, args.kwarg) if a)
    body = [node.body] if isinstance(node, ast.Lambda) else node.body
    stack = list(body)
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(current.name)
            stack.extend(current.decorator_list)
            if isinstance(current, ast.ClassDef):
                stack.extend(current.bases)
            else:
                stack.extend(d for d in current.args.defaults + current.args.kw_defaults if d)
            continue
        if isinstance(current, ast.Lambda):
            stack.extend(current.args.defaults)
            continue
        if isinstance(current, (ast.Global, ast.Nonlocal)):
            kind = "global" if isinstance(current, ast.Global) else "nonlocal"
            declared.update({name: kind for name in current.names})
        elif isinstance(current, ast.Name) and isinstance(current.ctx, ast.Store):
            bound.add(current.id)
        elif isinstance(current, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in current.names if a.name != "*")
        elif isinstance(current, ast.ExceptHandler) and current.name:
            bound.add(current.name)
        stack.extend(ast.iter_child_nodes(current))
    return bound - set(declared), declared


def constant(node: ast.expr | None) -> str | int | None:
    """A subscript's or dict key's constant (a string or an integer), else None."""
    if isinstance(node, ast.Constant) and type(node.value) in (str, int):
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


def is_generator(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    stack = list(fn.body)
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(current))
    return False


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
