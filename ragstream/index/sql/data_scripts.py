"""Data scripts: rows written by statements outside any routine.

A `.sql` file of INSERT / UPDATE / DELETE / MERGE / TRUNCATE statements (seed data, a data fix,
the rows a migration script adds after its CREATE TABLE) changes the tables it names although
no procedure holds the statements. The file itself WRITES each such table (attrs
`via="data_script"`, `operations`: how, `statements`: how many), one edge per table however
many rows the script inserts. A walk around search hits leaves these edges out
(`model.not_walked`: a sample-data script writes every table); lists and impact answers name
the script after the code. Statements inside a view, procedure, function or trigger are
that routine's (`routines`), never the file's.
"""
from __future__ import annotations

from sqlglot import exp

from ragstream.index.model import DATA_SCRIPT as VIA, ParsedFile, Reference
from ragstream.index.sql.access import statement_writes
from ragstream.index.sql.refs import sql_reference

DATA_STATEMENTS = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.TruncateTable)


def add_script_writes(out: ParsedFile, tree: exp.Expr, line: int, dialect: str | None) -> bool:
    """WRITES from the file to the tables a top-level data statement writes; False for any
    other statement."""
    if not isinstance(tree, DATA_STATEMENTS):
        return False
    for name, operations in sorted(statement_writes(tree).items()):
        out.references.append(sql_reference(out.root_id, "WRITES", name, ("TABLE", "VIEW"), line, dialect,
                                            {"via": VIA, "operations": sorted(operations), "statements": 1}))
    return True


def merge_script_writes(out: ParsedFile) -> None:
    """One WRITES per table the file's data statements write: the first one's line, every
    statement's operations, how many statements."""
    merged: dict[str, Reference] = {}  # by the last candidate: `Customers` is `dbo.Customers` in T-SQL
    kept: list[Reference] = []
    for ref in out.references:
        if ref.source != out.root_id or ref.attrs.get("via") != VIA:
            kept.append(ref)
        elif ref.candidates[-1] not in merged:
            merged[ref.candidates[-1]] = ref
            kept.append(ref)
        else:
            first = merged[ref.candidates[-1]].attrs
            first["operations"] = sorted({*first["operations"], *ref.attrs["operations"]})
            first["statements"] += 1
    out.references = kept
