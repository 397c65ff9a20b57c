"""What parsers produce: nodes, resolved edges and unresolved references, per file.

Parsers see one file at a time. Anything that points into another file is a `Reference`;
`graph_build.resolve` turns references into edges once every file is parsed, which is what lets
an incremental re-index re-parse only changed files and still re-link the whole graph.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Node kinds. Python: MODULE CLASS FUNCTION METHOD. SQL: TABLE COLUMN VIEW PROCEDURE FUNCTION
# TRIGGER TYPE (a user-defined type, e.g. a table type). C#: NAMESPACE TYPE METHOD PROPERTY.
# Any language: FILE (file-level code, or a file kept as plain text).
# EXTERNAL: a call/base/table outside the repository; expansion skips it.
CHUNKABLE_KINDS = frozenset(
    {"MODULE", "FILE", "CLASS", "FUNCTION", "METHOD", "TABLE", "VIEW", "PROCEDURE", "TYPE",
     "TRIGGER"}
)
EDGE_TYPES = (
    "DEFINES", "CALLS", "IMPORTS", "INHERITS", "IMPLEMENTS", "REFERENCES",
    "FOREIGN_KEY", "READS", "WRITES", "MAPS_TO",
)
LANGUAGE_PREFIX = {"python": "py", "sql": "sql", "csharp": "cs"}
# Edges to code that runs around a save, a request sent or an HTTP request (EF interceptors,
# mediator pipeline behaviours, ASP.NET filters; attrs `dispatcher`: a dispatcher publishing
# whatever events were collected). Every save, send or action links to the same few hooks: walks
# that find a flow's paths or rank a seed's neighbours leave them out (a flow ranks them as such:
# `graph.relations.around_saves`, `around_request`).
AROUND_VIAS = frozenset({"interceptor", "pipeline", "request_filter"})


def runs_around(attrs: Mapping[str, Any]) -> bool:
    """The edge goes to code run around a save or a request, not to a call the code makes."""
    return attrs.get("via") in AROUND_VIAS or bool(attrs.get("dispatcher"))


# FILE attrs of a SQL file: the CREATE statements sqlglot could not parse (`sql.parser`), for the
# index's coverage report (`sql_coverage`)
UNPARSED_SQL = "unparsed_sql"
# Edges that say where code is wired in (a registration naming the type), not what it does.
WIRING_VIAS = frozenset({"registration"})
# Edges from a script's data statements (seed rows, a data fix): answers of their own (which
# code writes a table), no neighbourhood of the code (a sample-data script writes every table).
DATA_SCRIPT = "data_script"
SCRIPT_VIAS = frozenset({DATA_SCRIPT})


def not_walked(attrs: Mapping[str, Any]) -> bool:
    """A walk around the seeds leaves the edge out: code run around every save or request, the
    start-up method that registers a type (one method names every service), or a data script's
    writes."""
    return runs_around(attrs) or attrs.get("via") in WIRING_VIAS | SCRIPT_VIAS


def node_id(language: str, name: str, kind: str) -> str:
    """Stable readable id: `py:pkg.mod.Class.method|METHOD`, `file:a/b.sql|FILE`."""
    prefix = "file" if kind == "FILE" else "ext" if kind == "EXTERNAL" else LANGUAGE_PREFIX[language]
    return f"{prefix}:{name}|{kind}"


@dataclass(frozen=True)
class Node:
    id: str
    kind: str
    language: str  # python | sql | csharp | text
    name: str  # qualified name: pkg.mod.Class.method, dbo.Invoice, MyApp.InvoiceService
    path: str = ""  # repository-relative posix path; "" for EXTERNAL
    start_line: int = 0  # 1-based, inclusive
    end_line: int = 0
    parent: str | None = None  # id of the node that defines this one
    signature: str = ""
    docstring: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    type: str
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reference:
    """A link to something that may live in another file, resolved after all files are parsed.

    The resolver tries `candidates` (qualified names in `target_language`) in order; when none
    exists and `by_name` is set, it tries a unique node of `target_kinds` whose short name is
    the last segment of `target`. What stays unresolved becomes an EXTERNAL node named `target`
    when `external` is set, and is dropped (and counted) otherwise.
    """

    source: str
    edge_type: str
    target: str
    target_language: str
    candidates: tuple[str, ...] = ()
    target_kinds: tuple[str, ...] = ()
    by_name: bool = False
    external: bool = True
    line: int = 0
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SchemaChange:
    """A statement that changes a SQL object defined elsewhere: a rename or a drop.

    Parsers record these in file order; `schema_evolution` replays every file's changes in path
    order so the graph holds the schema as it stands after the last migration script. (Added
    and altered columns are COLUMN nodes of the script: the latest one wins.)
    """

    action: str  # RENAME | DROP
    kind: str  # TABLE VIEW PROCEDURE FUNCTION TRIGGER TYPE, COLUMN, or "" when not stated
    name: str  # as written, unquoted; for a column: table.column
    line: int
    new_name: str = ""  # RENAME: the new last part of the name (sp_rename's second argument)


@dataclass
class ParsedFile:
    path: str
    language: str  # python | sql | csharp | text
    root_id: str  # the MODULE or FILE node that owns file-level code
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    # Python: names bound at module level by imports, local name -> qualified target. The
    # resolver follows them so `pkg.name` finds a symbol that `pkg/__init__.py` re-exports.
    aliases: dict[str, str] = field(default_factory=dict)
    error: str | None = None  # why the file was degraded to plain text, if it was
    warnings: list[str] = field(default_factory=list)  # parts skipped without degrading the file
    schema_changes: list[SchemaChange] = field(default_factory=list)  # SQL renames and drops
    flow: list[dict] = field(default_factory=list)  # Python: each scope's flow facts (python_flow)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ParsedFile":
        return cls(
            path=data["path"],
            language=data["language"],
            root_id=data["root_id"],
            nodes=[Node(**n) for n in data["nodes"]],
            edges=[Edge(**e) for e in data["edges"]],
            references=[
                Reference(**{**r, "candidates": tuple(r["candidates"]),
                             "target_kinds": tuple(r["target_kinds"])})
                for r in data["references"]
            ],
            aliases=data["aliases"],
            error=data["error"],
            warnings=data["warnings"],
            # absent from parse results cached before schema changes were recorded
            schema_changes=[SchemaChange(**c) for c in data.get("schema_changes", [])],
            flow=data.get("flow", []),
        )


def file_node(path: str, line_count: int, language: str) -> Node:
    """The FILE node every non-Python file gets; it owns the file-level chunk."""
    return Node(
        id=node_id(language, path, "FILE"), kind="FILE", language=language, name=path,
        path=path, start_line=1, end_line=max(line_count, 1),
    )


def text_file(path: str, text: str, error: str | None = None) -> ParsedFile:
    """A file kept as plain text: one FILE node, split into line-window chunks later."""
    node = file_node(path, text.count("\n") + 1, "text")
    return ParsedFile(path=path, language="text", root_id=node.id, nodes=[node], error=error)


PART_MARK = "#p"  # a long node is chunked into parts `<node id>#p<n>`


def node_of(chunk_id: str) -> str:
    """The graph node a chunk id belongs to (a part of a long node maps to the node)."""
    return chunk_id.split(PART_MARK)[0]


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of code or text; its id is its graph node's id (plus `#pN` for
    the parts of a split chunk)."""

    id: str
    path: str
    start_line: int
    end_line: int
    kind: str  # the node kind: FUNCTION, METHOD, CLASS, TABLE, PROCEDURE, TYPE, MODULE, FILE ...
    symbol: str  # qualified name, or the path for file-level chunks
    text: str  # the code, secrets redacted, child definitions elided to one line each
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def node_id(self) -> str:
        """The graph node this chunk is (part of)."""
        return self.metadata.get("parent_chunk") or self.id

    @property
    def embedding_text(self) -> str:
        """What is embedded and keyword-indexed: the context header above the code."""
        return f"{self.metadata.get('header', '')}\n{self.text}"
