"""Calls a job library runs later, not the method that names them.

Hangfire's `BackgroundJob.Enqueue(() => svc.M(..))`, `BackgroundJob.Schedule(..)`,
`RecurringJob.AddOrUpdate(id, () => svc.M(..), cron)`, `_backgroundJobClient.Enqueue<T>(x => x.M())`,
`_recurringJobManager.AddOrUpdate(..)`: the call expression in the lambda is serialised into job
storage and the method returns at once; a Hangfire server runs `M` later, outside the request
("Background methods", https://docs.hangfire.io/en/latest/background-methods/). A call inside
such a lambda is marked `enqueued_by` (the hand-off as written); its CALLS edge says
`via="enqueued"` (`graph_build`), and a flow treats it as a boundary (`graph/relations`).
The hand-off is known by its method name and a receiver named for jobs (`BackgroundJob`,
`RecurringJob`, `IBackgroundJobClient _jobs`, `IRecurringJobManager`): `ConcurrentDictionary.AddOrUpdate`
and `Task.Run(() => ..)` (fire and forget, in the same process) are not hand-offs.
"""
from __future__ import annotations

import tree_sitter

from ragstream.index.csharp.syntax import callee_of, node_text, type_name

# The job libraries' methods that store a call to run later.
JOB_HANDOFFS = frozenset({"Enqueue", "Schedule", "AddOrUpdate", "ContinueJobWith"})
_STOPS = frozenset({"method_declaration", "constructor_declaration", "local_function_statement",
                    "class_declaration", "property_declaration"})


def enqueued_by(node: tree_sitter.Node) -> str | None:
    """The job hand-off (`BackgroundJob.Enqueue`) a call sits in a lambda argument of, else None."""
    parent = node.parent
    while parent is not None and parent.type not in _STOPS:
        if parent.type == "lambda_expression" and parent.parent is not None and parent.parent.type == "argument":
            handoff = _handoff(parent.parent.parent.parent if parent.parent.parent is not None else None)
            if handoff is not None:
                return handoff
        parent = parent.parent
    return None


def _handoff(call: tree_sitter.Node | None) -> str | None:
    """`BackgroundJob.Enqueue` for a job library's hand-off call, else None."""
    callee = callee_of(call) if call is not None else None
    if callee is None or callee[0] is None:
        return None
    name, receiver = type_name(callee[1]) or "", node_text(callee[0])
    if name not in JOB_HANDOFFS or "job" not in receiver.rsplit(".", 1)[-1].lower():
        return None
    return f"{receiver}.{name}"
