"""An edit that only moves lines of Python files takes the previous build's graph, its lines
moved (`graph_reuse`, issue 40), and the index must be the one a full build makes; any other
edit links the graph again. The tree is a copy of ragstream's own graph and Python-call code."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ragstream.config import PROJECT_ROOT
from ragstream.index.line_shift import line_move
from ragstream.index.python.parser import parse_python
from tests.conftest import make_settings
from tests.test_replay import build_both_and_compare

SUBTREES = ["ragstream/graph", "ragstream/index/python"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    for subtree in SUBTREES:
        shutil.copytree(PROJECT_ROOT / subtree, work / subtree, ignore=shutil.ignore_patterns("__pycache__"))
    return work


def largest(work: Path) -> Path:
    return max(sorted(work.rglob("*.py")), key=lambda p: p.stat().st_size)


def edit_lines(path: Path, edit) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(edit(lines)), encoding="utf-8")


def blank_line_at(lines: list[str]) -> int:
    return next(i for i in range(len(lines) // 2, len(lines)) if not lines[i].strip())


def docstring_opened_at(lines: list[str]) -> int:
    """The first line that opens a function's docstring and does not close it."""
    return next(i for i, line in enumerate(lines) if line.startswith("        \"\"\"") and line.count('\"\"\"') == 1)


def test_edits_that_move_lines_take_the_moved_graph_and_equal_a_full_build(tree: Path, tmp_path: Path):
    incremental = make_settings(tmp_path / "incremental")
    build_both_and_compare(tree, incremental, tmp_path / "full", "the first build")
    target, other = largest(tree), sorted(tree.rglob("*.py"))[0]
    moves = [
        ("a comment in the middle", lambda ls: ls[:len(ls) // 2] + ["# moved\n", "\n"] + ls[len(ls) // 2:]),
        ("a comment appended", lambda ls: ls + ["# the end\n"]),
        ("a blank line removed", lambda ls: ls[:blank_line_at(ls)] + ls[blank_line_at(ls) + 1:]),
        ("a docstring longer", lambda ls: ls[:docstring_opened_at(ls) + 1] + ["        One more line of it.\n"]
         + ls[docstring_opened_at(ls) + 1:]),
    ]
    for step, edit in moves:
        edit_lines(target, edit)
        report = build_both_and_compare(tree, incremental, tmp_path / "full", step)
        assert report.graph_moved and report.python_solve_reused, step
    edit_lines(target, moves[0][1])  # two files moved at once
    edit_lines(other, moves[1][1])
    assert build_both_and_compare(tree, incremental, tmp_path / "full", "two files").graph_moved


def test_edits_that_change_code_link_the_graph_again(tree: Path, tmp_path: Path):
    incremental = make_settings(tmp_path / "incremental")
    build_both_and_compare(tree, incremental, tmp_path / "full", "the first build")
    target = largest(tree)
    changes = [
        ("a function appended", lambda ls: ls + ["\n\ndef appended(value):\n", "    return len(str(value))\n"]),
        ("a comment and a function", lambda ls: ["# top\n"] + ls + ["\n\ndef appended_too():\n", "    return 1\n"]),
    ]
    for step, edit in changes:
        edit_lines(target, edit)
        report = build_both_and_compare(tree, incremental, tmp_path / "full", step)
        assert not report.graph_moved, step
    (tree / "ragstream" / "graph" / "added.py").write_text("def added():\n    return 2\n", encoding="utf-8")
    assert not build_both_and_compare(tree, incremental, tmp_path / "full", "a file added").graph_moved


def test_a_line_move_keeps_the_order_of_lines_and_takes_the_new_ends():
    text = "def a():\n    return b()\n\n\ndef b():\n    return 1\n"
    before = parse_python("m.py", text, "m")
    move = line_move(before, parse_python("m.py", "# top\n" + text, "m"))
    assert move is not None and move.lines == {2: 3}  # the call in `a`
    longer = parse_python("m.py", text + "# the end\n", "m")
    appended = line_move(before, longer)
    assert appended is not None and appended.lines == {2: 2}
    assert appended.own == {node.id: (node.start_line, node.end_line, node.docstring) for node in longer.nodes}
    assert appended.own["py:m.b|FUNCTION"] == (5, 6, "") and appended.own["py:m|MODULE"][1] != before.nodes[0].end_line
    documented = line_move(before, parse_python("m.py", text.replace("def b():\n", 'def b():\n    """B,\n    twice."""\n'), "m"))
    assert documented is not None and documented.own["py:m.b|FUNCTION"] == (5, 8, "B,\ntwice.")
    swapped = "def b():\n    return 1\n\n\ndef a():\n    return b()\n"
    assert line_move(before, parse_python("m.py", swapped, "m")) is None  # not a shift: the order differs
    assert line_move(before, parse_python("m.py", text.replace("b()", "c()"), "m")) is None  # a call changed
