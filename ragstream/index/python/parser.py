"""Python parser (stdlib `ast`): modules, classes, functions and methods, imports and bases.

Calls are not references here: what a called name means may depend on any other file (a return
value, an argument, an import), so the parser records each scope's flow facts
(`python_flow`) and `index/python_calls` solves them over the whole repository.
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ragstream.index.model import Edge, Node, ParsedFile, Reference, node_id
from ragstream.index.python.flow import flow_facts
from ragstream.index.python.syntax import absolute_module, attribute_chain

BUILTIN_NAMES = frozenset(dir(builtins))


def module_names(paths: list[str]) -> dict[str, str]:
    """Dotted module name of each Python path: package-relative where `__init__.py` files say so.

    `src/pkg/a.py` with `src/pkg/__init__.py` is `pkg.a`; a file outside any package is named
    by its path (`scripts/tool.py` -> `scripts.tool`), which never collides.
    """
    present = set(paths)
    names: dict[str, str] = {}
    taken: set[str] = set()
    for path in sorted(paths):
        parts = PurePosixPath(path).with_suffix("").parts
        dirs = parts[:-1]
        first = len(dirs)  # index of the topmost directory of the package chain
        while first > 0 and "/".join(dirs[:first]) + "/__init__.py" in present:
            first -= 1
        name = _dotted(parts[first:] if first < len(dirs) else parts)
        if name in taken:  # two roots shipping the same package: fall back to the full path
            name = _dotted(parts)
        taken.add(name)
        names[path] = name
    return names


def _dotted(parts: tuple[str, ...]) -> str:
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


@dataclass
class _Scope:
    """What a name means inside one function or class body."""

    qualname: str
    node_id: str
    aliases: dict[str, str] = field(default_factory=dict)  # function-level imports


def parse_python(path: str, text: str, module: str) -> ParsedFile:
    """Parse one Python file; raises SyntaxError/ValueError when it is not valid Python."""
    tree = ast.parse(text, filename=path)
    return _ModuleParser(path, text, module).parse(tree)


class _ModuleParser:
    """One parse of one file (a fresh object per call: nothing survives between files)."""

    def __init__(self, path: str, text: str, module: str):
        self.path = path
        self.module = module
        self.is_package = PurePosixPath(path).name == "__init__.py"
        self.line_count = text.count("\n") + 1
        self.root = node_id("python", module, "MODULE")
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []
        self.refs: dict[tuple, Reference] = {}
        self.aliases: dict[str, str] = {}
        self.top_level: set[str] = set()  # names defined at module level (classes, functions)

    def parse(self, tree: ast.Module) -> ParsedFile:
        self.nodes.append(Node(
            id=self.root, kind="MODULE", language="python", name=self.module, path=self.path,
            start_line=1, end_line=self.line_count, docstring=ast.get_docstring(tree) or "",
        ))
        self.top_level = {
            n.name for n in _walk_statements(tree.body)
            if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        }
        module_scope = _Scope(self.module, self.root)
        self._collect_imports(tree.body, module_scope, self.aliases)
        self._visit_body(tree.body, module_scope)
        warnings = []
        try:
            flow = flow_facts(tree, self.module, self.is_package)
        except RecursionError:  # nesting too deep to follow: the file keeps its nodes, not its calls
            flow, warnings = [], ["calls not followed: expressions nested too deeply"]
        return ParsedFile(
            path=self.path, language="python", root_id=self.root, nodes=self.nodes,
            edges=self.edges, references=list(self.refs.values()), aliases=self.aliases,
            flow=flow, warnings=warnings,
        )

    # --- definitions -------------------------------------------------------------------

    def _visit_body(self, body: list[ast.stmt], scope: _Scope) -> None:
        """Definitions at module and class level become nodes, those under `if`, `try` and
        `with` too (`if PY2: def iteritems`, `try: ... except ImportError: def fallback`,
        `if TYPE_CHECKING: class Protocol`): each is a symbol a question can name and a call
        can reach, so it gets a chunk of its own rather than being folded into its module."""
        for stmt in _walk_statements(body):
            if isinstance(stmt, ast.ClassDef):
                self._visit_class(stmt, scope)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._visit_function(stmt, scope)

    def _visit_class(self, cls: ast.ClassDef, parent: _Scope) -> None:
        qualname = f"{parent.qualname}.{cls.name}"
        nid = self._add_node(cls, "CLASS", qualname, parent.node_id, _class_signature(cls))
        bases = [self._qualify(b, parent) for b in cls.bases]
        # A base that is not a static name (e.g. `namedtuple(...)`) has nothing to link to.
        for base in filter(None, bases):
            if base != "builtins.object":
                self._add_ref(nid, "INHERITS", base, cls.lineno, candidates=(base,),
                              kinds=("CLASS",), external=True)
        self._visit_body(cls.body, _Scope(qualname, nid, aliases=parent.aliases))

    def _visit_function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, parent: _Scope) -> None:
        in_class = parent.node_id.endswith("|CLASS")
        kind = "METHOD" if in_class else "FUNCTION"
        qualname = f"{parent.qualname}.{fn.name}"
        nid = self._add_node(fn, kind, qualname, parent.node_id, _function_signature(fn))
        # Nested functions and classes have no nodes: their code is part of this one's chunk.
        self._collect_imports(fn.body, _Scope(qualname, nid), {})

    def _add_node(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef, kind: str,
                  qualname: str, parent: str, signature: str) -> str:
        nid = node_id("python", qualname, kind)
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        if any(n.id == nid for n in self.nodes):
            return nid  # a redefinition (e.g. under `if TYPE_CHECKING`): the first one wins
        self.nodes.append(Node(
            id=nid, kind=kind, language="python", name=qualname, path=self.path,
            start_line=start, end_line=node.end_lineno or node.lineno, parent=parent,
            signature=signature, docstring=ast.get_docstring(node) or "",
        ))
        self.edges.append(Edge(parent, nid, "DEFINES"))
        return nid

    # --- imports -----------------------------------------------------------------------

    def _collect_imports(self, body: list[ast.stmt], scope: _Scope, into: dict[str, str]) -> None:
        """Bind imported names in `into` and add IMPORTS references from the module."""
        for stmt in _walk_statements(body):
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        into[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        into[head] = head
                    self._add_ref(self.root, "IMPORTS", alias.name, stmt.lineno,
                                  candidates=(alias.name,), kinds=("MODULE",), external=False)
            elif isinstance(stmt, ast.ImportFrom):
                base = absolute_module(self.module, stmt.module, stmt.level, self.is_package)
                if base is None:
                    continue
                for alias in stmt.names:
                    if alias.name == "*":
                        self._add_ref(self.root, "IMPORTS", base, stmt.lineno,
                                      candidates=(base,), kinds=("MODULE",), external=False)
                        continue
                    target = f"{base}.{alias.name}" if base else alias.name
                    into[alias.asname or alias.name] = target
                    # `from pkg import sub` imports the module pkg.sub when there is one.
                    self._add_ref(self.root, "IMPORTS", target, stmt.lineno,
                                  candidates=(target, base), kinds=("MODULE",), external=False)

    # --- names -------------------------------------------------------------------------

    def _qualify(self, expr: ast.expr, scope: _Scope) -> str | None:
        """Qualified name of a Name/Attribute expression, or None when it is not static."""
        chain = attribute_chain(expr)
        if chain is None:
            return None
        head = self._qualify_name(chain[0], scope)
        return ".".join([head, *chain[1:]]) if head else None

    def _qualify_name(self, name: str, scope: _Scope) -> str | None:
        if name in scope.aliases:
            return scope.aliases[name]
        if name in self.aliases:
            return self.aliases[name]
        if name in self.top_level:
            return f"{self.module}.{name}"
        if name in BUILTIN_NAMES:
            return f"builtins.{name}"
        return None

    # --- bookkeeping -------------------------------------------------------------------

    def _add_ref(self, source: str, edge_type: str, target: str, line: int, *,
                 candidates: tuple[str, ...] = (), kinds: tuple[str, ...] = (),
                 by_name: bool = False, external: bool = True) -> None:
        key = (source, edge_type, target, candidates)
        if key not in self.refs:
            self.refs[key] = Reference(
                source=source, edge_type=edge_type, target=target, target_language="python",
                candidates=candidates, target_kinds=kinds, by_name=by_name, external=external,
                line=line,
            )


def _walk_statements(body: list[ast.stmt]):
    """Statements of a body, descending into if/try/with blocks but not into definitions."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for attr in stmt._fields:  # `ast.iter_child_nodes`, inline; a statement holds them in lists
            value = getattr(stmt, attr, None)
            if value.__class__ is not list:
                continue
            for child in value:
                if isinstance(child, ast.stmt):
                    yield from _walk_statements([child])
                elif isinstance(child, ast.ExceptHandler):
                    yield from _walk_statements(child.body)


def _function_signature(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    prefix = "async def" if isinstance(fn, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    return f"{prefix} {fn.name}({ast.unparse(fn.args)}){returns}"


def _class_signature(cls: ast.ClassDef) -> str:
    bases = [ast.unparse(b) for b in cls.bases] + [ast.unparse(k) for k in cls.keywords]
    return f"class {cls.name}({', '.join(bases)})" if bases else f"class {cls.name}"
