"""Conditional compilation: one branch of every `#if` chain, so the grammar sees one program.

`#if A ... #else ... #endif` around half a method signature gives tree-sitter two headers for
one body; it then ends the class early and every later member is lost. The parser cannot know
which symbols a build defines, so it reads the first branch of each chain (the `#if` branch,
what a build defining its symbol compiles) and blanks the `#elif` / `#else` branches and the
directive lines. Blanked lines stay as empty lines: line numbers do not move, and chunks are cut
from the original text, so both branches are still indexed as text.

A call given a tuple as its type argument (`connection.QueryAsync<(long id, string data)>(sql)`,
Dapper's row as a tuple) is read by the grammar as two comparisons, so the call and its SQL are
lost: `tuple_calls_named` writes the tuple as one name of the same length (`<_______...>`), which
no repository declares, so the call is a call again and nothing else moves.
"""
from __future__ import annotations

import re

_DIRECTIVE = re.compile(r"^\s*#\s*(if|elif|else|endif)\b")


def first_branches(text: str) -> str:
    """`text` with the `#elif` / `#else` branches and the conditional directives blanked."""
    if "#" not in text:
        return text
    lines = text.split("\n")
    # One entry per open #if: is the branch being read now a later (blanked) one?
    later: list[bool] = []
    for number, line in enumerate(lines):
        match = _DIRECTIVE.match(line)
        if match:
            word = match.group(1)
            if word == "if":
                later.append(False)
            elif word in ("elif", "else") and later:
                later[-1] = True
            elif word == "endif" and later:
                later.pop()
            lines[number] = ""
        elif any(later):
            lines[number] = ""
    return "\n".join(lines)


# `Name<(long id, string data)>(`: a generic method call whose type argument is a tuple (one level of
# nested generics inside it, `(List<int> ids, string name)`)
_TUPLE_CALL = re.compile(r"(?<=\w<)\((?:[^()<>;{}\n]|<[^()<>;{}\n]*>)+\)(?=>\s*\()")


def tuple_calls_named(text: str) -> str:
    """`text` with each tuple type argument of a method call written as a name of its length."""
    if "<(" not in text:
        return text
    return _TUPLE_CALL.sub(lambda m: "_" * len(m.group()), text)
