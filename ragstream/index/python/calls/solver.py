"""Solve the flow facts of every Python scope into call edges: a whole-program points-to analysis.

Each name, parameter, return, container and instance attribute holds a set of abstract values;
the solver evaluates every binding and call again until no set grows (PyCG's fixpoint), so a
function reaches a call site through any chain of assignments, arguments, returns, containers,
attributes and imports. Values (tuples):
  ("f", scope)  a function or lambda        ("k", class)  a class
  ("o", class)  an instance of the class    ("m", dotted) a module or package
  ("s", site)   a container (literal, generator, *args)
  ("b", function, self value)  a bound method
  ("S", class, scope)  `super()` inside a method of class
  ("g", site, method)  a container's method (`d.get`), whose call gives its elements
  ("t", site)   the pairs of a mapping (`d.items()`): each element is a pair holding its values
A container literal's elements are also kept by constant key, so `handlers["csv"]` is only the
`"csv"` entry while nothing was added to the container without a key.
Sets are capped (`MAX_VALUES`): past that a name is too dynamic to be worth more edges. Tables
remember their readers, so only scopes whose inputs grew are evaluated again (`tables`), and in
them only the items (a binding, a call, a return, a store, ...) whose inputs grew: an item whose
inputs did not grow would add what it added before, nothing, so skipping it leaves every set,
cap and round budget as evaluating it would.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragstream.index.python.calls.program import Program, c3_linearization
from ragstream.index.python.calls.value_tables import EMPTY, MRO_READER, Memo, Table, Tracker

MAX_VALUES = 48
MAX_ROUNDS = 40  # evaluations per scope, on average, before the solver stops where it is
_ELEMENT_METHODS = frozenset({"get", "pop", "popitem", "setdefault", "__getitem__", "popleft"})
_VIEW_METHODS = frozenset({"values", "items", "keys", "copy"})
_CALLABLE = frozenset({"f", "b", "k", "o"})


@dataclass(frozen=True)
class Call:
    """One call site's resolved callee: scope ids, the call's line, how the callee was found."""

    caller: str
    callee: str
    line: int
    how: str  # static | inferred | dispatch
    constructor: bool = False  # the `__init__` a call of its class `K(...)` runs (the class is a callee too)


# What an item of a scope's round does (`_items`).
_BIND, _CALL, _RETURN, _YIELD, _STORE, _ITEM, _SITE = "bind", "call", "return", "yield", "store", "item", "site"


def _items(program: Program) -> tuple[dict[str, list[tuple[int, str, Any]]], list[str]]:
    """Each scope's items as a round evaluates them -- bindings and calls in the order the code
    makes them, then returns, yields, attribute stores, container stores and literals -- as
    (item id, what it does, its operand: a binding's or the call's `order` index, or the fact);
    and the scope of each item id."""
    items: dict[str, list[tuple[int, str, Any]]] = {}
    scope_of: list[str] = []
    for scope, record in program.scopes.items():
        ops = [(_BIND if index >= 0 else _CALL, index) for index in record["order"]]
        ops += [(_RETURN, expr) for expr in record["returns"]] + [(_YIELD, expr) for expr in record["yields"]]
        ops += [(_STORE, fact) for fact in record["stores"]] + [(_ITEM, fact) for fact in record["items"]]
        ops += [(_SITE, fact) for fact in record["sites"]]
        items[scope] = [(len(scope_of) + position, op, what) for position, (op, what) in enumerate(ops)]
        scope_of.extend([scope] * len(ops))
    return items, scope_of


class Solver:
    def __init__(self, program: Program):
        self.p = program
        self.items, scope_of = _items(program)
        self.tracker = Tracker(scope_of)
        table = lambda: Table(self.tracker, MAX_VALUES)  # noqa: E731
        self.bindval = table()  # (scope, binding index) -> values
        self.params = table()  # (function, parameter) -> values
        self.results = table()  # (scope, call index) -> what the call returns
        self.returns = table()  # function -> values
        self.elements = table()  # container site -> values
        self.keyed = table()  # (site, constant key) -> values
        self.unkeyed = table()  # site -> {True} once it got an element whose key is not known
        self.instance_attrs = table()  # (class, attribute) -> values
        self.object_attrs = table()  # (class or module, attribute) -> values stored on it
        self.callees = table()  # (scope, call index) -> called scopes
        # (kind, class, attribute) -> values: "class" / "instance" what the MRO binds or instances
        # hold, "k" / "o" the attribute as read on the class / an instance (bound)
        self.lookups = Memo(self.tracker)
        self.mro_memo: dict[str, list[str]] = {}
        self.mro_readers: set[int] = set()  # items that read an MRO themselves (not through `lookups`)
        self.bases: dict[str, list[str]] | None = None
        self.static_memo: dict[tuple[str, int], frozenset] = {}
        self.passthrough = False  # unknown decorators keep their function (second phase only)
        self._seed()

    # --- the fixpoint ------------------------------------------------------------------

    def solve(self) -> None:
        """Until no set grows; then again with unknown decorators passing their function
        through. Only then is "unknown" final: a decorator whose definition is reached late
        would otherwise leave the undecorated function in every set it flowed into."""
        order = list(self.p.scopes)
        defined = self._solve_definitions(order)
        self._seed_receivers()
        decorating = {scope for scope, record in self.p.scopes.items()
                      if any(call[4] == "dec" for call in record["calls"])}
        stale = self.tracker.items
        for passthrough in (False, True):
            self.passthrough = passthrough
            # the second phase changes only decorator calls; what reads them follows as usual
            dirty, budget = decorating if passthrough else set(order), MAX_ROUNDS * len(order)
            if passthrough:  # what changed is read by decorator calls alone
                stale.update(item for scope in decorating for item, op, index in self.items[scope]
                             if op is _CALL and self.p.scopes[scope]["calls"][-index - 1][4] == "dec")
            else:  # every item once at least; a definition solved above only if what it read grew since
                stale.update(item for item in range(len(self.tracker.scope_of)) if item not in defined)
            while dirty and budget > 0:
                self.tracker.dirty = set()
                for scope in order:
                    if scope in dirty:
                        self._round(scope, self.p.scopes[scope], stale)
                        budget -= 1
                self.tracker.current = None
                dirty = self.tracker.dirty
                if self.tracker.mro_stale:  # a class's bases changed: every lookup may differ
                    # so each item that looked one up, or read an MRO, runs again; every scope
                    # runs (an item that read neither would add nothing new)
                    self.tracker.mro_stale, self.mro_memo, self.bases = False, {}, None
                    stale.update(self.lookups.clear(), self.mro_readers)
                    self.mro_readers = set()
                    self._seed_receivers()
                    dirty = set(order)


    def _solve_definitions(self, order: list[str]) -> set[int]:
        """Definitions and imports first, until they stop growing: class bases are read from
        them, and with them which classes nothing extends (`_seed_receivers`: a subclass found
        late left its base seeded as a receiver); a base found later makes every scope run again.
        Returns the items solved here: each is stale only if what it read grew since."""
        static = {scope: self._definitions(scope, record) for scope, record in self.p.scopes.items()}
        pending = {scope for scope, items in static.items() if items}
        while pending:
            self.tracker.dirty = set()
            for scope in order:
                if scope in pending:
                    for item, index, expr in static[scope]:
                        self.tracker.items.discard(item)  # as in `_round`: evaluated now
                        self.tracker.current = item
                        if index < 0:
                            self._call(scope, -index - 1, expr)
                        else:
                            self.bindval.add((scope, index), self.ev(scope, expr))
            self.tracker.current = None
            pending = {scope for scope in self.tracker.dirty if static.get(scope)}
        return {item for items in static.values() for item, _, _ in items}

    def _definitions(self, scope: str, record: dict) -> list[tuple[int, int, list]]:
        """A scope's `def`, `class` and `import` bindings, and the calls of decorators from
        outside that wrap its definitions (`@dataclass`), as (item, index, expression) in the
        order of `_round` (a call's index is -1 - its position)."""
        calls = {index for index, call in enumerate(record["calls"])
                 if call[4] == "dec" and self._imported_from_outside(scope, call[0])}
        binds = [(index, expr) for index, (_, expr) in enumerate(record["binds"])
                 if expr[0] in "di" or (expr[0] == "c" and expr[1] in calls)]
        item_of = {index: item for item, op, index in self.items[scope] if op in (_BIND, _CALL)}
        return [(item_of[-index - 1], -index - 1, record["calls"][index]) for index in sorted(calls)] + \
            [(item_of[index], index, expr) for index, expr in binds]

    def _round(self, scope: str, record: dict, stale: set[int]) -> None:
        """Evaluate the scope's stale items, in the order the code runs them."""
        tracker = self.tracker
        for item, op, what in self.items[scope]:
            if item not in stale:
                continue
            stale.discard(item)  # before: a growth it makes of what it read makes it stale again
            tracker.current = item
            if op is _BIND:
                self.bindval.add((scope, what), self.ev(scope, record["binds"][what][1]))
            elif op is _CALL:
                self._call(scope, -what - 1, record["calls"][-what - 1])
            elif op is _RETURN:
                self.returns.add(scope, self.ev(scope, what))
            elif op is _YIELD:
                self.elements.add(f"gen:{scope}", self.ev(scope, what))
            elif op is _STORE:
                target, attr, value = what
                values = self.ev(scope, value)
                for owner in self.ev(scope, target):
                    if owner[0] == "o":
                        self.instance_attrs.add((owner[1], attr), values)
                    elif owner[0] in ("k", "m"):
                        self.object_attrs.add((owner[1], attr), values)
            elif op is _ITEM:
                target, value, key = what
                values = self.ev(scope, value)
                for owner in self.ev(scope, target):
                    if owner[0] == "s":
                        self._add_element(owner[1], key, values)
            else:
                _, site, elements, keys = what
                for element, key in zip(elements, keys):
                    self._add_element(site, key, self.ev(scope, element))

    def _add_element(self, site: str, key, values: set | frozenset) -> None:
        self.elements.add(site, values)
        if key is None:
            self.unkeyed.add(site, (True,))
        else:
            self.keyed.add((site, key), values)

    def _seed(self) -> None:
        """`*args` / `**kwargs` are containers (`self` / `cls`: `_seed_receivers`)."""
        for scope, record in self.p.scopes.items():
            for star, prefix in ((record["vararg"], "*"), (record["kwarg"], "**")):
                if star:
                    self.params.values[(scope, star)] = {("s", f"{prefix}{scope}")}

    def _seed_receivers(self) -> None:
        """`self` / `cls` of every method a class has (its own and inherited) hold that class,
        for classes nothing in the repository extends: such a class may be instantiated by
        anyone (a framework, a caller outside). A base class's own instances come only from
        where the code makes them, so its hooks' overrides are not mixed with itself."""
        bases = self._bases_of()
        extended = {base for found in bases.values() for base in found}
        methods: dict[str, list[str]] = {}
        for scope, record in self.p.scopes.items():
            if record["method"] in ("instance", "class") and record["params"]:
                methods.setdefault(record["class"], []).append(scope)
        for cls in bases:
            if cls in extended:
                continue
            for owner in self.mro(cls):
                for method in methods.get(owner, ()):
                    record = self.p.scopes[method]
                    kind = "o" if record["method"] == "instance" else "k"
                    self.params.add((method, record["params"][0]), {(kind, cls)})

    # --- calls -------------------------------------------------------------------------

    def _call(self, scope: str, index: int, call: list) -> None:
        func, args, keywords, _, flag = call
        found = self.ev(scope, func)
        results: set = set()
        targets: set = set()
        for value in sorted(found):  # in a fixed order: past a set's cap, which values got in must not vary by run
            kind = value[0]
            if kind == "k":
                targets.add(value[1])
                for init in self._class_attr(value[1], "__init__"):
                    if init[0] == "f":
                        targets.add(init[1])
                        self._bind(scope, init[1], args, keywords, ("o", value[1]))
                results.add(("o", value[1]))
            elif flag == "raise":
                continue
            elif kind == "f":
                targets.add(value[1])
                results |= self._result(value[1], self._bind(scope, value[1], args, keywords, None))
            elif kind == "b":
                targets.add(value[1])
                results |= self._result(value[1], self._bind(scope, value[1], args, keywords, value[2]))
            elif kind == "o":
                for method in self._class_attr(value[1], "__call__"):
                    if method[0] == "f":
                        targets.add(method[1])
                        results |= self._result(method[1], self._bind(scope, method[1], args, keywords, value))
            elif kind == "g":
                if value[2] in _ELEMENT_METHODS:  # `d.get(key, default)`: an element or the default
                    results |= self.elements.get(value[1])
                    results |= self.ev(scope, args[1]) if len(args) > 1 else set()
                else:
                    results.add(("t" if value[2] == "items" else "s", value[1]))
        if flag == "dec" and (self.passthrough or self._imported_from_outside(scope, func)) \
                and not any(v[0] in _CALLABLE for v in found):
            results = set(self.ev(scope, args[0]))  # a decorator from outside leaves the function as it is
        self.callees.add((scope, index), targets)
        self.results.add((scope, index), results)

    def _imported_from_outside(self, scope: str, func: list) -> bool:
        """`@dataclass`, `@functools.wraps(f)`: a decorator known from the first round to come
        from outside, so its class or function is itself at once, not only in the second phase
        (a class found that late as a base would make every scope run again)."""
        while func[0] in ("a", "c"):
            func = func[1] if func[0] == "a" else self.p.scopes[scope]["calls"][func[1]][0]
        return self.p.bound_outside(scope, func)

    def _result(self, function: str, passed: dict[str, set]) -> set:
        """What a call returns: the function's returns, and for each parameter it returns as
        it is (`return fn` in a registering decorator, `return self` in a builder) what this
        call passed there, not what every call passed."""
        record = self.p.scopes[function]
        if record["generator"]:
            return {("s", f"gen:{function}")}
        out = set(self.returns.get(function))
        for param in record["returns_params"]:
            out |= passed.get(param, EMPTY)
        return out

    def _bind(self, scope: str, function: str, args: list, keywords: list, self_value) -> dict[str, set]:
        """Arguments of a call flow into the callee's parameters (a bound method's receiver
        first); returns what this call passed to each parameter."""
        record = self.p.scopes[function]
        params, returned = record["params"], record["returns_params"]
        passed: dict[str, set] = {}  # only what `_result` reads: the parameters returned as they are

        def give(name: str, values) -> None:
            self.params.add((function, name), values)
            if name in returned:
                passed.setdefault(name, set()).update(values)

        offset = 0
        if self_value is not None and params:
            give(params[0], {self_value})
            offset = 1
        for position, arg in enumerate(args):
            if arg[0] == "*":  # spread: any later parameter may get any element
                values: set | frozenset = self._elements_of(self.ev(scope, arg[1]))
                for name in params[offset + position:]:
                    give(name, values)
                self._to_container(record, "vararg", "*", function, values)
                break
            values = self.ev(scope, arg)
            slot = offset + position
            if slot < len(params):
                give(params[slot], values)
            else:
                self._to_container(record, "vararg", "*", function, values)
        for name, value in keywords:
            values = self.ev(scope, value)
            if name is None:  # **mapping
                values = self._elements_of(values)
                for param in params[offset:] + record["kwonly"]:
                    give(param, values)
                self._to_container(record, "kwarg", "**", function, values)
            elif name in params or name in record["kwonly"]:
                give(name, values)
            else:
                self._to_container(record, "kwarg", "**", function, values)
        return passed

    def _to_container(self, record: dict, slot: str, prefix: str, function: str, values: set | frozenset) -> None:
        if record[slot]:
            self.elements.add(f"{prefix}{function}", values)

    # --- evaluation --------------------------------------------------------------------

    def ev(self, scope: str, expr: list) -> set | frozenset:
        """What `expr`, read in `scope`, may be now."""
        op = expr[0]  # the branches in order of how often real code reaches them
        if op == "?":  # what the parse could not model
            return set()
        if op == "l":
            indices = expr[2] if expr[2] is not None else self.p.binds[scope].get(expr[1], ())
            out: set = set()
            for index in indices:
                out |= self.bindval.get((scope, index))
            return out
        if op == "a":
            out = set()
            attr, name = self._attr, expr[2]
            for value in self.ev(scope, expr[1]):
                out |= attr(value, name)
            return out
        if op == "n":
            return self._free(scope, expr[1])
        if op == "d":
            return {("k" if self.p.scopes[expr[1]]["kind"] == "class" else "f", expr[1])} \
                if expr[1] in self.p.scopes else set()
        if op == "i":
            return self._import(expr[1])
        if op == "c":
            return self.results.get((scope, expr[1]))
        if op == "e":
            return self._elements_of(self.ev(scope, expr[1]))
        if op == "x":
            out = set()
            for value in self.ev(scope, expr[1]):
                keyed = self.keyed.get((value[1], expr[2])) if value[0] == "s" else EMPTY
                if keyed and not self.unkeyed.has(value[1]):
                    out |= keyed
                else:
                    out |= self._elements_of({value})
            return out
        if op == "X":
            return self.ev(expr[1], expr[2]) if expr[1] in self.p.scopes else set()
        if op == "s":
            return {("s", expr[1])}
        if op == "u":
            out = set()
            for option in expr[1]:
                out |= self.ev(scope, option)
            return out
        if op == "T":  # type(x): the classes of x's instances
            return {("k", v[1]) for v in self.ev(scope, expr[1]) if v[0] == "o"} | \
                {v for v in self.ev(scope, expr[1]) if v[0] == "k"}
        if op == "I":
            return {("o", v[1]) for v in self.ev(scope, expr[1]) if v[0] == "k"}
        if op == "D":
            parent = self.p.scopes[scope]["parent"]
            return self.ev(parent, expr[1]) if parent else set()
        if op == "P":
            return self.params.get((scope, expr[1]))
        if op == "S":
            cls = self.p.scopes[scope]["class"]
            return {("S", cls, scope)} if cls else set()
        return set()

    def _elements_of(self, values: set | frozenset) -> set:
        out: set = set()
        for value in values:
            if value[0] == "s":
                out |= self.elements.get(value[1])
            elif value[0] == "t":
                out.add(("s", value[1]))
        return out

    def _free(self, scope: str, name: str) -> set:
        """A name not bound in `scope`: enclosing functions (never class bodies), then the module."""
        parent = self.p.scopes[scope]["parent"]
        while parent is not None:
            record = self.p.scopes[parent]
            if record["kind"] == "module":
                return self._module_attr(parent, name, set())
            if record["kind"] != "class" and name in self.p.binds[parent]:
                return self._all_bindings(parent, name)
            parent = record["parent"]
        return set()

    def _all_bindings(self, scope: str, name: str) -> set:
        out: set = set()
        for index in self.p.binds[scope].get(name, ()):
            out |= self.bindval.get((scope, index))
        return out

    def _module_attr(self, module: str, name: str, seen: set[str]) -> set:
        if name in self.p.binds.get(module, {}):
            return self._all_bindings(module, name) | self.object_attrs.get((module, name))
        if self.p.is_module(f"{module}.{name}"):
            return {("m", f"{module}.{name}")}
        out = set(self.object_attrs.get((module, name)))
        record = self.p.scopes.get(module)
        if record is None or module in seen:
            return out
        seen.add(module)
        for star in record["star"]:
            exported = self.p.scopes.get(star, {}).get("all")
            if (exported is None and not name.startswith("_")) or (exported and name in exported):
                out |= self._module_attr(star, name, seen)
        return out

    def _import(self, dotted: str) -> set:
        if self.p.is_module(dotted):
            return {("m", dotted)}
        head, _, last = dotted.rpartition(".")
        out: set = set()
        if head:
            for value in self._import(head):
                out |= self._attr(value, last)
        return out

    def _attr(self, value: tuple, name: str) -> set | frozenset:
        kind = value[0]
        if kind == "m":
            return self._module_attr(value[1], name, set()) if value[1] in self.p.modules \
                else ({("m", f"{value[1]}.{name}")} if self.p.is_module(f"{value[1]}.{name}") else set())
        if kind == "k" or kind == "o":
            return self.lookups.get((kind, value[1], name), self._bound_attr, value, name)
        if kind == "S":
            return self._super_attr(value[1], value[2], name)
        if kind == "s" and (name in _ELEMENT_METHODS or name in _VIEW_METHODS):
            return {("g", value[1], name)}
        return set()

    def _bound_attr(self, owner: tuple, name: str) -> set | frozenset:
        """`name` read on a class or an instance: what the MRO binds, bound as Python binds it,
        and on an instance what is stored on it."""
        if owner[0] == "k":
            return {self._bound(v, owner, through_class=True) for v in self._class_attr(owner[1], name)}
        return self._instance_attr(owner[1], name) | {
            self._bound(v, owner, through_class=False) for v in self._class_attr(owner[1], name)}

    def _bound(self, found: tuple, owner: tuple, through_class: bool) -> tuple:
        """A function found on a class or instance, as Python binds it."""
        if found[0] != "f":
            return found
        method = self.p.scopes[found[1]]["method"]
        if method == "static" or self.p.scopes[found[1]]["kind"] == "lambda" and through_class:
            return found
        if method == "class":
            return ("b", found[1], ("k", owner[1]))
        return found if through_class else ("b", found[1], owner)

    def _instance_attr(self, cls: str, name: str) -> frozenset:
        """What is stored on instances of `cls` or its bases as `name` (`self.name = ...`)."""
        return self.lookups.get(("instance", cls, name), self._instance_attr_in_mro, cls, name)

    def _instance_attr_in_mro(self, cls: str, name: str) -> set:
        out: set = set()
        for current in self.mro(cls):
            out |= self.instance_attrs.get((current, name))
        return out

    def _class_attr(self, cls: str, name: str) -> frozenset:
        """The first class in the MRO that binds `name` (in its body or by a later store)."""
        return self.lookups.get(("class", cls, name), self._class_attr_in_mro, cls, name)

    def _class_attr_in_mro(self, cls: str, name: str) -> set:
        for current in self.mro(cls):
            stored = self.object_attrs.get((current, name))
            if name in self.p.binds.get(current, {}) or stored:
                return self._all_bindings(current, name) | stored
        return set()

    def _super_attr(self, cls: str, scope: str, name: str) -> set:
        """`super().name` in a method of `cls`: the next class after `cls` in the receiver's MRO."""
        params = self.p.scopes[scope]["params"]
        receivers = self.params.get((scope, params[0])) if params else EMPTY
        out: set = set()
        for receiver in receivers:
            if receiver[0] not in ("o", "k"):
                continue
            order = self.mro(receiver[1])
            after = order[order.index(cls) + 1:] if cls in order else []
            for current in after:
                if name in self.p.binds.get(current, {}):
                    out |= {self._bound(v, receiver, through_class=receiver[0] == "k")
                            for v in self._all_bindings(current, name)}
                    break
        return out

    def mro(self, cls: str) -> list[str]:
        if self.tracker.current.__class__ is int:
            self.mro_readers.add(self.tracker.current)
        if cls not in self.mro_memo:
            self.mro_memo[cls] = c3_linearization(cls, self._bases_of())
        return self.mro_memo[cls]

    def _bases_of(self) -> dict[str, list[str]]:
        """Each class's bases as known now; what they read is read on behalf of every scope."""
        if self.bases is None:
            reader, self.tracker.current = self.tracker.current, MRO_READER
            self.bases = {}
            for scope, record in self.p.scopes.items():
                if record["kind"] == "class":
                    found = [cls for expr in record["bases"]
                             for cls in sorted(v[1] for v in self.ev(scope, expr) if v[0] == "k")]
                    self.bases[scope] = list(dict.fromkeys(found))
            self.tracker.current = reader
        return self.bases

    # --- results -----------------------------------------------------------------------

    def calls(self) -> list[Call]:
        """Every resolved call, labelled by how its callee was found."""
        found: list[Call] = []
        for scope, record in self.p.scopes.items():
            for index, call in enumerate(record["calls"]):
                targets = self.callees.get((scope, index))
                if not targets:
                    continue
                static = self._static_targets(scope, call[0])
                concrete = {t for t in targets if not self.p.scopes[t].get("abstract")}
                if concrete:  # an abstract hook runs only as the overrides found beside it
                    targets = concrete
                inits = {v[1] for t in targets if self.p.scopes[t]["kind"] == "class"
                         for v in self._class_attr(t, "__init__") if v[0] == "f"}
                for target in sorted(targets):
                    found.append(Call(scope, target, call[3], self._how(scope, target, static), target in inits))
        return found

    def _how(self, scope: str, target: str, static: set[str]) -> str:
        if target in static:
            return "static"
        own = self.p.scopes[scope]["class"]
        owner = self.p.scopes[target]["class"]
        if own and owner and owner != own and own in self.mro(owner):
            return "dispatch"  # a call on self that runs a subclass's override
        return "inferred"

    def _static_targets(self, scope: str, func: list) -> set[str]:
        """Callees found from definitions and imports alone: no value flow, no inference."""
        targets: set[str] = set()
        for value in self._static(scope, func, 0):
            if value[0] in ("f", "b"):
                targets.add(value[1])
            elif value[0] == "k":
                targets.add(value[1])
                targets |= {v[1] for v in self._class_attr(value[1], "__init__") if v[0] == "f"}
        return targets

    def _static(self, scope: str, expr: list, depth: int) -> frozenset:
        """`ev` restricted to names bound by `def`, `class` and `import`, and `self`/`super()`."""
        key = (scope, id(expr))
        if key in self.static_memo or depth > 30:  # an alias chain that long is not followed
            return self.static_memo.get(key, frozenset())
        self.static_memo[key] = frozenset()  # a cycle of aliases yields nothing
        op = expr[0]
        out: set | frozenset = set()
        if op in ("d", "i", "S"):
            out = self.ev(scope, expr)
        elif op == "a":
            for value in self._static(scope, expr[1], depth + 1):
                if value[0] == "o":  # `self.method`: the class's own methods, not stored values
                    out |= {self._bound(v, value, through_class=False) for v in self._class_attr(value[1], expr[2])}
                elif value[0] in ("m", "k", "S"):
                    out |= self._attr(value, expr[2])
        elif op in ("l", "n"):
            out = self._static_name(scope, expr, depth)
        elif op == "P":
            record = self.p.scopes[scope]
            if record["params"] and expr[1] == record["params"][0] and record["method"] in ("instance", "class"):
                out = {("o" if record["method"] == "instance" else "k", record["class"])}
        self.static_memo[key] = frozenset(out)
        return self.static_memo[key]

    def _static_name(self, scope: str, expr: list, depth: int) -> set:
        owner: str | None
        if expr[0] == "l":
            owner, indices = scope, expr[2] if expr[2] is not None else self.p.binds[scope].get(expr[1], ())
        else:
            owner = self._owner(scope, expr[1])
            if owner is None:
                return set()
            indices = self.p.binds[owner].get(expr[1], ())
        out: set = set()
        for index in indices:
            value = self.p.scopes[owner]["binds"][index][1]
            if value[0] in ("d", "i") or value[0] == "P" or value[0] == "u" and value[1][0][0] == "P":
                out |= self._static(owner, value if value[0] != "u" else value[1][0], depth + 1)
        if expr[0] == "n" and not out and self.p.scopes[owner]["kind"] == "module":
            out = {v for v in self._module_attr(owner, expr[1], set()) if v[0] in ("f", "k", "m")}
        return out

    def _owner(self, scope: str, name: str) -> str | None:
        parent = self.p.scopes[scope]["parent"]
        while parent is not None:
            record = self.p.scopes[parent]
            if record["kind"] == "module" or (record["kind"] != "class" and name in self.p.binds[parent]):
                return parent
            parent = record["parent"]
        return None

