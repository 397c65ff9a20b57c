"""Flow facts of one Python file for the call resolver: what each scope binds, calls and returns.

The parser sees one file, but what a name means often lives elsewhere (an import, a return value,
a parameter filled by a caller), so this module only records facts and `index/python_calls`
solves them over the whole repository, PyCG-style. Every module, class, function, method,
nested function and lambda is a scope (lambdas are `<lambdaN>`, numbered in source order within
their enclosing scope). Facts are JSON-able lists, cached with the parse result.

Expressions (what a value may be), as lists:
  ["l", name, [bind indices] | None]  a local name: the bindings that reach it (None: any)
  ["n", name]       a free name: enclosing functions, then module, then `import *`
  ["d", qualname]   the function, lambda or class defined there
  ["i", dotted]     an imported module or module attribute
  ["a", e, attr]    an attribute            ["c", k]   the result of call record k
  ["e", e]          an element of e         ["x", e, key]  the element at a constant key
  ["s", site, [e...], [key...]]  a container literal (each element's constant key, or None)
  ["u", [e...]]     any of them             ["I", e]   an instance of the class e names
  ["D", e]          e, evaluated in the parent scope (defaults, annotations, bases)
  ["P", name]       what callers pass to parameter `name`      ["S"]  `super()`
  ["X", scope, e]   e, evaluated in another scope (a `global` / `nonlocal` binding)
  ["T", e]          `type(e)`: the classes of e's instances
  ["?"]             nothing known
Bindings and calls are solved in `order`, the order the code makes them, so a binding reads the
call it holds after that call. A call record is [func, [args (["*", e] spreads)], [[keyword | None, e]], line, flag], flag ""
(a call), "dec" (a decorator: an unknown decorator leaves the function as it is) or "raise"
(`raise E`: calls E only if it names a class).
Name bindings are flow-sensitive within a scope (branches merge, loops see their own later
bindings); from nested scopes they are flow-insensitive, since those run later.
"""
from __future__ import annotations

import ast
from contextlib import contextmanager

from ragstream.index.python.syntax import (
    ScopeNames, absolute_module, attribute_chain, constant, decorator_name, is_abstract, scope_names,
    unwrap_optional)

# Builtins whose result is a container of their argument's elements.
_COPYING = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"})
# Container methods that put their argument (or its elements) into the receiver.
_ADDS_ONE = frozenset({"append", "add", "appendleft", "put"})
_ADDS_MANY = frozenset({"extend", "update"})
_COLLECTIONS = frozenset({"collections.defaultdict", "collections.OrderedDict", "collections.deque",
                          "collections.ChainMap", "collections.Counter"})
_METHOD_DECORATORS = {"staticmethod": "static", "classmethod": "class"}
_TRANSPARENT_DECORATORS = frozenset({"property", "abstractmethod", "cached_property", "override",
                                      "setter", "getter", "deleter", "overload"})
# The nodes that make a scope.
_ScopeNode = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def flow_facts(tree: ast.Module, module: str, is_package: bool) -> list[dict]:
    """One record per scope of the module, the module's own first."""
    records: list[dict] = []
    builder = _ScopeBuilder(tree, module, "module", None, records, scope_names(tree))
    builder.record["package"] = is_package
    builder.build()
    return records


