"""Excerpts are exact: every quoted line carries its number in the file and reads as the file
does, and a gap marker stands wherever lines are skipped -- in the answer, the prompt's evidence
(what the panels and the CLI show too) and a condensed block (real index of the sample
repository: Python, C# and SQL)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragstream.controller import Controller, Scope
from ragstream.excerpt import GAP, GAP_LINE, line_numbers, quoted, selected
from ragstream.redact import REDACTED

SCOPE = Scope("sample_repo", "default", None, {})
QUESTIONS = ("How is a payment recorded?", "How does the invoices controller create an invoice?",
             "Which procedures write the Invoice table?", "what does log_event do?")
NUMBERED = re.compile(r"^\s*(\d+) │ ?(.*)$")
GAP_ROW = re.compile(rf"^\s*{GAP}( .*)?$")  # a gap, or an elided member's summary
ELIDED = re.compile(r" \.\.\.  \[[^\]]*: own chunk\]$")


def test_a_type_chunk_is_numbered_up_to_its_first_elided_member_and_back_from_its_end():
    """An elided member is a gap saying what it skips, never numbered: its line is a summary."""
    text = "class A:\n    x = 1\n    def f(self) ...  [method f: own chunk]\n    y = 2\n" \
           "    def g(self) ...  [method g: own chunk]\n    z = 3"
    assert line_numbers(text, 10, 30) == [10, 11, 12, None, None, 30]
    assert quoted(text, line_numbers(text, 10, 30)).split("\n") == [
        "10 │ class A:", "11 │     x = 1", "   ⋮     def f(self) ...  [method f: own chunk]",
        "   │     y = 2", "   ⋮     def g(self) ...  [method g: own chunk]", "30 │     z = 3"]
    assert line_numbers("a\nb", 1, 5) == [None, None]  # a text that is not its span: no number is guessed


def test_selected_lines_mark_every_gap_and_a_jump_in_numbers_is_a_gap():
    text, numbers = selected("a\nb\nc\nd\ne", [1, 2, 3, 4, 5], [1, 3])
    assert numbers == [GAP_LINE, 2, GAP_LINE, 4, GAP_LINE]
    assert quoted(text, numbers).split("\n") == ["  ⋮", "2 │ b", "  ⋮", "4 │ d", "  ⋮"]
    assert quoted("x\ny", [3, 9]).split("\n") == ["3 │ x", "  ⋮", "9 │ y"]


def _check_quoted(block: str, root: Path, path: str) -> int:
    """Every numbered line of a quoted block is the file's line; two numbered lines apart in the
    file have a gap marker between them. Returns how many lines were checked."""
    lines = (root / path).read_text(encoding="utf-8").split("\n")
    checked, previous = 0, None
    for row in block.split("\n"):
        if GAP_ROW.match(row):
            previous = None
            continue
        match = NUMBERED.match(row)
        if not match:
            continue
        number, code = int(match[1]), match[2]
        assert not ELIDED.search(code), (path, number, code)  # a summary is no line of the file: never numbered
        pattern = ".+?".join(map(re.escape, code.rstrip().split(REDACTED)))  # a secret reads [REDACTED]
        assert re.search(pattern + "$", lines[number - 1].rstrip()), (path, number, code)
        assert previous is None or number == previous + 1, (path, previous, number, "no gap marker")
        previous, checked = number, checked + 1
    return checked


@pytest.fixture(scope="module")
def answered(built_sample):
    repo, settings, _ = built_sample
    with Controller(settings) as controller:
        yield repo, controller, [controller.run(q, SCOPE, controller.pipeline("base"))[0] for q in QUESTIONS]


def test_evidence_and_answers_quote_the_files_exactly(answered):
    repo, controller, states = answered
    checked = 0
    for sp in states:
        where = controller.locations(sp, [item["id"] for item in sp.node_texts])
        for item in sp.node_texts:
            if item["id"] in where and not item.get("declaration"):
                checked += _check_quoted(quoted(item["text"], item["lines"]), repo, where[item["id"]].split(":")[0])
        blocks = re.findall(r"- \*\*(\S+)\*\* — `([^`:]+):[^`]*`[^\n]*\n```\w*\n(.*?)\n```", sp.S_CTX_MD, re.S)
        assert blocks, sp.question_raw
        for _, path, body in blocks:  # the prompt's evidence: every line numbered or a gap
            checked += _check_quoted(body, repo, path)
            assert all(NUMBERED.match(r) or GAP_ROW.match(r) or not r.strip() for r in body.split("\n")), body
        for path, body in re.findall(r"— `([^`:]+):[^`]*`[^\n]*\n  ```\n(.*?)\n  ```", sp.answer, re.S):
            checked += _check_quoted(body, repo, path)
    assert checked > 100


def test_a_condensed_block_keeps_each_line_s_number_and_marks_what_it_left_out(answered, built_sample):
    repo, controller, _ = answered
    sp, _ = controller.run("How is a payment recorded?", SCOPE, controller.pipeline("base", {"max_context_tokens": 300}))
    cut = {c["id"] for c in sp.budget["context"]["cuts"] if c["reason"].startswith("condensed")}
    blocks = re.findall(r"- \*\*(\S+)\*\* — `([^`:]+):[^`]*`[^\n]*\n```\w*\n(.*?)\n```", sp.S_CTX_MD, re.S)
    condensed = [(path, body) for node, path, body in blocks if node in cut]
    assert condensed and all(GAP in body for _, body in condensed)
    assert sum(_check_quoted(body, repo, path) for path, body in condensed) > 0


def test_a_declaration_from_the_graph_is_never_numbered_as_a_line_of_the_file():
    """A column reached by the walk is quoted by its declaration (`FirstName NVARCHAR(50)`,
    normalised by the SQL parser), not by its line (`[FirstName] [nvarchar](50) NOT NULL,`):
    found by benchmarks/excerpt_caller_check.py on ContosoUniversity."""
    import networkx as nx

    from ragstream.stages.expand import _numbered_members

    graph = nx.MultiDiGraph()
    graph.add_node("sql:dbo.Instructor.FirstName|COLUMN", kind="COLUMN", path="db/schema.sql", start_line=74,
                   end_line=74, signature="FirstName NVARCHAR(50)")
    item = {"id": "sql:dbo.Instructor.FirstName|COLUMN", "text": "FirstName NVARCHAR(50)", "declaration": True,
            "lines": [None]}
    assert _numbered_members(item, graph)["lines"] == [None]
    assert quoted(item["text"], [None]) == "  │ FirstName NVARCHAR(50)"
