"""Python CALLS edges: every file's flow facts solved together, then drawn into the graph.

`resolve_calls` is the call graph proper (nested functions and lambdas are callers and callees
of their own); `link_python_calls` draws it into the index graph, where a nested function or
lambda has no node of its own: its calls are its enclosing function's (`via` names it), and a
call of it is left out (`scaled(lambda: ...)` inside `_hybrid` calling that lambda does not
make `scaled` a caller of `_hybrid`). Each
edge says how it was found: `static` (definitions and imports alone), `inferred` (value flow:
assignments, arguments, returns, containers, attributes, annotations), `dispatch` (a call on
`self` that runs a subclass's override) or `by_name` (a guess: the one method of that name in
the repository, for a receiver nothing is known about; only when `by_name` is on). A call of a
class `K(...)` is one index edge, to the class: the `__init__` it runs is its callee in
`resolve_calls` only, so that expansion does not weigh a constructor call twice.

The solve reads no line number: a call is known by its scope and index, its line only labels
the edge. So it runs on the flow facts with each call's line replaced by its index, and what it
finds is kept in a `CallMemo` under a hash of those facts (and of the resolver's own code): an
edit that leaves every scope's bindings and calls as they were -- a comment, a docstring, a
literal, lines moved up or down -- reuses the solve and only re-reads the lines.
"""
from __future__ import annotations

import builtins
import hashlib
import io
import pathlib
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Protocol

import orjson

import networkx as nx

from ragstream.index.graph_edits import add_edge, external_node
from ragstream.index.model import ParsedFile, node_id
from ragstream.index.python.calls.program import Program
from ragstream.index.python.calls.solver import Call, Solver

# Methods of builtin and everyday types: `x.get()` on an unknown `x` is far more likely one of
# these than the repository's only method called `get`, so such names are never guessed.
COMMON_METHOD_NAMES = frozenset(
    name for kind in (dict, list, str, bytes, set, tuple, int, float, object, pathlib.Path,
                      io.TextIOWrapper, io.BytesIO)
    for name in dir(kind)
) | frozenset(dir(builtins))
_BUILTINS = frozenset(dir(builtins))
_STRENGTH = {"static": 0, "inferred": 1, "dispatch": 2, "by_name": 3, "external": 4}
_NODE_KINDS = {"module": ("MODULE",), "class": ("CLASS",), "function": ("METHOD", "FUNCTION")}


class CallMemo(Protocol):
    """Where solved call graphs are kept between builds, by the hash of what was solved."""

    def get(self, key: str) -> bytes | None: ...

    def put(self, key: str, value: bytes) -> None: ...


@dataclass
class LineFreeFacts:
    """Each Python file's flow facts without lines (`_without_lines`), their hash and each
    scope's call lines, kept by the flow facts they were made from for the next build in the
    same process (`index --watch`): a parse result is not changed once made, so the same list
    gives the same facts, and a code edit makes only the changed files' again (all files' were
    ~0.1 CPU s of every edit on a 133k-line repository, docs/BENCHMARKS.md). Each use keeps
    only what it used."""

    kept: dict[int, tuple[list[dict], FileFacts]] = field(default_factory=dict)  # id of a flow -> it, its facts

    def of(self, flows: list[list[dict]]) -> list[FileFacts]:
        """Each flow's facts, in order."""
        used: dict[int, tuple[list[dict], FileFacts]] = {}
        for flow in flows:
            entry = self.kept.get(id(flow))
            if entry is None or entry[0] is not flow:  # the flow kept holds its id: no other list has it
                sited = [_without_lines(record) for record in flow]
                entry = (flow, FileFacts(sited, hashlib.sha256(orjson.dumps(sited, option=orjson.OPT_SORT_KEYS)).digest(),
                                         [[call[3] for call in record["calls"]] for record in flow]))
            used[id(flow)] = entry
        self.kept = used
        return [used[id(flow)][1] for flow in flows]


@dataclass(frozen=True)
class FileFacts:
    """One Python file's flow facts as the solve reads them: its scopes' facts without lines,
    their hash, and each scope's call lines (what an edge is labelled with)."""

    sited: list[dict]
    digest: bytes
    call_lines: list[list[int]]


