"""The Python call solver evaluates, in a scope that runs again, only the items whose inputs grew
(issue 40: cheaper resolver passes). Skipping an item whose inputs did not grow must leave the
solve exactly as evaluating every item of the scope would: every table, capped sets and round
budget included. Checked on a real tree, ragstream's own package, against a solver that
evaluates every item of every scope it runs (how the solver ran before)."""
from __future__ import annotations

from pathlib import Path

from ragstream.config import PROJECT_ROOT
from ragstream.index.python.calls.link import _externals, _guesses
from ragstream.index.python.calls.program import Program
from ragstream.index.python.calls.solver import Solver
from ragstream.index.python.parser import module_names, parse_python


class EveryItem(Solver):
    """The scope-level worklist: a scope that runs evaluates all of its items."""

    def _round(self, scope, record, stale):
        stale.update(item for item, _, _ in self.items[scope])
        super()._round(scope, record, stale)


def _program(root: Path) -> Program:
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    modules = module_names(paths)
    parsed = [parse_python(p, (root / p).read_text(encoding="utf-8"), modules[p]) for p in paths]
    return Program.from_records([f.flow for f in parsed if f.flow])


def _solved(solver: Solver) -> tuple:
    solver.solve()
    tables = {name: table.values for name, table in vars(solver).items() if hasattr(table, "values")
              and hasattr(table, "cap")}
    return solver.calls() + _guesses(solver.p, solver) + _externals(solver.p, solver), tables


def test_skipping_items_whose_inputs_did_not_grow_solves_a_real_tree_exactly_as_before():
    root = PROJECT_ROOT / "ragstream"
    items, tables = _solved(Solver(_program(root)))
    every_items, every_tables = _solved(EveryItem(_program(root)))
    assert len(items) > 5000  # a real solve: thousands of calls, classes with bases, decorators
    assert items == every_items
    assert tables.keys() == every_tables.keys() and all(tables[k] == every_tables[k] for k in tables)


def test_a_round_evaluates_only_stale_items_and_a_growth_makes_its_readers_stale():
    program = Program.from_records([[
        {"name": "m", "kind": "module", "parent": None, "method": None, "class": None, "params": [],
         "vararg": None, "kwonly": [], "kwarg": None, "generator": False, "abstract": False,
         "binds": [["f", ["d", "m.f"]], ["g", ["l", "f", None]]], "calls": [],
         "returns": [], "yields": [], "stores": [], "items": [], "bases": [], "star": [], "all": None,
         "returns_params": [], "order": [0, 1], "sites": []},
        {"name": "m.f", "kind": "function", "parent": "m", "method": None, "class": None, "params": [],
         "vararg": None, "kwonly": [], "kwarg": None, "generator": False, "abstract": False, "binds": [],
         "calls": [], "returns": [], "yields": [], "stores": [], "items": [], "bases": [], "star": [],
         "all": None, "returns_params": [], "order": [], "sites": []},
    ]])
    solver = Solver(program)
    first, second = (item for item, _, _ in solver.items["m"])
    solver._round("m", program.scopes["m"], {second})  # only the stale item runs: `g = f`
    assert solver.bindval.values == {}  # `g = f` read `f` before `f = def` ran: nothing yet
    assert solver.tracker.items == set()
    solver.tracker.current = None
    solver._round("m", program.scopes["m"], {first})
    assert solver.bindval.values == {("m", 0): {("f", "m.f")}}
    assert solver.tracker.items == {second}  # `g = f` read what just grew: it is stale now


def test_a_base_found_late_reruns_only_what_read_a_lookup_and_solves_as_before():
    """A class whose base is known only once a call's result flows (`Base = make()`) changes an
    MRO after the first pass: the items that looked an attribute up run again, the rest need not."""
    code = {"m.py": "def make():\n    class Made:\n        def hook(self):\n            return helper()\n"
                    "    return Made\n"
                    "def helper():\n    return 1\n"
                    "Base = make()\n"
                    "class Child(Base):\n    def run(self):\n        return self.hook()\n"
                    "def main():\n    Child().run()\n    return helper()\n"}
    modules = module_names(sorted(code))
    program = lambda: Program.from_records([parse_python(p, t, modules[p]).flow for p, t in code.items()])  # noqa: E731
    reseeded = []

    class Counted(Solver):
        def _seed_receivers(self):
            reseeded.append(1)
            super()._seed_receivers()

    items, tables = _solved(Counted(program()))
    assert len(reseeded) > 1  # the MRO changed after the first pass
    every_items, every_tables = _solved(EveryItem(program()))
    assert items == every_items and tables == every_tables
    assert any(c.caller == "m.Child.run" and c.callee == "m.make.Made.hook" for c in items)
