"""The C# passes' kept walks (`syntax.descendants`): the same nodes in the same order as a fresh
walk, at most `_WALKS_KEPT` of them, none across files (`parse_source` forgets them after each:
nodes of two parses of one text never compare equal, so a kept walk would only hold its tree)."""
from __future__ import annotations

import tree_sitter

from ragstream.index.csharp import syntax
from ragstream.index.csharp.syntax import descendants, forget_walks, grammar
from ragstream.index.parse import parse_source
from ragstream.index.walk import SourceFile

CODE = "class A { void M() { var x = 1; Call(x, 2); } void N() { Other(); } }"


def _tree() -> tree_sitter.Node:
    return tree_sitter.Parser(grammar()).parse(CODE.encode()).root_node


def _fresh(node: tree_sitter.Node) -> list[tuple[str, int, int]]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append((current.type, current.start_byte, current.end_byte))
        stack.extend(reversed(current.children))
    return found


def _kept() -> dict:
    return syntax._walks.__dict__.get("kept", {})


def test_a_kept_walk_gives_what_a_fresh_walk_gives_and_is_reused() -> None:
    forget_walks()
    root = _tree()
    first = [(n.type, n.start_byte, n.end_byte) for n in descendants(root)]
    assert first == _fresh(root)
    assert root in _kept()
    assert [(n.type, n.start_byte, n.end_byte) for n in descendants(root)] == first  # read from the kept walk
    forget_walks()
    assert _kept() == {}


def test_no_more_than_the_bound_are_kept_and_none_of_another_parse() -> None:
    forget_walks()
    roots = [_tree() for _ in range(syntax._WALKS_KEPT + 5)]
    for root in roots:
        list(descendants(root))
    assert len(_kept()) == syntax._WALKS_KEPT
    assert roots[0] not in _kept() and roots[-1] in _kept()
    assert _tree() not in _kept()  # the same text parsed again: other nodes
    forget_walks()


def test_parsing_a_file_leaves_no_walk_behind() -> None:
    forget_walks()
    parse_source(SourceFile("A.cs", "csharp", "0" * 64, CODE), None, "tsql")
    assert _kept() == {}
