"""Questions about Python syntax trees that the parser and the flow facts both ask: which names
a scope binds (and whether it is a generator), what a decorator is called, whether a function is
an abstract hook, a subscript's constant key, the class an annotation names, dotted names and modules.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass
class ScopeNames:
    """What one scope binds (Python's rule: any binding makes a name local), what it declares
    `global` / `nonlocal`, and whether it yields (a generator)."""

    bound: set[str] = field(default_factory=set)
    declared: dict[str, str] = field(default_factory=dict)
    generator: bool = False


# Nodes that bind nothing and hold no node: a third of a module's nodes (every `Load`, operator and
# constant), not worth a visit.
_LEAVES = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop, ast.Constant)


def scope_names(tree: ast.Module) -> dict[ast.AST, ScopeNames]:
    """The names of the module and of every function, class and lambda in it, in one walk.
    Comprehension variables count as their enclosing scope's (the flow facts treat them so)."""
    scopes: dict[ast.AST, ScopeNames] = {tree: ScopeNames()}
    stack: list[tuple[ast.AST, ast.AST]] = [(child, tree) for child in tree.body]
    while stack:
        node, owner = stack.pop()
        names = scopes[owner]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
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
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            kind = "global" if isinstance(node, ast.Global) else "nonlocal"
            names.declared.update({name: kind for name in node.names})
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                names.bound.add(node.id)
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.bound.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
            continue
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.bound.add(node.name)
        elif isinstance(node, (ast.Yield, ast.YieldFrom)):
            names.generator = True
        for name in node._fields:  # `ast.iter_child_nodes`, inline, less the leaves
            value = getattr(node, name, None)
            if value.__class__ is list:
                stack.extend([(child, owner) for child in value
                              if isinstance(child, ast.AST) and not isinstance(child, _LEAVES)])
            elif isinstance(value, ast.AST) and not isinstance(value, _LEAVES):
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
