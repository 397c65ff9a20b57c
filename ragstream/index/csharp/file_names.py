"""References from C# code to repository files it names in a string literal.

Code loads scripts, templates and data by name: an embedded resource
(`GetManifestResourceStream("Hangfire.SqlServer.Install.sql")`, the project's root namespace and
folders joined by dots), or a path (`File.ReadAllText("Scripts/Install.sql")`). Such a literal is
a REFERENCES to the file it names, so an install routine reaches the tables its script creates.
A constant holding the name counts as the literal. The parser sees one file, so it records the
name; `graph_build` links it when exactly one indexed file has that name (`symbols.names_file`).
"""
from __future__ import annotations

import re

import tree_sitter

from ragstream.index.model import Reference
from ragstream.index.csharp.strings import string_value
from ragstream.index.csharp.syntax import descendants

_LITERALS = ("string_literal", "verbatim_string_literal", "raw_string_literal")
# A file-like name: path segments or dotted parts, ending in an extension of a file we index.
_FILE_NAME = re.compile(
    r"[\w~][\w.\-/\\]*\.(sql|json|xml|config|txt|md|yaml|yml|csv|cshtml|razor|html|js|resx)",
    re.IGNORECASE)


def file_name_references(method: tree_sitter.Node, source: str,
                         strings: dict[str, str]) -> list[Reference]:
    """REFERENCES to the files the method's string literals (or `strings`, the type's string
    constants, by name) name, one per name."""
    found: dict[str, int] = {}
    for node in descendants(method):
        if node.type in _LITERALS or node.type == "identifier":
            text = (string_value(node, strings) or "").strip()
            if _FILE_NAME.fullmatch(text):
                found.setdefault(text, node.start_point[0] + 1)
    return [Reference(source=source, edge_type="REFERENCES", target=name, target_language="file",
                      candidates=(name,), target_kinds=("FILE",), external=False, line=line,
                      attrs={"via": "file_name"})
            for name, line in found.items()]
