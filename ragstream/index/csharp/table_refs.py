"""References from C# to SQL tables: table-name candidates (unqualified also in `dbo`)."""
from __future__ import annotations

from collections.abc import Iterable

from ragstream.index.model import Reference
from ragstream.index.csharp.syntax import unique


TABLE_KINDS = ("TABLE", "VIEW")


DEFAULT_SQL_SCHEMA = "dbo"


def maps_to(source: str, tables: tuple[str, ...], line: int,
             attrs: dict | None = None) -> Reference:
    return Reference(source=source, edge_type="MAPS_TO", target=tables[0], target_language="sql",
                     candidates=tables, target_kinds=TABLE_KINDS, by_name=False, external=True,
                     line=line, attrs=attrs or {})


def table_candidates(names: Iterable[str | None]) -> tuple[str, ...]:
    """Table names as written, each unqualified one followed by its `dbo.` form."""
    out = []
    for name in filter(None, names):
        out.append(name)
        if "." not in name:
            out.append(f"{DEFAULT_SQL_SCHEMA}.{name}")
    return unique(out)


def first_of_each(references: Iterable[Reference]) -> list[Reference]:
    """One reference per (edge type, target, candidates, attrs): the first one, with its line.
    Attrs count: calls with different argument counts may reach different overloads."""
    kept: dict[tuple, Reference] = {}
    for reference in references:
        key = (reference.edge_type, reference.target, reference.candidates, repr(reference.attrs))
        kept.setdefault(key, reference)
    return list(kept.values())
