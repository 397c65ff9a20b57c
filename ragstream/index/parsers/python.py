"""Python parser (stdlib `ast`): modules, classes, functions and methods, and their references.

Names are qualified statically: through the module's own definitions, its imports (relative
ones too), `self`/`cls`, `super()`, and attribute types declared in the class (`x: Repo`,
`self.x = Repo(...)`, `self.x = x` for an annotated `__init__` parameter). A call on a receiver
whose type cannot be known statically is left to the resolver's unique-name fallback.
"""
from __future__ import annotations

import ast
import builtins
import io
import pathlib
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ragstream.index.model import Edge, Node, ParsedFile, Reference, node_id

BUILTIN_NAMES = frozenset(dir(builtins))
# Methods of builtin and everyday types: `x.get()` on an unknown `x` is far more likely one of
# these than the repository's only method called `get`, so such names never resolve by name.
COMMON_METHOD_NAMES = frozenset(
    name for kind in (dict, list, str, bytes, set, tuple, int, float, object, pathlib.Path,
                      io.TextIOWrapper, io.BytesIO)
    for name in dir(kind)
)


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
    class_qualname: str | None = None  # the class whose methods this scope belongs to
    self_name: str | None = None  # first parameter of a method (`self` / `cls`)
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
        self.class_bases: dict[str, list[str]] = {}  # class qualname -> qualified bases
        self.attr_types: dict[str, dict[str, str]] = {}  # class qualname -> attr -> type

    def parse(self, tree: ast.Module) -> ParsedFile:
        self.nodes.append(Node(
            id=self.root, kind="MODULE", language="python", name=self.module, path=self.path,
            start_line=1, end_line=self.line_count, docstring=ast.get_docstring(tree) or "",
        ))
        self.top_level = {
            n.name for n in tree.body
            if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        }
        module_scope = _Scope(self.module, self.root)
        self._collect_imports(tree.body, module_scope, self.aliases)
        self._visit_body(tree.body, module_scope)
        return ParsedFile(
            path=self.path, language="python", root_id=self.root, nodes=self.nodes,
            edges=self.edges, references=list(self.refs.values()), aliases=self.aliases,
        )

    # --- definitions -------------------------------------------------------------------

    def _visit_body(self, body: list[ast.stmt], scope: _Scope) -> None:
        """Definitions become nodes; every other statement's calls belong to `scope`."""
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                self._visit_class(stmt, scope)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._visit_function(stmt, scope)
            else:
                self._collect_calls(stmt, scope)

    def _visit_class(self, cls: ast.ClassDef, parent: _Scope) -> None:
        qualname = f"{parent.qualname}.{cls.name}"
        nid = self._add_node(cls, "CLASS", qualname, parent.node_id, _class_signature(cls))
        bases = [self._qualify(b, parent) for b in cls.bases]
        self.class_bases[qualname] = [b for b in bases if b]
        # A base that is not a static name (e.g. `namedtuple(...)`) has nothing to link to.
        for base in self.class_bases[qualname]:
            if base != "builtins.object":
                self._add_ref(nid, "INHERITS", base, cls.lineno, candidates=(base,),
                              kinds=("CLASS",), external=True)
        self.attr_types[qualname] = self._attribute_types(cls, parent)
        class_scope = _Scope(qualname, nid, aliases=parent.aliases)
        for expr in cls.decorator_list + cls.keywords:
            self._collect_calls(expr, parent)
        self._visit_body(cls.body, class_scope)

    def _visit_function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, parent: _Scope) -> None:
        in_class = parent.node_id.endswith("|CLASS")
        kind = "METHOD" if in_class else "FUNCTION"
        qualname = f"{parent.qualname}.{fn.name}"
        nid = self._add_node(fn, kind, qualname, parent.node_id, _function_signature(fn))
        args = fn.args.posonlyargs + fn.args.args
        scope = _Scope(
            qualname, nid,
            class_qualname=parent.qualname if in_class else None,
            self_name=args[0].arg if in_class and args and not _is_staticmethod(fn) else None,
            aliases=dict(parent.aliases),
        )
        self._collect_imports(fn.body, scope, scope.aliases)
        # Nested functions and classes are part of this one: their calls count as its calls.
        for expr in fn.decorator_list + fn.args.defaults + [d for d in fn.args.kw_defaults if d]:
            self._collect_calls(expr, parent)
        for stmt in fn.body:
            self._collect_calls(stmt, scope)

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
                base = self._absolute_module(stmt.module, stmt.level)
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

    def _absolute_module(self, module: str | None, level: int) -> str | None:
        if level == 0:
            return module
        package = self.module.split(".")
        if not self.is_package:
            package = package[:-1]
        if level - 1 > len(package):
            return None  # beyond the top of the repository: nothing to resolve to
        base = package[: len(package) - (level - 1)]
        return ".".join(base + ([module] if module else []))

    # --- calls -------------------------------------------------------------------------

    def _collect_calls(self, tree: ast.AST, scope: _Scope) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                self._add_call(node, scope)

    def _add_call(self, call: ast.Call, scope: _Scope) -> None:
        func = call.func
        if isinstance(func, ast.Attribute) and _is_super_call(func.value) and scope.class_qualname:
            bases = self.class_bases.get(scope.class_qualname, [])
            candidates = tuple(f"{b}.{func.attr}" for b in bases)
            self._add_ref(scope.node_id, "CALLS", func.attr, call.lineno, candidates=candidates,
                          kinds=("METHOD",), by_name=not candidates, external=False)
            return
        chain = _attribute_chain(func)
        if chain is None or chain == ["super"]:  # super() itself: its method call is linked above
            return
        head, rest = chain[0], chain[1:]
        if head == scope.self_name and scope.class_qualname and rest:
            self._add_self_call(scope, rest, call.lineno)
            return
        qualified = self._qualify_name(head, scope)
        if qualified is not None:
            target = ".".join([qualified, *rest])
            self._add_ref(scope.node_id, "CALLS", target, call.lineno, candidates=(target,),
                          kinds=("FUNCTION", "METHOD", "CLASS"), external=True)
        elif rest and rest[-1] not in COMMON_METHOD_NAMES:
            # Receiver unknown statically: only a unique method of that name can be meant.
            self._add_ref(scope.node_id, "CALLS", rest[-1], call.lineno, kinds=("METHOD",),
                          by_name=True, external=False)

    def _add_self_call(self, scope: _Scope, rest: list[str], line: int) -> None:
        cls = scope.class_qualname
        if len(rest) == 1:
            target = f"{cls}.{rest[0]}"
            # The resolver walks in-repo bases itself; a class with bases it cannot see (a
            # framework's Model, say) inherits the method from there, not from a same-named one.
            guess = not self.class_bases.get(cls) and rest[0] not in COMMON_METHOD_NAMES
            self._add_ref(scope.node_id, "CALLS", target, line, candidates=(target,),
                          kinds=("METHOD", "FUNCTION", "CLASS"), by_name=guess, external=False)
            return
        attr_type = self.attr_types.get(cls, {}).get(rest[0])
        candidates = (".".join([attr_type, *rest[1:]]),) if attr_type and len(rest) == 2 else ()
        self._add_ref(scope.node_id, "CALLS", rest[-1], line, candidates=candidates,
                      kinds=("METHOD",), by_name=True, external=False)

    # --- names -------------------------------------------------------------------------

    def _qualify(self, expr: ast.expr, scope: _Scope) -> str | None:
        """Qualified name of a Name/Attribute expression, or None when it is not static."""
        chain = _attribute_chain(expr)
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

    def _attribute_types(self, cls: ast.ClassDef, scope: _Scope) -> dict[str, str]:
        """Statically known types of `self.<attr>`: class annotations and `__init__` bindings."""
        types: dict[str, str] = {}
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                self._bind_type(types, stmt.target.id, stmt.annotation, scope)
        for fn in cls.body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.args.args:
                continue
            self_name = fn.args.args[0].arg
            params = {a.arg: a.annotation for a in fn.args.args if a.annotation is not None}
            for node in ast.walk(fn):
                if isinstance(node, ast.AnnAssign) and _is_self_attr(node.target, self_name):
                    self._bind_type(types, node.target.attr, node.annotation, scope)
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                        and _is_self_attr(node.targets[0], self_name):
                    value = node.value
                    if isinstance(value, ast.Call):
                        self._bind_type(types, node.targets[0].attr, value.func, scope)
                    elif isinstance(value, ast.Name) and value.id in params:
                        self._bind_type(types, node.targets[0].attr, params[value.id], scope)
        return types

    def _bind_type(self, types: dict[str, str], attr: str, annotation: ast.expr,
                   scope: _Scope) -> None:
        qualified = self._qualify(_unwrap_optional(annotation), scope)
        if qualified and not qualified.startswith("builtins.") and attr not in types:
            types[attr] = qualified

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
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                yield from _walk_statements([child])
            elif isinstance(child, ast.excepthandler):
                yield from _walk_statements(child.body)


