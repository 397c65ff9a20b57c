"""What an entry point serves, read from what its code is: an API for other programs, a page
people use in a browser, or a job the application runs by itself.

An application often has both over the same service: a Web API `CustomerController.Post` and an
MVC site's `CustomerController.Create` both register a customer, and the page's route may share
more words with the question ("register", "new") than the API's. A question that says which it
means ("through the REST API", "from the MVC web site's remove page") decides between them by
these facts of the code, never by the application's names (`counterpart`: the entry point of the
asked kind that calls what the chosen one of the other kind calls):

- API: a minimal API or an endpoint class (`entry.kind`); an action of a type that has
  `[ApiController]` (itself or a base), or whose framework base is `ControllerBase` (ASP.NET
  Core) or `ApiController` (ASP.NET Web API); an action whose own route starts with `api/`;
- PAGE: a Razor Pages handler (`OnPost...`); an action of a type whose framework base is MVC's
  `Controller`, that returns views (its methods call `View` or `PartialView`) and that no
  `[ApiController]` marks (a `Controller` without views may well serve JSON under `api/`).

- JOB: the body of a background job, a method named like one (`ExecuteAsync`, `Execute`,
  `Invoke`, `Run...`, `DoWork`, `StartAsync`) of a type that is a hosted service or a job of a
  scheduling library up its bases (`IHostedService`, `BackgroundService`, Quartz's `IJob`,
  Coravel's `IInvocable`): "the background purge job" is `PurgeJob.ExecuteJob`, not the
  `JobController.Delete` whose type shares the word "job" and whose verb the question's "delete"
  asks (`relations.entry_methods` puts such bodies first when a question asks for a job). Also a
  job by its contract (`framework_contract`): the member of a scheduling contract the framework
  calls, or of a contract the repository declares and registers its type for with a scheduling
  call but never calls itself (Cofoundry's `RegisterAsyncRecurringTask<T>()` of an
  `IAsyncRecurringBackgroundTask`, whose scheduler is a plugin outside the repository);
- HUB: a public method of a SignalR hub (`Hub`, `Hub<T>` up its bases): clients call it.

Anything else (a message handler, an action whose base the graph does not reach) has no face.
"""
from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

import networkx as nx

from ragstream.index.csharp.call_resolution import ancestors, nearest_ancestors
from ragstream.index.model import runs_around
from ragstream.keyword_tokens import identifier_parts
from ragstream.test_paths import in_tests

API = "api"
PAGE = "page"
JOB = "job"
HUB = "hub"
FRAMEWORK_FACES = (JOB, HUB)  # entry points the framework calls, not a request's route
_API_KINDS = frozenset({"minimal_api", "endpoint"})
_PAGE_KINDS = frozenset({"page_handler"})
_API_BASES = frozenset({"ControllerBase", "ApiController"})  # ASP.NET Core / ASP.NET Web API
_PAGE_BASES = frozenset({"Controller"})  # MVC: a controller with views
_VIEW_RESULTS = frozenset({"View", "PartialView"})  # what MVC's `Controller` adds to `ControllerBase`
_API_ATTRIBUTES = frozenset({"ApiController", "ApiControllerAttribute"})
_API_ROUTE = re.compile(r"^[~/]*api(?:/|$)", re.IGNORECASE)
# what a job is by its bases: ASP.NET Core's hosted services, Quartz.NET's and Coravel's jobs
_JOB_BASES = frozenset({"IHostedService", "BackgroundService", "IHostedLifecycleService", "IJob", "IInvocable"})
_JOB_BODY = re.compile(r"^(?:Execute|Invoke|Run|DoWork|StartAsync)")
# the members a framework calls on a contract outside the repository, by the contract's short
# name (documented: the generic host's `IHostedService`/`IHostedLifecycleService` and
# `BackgroundService.ExecuteAsync`, Quartz.NET's `IJob.Execute`, Coravel's `IInvocable.Invoke`);
# `None`: every public method (a SignalR hub's, which its clients call)
_HOST_MEMBERS = ("StartAsync", "StopAsync")
# overrides a framework calls that start no work of the application: an object's own members, an
# EF model's building, a migration's steps
_NOT_CALLBACKS = frozenset({"ToString", "Equals", "GetHashCode", "Dispose", "DisposeAsync", "Finalize",
                            "OnModelCreating", "OnConfiguring", "ConfigureConventions", "BuildModel", "BuildTargetModel",
                            "Up", "Down"})
