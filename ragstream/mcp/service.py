"""What each MCP tool does, through the controller the CLI and the workbench call: a search as
`ragstream search`, a question as `ragstream ask`, a graph walk as `ragstream expand`, and the
graph's relations as the relate stage answers them. Nothing here ranks, walks or reads an
index: it picks the scope, calls the controller and shapes its results for a client.

The server's `retrieval_filters` are fixed when it starts; a call may add its own (and `kinds`,
`languages`), which only narrow (`narrowed_mapping`). Every reply is cut to the call's token
budget (`paging.Pager`), the rest behind a cursor.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ragstream.answer_sources import BASIS, Basis
from ragstream.catalog import IndexSummary
from ragstream.controller import Controller, Scope, expanded_nodes, with_text_budget
from ragstream.index.graph_mark import graph_note_of
from ragstream.errors import RetrievalError
from ragstream.mcp import schemas
from ragstream.mcp.paging import Page, Pager
from ragstream.pipeline.loader import Pipeline
from ragstream.retrieval.filters import RetrievalFilters, narrowed_mapping
from ragstream.stages.relate import graph_answer_markdown
from ragstream.super_prompt import SuperPrompt

T = TypeVar("T")
FETCH_DEPTH = 0  # `fetch` is the graph walk that stays at its seeds


@dataclass(frozen=True)
class ServerOptions:
    """What `ragstream mcp` was started with: the default index, and the filters every call is
    held to."""

    repository: str | None = None
    index: str | None = None
    branch: str | None = None
    source: str = ""
    filters: Mapping[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class CallScope:
    """Which index a call asks, and the filters it adds to the server's."""

    repository: str | None = None
    index: str | None = None
    filters: Mapping[str, list[str]] | None = None
    kinds: list[str] | None = None
    languages: list[str] | None = None


