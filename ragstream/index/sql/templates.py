"""Script templates: a placeholder schema that stands for a concrete one.

A project may ship an install script written against a variable (SQLCMD's `$(HangFireSchema).Job`,
DbUp's `$schema$.Entry`, the schema substituted at install time) next to a script generated for
the default schema (`HangFire.Job`). Parsed as written, every table exists twice, and the copies crowd search
results and expansion with objects that are not real. When most of a placeholder's objects have
a twin of the same kind and name under one concrete schema, the placeholder means that schema:
`resolve_placeholder_schemas` renames the template's objects, references and schema changes to
it, so `evolve_schema` then sees one object defined by two scripts (the later definition is the
node; the other script links to it). A placeholder none of whose objects has a twin is the
server's default schema, `dbo`, where the code finds its tables (`Table("Entry")` is `dbo.Entry`);
the node keeps the placeholder it was written with (`template_schema`). A placeholder whose twins
are too few, or split between two schemas, stays as written.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import replace

from ragstream.index.model import Edge, Node, ParsedFile, Reference

_PLACEHOLDER = re.compile(r"\$\([A-Za-z_]\w*\)|\$[A-Za-z_]\w*\$")  # SQLCMD $(Name), DbUp $name$
DEFAULT_SCHEMA = "dbo"
_OBJECT_KINDS = ("TABLE", "VIEW", "PROCEDURE", "FUNCTION", "TRIGGER", "TYPE")
_MIN_TWIN_SHARE = 0.5  # at least half of the template's objects must have a twin in the schema


def has_placeholder(name: str) -> bool:
    """Whether a name is written with a template placeholder (`$(Schema).Job`, `$schema$.Entry`)."""
    return _PLACEHOLDER.search(name) is not None


def resolve_placeholder_schemas(files: list[ParsedFile]) -> list[ParsedFile]:
    """`files` (same order) with each placeholder schema that has concrete twins renamed to it."""
    schemas = _placeholder_schemas(files)
    if not schemas:
        return files
    return [_renamed(parsed, schemas) if parsed.language == "sql" else parsed for parsed in files]


def _placeholder_schemas(files: list[ParsedFile]) -> dict[str, str]:
    """Placeholder (`$(HangFireSchema)`) -> the one concrete schema most of its objects share, or
    the default schema when none of them has a twin."""
    objects: dict[str, set[tuple[str, str]]] = defaultdict(set)  # placeholder -> (kind, name)
    concrete: dict[tuple[str, str], set[str]] = defaultdict(set)  # (kind, name) -> schemas
    for parsed in files:
        if parsed.language != "sql":
            continue
        for node in parsed.nodes:
            schema, _, name = node.name.partition(".")
            if node.kind not in _OBJECT_KINDS or not name or "." in name:
                continue
            key = (node.kind, name.lower())
            if _PLACEHOLDER.fullmatch(schema):
                objects[schema].add(key)
            elif not has_placeholder(schema):
                concrete[key].add(schema)
    chosen: dict[str, str] = {}
    for placeholder, keys in objects.items():
        votes = Counter(schema for key in keys for schema in concrete.get(key, ()))
        ranked = votes.most_common(2)
        if not ranked:
            chosen[placeholder] = DEFAULT_SCHEMA
            continue
        if ranked[0][1] < _MIN_TWIN_SHARE * len(keys):
            continue
        if len(ranked) == 2 and ranked[1][1] == ranked[0][1]:
            continue  # two schemas equally likely: not a question static analysis can settle
        chosen[placeholder] = ranked[0][0]
    return chosen


def _renamed(parsed: ParsedFile, schemas: dict[str, str]) -> ParsedFile:
    def sub(text: str) -> str:
        return _PLACEHOLDER.sub(lambda m: schemas.get(m.group(0), m.group(0)), text)

    return replace(
        parsed,
        nodes=[_renamed_node(node, sub) for node in parsed.nodes],
        edges=[Edge(sub(e.source), sub(e.target), e.type, e.attrs) for e in parsed.edges],
        references=[_renamed_reference(ref, sub) for ref in parsed.references],
        schema_changes=[replace(c, name=sub(c.name)) for c in parsed.schema_changes],
    )


def _renamed_node(node: Node, sub: Callable[[str], str]) -> Node:
    name = sub(node.name)
    if name == node.name:
        return node
    return replace(node, id=sub(node.id), name=name,
                   parent=sub(node.parent) if node.parent else node.parent,
                   attrs={**node.attrs, "template_schema": node.name.partition(".")[0]})


def _renamed_reference(ref: Reference, sub: Callable[[str], str]) -> Reference:
    return replace(ref, source=sub(ref.source), target=sub(ref.target),
                   candidates=tuple(sub(c) for c in ref.candidates))
