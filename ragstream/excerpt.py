"""Excerpts of code as every front end and prompt quotes them (`quoted`): each line with its number in the
file, and a gap marker wherever lines are skipped, so two lines that are apart in the file never
read as adjacent.

A quoted text travels with its line numbers (`numbers`, one per line of the text): an int is the
line's number in the file, `GAP_LINE` marks a line that stands for skipped lines (a condensed
run, the seam between two parts of a node), `None` a line whose number is not known (between two
members a type's chunk elides: each elided member's length is not in the text).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

GAP = "⋮"  # how a skipped run of lines is shown
GAP_LINE = 0  # the number of a line that stands for skipped lines (no file line is 0)
SKIPPED = "..."  # the text of such a line in a quoted text (what a model reads between the numbers)
# A child definition a chunk elides to one line (index/chunks.py): its body is its own chunk.
_ELISION = re.compile(r" \.\.\.  \[[^\]]*: own chunk\]$")
_SPAN = re.compile(r":(\d+)-(\d+)$")

Numbers = list[int | None]


def span_of(where: str) -> tuple[int, int] | None:
    """(start, end) of a `path:start-end` location; None when it has none."""
    match = _SPAN.search(where)
    return (int(match[1]), int(match[2])) if match else None


def numbered(text: str, where: str | None) -> Numbers:
    """`line_numbers` of a chunk's text at `where` (`path:start-end`); all unknown without one."""
    span = span_of(where) if where else None
    return line_numbers(text, *span) if span else [None] * (text.count("\n") + 1)


def line_numbers(text: str, start: int, end: int, members: Sequence[tuple[int, int]] = ()) -> Numbers:
    """The file line of each line of a chunk's text spanning `start`-`end`. With the spans of the
    members it elides (in order), every line's; without, counted on from the start up to the first
    elided member and back from the end after the last, unknown in between."""
    lines = text.split("\n")
    elided = [i for i, line in enumerate(lines) if _ELISION.search(line)]
    if len(members) == len(elided) and elided:
        numbers: Numbers = []
        number, spans = start, iter(members)
        for line in lines:
            span = next(spans) if _ELISION.search(line) else None
            numbers.append(span[0] if span else number)
            number = span[1] + 1 if span else number + 1
        return numbers if number == end + 1 else line_numbers(text, start, end)
    if not elided:
        return list(range(start, start + len(lines))) if end - start + 1 == len(lines) else [None] * len(lines)
    first, last = elided[0], elided[-1]
    return [start + i if i <= first else end - (len(lines) - 1 - i) if i > last else None
            for i in range(len(lines))]


def joined(pieces: Sequence[tuple[str, Numbers]]) -> tuple[str, Numbers]:
    """Several quoted texts as one, a gap line between each two."""
    text = f"\n{SKIPPED}\n".join(t for t, _ in pieces)
    numbers: Numbers = []
    for index, (_, own) in enumerate(pieces):
        numbers += ([GAP_LINE] if index else []) + list(own)
    return text, numbers


def selected(text: str, numbers: Numbers | None, keep: Iterable[int]) -> tuple[str, Numbers]:
    """Only the lines at indexes `keep`, a gap line wherever lines between them (or before the
    first, or after the last) are left out."""
    lines = text.split("\n")
    own = list(numbers) if numbers is not None else [None] * len(lines)
    kept = sorted(set(keep))
    out: list[tuple[str, int | None]] = []
    previous = -1
    for index in kept:
        if index > previous + 1 and not (out and out[-1][1] == GAP_LINE):
            out.append((SKIPPED, GAP_LINE))
        out.append((lines[index], own[index]))
        previous = index
    if previous < len(lines) - 1:
        out.append((SKIPPED, GAP_LINE))
    return "\n".join(t for t, _ in out), [n for _, n in out]


def quoted(text: str, numbers: Numbers | None, indent: str = "") -> str:
    """The text as quoted: `  12 │ code`, `GAP` for skipped lines; a jump in the numbers is a gap
    too. An elided member (`def f(self) ...  [method f: own chunk]`) is a gap that says what it
    skips, with no number: its one line is a summary (a signature joined onto one line, without
    its decorators), not a line of the file. Without numbers (an old state, a model's rewrite),
    the text as is."""
    lines = text.split("\n")
    if numbers is None or len(numbers) != len(lines):
        return "\n".join(indent + line for line in lines)
    width = max((len(str(n)) for n in numbers if n), default=1)
    out: list[str] = []
    previous: int | None = None
    skipped = False  # the last line written stands for skipped lines
    for line, number in zip(lines, numbers):
        if number == GAP_LINE or _ELISION.search(line):
            summary = "" if number == GAP_LINE else f" {line}"
            if summary or not skipped:
                out.append(f"{indent}{'':>{width}} {GAP}{summary}".rstrip())
            previous, skipped = None, True
            continue
        if not skipped and number is not None and previous is not None and number > previous + 1:
            out.append(f"{indent}{'':>{width}} {GAP}")
        out.append(f"{indent}{number if number is not None else '':>{width}} │ {line}".rstrip())
        previous, skipped = number, False
    return "\n".join(out)