class Service:
    """The tools' work, one call at a time through one controller (its indexes stay loaded)."""

    def __init__(self, controller: Controller, options: ServerOptions):
        RetrievalFilters.parse(dict(options.filters))  # refused at start, before any call
        self.controller = controller
        self.options = options
        self.pager = Pager(controller.runtime.counter.count)
        self._lock = threading.Lock()

    def serialised(self, work: Callable[[], T]) -> T:
        """`work` alone: the controller's runtime serves one call at a time."""
        with self._lock:
            return work()

    def warm_up(self) -> threading.Thread:
        """Load the server's index (chunks, BM25, graph) in the background while the server starts
        serving, so the first call does not wait for it; a failure is left to that call to say."""
        def load() -> None:
            try:
                scope = self.scope(CallScope())
                self.serialised(lambda: (self.controller.search(scope, "bm25", "warm up", 1),
                                         self.controller.scope_graph(scope)))
            except Exception:  # noqa: BLE001 - best-effort: the first call loads it and says what failed
                pass

        thread = threading.Thread(target=load, name="ragstream-mcp-warm-up", daemon=True)
        thread.start()
        return thread

    # --- scope -------------------------------------------------------------------------

    def scope(self, call: CallScope) -> Scope:
        """The index the call names (else the server's), under the server's filters narrowed by
        the call's."""
        options = self.options
        named = call.repository is not None or call.index is not None
        scope = self.controller.scope(call.repository or options.repository, call.index or options.index,
                                      None if named else options.branch, options.source)
        return scope.with_filters(self.narrowed(call))

    def narrowed(self, call: CallScope) -> dict[str, list[str]]:
        """The server's filters, then the call's: each key a call repeats narrows, a key it adds
        constrains further; nothing a call gives can widen what the server shows."""
        fixed = dict(self.options.filters)
        added = [*(call.filters or {}).items(),
                 *((key, values) for key, values in (("kinds", call.kinds), ("languages", call.languages))
                   if values is not None)]
        if "paths_include" in fixed and any(key == "paths_include" for key, _ in added):
            raise RetrievalError("the server already holds every call to a paths_include list, which another "
                                 "cannot narrow", where="filters.paths_include",
                                 hint="narrow with paths_exclude instead")
        merged = narrowed_mapping([*fixed.items(), *added])
        RetrievalFilters.parse(merged)  # an unknown key or a bad glob is an error, never a wider result
        return merged

    # --- tools -------------------------------------------------------------------------

    def search(self, call: CallScope, query: str, mode: str, top_k: int, rerank: str,
               max_tokens: int) -> schemas.SearchResult:
        request, response, where = self.controller.search(self.scope(call), mode, query, top_k, rerank)
        hits = [{"rank": h.rank, "score": round(h.score, 4), "id": h.id, "where": where.get(h.id, ""),
                 "sources": h.sources} for h in response.hits]
        head = {"query": request.query, "debug": response.debug}
        page = self.pager.first("search", hits, max_tokens, head)
        return schemas.SearchResult(repository=request.repository, index=request.active_index,
                                    branch=request.branch, query=request.query, mode=mode,
                                    debug=response.debug, **_paged(page))

    def expand(self, call: CallScope, seeds: list[str] | None, query: str | None, pipeline_name: str,
               overrides: dict[str, Any], budget_tokens: int | None, max_tokens: int) -> schemas.ExpandResult:
        if (seeds is None) == (query is None):
            raise RetrievalError("give seeds (node ids) or a query, not both and not neither", where="seeds")
        scope = self.scope(call)
        pipeline = with_text_budget(self.pipeline(pipeline_name, overrides), budget_tokens)
        if seeds is not None:
            sp, _ = self.controller.expand_seeds(seeds, scope, pipeline)
        else:
            sp, _ = self.controller.run(self.controller.check_question(query or "", pipeline), scope, pipeline)
        outcome = next((e["outcome"] for e in sp.trace if e["action"] == "expand"), "no_seeds")
        page = self.pager.first("expand", self._node_items(sp), max_tokens)
        return schemas.ExpandResult(repository=sp.repository, index=sp.active_index, branch=sp.branch,
                                    seeds=sp.graph_seed_nodes, outcome=outcome, budget=_budget(sp),
                                    graph=graph_note_of(sp), **_paged(page))

    def fetch(self, call: CallScope, ids: list[str], budget_tokens: int, max_tokens: int) -> schemas.FetchResult:
        pipeline = with_text_budget(self.pipeline("base", {"max_depth": FETCH_DEPTH}), budget_tokens)
        scope = self.scope(call)
        sp, _ = self.controller.expand_seeds(ids, scope, pipeline)
        texts = self._texts(sp)
        cut = [c["id"] for c in sp.budget.get("node_texts", {}).get("cut", [])]
        found = {t["id"] for t in texts} | set(cut)
        page = self.pager.first("fetch", texts, max_tokens)
        return schemas.FetchResult(budget=_budget(sp), not_found=[i for i in dict.fromkeys(ids) if i not in found],
                                   cut=cut, graph=graph_note_of(sp), **_paged(page))

    def relations(self, call: CallScope, subject: str, relation: str, pipeline_name: str,
                  max_tokens: int) -> schemas.RelationsResult:
        scope = self.scope(call)
        answer = self.controller.relations(subject, relation, scope, self.pipeline(pipeline_name, {}))
        listed = answer["paths"] if answer["shape"] == "flow" else answer["items"]
        page = self.pager.first("relations", listed, max_tokens)
        subjects = [schemas.Subject(id=s["id"], kind=s["kind"], table=s.get("table")) for s in answer["subjects"]]
        return schemas.RelationsResult(shape=answer["shape"], subjects=subjects, relation=relation,
                                       graph=answer["graph"], **_paged(page))

    def ask(self, call: CallScope, question: str, pipeline_name: str, overrides: dict[str, Any],
            max_tokens: int) -> schemas.AskResult:
        pipeline = self.pipeline(pipeline_name, overrides)
        sp, _ = self.controller.run(self.controller.check_question(question, pipeline), self.scope(call), pipeline)
        answer = sp.extras.get("answer", {})
        head = {"question": sp.question_raw, "answer": sp.answer, "citations": answer.get("citations", []),
                "graph_answer": graph_answer_markdown(sp),
                "warnings": [*pipeline.warnings, *(w for e in sp.trace for w in e["warnings"])]}
        page = self.pager.first("ask", self._texts(sp), max_tokens, head)
        return schemas.AskResult(written_by_model=answer.get("path") == "model", **head, **_paged(page),
                                 made_from=sp.extras.get(BASIS, {}).get("files"))

    def changed_since(self, call: CallScope, made_from: str) -> schemas.ChangedSince:
        """The files changed since an answer made from `made_from` (an `ask` reply's), in the
        call's index, named only where the server's filters (narrowed by the call's) let them be."""
        scope = self.scope(call)
        basis = Basis(scope.repository, scope.active_index or scope.branch, "", None, made_from)
        changes = self.controller.changes_since_basis(basis, scope.retrieval_filters)
        return schemas.ChangedSince(added=list(changes.added), modified=list(changes.modified),
                                    deleted=list(changes.deleted), in_index=sorted(changes.in_index),
                                    refreshed=changes.refreshed, generation=changes.generation,
                                    unknown=changes.unknown)

    def more(self, cursor: str, max_tokens: int) -> schemas.MorePage:
        tool, page = self.pager.next(cursor, max_tokens)
        return schemas.MorePage(tool=tool, **_paged(page))

    def index_status(self, call: CallScope) -> schemas.IndexInfo:
        scope = self.scope(call)
        return self._info(self._summary(scope), bool(scope.retrieval_filters))

    def indexes(self) -> list[schemas.IndexInfo]:
        """Every index of the data folder (and the shared ones), as this server may describe them."""
        filtered = bool(self.options.filters)
        return [self._info(summary, filtered) for summary in self.controller.indexes()]

    def refresh(self, call: CallScope, wait_seconds: float) -> schemas.RefreshResult:
        """Re-index the files changed since the index was built (`Controller.refresh`), waiting
        up to `wait_seconds` for the build to end."""
        scope = self.scope(call)
        summary = self._summary(scope)
        filtered = bool(scope.retrieval_filters)
        if not summary.source_root or summary.shared:
            raise RetrievalError("this index has no source folder on this machine to re-index",
                                 where=f"{scope.repository}/{scope.active_index}")
        job = self.serialised(lambda: self.controller.refresh(summary.source_root, summary.index))
        if job is None:
            return schemas.RefreshResult(status="up to date", detail="no file changed since the index was built",
                                         index=self._info(summary, filtered))
        deadline = time.monotonic() + wait_seconds
        while job.running and time.monotonic() < deadline:
            job.wait(0.2)
        after = self._info(self._summary(scope), filtered)
        if job.running:
            return schemas.RefreshResult(status="building", detail=f"still building after {wait_seconds:g} s; "
                                         "index_status says where it stands", index=after)
        if job.error is not None:
            return schemas.RefreshResult(status="failed", detail=str(job.error), index=after)
        detail = "re-indexed the changed files" if filtered or summary.stale is None else \
            f"re-indexed {summary.stale} added, changed or deleted file(s)"
        return schemas.RefreshResult(status="re-indexed", detail=detail, index=after)

    def neighbourhood(self, node: str) -> dict[str, Any]:
        return self.controller.neighbourhood(node, self.scope(CallScope()))

    # --- helpers -----------------------------------------------------------------------

    def pipeline(self, name: str, overrides: dict[str, Any]) -> Pipeline:
        """The pipeline with the call's overrides; an edge-type list replaces the allowlist
        (each type walked both ways)."""
        return self.controller.pipeline(name, {k: v for k, v in overrides.items() if v is not None})

    def _summary(self, scope: Scope) -> IndexSummary:
        for summary in self.controller.indexes():
            if (summary.repository, summary.index, summary.source) == (scope.repository, scope.active_index,
                                                                       scope.index_source):
                return summary
        raise RetrievalError(f"no index {scope.repository}/{scope.active_index}", where="index")

    @staticmethod
    def _info(summary: IndexSummary, filtered: bool) -> schemas.IndexInfo:
        """An index's state; with filters set, what counts or names the whole index (files,
        chunks, coverage, stale files) is withheld: it would say how much the filters hide."""
        counts = {"files": summary.files, "chunks": summary.chunks, "nodes": summary.nodes, "edges": summary.edges}
        return schemas.IndexInfo(
            repository=summary.repository, index=summary.index, branch=summary.branch, commit=summary.commit,
            updated_at=summary.updated_at, problem=summary.problem, building=summary.builder,
            stage=summary.stage_told(filtered),
            stale_files=None if filtered else summary.stale, counts=None if filtered else counts,
            sql_coverage=summary.coverage_told(filtered) or None, graph=summary.graph_note(filtered))

    def _texts(self, sp: SuperPrompt) -> list[dict[str, Any]]:
        """The state's node texts, each with its exact lines."""
        where = self.controller.locations(sp, [t["id"] for t in sp.node_texts])
        return [{"id": t["id"], "where": t.get("where") or where.get(t["id"], ""), "tokens": t["tokens"],
                 "text": t["text"]} for t in sp.node_texts]

    def _node_items(self, sp: SuperPrompt) -> list[dict[str, Any]]:
        """The walk's nodes in order, each with its text and its edges to the nodes before it."""
        texts = {t["id"]: t for t in self._texts(sp)}
        nodes = expanded_nodes(sp)
        where = self.controller.locations(sp, [n["id"] for n in nodes if n["id"] not in texts])
        order = {n["id"]: i for i, n in enumerate(nodes)}
        edges: dict[str, list[dict[str, str]]] = {}
        for edge in sp.graph_edges:
            later = max(edge["from_id"], edge["to_id"], key=lambda n: order.get(n, -1))
            edges.setdefault(later, []).append(edge)
        return [{**node, "where": texts[node["id"]]["where"] if node["id"] in texts else where.get(node["id"], ""),
                 "text": texts[node["id"]]["text"] if node["id"] in texts else None,
                 "edges": edges.get(node["id"], [])} for node in nodes]


def _paged(page: Page) -> dict[str, Any]:
    return {"items": page.items, "total": page.total, "offset": page.offset, "more": page.more}


def _budget(sp: SuperPrompt) -> dict[str, Any]:
    accounting = sp.budget.get("node_texts", {})
    return {"used": accounting.get("used", 0), "budget": accounting.get("budget", 0),
            "unit": accounting.get("unit", "tokens"), "cut": [c["id"] for c in accounting.get("cut", [])]}
