"""What every adapter needs from a directory of Python files, read with the stdlib `ast` only.

Module names, the qualified name of every definition (keyed by where it is defined, so that a
library's answer "the function defined at file F, line L" maps to the suite's name for it),
and every call site with the scope it belongs to. The naming follows the construct suite's
conventions (tests/python_callgraph/README.md): `pkg/mod.py` -> `pkg.mod`, `main.A.method`,
`main.outer.inner`, `<lambdaN>` numbered in source order within the directly enclosing scope.
Runs in the libraries' interpreter, so it imports nothing from ragstream.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

DefKey = tuple[str, int, str]  # (relative path, line of `def`/`class`/`lambda`, name or "<lambda>")


@dataclass(frozen=True)
class CallSite:
    """One call: `kind` is "call", "decorator" (a decorator applied to a def) or "raise"."""

    path: str
    caller: str
    kind: str
    func: ast.expr  # the called expression (`f` in `f(x)`, the decorator, the raised class)


@dataclass
class SourceIndex:
    root: Path
    modules: dict[str, str] = field(default_factory=dict)  # relative path -> module name
    definitions: dict[DefKey, str] = field(default_factory=dict)  # -> qualified name
    lambdas: dict[tuple[str, int, int], str] = field(default_factory=dict)  # (path, line, col)
    kinds: dict[str, str] = field(default_factory=dict)  # qualified name -> function/class/lambda
    calls: list[CallSite] = field(default_factory=list)
    trees: dict[str, ast.Module] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # files that do not parse

    def name_of(self, path: str, line: int, name: str, column: int | None = None) -> str | None:
        """The qualified name of the definition at `path`:`line` called `name` (or a lambda)."""
        if name == "<lambda>" and column is not None:
            found = self.lambdas.get((path, line, column))
            if found:
                return found
        return self.definitions.get((path, line, name))

    def relative(self, file: str | Path | None) -> str | None:
        if file is None:
            return None
        try:
            return Path(file).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None


def module_name(path: str) -> str:
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def index_sources(root: Path, only: set[str] | None = None) -> SourceIndex:
    """Index every `.py` file under `root` (or only the relative paths in `only`)."""
    index = SourceIndex(root)
    for file in sorted(root.rglob("*.py")):
        path = file.relative_to(root).as_posix()
        if only is not None and path not in only:
            continue
        index.modules[path] = module_name(path)
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"), filename=path)
        except (SyntaxError, ValueError, UnicodeDecodeError) as error:
            index.errors[path] = f"{type(error).__name__}: {error}"
            continue
        index.trees[path] = tree
        _ScopeWalker(index, path).walk_scope(index.modules[path], tree.body)
    return index


class _ScopeWalker:
    """Names the scopes of one file and lists its call sites with their caller."""

    def __init__(self, index: SourceIndex, path: str):
        self.index = index
        self.path = path

    def walk_scope(self, qualname: str, body: list[ast.AST] | ast.expr) -> None:
        """Visit one scope's own code; nested defs, classes and lambdas open scopes of their own."""
        lambdas: list[ast.Lambda] = []
        pending = list(body) if isinstance(body, list) else [body]
        nested: list[tuple[str, list[ast.AST] | ast.expr]] = []
        while pending:
            node = pending.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{qualname}.{node.name}"
                self.index.definitions[(self.path, node.lineno, node.name)] = name
                self.index.kinds[name] = "class" if isinstance(node, ast.ClassDef) else "function"
                for decorator in node.decorator_list:
                    self.index.calls.append(CallSite(self.path, qualname, "decorator", decorator))
                    pending.append(decorator)
                pending.extend(_header_expressions(node))
                nested.append((name, node.body))
                continue
            if isinstance(node, ast.Lambda):
                lambdas.append(node)
                pending.extend(node.args.defaults + [d for d in node.args.kw_defaults if d])
                continue
            if isinstance(node, ast.Call):
                self.index.calls.append(CallSite(self.path, qualname, "call", node.func))
            if isinstance(node, ast.Raise) and node.exc is not None \
                    and not isinstance(node.exc, ast.Call):
                self.index.calls.append(CallSite(self.path, qualname, "raise", node.exc))
            pending.extend(ast.iter_child_nodes(node))
        for number, node in enumerate(sorted(lambdas, key=lambda n: (n.lineno, n.col_offset)), 1):
            name = f"{qualname}.<lambda{number}>"
            self.index.lambdas[(self.path, node.lineno, node.col_offset)] = name
            self.index.definitions.setdefault((self.path, node.lineno, "<lambda>"), name)
            self.index.kinds[name] = "lambda"
            nested.append((name, node.body))
        for name, inner in nested:
            self.walk_scope(name, inner)


def _header_expressions(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.AST]:
    """Code of a def/class line that runs in the enclosing scope: defaults, bases, annotations."""
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *(k.value for k in node.keywords)]
    args = node.args
    annotations = [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                          args.vararg, args.kwarg) if a and a.annotation]
    return [*args.defaults, *(d for d in args.kw_defaults if d), *annotations,
            *([node.returns] if node.returns else [])]
