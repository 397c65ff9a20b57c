"""The MCP server: ragstream's tools and resources registered with the official SDK's
`MCPServer`, each tool a thin call into `service.Service`, served over stdio or streamable HTTP.

Each tool's parameters are its input schema (typed and bounded in `schemas`); its return type is
its output schema. A ragstream error becomes the tool's error result, `error (<layer>):
<where>: <message>`, as the CLI prints it; anything else is the SDK's "Error executing tool",
its traceback only in the server's log (stderr), never in a reply.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources.templates import ResourceSecurity
from pydantic import Field

from ragstream.errors import RagstreamError
from ragstream.mcp.schemas import (GRAPH_NOTE, AskResult, BudgetTokens, ChangedSince, ContextTokens, Depth,
                                   EdgeTypes, ExpandResult, FetchResult, Filters, IndexInfo, IndexName, Kinds,
                                   Languages, MaxNodes, MaxTokens, Mode, MorePage, PipelineName, RefreshResult,
                                   Relation, RelationsResult, Repository, Rerank, SearchResult, TopK)
from ragstream.mcp.service import CallScope, Service

T = TypeVar("T")
NAME = "ragstream"
INSTRUCTIONS = (
    "ragstream answers questions about one indexed codebase (Python, C#, SQL, Razor) from its chunks and its "
    "dependency graph. Start with `search` (node ids, path:lines) or `relations` (callers, callees, readers and "
    "writers of a table, impact, the flow from a method down to the tables; each edge says how it was made and "
    "guesses are marked); read code with `fetch`; walk around nodes with `expand`; `ask` runs the whole pipeline. "
    "A reply cut to max_tokens has a `more` cursor: pass it to `more` for the rest.")
DEFAULT_REPLY_TOKENS = 4000


def build_server(service: Service) -> MCPServer:
    """The server with every tool and resource, each calling `service`."""
    # WARNING: the SDK logs every failed call at INFO, which a client's log of stderr need not hold
    server: MCPServer = MCPServer(NAME, instructions=INSTRUCTIONS, log_level="WARNING")

    def run(work: Callable[[], T]) -> T:
        try:
            return service.serialised(work)
        except RagstreamError as exc:
            raise ToolError(f"error ({exc.layer}): {exc}") from None

    @server.tool(description="Search the index: node ids with path:lines, best first (as `ragstream search`).")
    def search(query: Annotated[str, Field(min_length=1, description="what to look for")], mode: Mode = "hybrid",
               top_k: TopK = 10, kinds: Kinds = None, languages: Languages = None, rerank: Rerank = "none",
               filters: Filters = None, repository: Repository = None, index: IndexName = None,
               max_tokens: MaxTokens = DEFAULT_REPLY_TOKENS) -> SearchResult:
        return run(lambda: service.search(CallScope(repository, index, filters, kinds, languages), query, mode,
                                          top_k, rerank, max_tokens))

    @server.tool(description=(
        "Walk the dependency graph around seed node ids (or around a query's hits, as `ragstream expand`) and "
        "fetch the nodes' texts within a token budget: each node with its depth, parent, edges and text."))
    def expand(seeds: Annotated[list[str] | None, Field(description="node ids to start from")] = None,
               query: Annotated[str | None, Field(description="or: a question whose hits are the seeds")] = None,
               depth: Depth | None = None, max_nodes: MaxNodes | None = None, edge_types: EdgeTypes = None,
               budget_tokens: BudgetTokens | None = None, top_k: TopK | None = None,
               pipeline: PipelineName = "base", filters: Filters = None, repository: Repository = None,
               index: IndexName = None, max_tokens: MaxTokens = DEFAULT_REPLY_TOKENS) -> ExpandResult:
        overrides = {"max_depth": depth, "max_nodes": max_nodes, "edge_allowlist": edge_types, "top_k": top_k}
        return run(lambda: service.expand(CallScope(repository, index, filters), seeds, query, pipeline, overrides,
                                          budget_tokens, max_tokens))

    @server.tool(description="The exact texts of nodes by id, each with its path and exact lines, within a token "
                             "budget (whole or not at all: a text that does not fit is listed as cut).")
    def fetch(ids: Annotated[list[str], Field(min_length=1, description="node ids")],
              budget_tokens: BudgetTokens = DEFAULT_REPLY_TOKENS, filters: Filters = None,
              repository: Repository = None, index: IndexName = None,
              max_tokens: MaxTokens = DEFAULT_REPLY_TOKENS) -> FetchResult:
        return run(lambda: service.fetch(CallScope(repository, index, filters), ids, budget_tokens, max_tokens))

    @server.tool(description=(
        "Relations from the graph, complete: callers, callees, reads / writes (of a table: the code that reads or "
        "writes it), impact (what breaks if it changes), tests, flow (paths down to the tables). `subject` is a "
        "node id or a name (InvoiceService.Create, the Invoices table, usp_RecordPayment). Every item says how its "
        "edge was made (resolution, via) and guesses are marked."))
    def relations(subject: Annotated[str, Field(min_length=1, description="a node id or a name")],
                  relation: Relation, pipeline: PipelineName = "base", filters: Filters = None,
                  repository: Repository = None, index: IndexName = None,
                  max_tokens: MaxTokens = DEFAULT_REPLY_TOKENS) -> RelationsResult:
        return run(lambda: service.relations(CallScope(repository, index, filters), subject, relation, pipeline,
                                             max_tokens))

    @server.tool(description=(
        "Ask a question through the whole pipeline (as `ragstream ask`): the answer (written by the configured "
        "model, else extractive and labelled so), its citations, the graph's answer, and the evidence with exact "
        "lines."))
    def ask(question: Annotated[str, Field(min_length=1)], pipeline: PipelineName = "base", top_k: TopK | None = None,
            max_context_tokens: ContextTokens | None = None, filters: Filters = None,
            repository: Repository = None, index: IndexName = None,
            max_tokens: MaxTokens = DEFAULT_REPLY_TOKENS) -> AskResult:
        overrides = {"top_k": top_k, "max_context_tokens": max_context_tokens}
        return run(lambda: service.ask(CallScope(repository, index, filters), question, pipeline, overrides,
                                       max_tokens))

    @server.tool(description=(
        "Which files of the index's source were added, modified or deleted since an answer (its `made_from`, "
        "from ask), and whether the index holds them yet; files the filters hide are never named."))
    def changed_since(made_from: Annotated[str, Field(pattern="^[0-9a-f]{64}$", description="an ask reply's made_from")],
                      filters: Filters = None, repository: Repository = None,
                      index: IndexName = None) -> ChangedSince:
        return run(lambda: service.changed_since(CallScope(repository, index, filters), made_from))

    @server.tool(description="The next page of a reply that was cut to its max_tokens (its `more` cursor).")
    def more(cursor: Annotated[str, Field(min_length=1)],
             max_tokens: MaxTokens = DEFAULT_REPLY_TOKENS) -> MorePage:
        return run(lambda: service.more(cursor, max_tokens))

    @server.tool(description="The index's state: branch, commit, stage (keyword-ready, heads, complete) with "
                             "coverage, files changed since it was built, who is building it, and whether the C# "
                             "reaches the SQL (procedures with a C# caller, tables with a C# reader or writer).")
    def index_status(repository: Repository = None, index: IndexName = None) -> IndexInfo:
        return run(lambda: service.index_status(CallScope(repository, index)))

    @server.tool(description="Re-index the files changed since the index was built (as `ragstream index PATH`), "
                             "waiting up to wait_seconds; the semantic fill may go on after it returns.")
    def refresh(wait_seconds: Annotated[float, Field(ge=0, le=600)] = 120, repository: Repository = None,
                index: IndexName = None) -> RefreshResult:
        try:  # not serialised: other calls go on while it builds (it serialises its own start)
            return service.refresh(CallScope(repository, index), wait_seconds)
        except RagstreamError as exc:
            raise ToolError(f"error ({exc.layer}): {exc}") from None

    @server.resource("ragstream://indexes", name="indexes", mime_type="application/json",
                     description="The data folder's indexes: repository, index, branch, commit, stage and coverage.")
    def indexes() -> str:
        return _json(lambda: [info.model_dump() for info in service.serialised(service.indexes)])

    @server.resource("ragstream://node/{node_id}", name="node", mime_type="application/json",
                     description="A node of the server's index and every edge in and out of it, each with how it "
                                 "was made (resolution, via, guess), and `graph`: " + GRAPH_NOTE + "; node_id percent-encoded.",
                     security=ResourceSecurity(exempt_params={"node_id"}))  # an id, never a file path
    def node(node_id: str) -> str:
        return _json(lambda: service.serialised(lambda: service.neighbourhood(node_id)))

    return server


def _json(work: Callable[[], Any]) -> str:
    try:
        return json.dumps(work(), ensure_ascii=False, indent=1)
    except RagstreamError as exc:
        raise ResourceError(f"error ({exc.layer}): {exc}") from None
