"""What the MCP tools take and give: typed, bounded inputs (an argument out of bounds is refused
by the SDK before a tool runs, naming the field) and structured outputs (each tool's output
schema). Bounds come from `bounds.py` and the pipeline schema, so a tool takes what the CLI and
the pipelines take."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from ragstream.bounds import TOKENS, TOP_K, Bound
from ragstream.index.model import EDGE_TYPES
from ragstream.pipeline.schema import NUMBERS
from ragstream.retrieval.types import RERANKERS, SEARCH_TYPES
from ragstream.stages.follow_up import RELATION_NAMES


def _within(bound: Bound, description: str) -> Any:
    return Field(ge=bound.low, le=bound.high, description=description)


def _one_of(choices: tuple[str, ...], description: str) -> Any:
    """A closed choice, listed in the schema; the value is checked where the choice is declared
    (the search request, the relations, the pipeline loader), which names what it got."""
    return Field(description=description, json_schema_extra={"enum": list(choices)})


# what every result read from the graph says of it (`graph_mark`), declared once
GRAPH_NOTE = ("set while the graph read is the interim one an edit was published with first: calls and references "
              "into and out of the changed files are the previous build's until the re-index links them")

Mode = Annotated[str, _one_of(SEARCH_TYPES, "semantic (FAISS), bm25 (keywords) or hybrid (both, fused)")]
Rerank = Annotated[str, _one_of(RERANKERS, "reorder widened semantic candidates")]
Relation = Annotated[str, _one_of(RELATION_NAMES, (
    "callers, callees; reads / writes (of a table: the code that reads / writes it; of code: the tables it "
    "reads / writes); impact (what breaks if it changes); tests; flow (paths from it down to the tables)"))]
EdgeTypes = Annotated[list[Annotated[str, _one_of(EDGE_TYPES, "an edge type")]] | None, Field(
    description="walk only these edge types, each both ways (default: the pipeline's allowlist and directions)")]
TopK = Annotated[int, _within(TOP_K, "how many hits to keep")]
Depth = Annotated[int, _within(NUMBERS["max_depth"], "how many edges away from the seeds the walk goes")]
MaxNodes = Annotated[int, _within(NUMBERS["max_nodes"], "the most nodes the walk keeps, seeds included")]
BudgetTokens = Annotated[int, _within(TOKENS, "tokens the node texts may take together")]
ContextTokens = Annotated[int, _within(TOKENS, "the pipeline's context budget (node texts get 70% of it)")]
MaxTokens = Annotated[int, Field(ge=200, le=TOKENS.high, description=(
    "the most tokens this reply may take; what does not fit is behind the `more` cursor"))]
Filters = Annotated[dict[str, list[str]] | None, Field(description=(
    "retrieval filters that narrow the server's (acl_tags_any, classification_labels_all, paths_include, "
    "paths_exclude, kinds, languages); they can never widen what the server shows"))]
Kinds = Annotated[list[str] | None, Field(description="only these node kinds (METHOD, FUNCTION, CLASS, TYPE, TABLE, ...)")]
Languages = Annotated[list[str] | None, Field(description="only these languages (python, csharp, sql, razor, text)")]
IndexName = Annotated[str | None, Field(description="an index of the data folder (default: the server's)")]
Repository = Annotated[str | None, Field(description="the repository holding `index` (default: the server's)")]
PipelineName = Annotated[str, Field(description="a pipeline in pipelines/ (base, code, db)")]


class Paged(BaseModel):
    """A result cut to the caller's token budget: `items` are `offset`.. of `total`; `more`, when
    set, is the cursor the `more` tool takes for the next page."""

    total: int
    offset: int = 0
    more: str | None = None


class Hit(BaseModel):
    rank: int
    score: float
    id: str
    where: str = Field(description="path:start-end")
    sources: dict[str, int] = Field(description="the hit's rank in each source the search fused")


class SearchResult(Paged):
    repository: str
    index: str | None
    branch: str
    query: str
    mode: str
    items: list[Hit]
    debug: dict[str, Any] = Field(description="what the search reports: mode, visible rows, coverage, seconds")


class Edge(BaseModel):
    from_id: str
    to_id: str
    edge_type: str


class ExpandedNode(BaseModel):
    id: str
    depth: int
    seed: bool
    parent: str | None
    status: str = Field(description="text, cut by the budget, or no text")
    tokens: int | None
    where: str = Field(description="path:start-end (of the parts taken, for a node taken in part)")
    text: str | None
    edges: list[Edge] = Field(description="its edges to the nodes listed before it and itself")


class ExpandResult(Paged):
    repository: str
    index: str | None
    branch: str
    seeds: list[str]
    outcome: str = Field(description="ok, limit_reached (max_nodes kept the most relevant), no_seeds")
    budget: dict[str, Any] = Field(description="the node texts' budget: used, budget, unit, cut ids")
    graph: str | None = Field(default=None, description=GRAPH_NOTE)
    items: list[ExpandedNode]


class NodeText(BaseModel):
    id: str
    where: str = Field(description="path:start-end, exact lines")
    tokens: int
    text: str


class FetchResult(Paged):
    budget: dict[str, Any]
    not_found: list[str] = Field(description="ids with no text you may see (unknown, external or filtered)")
    cut: list[str] = Field(description="ids whose text did not fit the budget")
    graph: str | None = Field(default=None, description=GRAPH_NOTE)
    items: list[NodeText]


class Subject(BaseModel):
    id: str
    kind: str
    table: str | None = None


class RelationItem(BaseModel):
    id: str
    relation: str
    resolution: str = Field(description="how the edge was made: static, inferred, dispatch, by_name, ...")
    via: str | None = Field(default=None, description="the construct that made the edge (type_argument, message, ...)")
    indirect: bool = Field(description="reached through one more hop")
    guess: bool = Field(description="the link is a guess (made by name only, or a convention)")
    where: str


class FlowPath(BaseModel):
    nodes: list[str]
    edges: list[str] = Field(description="edge type (and resolution when not static) between each pair of nodes")
    guess: bool


class RelationsResult(Paged):
    shape: str = Field(description="list (the related nodes in items) or flow (paths from the subject to tables)")
    subjects: list[Subject]
    relation: str
    graph: str | None = Field(default=None, description=GRAPH_NOTE)
    items: list[RelationItem] | list[FlowPath]


class AskResult(Paged):
    question: str
    answer: str
    written_by_model: bool
    citations: list[str]
    graph_answer: str = Field(description="the graph's answer (Markdown) when the question is one it answers")
    warnings: list[str]
    items: list[NodeText] = Field(description="the evidence the answer rests on, best first")
    made_from: str | None = Field(default=None, description=(
        "the digest of the files the answer was made from: give it to changed_since later (None: not recorded, "
        "a shared index)"))


class ChangedSince(BaseModel):
    added: list[str]
    modified: list[str]
    deleted: list[str]
    in_index: list[str] = Field(description="the changed files the live index already holds as they are now")
    refreshed: bool = Field(description="every change is in the index: asking again answers from them")
    generation: str | None = Field(description="the index's live generation now")
    unknown: str = Field(description="why the changes cannot be told (the lists are then empty)")


class IndexInfo(BaseModel):
    repository: str
    index: str
    branch: str
    commit: str | None
    updated_at: str
    stage: str = Field(description="keyword-ready, heads or complete, with coverage and ETA")
    stale_files: int | None = Field(description="files changed since the build (None: unknown or withheld)")
    counts: dict[str, int] | None = Field(description="files, chunks, nodes, edges; withheld when filters are set")
    building: str | None = Field(description="who builds or fills it now")
    problem: str | None
    sql_coverage: list[str] | None = Field(
        default=None, description="does the C# reach the SQL: procedures with a C# caller, tables with a C# reader "
        "or writer, SQL left unresolved or unparsed, and a warning when no C# -> SQL edge was made (None: no SQL, "
        "an index built before this was counted, or withheld when filters are set)")
    graph: str | None = Field(default=None, description=GRAPH_NOTE)


class RefreshResult(BaseModel):
    status: Literal["up to date", "re-indexed", "building", "failed"]
    detail: str
    index: IndexInfo | None


class MorePage(Paged):
    tool: str
    items: list[dict[str, Any]]