def resolve_calls(files: list[ParsedFile], by_name: bool = True, memo: CallMemo | None = None,
                  facts: LineFreeFacts | None = None) -> tuple[Program, list[Call]]:
    """Every call edge between the files' Python scopes (ids are scope ids of `Program`), and
    each unresolved call of a name imported from outside or a builtin (resolution `external`,
    callee the dotted name: `logging.getLogger`, `builtins.len`). With a `memo`, a solve of the
    same facts made before is reused (the module docstring says why that is exact); `facts`
    keeps each file's line-free facts for the next call."""
    made = (facts or LineFreeFacts()).of([f.flow for f in files if f.language == "python" and f.flow])
    program = Program.from_records([file.sited for file in made])  # what is solved and drawn reads no line
    key = solve_key([file.digest for file in made], by_name) if memo is not None else ""
    stored = memo.get(key) if memo is not None else None
    if stored is not None:
        by_site = [Call(*row) for row in orjson.loads(stored)]
    else:
        by_site = _solve(program, by_name)
        if memo is not None:
            # each call's fields in order, as `astuple` gives them without its deep copy (0.1 s on 12k calls)
            memo.put(key, orjson.dumps([tuple(vars(call).values()) for call in by_site]))
    # `line` holds the call's index in its scope until here: the edge gets the call's line now
    # (`from_records` makes one scope per record, in order)
    lines = dict(zip(program.scopes, (scope for file in made for scope in file.call_lines)))
    return program, _strongest(by_site, lines)


def _solve(program: Program, by_name: bool) -> list[Call]:
    solver = Solver(program)
    solver.solve()
    calls = solver.calls()
    if by_name:
        calls += _guesses(program, solver)
    return calls + _externals(program, solver)


def _without_lines(record: dict) -> dict:
    """A scope's flow facts with no line number: each call's line is its index in the scope."""
    calls = [[*call[:3], index, *call[4:]] for index, call in enumerate(record["calls"])]
    return {**{k: v for k, v in record.items() if k != "line"}, "calls": calls}


# The resolver's own code: a solve kept by an older resolver is not reused.
_RESOLVER_FILES = ("link.py", "program.py", "solver.py", "value_tables.py")


def solve_key(file_hashes: list[bytes], by_name: bool) -> str:
    """The hash of everything a solve depends on: each file's line-free facts (by their hashes,
    in order: `LineFreeFacts`), guesses on or off, the resolver's code."""
    digest = hashlib.sha256(_resolver_code_hash().encode())
    digest.update(orjson.dumps(by_name))
    digest.update(b"".join(file_hashes))  # each 32 bytes: the files' bounds are kept
    return "calls:" + digest.hexdigest()


@cache
def _resolver_code_hash() -> str:
    here = Path(__file__).parent
    return hashlib.sha256(b"".join((here / name).read_bytes() for name in _RESOLVER_FILES)).hexdigest()


def _strongest(by_site: list[Call], lines: dict[str, list[int]]) -> list[Call]:
    """One call per (caller, callee), sorted by the pair: the surest way it was found, at its
    first line (`lines`: each scope's call lines, by the call's index, which `line` holds in
    `by_site`); a constructor call only when every site calling it is a call of its class. Of
    calls as sure at the same line, the first in `by_site` (as a stable sort would keep it)."""
    best: dict[tuple[str, str], tuple[tuple[int, int], Call, int]] = {}
    explicit: set[tuple[str, str]] = set()
    for call in by_site:
        pair, line = (call.caller, call.callee), lines[call.caller][call.line]
        if not call.constructor:
            explicit.add(pair)
        rank = (_STRENGTH[call.how], line)
        kept = best.get(pair)
        if kept is None or rank < kept[0]:
            best[pair] = (rank, call, line)
    return [Call(pair[0], pair[1], line, call.how, call.constructor and pair not in explicit)
            for pair, (_, call, line) in sorted(best.items(), key=lambda item: item[0])]


