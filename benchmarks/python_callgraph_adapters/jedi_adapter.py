"""jedi: for each call site, `Script.infer` with the cursor on the called expression.

The cursor goes where an editor user would put it to ask "what is called here": just before the
call's `(` (after any closing parentheses, so `(lambda: ...)()` asks about the lambda), or at the
end of a decorator or raised expression. When `infer` finds no definition in the directory (it
answers `classmethod.__get__` from typeshed for a classmethod, for instance), `goto` with
imports followed is asked instead, and a function or class it lands on is the callee.
A function or lambda found is the callee. A class found is called (`A(...)`): the class, and the
`__init__` jedi's own attribute lookup on the class finds (it follows the MRO). An instance found
is called through its class's `__call__`, looked up the same way. Definitions outside the
directory (builtins, typeshed, the standard library) are not internal calls and are dropped.
"""
from __future__ import annotations

from collections import defaultdict

import jedi
from jedi.api.environment import InterpreterEnvironment

from sources import CallSite, SourceIndex

Edge = tuple[str, str]
NEEDS_CALL_SITES = True  # resolves the call sites listed by the stdlib `ast` pass


def edges(index: SourceIndex, progress=None) -> set[Edge]:
    project = jedi.Project(str(index.root))
    environment = InterpreterEnvironment()
    sites: dict[str, list[CallSite]] = defaultdict(list)
    for site in index.calls:
        sites[site.path].append(site)
    found: set[Edge] = set()
    for number, (path, file_sites) in enumerate(sorted(sites.items()), 1):
        file = index.root / path
        text = file.read_text(encoding="utf-8")
        script = jedi.Script(text, path=str(file), project=project, environment=environment)
        lines = text.split("\n")  # ast's line numbers (splitlines also breaks at form feeds)
        for site in file_sites:
            line, column = _cursor(lines, site)
            callees = [c for name in script.infer(line, column) for c in _callees(index, name)]
            if not callees:
                callees = [c for name in script.goto(line, column, follow_imports=True)
                           if name.type in ("function", "class") for c in _callees(index, name)]
            found.update((site.caller, callee) for callee in callees)
        if progress:
            progress(number, len(sites))
    return found


def _cursor(lines: list[str], site: CallSite) -> tuple[int, int]:
    """(line, character column) for jedi: the call's `(`, else the end of the expression."""
    line = site.func.end_lineno
    column = len(lines[line - 1].encode("utf-8")[:site.func.end_col_offset].decode("utf-8"))
    if site.kind != "call":
        return line, column
    row, col = line, column
    while row <= len(lines):
        rest = lines[row - 1][col:]
        stripped = rest.lstrip(") \t\r\\")
        if stripped.startswith("("):
            return row, col + len(rest) - len(stripped)
        if stripped:
            break
        row, col = row + 1, 0
    return line, column


def _callees(index: SourceIndex, name) -> list[str]:
    if name.type in ("function", "class"):
        own = _name_of(index, name.module_path, name.line, name.name, name.column)
        if own is None:
            return []
        if name.type == "function":
            return [own]
        return [own, *_members(index, name, "__init__")]
    if name.type == "instance":
        return _members(index, name, "__call__")
    return []


def _members(index: SourceIndex, name, attribute: str) -> list[str]:
    """`attribute` as jedi looks it up on the inferred class or instance (MRO included)."""
    found = []
    for value in name._name.infer():
        for member in value.py__getattribute__(attribute):
            node = member.tree_node
            if node is None or node.type not in ("funcdef", "async_funcdef", "lambdef"):
                continue
            module_path = member.get_root_context().py__file__()
            qualname = _name_of(index, module_path, node.start_pos[0], attribute, None)
            if qualname:
                found.append(qualname)
    return found


def _name_of(index: SourceIndex, module_path, line, name, column) -> str | None:
    path = index.relative(module_path)
    if path is None or line is None:
        return None
    return index.name_of(path, line, name, column)