FRAMEWORK_CONTRACTS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "IHostedService": (JOB, _HOST_MEMBERS),
    "IHostedLifecycleService": (JOB, (*_HOST_MEMBERS, "StartingAsync", "StartedAsync", "StoppingAsync", "StoppedAsync")),
    "BackgroundService": (JOB, ("ExecuteAsync", *_HOST_MEMBERS)),
    "IJob": (JOB, ("Execute",)),
    "IInvocable": (JOB, ("Invoke",)),
    "Hub": (HUB, None),
}
# what a registration call says when it schedules: the words of `RegisterAsyncRecurringTask`,
# `ScheduleTask`, `AddRecurringJob` (identifier parts, lower case)
_SCHEDULING_WORDS = frozenset({"recurring", "schedule", "scheduled", "job", "jobs", "cron", "timer", "timed", "periodic"})


@dataclass(frozen=True)
class Contract:
    """What makes a method an entry point the framework calls: the contract's member it
    implements (`IHostedService.StartAsync`), the face it gives (JOB, HUB), and how that is known
    (`by`: "framework contract", or the registration call of a contract the repository declares)."""
    member: str
    face: str | None
    by: str


def entry_face(graph: nx.MultiDiGraph, method: str) -> str | None:
    """API or PAGE for an HTTP entry point whose code says which, JOB for a job's body; None
    otherwise."""
    entry = (graph.nodes[method].get("attrs") or {}).get("entry") or {}
    if not entry:
        if _is_job_body(graph, method):
            return JOB
        contract = framework_contract(graph, method)
        return contract.face if contract else None
    if entry.get("kind") in _API_KINDS or _API_ROUTE.match(entry.get("route") or ""):
        return API
    if entry.get("kind") in _PAGE_KINDS:
        return PAGE
    owner = graph.nodes[method].get("parent")
    if not isinstance(owner, str) or owner not in graph:
        return None
    types = {owner} | ancestors(graph, owner)
    attributes = {a for t in types for a in (graph.nodes[t].get("attrs") or {}).get("attributes", ())}
    # a base outside the repository is known by its short name (`Microsoft.AspNetCore.Mvc.ControllerBase`)
    bases = {graph.nodes[t].get("name", "").rsplit(".", 1)[-1] for t in types if graph.nodes[t].get("kind") == "EXTERNAL"}
    if attributes & _API_ATTRIBUTES or bases & _API_BASES:
        return API
    return PAGE if bases & _PAGE_BASES and any(_returns_views(graph, t) for t in types) else None


def _is_job_body(graph: nx.MultiDiGraph, method: str) -> bool:
    """Whether `method` is named like a job's body and its type is a job up its bases."""
    name = graph.nodes[method].get("name", "").split("(", 1)[0].rsplit(".", 1)[-1]
    owner = graph.nodes[method].get("parent")
    if not _JOB_BODY.match(name) or not isinstance(owner, str) or owner not in graph:
        return False
    return any(graph.nodes[t].get("name", "").split("<", 1)[0].rsplit(".", 1)[-1] in _JOB_BASES
               for t in ancestors(graph, owner))