def link_python_calls(graph: nx.MultiDiGraph, files: list[ParsedFile], by_name: bool = True,
                      memo: CallMemo | None = None, facts: LineFreeFacts | None = None) -> Counter:
    """Add the CALLS edges of every Python file to `graph`; returns counts by resolution."""
    program, calls = resolve_calls(files, by_name, memo, facts)
    nodes: dict[str, str | None] = {}
    counts: Counter = Counter()
    for call in calls:
        if call.constructor:  # `K(...)` is one edge, to the class: its `__init__` drawn too would count the call twice
            continue
        source = _node(graph, program, call.caller, nodes)
        target = external_node(graph, "python", call.callee) if call.how == "external" \
            else _node(graph, program, call.callee, nodes)
        if source is None or target is None or (source == target and call.caller != call.callee):
            continue
        if call.how != "external" and graph.nodes[target]["name"] != program.display(call.callee):
            continue  # a nested function or lambda (a callback passed in, a closure returned) is no call of its enclosing function
        attrs = {"line": call.line, "resolution": call.how}
        if call.how == "by_name":
            attrs["guess"] = True
        if graph.nodes[source]["name"] != program.display(call.caller):
            attrs["via"] = program.display(call.caller)
        if add_edge(graph, source, target, "CALLS", attrs):
            counts[call.how] += 1
    return counts


def _node(graph: nx.MultiDiGraph, program: Program, scope: str, memo: dict[str, str | None]) -> str | None:
    """The graph node of a scope, or of its nearest enclosing scope that has one."""
    if scope not in memo:
        record = program.scopes[scope]
        found = next((nid for kind in _NODE_KINDS.get(record["kind"], ())
                      if (nid := node_id("python", record["name"], kind)) in graph), None)
        if found is None and record["parent"] is not None:
            found = _node(graph, program, record["parent"], memo)
        memo[scope] = found
    return memo[scope]


def _guesses(program: Program, solver: Solver) -> list[Call]:
    """`x.name()` on a receiver nothing is known about: the repository's one method `name`,
    preferring the caller's class, then its module; never the caller itself."""
    guesses: list[Call] = []
    for scope, record in program.scopes.items():
        for index, (func, _, _, line, _) in enumerate(record["calls"]):
            if func[0] != "a" or solver.callees.get((scope, index)) or func[2] in COMMON_METHOD_NAMES:
                continue
            if solver.ev(scope, func[1]) or _from_outside(program, scope, func[1]):
                continue  # the receiver is known: a method it lacks is not this repository's
            candidates = [m for m in program.methods_named.get(func[2], ()) if m != scope]
            target = _nearest(program, scope, candidates)
            if target is not None:
                guesses.append(Call(scope, target, line, "by_name"))
    return guesses


def _nearest(program: Program, scope: str, candidates: list[str]) -> str | None:
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    own_class = program.scopes[scope]["class"]
    module = program.module_of(scope)
    for keep in (lambda m: program.scopes[m]["class"] == own_class and own_class,
                 lambda m: program.module_of(m) == module):
        near = [m for m in candidates if keep(m)]
        if len(near) == 1:
            return near[0]
    return None


def _externals(program: Program, solver: Solver) -> list[Call]:
    """Unresolved calls of a dotted name rooted in an import or a builtin: EXTERNAL callees."""
    found: list[Call] = []
    for scope, record in program.scopes.items():
        for index, (func, _, _, line, flag) in enumerate(record["calls"]):
            if flag or solver.callees.get((scope, index)):
                continue
            name = _outside_name(program, scope, func)
            if name is not None:
                found.append(Call(scope, name, line, "external"))
    return found


def _outside_name(program: Program, scope: str, func: list) -> str | None:
    rest: list[str] = []
    while func[0] == "a":
        rest.insert(0, func[2])
        func = func[1]
    if func[0] not in ("l", "n"):
        return None
    owner = scope if func[0] == "l" else _binding_scope(program, scope, func[1])
    if owner is None:
        root = f"builtins.{func[1]}" if func[1] in _BUILTINS else None
    else:
        binds = program.scopes[owner]["binds"]
        values = [binds[i][1] for i in program.binds[owner].get(func[1], ())]
        root = values[0][1] if values and all(v[0] == "i" for v in values) else None
    return ".".join([root, *rest]) if root else None


def _binding_scope(program: Program, scope: str, name: str) -> str | None:
    """The enclosing function or module that binds a free name, else None (a builtin)."""
    parent = program.scopes[scope]["parent"]
    while parent is not None:
        record = program.scopes[parent]
        if record["kind"] != "class" and name in program.binds[parent]:
            return parent
        parent = record["parent"]
    return None


def _from_outside(program: Program, scope: str, receiver: list) -> bool:
    """The receiver is bound by an import of something outside the repository, or is what an
    unresolved call returned."""
    while receiver[0] in ("a", "c"):
        if receiver[0] == "c":  # what an unresolved call returns is nothing to guess from
            return True
        receiver = receiver[1]
    return program.bound_outside(scope, receiver)