def _attribute_chain(expr: ast.expr) -> list[str] | None:
    """`a.b.c` -> ['a', 'b', 'c']; None for anything that is not a plain dotted name."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return parts[::-1]


def _unwrap_optional(annotation: ast.expr) -> ast.expr:
    """`Optional[X]`, `X | None` and `"X"` -> X, so the attribute's class can be named."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return _unwrap_optional(ast.parse(annotation.value, mode="eval").body)
        except SyntaxError:
            return annotation
    if isinstance(annotation, ast.Subscript) and _attribute_chain(annotation.value) in (
            ["Optional"], ["typing", "Optional"]):
        return _unwrap_optional(annotation.slice)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        left = annotation.left
        if isinstance(left, ast.Constant) and left.value is None:
            return _unwrap_optional(annotation.right)
        return _unwrap_optional(left)
    return annotation


def _is_self_attr(target: ast.expr, self_name: str) -> bool:
    return (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            and target.value.id == self_name)


def _is_super_call(expr: ast.expr) -> bool:
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
            and expr.func.id == "super")


def _is_staticmethod(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def _function_signature(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    prefix = "async def" if isinstance(fn, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    return f"{prefix} {fn.name}({ast.unparse(fn.args)}){returns}"


def _class_signature(cls: ast.ClassDef) -> str:
    bases = [ast.unparse(b) for b in cls.bases] + [ast.unparse(k) for k in cls.keywords]
    return f"class {cls.name}({', '.join(bases)})" if bases else f"class {cls.name}"
