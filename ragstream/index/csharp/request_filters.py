"""ASP.NET filters: the code that runs around an action or a page handler.

A controller action or a Razor Pages handler names none of the filters that run around it, yet
ASP.NET runs them: a filter attribute written on the action or its controller
(`[FunnelWebRequest]` on `WikiAdminController`, a class deriving from `ActionFilterAttribute`:
its `OnResultExecuted` commits the NHibernate transaction), and the filters registered for every
request (`options.Filters.Add(...)`, `opt.Conventions.ConfigureFilter(new
DbContextTransactionPageFilter())`: begins and commits the transaction around each page handler).
A filter is a class by its base, ASP.NET's filter types (directly or through a base of the
repository's own); its hooks are the methods it declares under ASP.NET's names.

Only controller actions and Razor Pages handlers are linked (MVC's filters do not run for minimal
APIs or endpoint classes). An attribute filter, or a filter an attribute applies by its type
(`[ServiceFilter(typeof(AuditFilter))]`), is linked from the entry points whose method, type or
the type's bases carry it (`Name` or `NameAttribute`). Any other filter runs for every entry
point of its kind: a page filter (`IPageFilter`, `IAsyncPageFilter`) around page handlers, the
others around actions; its registration in the repository's code (`Filters.Add(new X())`,
`Filters.Add<X>()`, `Conventions.ConfigureFilter(new X())`) makes the edge stated, else it is a
guess (registered by `typeof`, elsewhere, or not at all). Edges: CALLS, `resolution="dispatch"`,
`via="request_filter"`, `member` (the hook).
"""
from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import ancestors
from ragstream.index.csharp.interceptors import short_name
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference
from ragstream.test_paths import is_test_path

PAGE_FILTERS = frozenset({"IPageFilter", "IAsyncPageFilter"})
ACTION_FILTERS = frozenset({
    "IActionFilter", "IAsyncActionFilter", "IResultFilter", "IAsyncResultFilter", "IResourceFilter",
    "IAsyncResourceFilter", "IExceptionFilter", "IAsyncExceptionFilter", "IAuthorizationFilter",
    "IAsyncAuthorizationFilter", "ActionFilterAttribute", "ResultFilterAttribute", "ExceptionFilterAttribute",
    "IAlwaysRunResultFilter", "IAsyncAlwaysRunResultFilter"})
HOOKS = frozenset({
    "OnActionExecuting", "OnActionExecuted", "OnActionExecutionAsync", "OnResultExecuting", "OnResultExecuted",
    "OnResultExecutionAsync", "OnResourceExecuting", "OnResourceExecuted", "OnResourceExecutionAsync",
    "OnException", "OnExceptionAsync", "OnAuthorization", "OnAuthorizationAsync", "OnPageHandlerSelected",
    "OnPageHandlerExecuting", "OnPageHandlerExecuted", "OnPageHandlerSelectionAsync", "OnPageHandlerExecutionAsync"})


def link_request_filters(graph: nx.MultiDiGraph, refs: Iterable[Reference]) -> int:
    """CALLS from each entry point to the hooks of the filters that run around it; how many were added."""
    filters = _filters(graph)
    if not filters:
        return 0
    registered = _registered(graph, refs)
    # MVC's filters run for controller actions and Razor Pages handlers, not minimal APIs or endpoints
    entries = [(node, data) for node, data in sorted(graph.nodes(data=True)) if data.get("kind") == "METHOD"
               and ((data.get("attrs") or {}).get("entry") or {}).get("kind") in ("action", "page_handler")]
    carried = {name for _, data in graph.nodes(data=True) for name in (data.get("attrs") or {}).get("attributes", ())}
    added = 0
    for filter_type, (bases, hooks) in filters.items():
        name = short_name(graph, filter_type)
        # applied where written (`[Audit]`, `[ServiceFilter(typeof(AuditFilter))]`), else for every request
        applied = name.endswith("Attribute") or any(base.endswith("Attribute") for base in bases) \
            or bool({name, name.removesuffix("Attribute")} & carried)
        pages = bool(bases & PAGE_FILTERS)
        for entry, data in entries:
            if applied:
                if not _carries(graph, entry, data, name):
                    continue
                guess = False
            elif (data["attrs"]["entry"].get("kind") == "page_handler") != pages:
                continue
            else:
                guess = name not in registered
            for hook in hooks:
                added += add_edge(graph, entry, hook, "CALLS", {
                    "line": data.get("start_line", 0), "resolution": "dispatch", "via": "request_filter",
                    "member": short_name(graph, hook), **({"guess": True} if guess else {})})
    return added


def _filters(graph: nx.MultiDiGraph) -> dict[str, tuple[set[str], list[str]]]:
    """Each filter type (not an interface, not abstract) with the ASP.NET filter bases among its
    ancestors and its hook METHOD ids."""
    found = {}
    for node, data in sorted(graph.nodes(data=True)):
        attrs = data.get("attrs") or {}
        if data.get("kind") != "TYPE" or attrs.get("type_kind") == "interface" or "abstract" in attrs.get("modifiers", ()):
            continue
        bases = {short_name(graph, base) for base in ancestors(graph, node)} & (PAGE_FILTERS | ACTION_FILTERS)
        hooks = [method for _, method, key in sorted(graph.out_edges(node, keys=True))
                 if key == "DEFINES" and graph.nodes[method].get("kind") == "METHOD" and short_name(graph, method) in HOOKS]
        if bases and hooks:
            found[node] = (bases, hooks)
    return found


def _carries(graph: nx.MultiDiGraph, entry: str, data: dict, filter_name: str) -> bool:
    """The entry point, its type or one of the type's bases carries the filter's attribute."""
    names = {filter_name, filter_name.removesuffix("Attribute")}
    owner = str(data.get("parent"))
    types = [owner, *ancestors(graph, owner)] if owner in graph else []
    written = [*(data.get("attrs") or {}).get("attributes", ()),
               *(a for t in types if t in graph for a in (graph.nodes[t].get("attrs") or {}).get("attributes", ()))]
    return bool(names & set(written))


# Calls that register a filter for every request: `options.Filters.Add(new X())`, `Filters.Add<X>()`,
# `Filters.AddService<X>()`, `opt.Conventions.ConfigureFilter(new X())`.
_REGISTERS = frozenset({"Add", "AddService", "ConfigureFilter"})


def _registered(graph: nx.MultiDiGraph, refs: Iterable[Reference]) -> set[str]:
    """The filter types the repository's code (not its tests) registers for every request."""
    found: set[str] = set()
    for ref in refs:
        call = ref.attrs.get("call") or {}
        receiver = call.get("receiver") or {}
        on_filters = call.get("member") == "ConfigureFilter" or (receiver.get("property") or {}).get("member") == "Filters"
        if call.get("member") not in _REGISTERS or not on_filters or ref.source not in graph \
                or is_test_path(graph.nodes[ref.source].get("path") or "", graph.graph.get("code_root", "")):
            continue
        named = [*(call.get("message") or ())[-1:], *(guesses[-1] for guesses in call.get("type_arguments", ()) if guesses)]
        found.update(name.rsplit(".", 1)[-1] for name in named)
    return found