def framework_contract(graph: nx.MultiDiGraph, method: str) -> Contract | None:
    """The contract through which code outside the repository calls `method`, or None:

    - a member `FRAMEWORK_CONTRACTS` lists of a framework type up the method's type's bases
      (`SchedulerService : IHostedService` -> `StartAsync`; a hub's public methods);
    - an override no code of the repository calls, on a type whose base is outside the repository
      (a queue processor's `ProcessResult`, a generated gRPC base's `GetDiscount`): the framework
      calls it; not `_NOT_CALLBACKS`, which every object has or which build a model or a schema;
    - a method a job library's registration names in a lambda over the type
      (`RecurringJob.AddOrUpdate<T>(x => x.M())`, `BackgroundJob.Enqueue<T>(..)`: attrs `invokes`);
    - a member of a contract the repository declares up its bases (an interface or base type
      naming a method of the same name) that no code of the repository calls, on a type that a
      registration call names (`REFERENCES`, `via="registration"`) when that call says it
      schedules (`RegisterAsyncRecurringTask<T>`): the scheduler the type is registered with
      calls it (a dependency container's `AddScoped<IJobService, JobService>` calls nothing)."""
    data = graph.nodes[method]
    owner = data.get("parent")
    if data.get("kind") != "METHOD" or not isinstance(owner, str) or owner not in graph:
        return None
    name = data.get("name", "").split("(", 1)[0].rsplit(".", 1)[-1]
    if name == owner.rsplit("|", 1)[0].rsplit(".", 1)[-1]:  # a constructor
        return None
    bases = nearest_ancestors(graph, owner)
    for base in (b for b in bases if graph.nodes[b].get("kind") == "EXTERNAL"):
        short = graph.nodes[base].get("name", "").split("<", 1)[0].rsplit(".", 1)[-1]
        face, members = FRAMEWORK_CONTRACTS.get(short, (None, ()))
        public = "public" in (data.get("attrs") or {}).get("modifiers", ())
        if (members is None and public) or name in (members or ()):
            return Contract(f"{short}.{name}", face, "framework contract")
    external = [b for b in bases if graph.nodes[b].get("kind") == "EXTERNAL"]
    if external and "override" in (data.get("attrs") or {}).get("modifiers", ()) and name not in _NOT_CALLBACKS \
            and not in_tests(graph, method) and not _called_in_repository(graph, method):
        # `ProcessResult` of a queue processor, a gRPC service's `GetDiscount`: the framework type calls it
        short = graph.nodes[external[0]].get("name", "").split("<", 1)[0].rsplit(".", 1)[-1]
        return Contract(f"{short}.{name}", None, "override of a framework type's member")
    registered = [d for source, _, key, d in graph.in_edges(owner, keys=True, data=True)
                  if key == "REFERENCES" and d.get("via") == "registration" and not in_tests(graph, source)]
    for d in registered:  # a job library told which method to call: `RecurringJob.AddOrUpdate<T>(x => x.M())`
        by = (d.get("invokes") or {}).get(name)
        if by:
            said = {w.lower() for w in identifier_parts(by)}
            return Contract(f"{owner.rsplit('|', 1)[0].rsplit('.', 1)[-1]}.{name}",
                            JOB if said & _SCHEDULING_WORDS else None, f"registered by {by}")
    registrations = [d.get("registered_by") or "registration" for d in registered]
    if not registrations or _called_in_repository(graph, method):
        return None
    for base in bases:
        declared = [m for _, m, key in graph.out_edges(base, keys=True) if key == "DEFINES"
                    and graph.nodes[m].get("name", "").split("(", 1)[0].rsplit(".", 1)[-1] == name]
        if declared and not any(_called_in_repository(graph, m) for m in declared):
            contract = graph.nodes[base].get("name", "").rsplit(".", 1)[-1]
            # a container's registration (`AddScoped<IJobService, JobService>`) calls nothing, whatever
            # the contract is called: only a registration that schedules says the type is run
            scheduling = [r for r in registrations if {w.lower() for w in identifier_parts(r)} & _SCHEDULING_WORDS]
            return Contract(f"{contract}.{name}", JOB, f"registered by {scheduling[0]}") if scheduling else None
    return None


def _called_in_repository(graph: nx.MultiDiGraph, method: str) -> bool:
    """Whether code of the repository (not its tests) calls `method`."""
    return any(key == "CALLS" and not in_tests(graph, caller) for caller, _, key in graph.in_edges(method, keys=True))


def _returns_views(graph: nx.MultiDiGraph, type_id: str) -> bool:
    """Whether a method of the type calls MVC's `View` or `PartialView`."""
    return any(key == "CALLS" and graph.nodes[target].get("kind") == "EXTERNAL"
               and graph.nodes[target].get("name", "").rsplit(".", 1)[-1] in _VIEW_RESULTS
               for _, method, member in graph.out_edges(type_id, keys=True) if member == "DEFINES"
               for _, target, key in graph.out_edges(method, keys=True))


def counterpart(graph: nx.MultiDiGraph, entry: str, face: str | None, http_verbs: Collection[str] = ()) -> str | None:
    """The entry point of kind `face` over the same code as `entry` when the code says `entry` is
    of the other kind: one that calls a method `entry` calls (a service both the site and the API
    hand the request to), of an asked HTTP verb first, then calling more of them, then by id.
    None when `entry` is of the asked kind or of none, or when no entry point of the asked kind
    calls what it calls."""
    own = entry_face(graph, entry)
    if {own, face} != {API, PAGE}:  # a job has no counterpart: it is no other face of a request
        return None
    sharing: dict[str, int] = {}
    for callee in _callees(graph, entry):
        for caller, _, key, data in graph.in_edges(callee, keys=True, data=True):
            if key == "CALLS" and caller != entry and not runs_around(data):
                sharing[caller] = sharing.get(caller, 0) + 1
    found = [caller for caller in sharing if entry_face(graph, caller) == face]

    def verb(method: str) -> str | None:
        return ((graph.nodes[method].get("attrs") or {}).get("entry") or {}).get("verb")

    return min(found, key=lambda m: (verb(m) not in http_verbs, -sharing[m], m)) if found else None


def _callees(graph: nx.MultiDiGraph, method: str) -> set[str]:
    """What `method` calls in the repository: not the framework's (`View`, `Ok`) nor its own
    type's or its bases' helpers (`ResponseHasErrors`)."""
    owner = graph.nodes[method].get("parent")
    own = {owner} | ancestors(graph, owner) if isinstance(owner, str) and owner in graph else {owner}
    return {target for _, target, key, data in graph.out_edges(method, keys=True, data=True)
            if key == "CALLS" and not runs_around(data) and graph.nodes[target].get("kind") != "EXTERNAL"
            and graph.nodes[target].get("parent") not in own}
