"""The issue-38 check (benchmarks/excerpt_caller_check.py) catches what it counts: a quoted line
that is not the file's, two lines apart in the file with no gap marker between, an elided
member's summary under a number, and a caller whose body never calls the callee."""
from __future__ import annotations

import networkx as nx

from benchmarks.excerpt_caller_check import Figures, Files, call_like, check_quoted
from ragstream.excerpt import quoted


def _files(tmp_path):
    (tmp_path / "a.py").write_text("\ufeffimport os\n\n@dataclass\nclass A:\n    x = 1\n\ndef f():\n    return g(1)\n",
                                   encoding="utf-8")
    return Files(tmp_path)


def test_exact_quotes_pass_and_misquotes_and_missing_gaps_are_counted(tmp_path):
    files, figures = _files(tmp_path), Figures()
    check_quoted(quoted("import os\n\ndef f():", [1, 2, 7]), "panel", files, figures, "a.py")
    assert figures.lines == 3 and not figures.misquoted and not figures.missing_gaps  # a BOM is no text
    rendered = "- **py:a.f|FUNCTION** — `a.py:7-8`\n```\n7 │ def f():\n9 │     return g(1)\n```"
    check_quoted(rendered, "answer", files, figures)
    assert len(figures.misquoted) == 1 and "a.py:9" in figures.misquoted[0]  # the file has no line 9
    assert figures.missing_gaps == ["answer: a.py:7 -> 9 with no ⋮ between"]


def test_an_elided_member_numbered_as_a_line_is_a_misquote(tmp_path):
    files, figures = _files(tmp_path), Figures()
    check_quoted("3 │ class A ...  [class A: own chunk]", "prompt", files, figures, "a.py")
    assert len(figures.misquoted) == 1  # line 3 reads @dataclass
    now = Figures()  # as quoted now: a gap that says what it skips, no number
    check_quoted(quoted("class A ...  [class A: own chunk]", [3]), "prompt", files, now, "a.py")
    assert not now.misquoted and now.elided == 1 and now.lines == 0


def test_a_caller_must_call_the_callee_in_its_body():
    graph = nx.MultiDiGraph()
    graph.add_node("py:a.g|FUNCTION", kind="FUNCTION", name="a.g")
    body = "def f():\n    return g(1)\n"
    assert call_like(body, body, body, graph, "py:a.g|FUNCTION", {"line": 2}) == "called"
    assert call_like("def f():\n    return h(1)\n", body, "", graph, "py:a.g|FUNCTION", {"line": 2}) is None
    assert call_like("def f():\n    run(g)\n", body, "", graph, "py:a.g|FUNCTION", {}) == "passed as a value"