class _ScopeBuilder:
    """Facts of one scope; nested scopes get builders of their own."""

    def __init__(self, node: _ScopeNode, qualname: str, kind: str, parent: "_ScopeBuilder | None",
                 records: list[dict], names: dict[ast.AST, ScopeNames], *, method: str | None = None,
                 cls: str | None = None):
        self.node = node
        self.records = records
        self.parent = parent
        self.record: dict = {
            "name": qualname, "kind": kind, "parent": parent.record["name"] if parent else None,
            "line": getattr(node, "lineno", 1), "method": method, "class": cls,
            "params": [], "vararg": None, "kwonly": [], "kwarg": None, "generator": False,
            "binds": [], "calls": [], "returns": [], "yields": [], "stores": [], "items": [],
            "bases": [], "star": [], "all": None, "abstract": is_abstract(node),
            "returns_params": [],  # parameters returned as they are (`return fn`, `return self`)
            "order": [],  # bindings (index) and calls (-index - 1) as the code makes them
            "sites": [],  # container literals, ["s", site, elements, keys], read in this scope
        }
        self.names = names
        self.locals, self.declared = names[node].bound, names[node].declared
        self.reach: dict[str, list[int]] = {}
        self.imported: dict[str, list] = {}  # name -> the value of its first binding by an import
        self.loop_uses: list[list] | None = None  # local reads inside the innermost loop
        self.lambdas = 0
        self.sites = 0

    # --- scopes ------------------------------------------------------------------------

    def build(self) -> dict:
        self.records.append(self.record)
        node = self.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            self._parameters(node.args)
        if isinstance(node, ast.Lambda):
            self.record["returns"].append(self.expr(node.body))
        else:
            self.statements(node.body)
        return self.record

    def _parameters(self, args: ast.arguments) -> None:
        positional = args.posonlyargs + args.args
        self.record["params"] = [a.arg for a in positional]
        self.record["vararg"] = args.vararg.arg if args.vararg else None
        self.record["kwonly"] = [a.arg for a in args.kwonlyargs]
        self.record["kwarg"] = args.kwarg.arg if args.kwarg else None
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]],
                            args.defaults))
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d})
        for arg in positional + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]:
            options: list[list] = [["P", arg.arg]]
            if arg.arg in defaults:  # evaluated where the function is defined
                assert self.parent is not None, "a function is defined in a scope"
                options.append(["D", self.parent.expr(defaults[arg.arg])])
            if arg.annotation is not None and self.parent is not None:
                options.append(["D", ["I", self.parent.annotation(arg.annotation)]])
            self._bind_local(arg.arg, options[0] if len(options) == 1 else ["u", options])

    def _child(self, node: _ScopeNode, name: str, kind: str, **extra) -> str:
        qualname = f"{self.record['name']}.{name}"
        _ScopeBuilder(node, qualname, kind, self, self.records, self.names, **extra).build()
        return qualname

    def _function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        in_class = self.record["kind"] == "class"
        names = [decorator_name(d) for d in fn.decorator_list]
        method = None
        if in_class:
            method = next((_METHOD_DECORATORS[n] for n in names if n in _METHOD_DECORATORS), "instance")
        returns = ["D", ["I", self.annotation(fn.returns)]] if fn.returns is not None else None
        qualname = self._child(fn, fn.name, "function", method=method,
                               cls=self.record["name"] if in_class else None)
        record = next(r for r in reversed(self.records) if r["name"] == qualname)
        record["generator"] = self.names[fn].generator
        if returns:
            record["returns"].append(returns)
        self._bind(fn.name, self._decorate(fn, ["d", qualname], names))

    def _class(self, cls: ast.ClassDef) -> None:
        bases = [self.expr(b) for b in cls.bases]
        for keyword in cls.keywords:
            self.expr(keyword.value)
        qualname = self._child(cls, cls.name, "class")
        record = next(r for r in reversed(self.records) if r["name"] == qualname)
        record["bases"] = [["D", b] for b in bases]
        self._bind(cls.name, self._decorate(cls, ["d", qualname], [decorator_name(d) for d in cls.decorator_list]))

    def _decorate(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, value: list,
                  names: list[str | None]) -> list:
        """The value a decorated name is bound to: each decorator called on the one below."""
        decorators = [self.expr(d) for d in node.decorator_list]
        for decorator, name in reversed(list(zip(decorators, names))):
            if name in _METHOD_DECORATORS or name in _TRANSPARENT_DECORATORS:
                continue
            value = self._call(decorator, [value], [], node.lineno, "dec")
        return value

    # --- statements --------------------------------------------------------------------

    def statements(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if stmt.__class__ is ast.Expr:  # the commonest statement: a call made for its effect
            self.expr(stmt.value)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._function(stmt)
        elif isinstance(stmt, ast.ClassDef):
            self._class(stmt)
        elif isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value)
            for target in stmt.targets:
                self.assign(target, value)
            self._dunder_all(stmt)
        elif isinstance(stmt, ast.AnnAssign):
            options = [["I", self.annotation(stmt.annotation)]]
            if stmt.value is not None:
                options.insert(0, self.expr(stmt.value))
            self.assign(stmt.target, ["u", options])
        elif isinstance(stmt, ast.AugAssign):
            value = self.expr(stmt.value)
            self.assign(stmt.target, ["u", [self.expr(stmt.target), value]])
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            items = ["e", self.expr(stmt.iter)]
            with self._loop():
                self.assign(stmt.target, items)
                self.statements(stmt.body)
            self.statements(stmt.orelse)
        elif isinstance(stmt, ast.While):
            self.expr(stmt.test)
            with self._loop():
                self.statements(stmt.body)
            self.statements(stmt.orelse)
        elif isinstance(stmt, ast.If):
            self.expr(stmt.test)
            self._branches([stmt.body, stmt.orelse])
        elif isinstance(stmt, (ast.Try, ast.TryStar)):
            self._try(stmt)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                value = self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value)
            self.statements(stmt.body)
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None:
                self._return(self.expr(stmt.value))
        elif isinstance(stmt, ast.Raise):
            self._raise(stmt)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    self._bind(alias.asname, ["i", alias.name])
                else:
                    head = alias.name.split(".")[0]
                    self._bind(head, ["i", head])
        elif isinstance(stmt, ast.ImportFrom):
            self._import_from(stmt)
        elif isinstance(stmt, ast.Match):
            self.expr(stmt.subject)
            self._branches([case.body for case in stmt.cases])
        else:  # Assert, Delete, Global, ...: only the calls inside count
            self._children(stmt)

    def _return(self, value: list) -> None:
        """A parameter returned as it is gets what each call passed (`returns_params`), so a
        registering decorator or a builder returns the caller's own value, not every caller's."""
        if value[0] == "l" and value[2]:
            binds = [self.record["binds"][i][1] for i in value[2]]
            if all(_is_parameter(b, value[1]) for b in binds):
                if value[1] not in self.record["returns_params"]:
                    self.record["returns_params"].append(value[1])
                return
        self.record["returns"].append(value)

    def _raise(self, stmt: ast.Raise) -> None:
        if stmt.exc is None:
            return
        if isinstance(stmt.exc, (ast.Name, ast.Attribute)):  # `raise E` instantiates E
            self._call(self.expr(stmt.exc), [], [], stmt.lineno, "raise")
        else:
            self.expr(stmt.exc)
        if stmt.cause is not None:
            self.expr(stmt.cause)

    def _try(self, stmt: ast.Try | ast.TryStar) -> None:
        before = self._copy()
        self.statements(stmt.body)
        after_body = self._copy()
        ends = []
        for handler in stmt.handlers:
            self.reach = _union(before, after_body)
            kind = self.expr(handler.type) if handler.type is not None else ["?"]
            if handler.name:
                self._bind(handler.name, ["I", kind])
            self.statements(handler.body)
            ends.append(self._copy())
        self.reach = after_body
        self.statements(stmt.orelse)
        ends.append(self._copy())
        self.reach = _union(*ends)
        self.statements(stmt.finalbody)

    def _branches(self, bodies: list[list[ast.stmt]]) -> None:
        before = self._copy()
        ends = []
        for body in bodies:
            self.reach = {k: list(v) for k, v in before.items()}
            self.statements(body)
            ends.append(self._copy())
        if len(bodies) == 1 or not bodies[-1]:
            ends.append(before)
        self.reach = _union(*ends)

    @contextmanager
    def _loop(self):
        """A loop body may run again after its own later bindings, or not at all."""
        before, outer = self._copy(), self.loop_uses
        self.loop_uses = []
        start = len(self.record["binds"])
        yield
        later = self.record["binds"][start:]
        for use in self.loop_uses:
            if use[2] is not None:
                use[2] = sorted(set(use[2]) | {start + i for i, (name, _) in enumerate(later) if name == use[1]})
        if outer is not None:
            outer.extend(self.loop_uses)
        self.loop_uses = outer
        self.reach = _union(before, self._copy())

    def _import_from(self, stmt: ast.ImportFrom) -> None:
        base = absolute_module(self._module_name(), stmt.module, stmt.level,
                                self.records[0].get("package", False))
        if base is None:
            return
        for alias in stmt.names:
            if alias.name == "*":
                self.record["star"].append(base)
            else:
                self._bind(alias.asname or alias.name, ["i", f"{base}.{alias.name}" if base else alias.name])

    def _dunder_all(self, stmt: ast.Assign) -> None:
        if self.record["kind"] == "module" and any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets) \
                and isinstance(stmt.value, (ast.List, ast.Tuple)):
            self.record["all"] = [e.value for e in stmt.value.elts
                                  if isinstance(e, ast.Constant) and isinstance(e.value, str)]

    def _module_name(self) -> str:
        return self.records[0]["name"]

    # --- bindings ----------------------------------------------------------------------

    def assign(self, target: ast.expr, value: list) -> None:
        if isinstance(target, ast.Name):
            self._bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            elements = value[2] if value[0] == "s" else None
            pairwise = elements is not None and len(elements) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in target.elts)
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            for i, element in enumerate(target.elts):
                self.assign(element, elements[i] if pairwise and elements is not None
                            else ["e", value] if starred else ["x", value, i])
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value)
        elif isinstance(target, ast.Attribute):
            self.record["stores"].append([self.expr(target.value), target.attr, value])
        elif isinstance(target, ast.Subscript):
            self.expr(target.slice)
            self.record["items"].append([self.expr(target.value), value, constant(target.slice)])

    def _bind(self, name: str, value: list) -> None:
        if name in self.declared:  # `global` / `nonlocal`: bound in the scope that owns it
            owner = self._owner_of(name)
            if owner is not None:
                owner._bind_local(name, ["X", self.record["name"], value], kill=False)
            return
        self._bind_local(name, value)

    def _bind_local(self, name: str, value: list, kill: bool = True) -> None:
        index = len(self.record["binds"])
        self.record["order"].append(index)
        self.record["binds"].append([name, value])
        if value[0] == "i":
            self.imported.setdefault(name, value)
        self.reach[name] = [index] if kill else self.reach.get(name, []) + [index]

    def _owner_of(self, name: str) -> "_ScopeBuilder | None":
        if self.declared.get(name) == "global":
            root = self
            while (parent := root.parent) is not None:
                root = parent
            return root
        builder = self.parent
        while builder is not None and (builder.record["kind"] == "class" or name not in builder.locals):
            builder = builder.parent
        return builder

    def _copy(self) -> dict[str, list[int]]:
        return {k: list(v) for k, v in self.reach.items()}

    # --- expressions -------------------------------------------------------------------

    def expr(self, node: ast.expr | None) -> list:
        if node is None or node.__class__ is ast.Constant:  # a constant holds no expression
            return ["?"]
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Attribute):
            return ["a", self.expr(node.value), node.attr]
        if isinstance(node, ast.Call):
            return self._call_expr(node)
        if isinstance(node, ast.Lambda):
            self.lambdas += 1
            return ["d", self._child(node, f"<lambda{self.lambdas}>", "lambda")]
        if isinstance(node, ast.IfExp):
            self.expr(node.test)
            return _any_of([self.expr(node.body), self.expr(node.orelse)])
        if isinstance(node, ast.BoolOp):
            return _any_of([self.expr(v) for v in node.values])
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            ordered = not isinstance(node, ast.Set) and not any(isinstance(e, ast.Starred) for e in node.elts)
            return self._site([self.expr(e) for e in node.elts],
                              list(range(len(node.elts))) if ordered else None)
        if isinstance(node, ast.Dict):
            for key_node in node.keys:
                self.expr(key_node)
            values = [self.expr(v) if k is not None else ["e", self.expr(v)]
                      for k, v in zip(node.keys, node.values)]
            return self._site(values, [constant(k) for k in node.keys])
        if isinstance(node, ast.Subscript):
            self.expr(node.slice)
            key = constant(node.slice)
            return ["x", self.expr(node.value), key] if key is not None else ["e", self.expr(node.value)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # `handlers + [extra]`
            return _any_of([self.expr(node.left), self.expr(node.right)])
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self._comprehension(node)
        if isinstance(node, ast.Await):
            return self.expr(node.value)
        if isinstance(node, ast.Starred):
            return ["e", self.expr(node.value)]
        if isinstance(node, ast.NamedExpr):
            value = self.expr(node.value)
            self.assign(node.target, value)
            return value
        if isinstance(node, ast.Yield):
            self.record["yields"].append(self.expr(node.value))
            return ["?"]
        if isinstance(node, ast.YieldFrom):
            self.record["yields"].append(["e", self.expr(node.value)])
            return ["?"]
        self._children(node)  # operators, f-strings, comparisons, ...
        return ["?"]

    def _children(self, node: ast.AST) -> None:
        """Each expression directly under `node`, in `ast.iter_child_nodes`' order."""
        for attr in node._fields:
            value = getattr(node, attr, None)
            for child in value if value.__class__ is list else (value,):
                if isinstance(child, ast.expr):
                    self.expr(child)

    def _name(self, name: str) -> list:
        if name not in self.locals:
            return ["n", name]
        use = ["l", name, list(self.reach[name]) if name in self.reach else None]
        if self.loop_uses is not None:
            self.loop_uses.append(use)
        return use

    def _site(self, elements: list[list], keys: list | None = None) -> list:
        self.sites += 1
        site = ["s", f"{self.record['name']}#{self.sites}", elements, keys or [None] * len(elements)]
        self.record["sites"].append(site)
        return site

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> list:
        for generator in node.generators:
            self.assign(generator.target, ["e", self.expr(generator.iter)])
            for condition in generator.ifs:
                self.expr(condition)
        if isinstance(node, ast.DictComp):
            self.expr(node.key)
            return self._site([self.expr(node.value)])
        return self._site([self.expr(node.elt)])

    def _call_expr(self, call: ast.Call) -> list:
        func = call.func
        builtin = func.id if isinstance(func, ast.Name) and func.id not in self.locals \
            and not self._module_binds(func.id) else None
        if builtin == "super":
            return ["S"]
        args: list[list] = [["*", self.expr(a.value)] if isinstance(a, ast.Starred) else self.expr(a) for a in call.args]
        keywords: list[list] = [[k.arg, self.expr(k.value)] for k in call.keywords]
        if builtin == "next" and args:
            return ["e", args[0]]
        if builtin == "type" and len(args) == 1:
            return ["T", args[0]]
        if self._imported_as(func) in _COLLECTIONS:
            if self._imported_as(func) == "collections.defaultdict":  # its values: made on demand
                return self._site([self._site([])])
            return self._site([["e", a] for a in args if a[0] != "*"])
        if builtin in _COPYING and len(args) == 1:
            return self._site([["e", args[0]]])
        if builtin in _METHOD_DECORATORS and len(args) == 1:  # `staticmethod(f)` is f, for us
            return args[0]
        if builtin == "dict":
            return self._site([["e", a] for a in args] + [v if k else ["e", v] for k, v in keywords],
                              [None] * len(args) + [k for k, _ in keywords])
        if builtin == "getattr" and len(call.args) >= 2 and isinstance(call.args[1], ast.Constant) \
                and isinstance(call.args[1].value, str):
            return ["a", args[0], call.args[1].value]
        if attribute_chain(func) in (["partial"], ["functools", "partial"]) and args:
            return args[0]  # calling the partial calls the function
        if isinstance(func, ast.Attribute) and args:
            receiver = self.expr(func.value)
            if func.attr in _ADDS_ONE or (func.attr == "insert" and len(args) == 2):
                self.record["items"].append([receiver, args[-1], None])
            elif func.attr in _ADDS_MANY or func.attr == "setdefault":
                added = ["e", args[0]] if func.attr in _ADDS_MANY else args[-1]
                self.record["items"].append([receiver, added, None])
            if func.attr == "update" and keywords:
                self.record["items"].append([receiver, ["u", [v for _, v in keywords]], None])
            return self._call(["a", receiver, func.attr], args, keywords, call.lineno, "")
        return self._call(self.expr(func), args, keywords, call.lineno, "")

    def _imported_as(self, func: ast.expr) -> str | None:
        """`defaultdict` / `collections.defaultdict` -> the dotted name it was imported as."""
        chain = attribute_chain(func)
        if not chain:
            return None
        builder: _ScopeBuilder | None = self
        while builder is not None:
            if (value := builder.imported.get(chain[0])) is not None:
                return ".".join([value[1], *chain[1:]])
            builder = builder.parent
        return None

    def _module_binds(self, name: str) -> bool:
        module = self
        while module.parent is not None:
            module = module.parent
        return name in module.locals

    def _call(self, func: list, args: list, keywords: list, line: int, flag: str) -> list:
        self.record["order"].append(-len(self.record["calls"]) - 1)
        self.record["calls"].append([func, args, keywords, line, flag])
        return ["c", len(self.record["calls"]) - 1]

    def annotation(self, node: ast.expr | None) -> list:
        """The class an annotation names (`Optional[X]`, `X | None` and `"X"` name X)."""
        node = unwrap_optional(node) if node is not None else None
        if node is None or not isinstance(node, (ast.Name, ast.Attribute)):
            return ["?"]
        return self.expr(node)


def _is_parameter(binding: list, name: str) -> bool:
    """A parameter's own binding: what callers pass, a default that is no callable (None, a
    constant) or an annotation (whose class the passed value already is)."""
    if binding == ["P", name]:
        return True
    return binding[0] == "u" and binding[1][0] == ["P", name] and all(
        option[0] == "D" and option[1][0] in ("?", "I") for option in binding[1][1:])


def _union(*states: dict[str, list[int]]) -> dict[str, list[int]]:
    merged: dict[str, set[int]] = {}
    for state in states:
        for name, indices in state.items():
            merged.setdefault(name, set()).update(indices)
    return {name: sorted(indices) for name, indices in merged.items()}


def _any_of(options: list[list]) -> list:
    """What any of the options may be, a union among them spliced in: `a + b + c + ...` (hundreds
    of terms in generated code) would otherwise nest as deep as it is long."""
    flat: list[list] = []
    for option in options:
        flat.extend(option[1] if option[0] == "u" else [option])
    return ["u", flat]
