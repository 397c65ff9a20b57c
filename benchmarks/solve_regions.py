"""How much of the Python call solve a scoped re-solve would evaluate again (issue 40, sixth pass).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/solve_regions.py PATH [--prefix ragstream.]

Every Python file under PATH is parsed and the program solved once, recording which items (a
binding, a call, a return, ...) added values to each table key and which read it (the tables
record readers; a read through a memoised class lookup counts for the lookup's readers). For
each module (those whose name starts with `--prefix`, when given) the region is the forward
closure of the keys its items wrote: every reader and every other writer of such a key joins,
and the keys it wrote in turn. Printed: the region's share of all items (quantiles over the
modules), and how many regions hold no key at the cap (`MAX_VALUES`), the first of the
conditions a scoped re-solve needs to equal a full solve (docs/BENCHMARKS.md, sixth pass). A
study of the previous solve only: the edited version's own writes, and reads of the program's
structure rather than of tables, are not in it.
"""
from __future__ import annotations

import argparse
import gc
from collections import defaultdict
from pathlib import Path

from ragstream.index.python.calls.link import _without_lines
from ragstream.index.python.calls.program import Program
from ragstream.index.python.calls.solver import Solver
from ragstream.index.python.calls.value_tables import Table
from ragstream.index.python.parser import module_names, parse_python


def parsed_files(root: Path) -> list:
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    names = module_names(paths)
    files = []
    for path in paths:
        try:
            files.append(parse_python(path, (root / path).read_text(encoding="utf-8"), names[path]))
        except (SyntaxError, ValueError, UnicodeDecodeError):
            continue
    return files


def solved_with_writers(files: list) -> tuple[Solver, dict]:
    """The solve of `files`, and (table id, key) -> the items that added values to it."""
    writers: dict = defaultdict(set)
    add = Table.add

    def recording_add(self, key, values):
        if values and self.tracker.current.__class__ is int:
            writers[(id(self), key)].add(self.tracker.current)
        return add(self, key, values)

    records = [f.flow for f in files if f.language == "python" and f.flow]
    solver = Solver(Program.from_records([[_without_lines(r) for r in scopes] for scopes in records]))
    Table.add = recording_add  # type: ignore[method-assign]
    try:
        solver.solve()
    finally:
        Table.add = add  # type: ignore[method-assign]
    return solver, writers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path)
    parser.add_argument("--prefix", default="")
    args = parser.parse_args()
    gc.disable()  # as a build solves (`gc_paused`)
    solver, writers = solved_with_writers(parsed_files(args.path.resolve()))
    tables = {id(t): t for t in vars(solver).values() if isinstance(t, Table)}
    lookup_readers = {key: {r for r in found if r.__class__ is int} for key, found in solver.lookups.readers.items()}
    readers: dict = defaultdict(set)
    for table_id, table in tables.items():
        for key, found in table.readers.items():
            for reader in found:
                readers[(table_id, key)] |= {reader} if reader.__class__ is int else lookup_readers.get(reader, set())
    written: dict = defaultdict(set)
    for key, items in writers.items():
        for item in items:
            written[item].add(key)
    capped = {(table_id, key) for table_id, table in tables.items()
              for key, values in table.values.items() if len(values) >= table.cap}
    by_module: dict = defaultdict(set)
    for item, scope in enumerate(solver.tracker.scope_of):
        by_module[solver.p.module_of(scope)].add(item)
    shares, uncapped = [], []
    for module, own in sorted(by_module.items()):
        if not module.startswith(args.prefix):
            continue
        items, keys, todo = set(own), set(), list(own)
        while todo:
            for key in written.get(todo.pop(), ()):
                if key not in keys:
                    keys.add(key)
                    joined = (readers.get(key, set()) | writers.get(key, set())) - items
                    items |= joined
                    todo.extend(joined)
        share = len(items) / len(solver.tracker.scope_of)
        shares.append(share)
        if not keys & capped:
            uncapped.append(share)

    def quantiles(values: list[float]) -> str:
        ordered = sorted(values)
        return ", ".join(f"p{q}: {ordered[int(len(ordered) * q / 100)]:.2%}" for q in (25, 50, 75, 90)) if ordered else "-"

    print(f"modules {len(shares)}, items {len(solver.tracker.scope_of)}, keys at the cap {len(capped)}")
    print(f"region's share of the items: {quantiles(shares)}")
    print(f"regions with no key at the cap: {len(uncapped)} of {len(shares)}; their share: {quantiles(uncapped)}")


if __name__ == "__main__":
    main()
