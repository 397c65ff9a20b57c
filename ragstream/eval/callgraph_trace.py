"""Runtime call edges of a call-graph suite case: run its `main.py` under `sys.setprofile`.

Why: a case's `calls.json` is written by hand, and a wrong truth misleads every score. Each call
that really happens when the program runs must be in the truth (the truth may hold more: class
edges, which a profiler cannot see, and callees of branches the run did not take). Names follow
tests/python_callgraph/README.md: comprehension and generator-expression frames belong to the
scope that contains them, lambdas are numbered per enclosing scope, and module or class bodies
are never callees. Run as `python -m ragstream.eval.callgraph_trace CASE_DIR` (a fresh
interpreter per case, since cases reuse module names); it prints the edges as JSON.
"""
from __future__ import annotations

import ast
import json
import os
import re
import runpy
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType

from ragstream.eval.callgraph_suite import Edge
from ragstream.index.python.parser import module_names

_COMPREHENSIONS = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"}
_GENERATOR_FLAGS = 0x20 | 0x200  # CO_GENERATOR | CO_ASYNC_GENERATOR


@dataclass
class CaseScopes:
    """What the source says that code objects do not: lambda numbers and which scopes are classes."""

    modules: dict[str, str]  # absolute file path -> module name
    lambdas: dict[tuple[str, int], list[str]] = field(default_factory=dict)  # (file, line) -> names
    classes: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, case_dir: Path) -> CaseScopes:
        paths = sorted(p.relative_to(case_dir).as_posix() for p in case_dir.rglob("*.py"))
        names = module_names(paths)
        scopes = cls({str((case_dir / p).resolve()): names[p] for p in paths})
        for path, module in scopes.modules.items():
            scopes._visit(ast.parse(Path(path).read_text(encoding="utf-8")), path, module, [0])
        return scopes

    def _visit(self, node: ast.AST, path: str, scope: str, counter: list[int]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Lambda):
                counter[0] += 1
                name = f"{scope}.<lambda{counter[0]}>"
                self.lambdas.setdefault((path, child.lineno), []).append(name)
                self._visit(child, path, name, [0])
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                # decorators, bases and defaults run in the enclosing scope
                outer: list[ast.expr] = list(child.decorator_list)
                if isinstance(child, ast.ClassDef):
                    outer += child.bases + [keyword.value for keyword in child.keywords]
                    self.classes.add(f"{scope}.{child.name}")
                else:
                    outer += child.args.defaults + [d for d in child.args.kw_defaults if d]
                for expr in outer:
                    self._visit(ast.Expression(expr), path, scope, counter)
                self._visit(ast.Module(body=child.body, type_ignores=[]), path,
                            f"{scope}.{child.name}", [0])
            else:
                self._visit(child, path, scope, counter)

    def scope_of(self, code: CodeType) -> str | None:
        """Qualified name of the scope a code object runs in; None outside the case's files."""
        module = self.modules.get(code.co_filename)
        if module is None:
            return None
        parts = [part for part in code.co_qualname.split(".") if part != "<locals>"]
        if code.co_name == "<module>":
            return module
        if code.co_name in _COMPREHENSIONS:
            parts = parts[:-1]  # a comprehension belongs to the scope that contains it
            if not parts:
                return module
        if "<lambda>" not in parts:
            return ".".join([module, *parts])
        return self._lambda_name(code, module, parts)

    def _lambda_name(self, code: CodeType, module: str, parts: list[str]) -> str:
        """A lambda (or a comprehension inside one) is told apart by its line and nesting."""
        shape = ".".join([module, *parts])
        candidates = [name for name in self.lambdas.get((code.co_filename, code.co_firstlineno), [])
                      if re.sub(r"<lambda\d+>", "<lambda>", name) == shape]
        if len(candidates) != 1:
            raise ValueError(f"cannot tell lambdas apart on line {code.co_firstlineno}: {shape}")
        return candidates[0]


@dataclass
class CallRecorder:
    """A profile function that records (caller, callee) for calls between the case's own scopes."""

    scopes: CaseScopes
    edges: set[Edge] = field(default_factory=set)
    _started_generators: set[FrameType] = field(default_factory=set)

    def __call__(self, frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code
        if event != "call" or code.co_name in _COMPREHENSIONS or code.co_name == "<module>":
            return
        callee = self.scopes.scope_of(code)
        if callee is None or callee in self.scopes.classes:
            return
        if code.co_flags & _GENERATOR_FLAGS:  # a resumed generator is not a new call
            if frame in self._started_generators:
                return
            self._started_generators.add(frame)
        caller = self.scopes.scope_of(frame.f_back.f_code) if frame.f_back else None
        if caller is not None:
            self.edges.add((caller, callee))


def runtime_edges(case_dir: Path) -> set[Edge]:
    """Run `case_dir/main.py` as `__main__` and return the internal calls it made."""
    case_dir = case_dir.resolve()
    recorder = CallRecorder(CaseScopes.read(case_dir))
    os.chdir(case_dir)
    sys.path.insert(0, str(case_dir))
    sys.setprofile(recorder)
    try:
        runpy.run_path(str(case_dir / "main.py"), run_name="__main__")
    finally:
        sys.setprofile(None)
    return recorder.edges


if __name__ == "__main__":
    edges = runtime_edges(Path(sys.argv[1]))
    sys.stdout.flush()
    print("\n" + json.dumps(sorted(edges)))
