"""Where a type is wired in: dependency-injection and framework registrations.

An interceptor, a mediator's pipeline behaviour, a middleware or a hosted service is never called
by the repository's code: it runs because a method registers it (`services.AddScoped<
EventDispatchInterceptor>()`, `cfg.AddOpenBehavior(typeof(ValidationBehaviour<,>))`,
`app.UseMiddleware<ErrorHandler>()`, `options.PipelineBehaviors = [typeof(CachingBehavior<,>)]`
inside `services.AddMediator(...)`). Each type a registration call names, as a generic type
argument of the call or in a `typeof(...)` among its arguments, becomes REFERENCES from the
method to the type (attrs `via="registration"`, `registered_by`: the call's name); a type the
repository does not declare is left out.

A job library's registration also says which method of the type it will call, in a lambda over
it: Hangfire's `RecurringJob.AddOrUpdate<ReminderService>(x => x.SendReminders(), Cron.Hourly)`,
`BackgroundJob.Enqueue<T>(x => x.Run())` / `Schedule<T>(..)`. Such a reference carries `invokes`
(each method the lambda calls on its parameter -> the call naming it, `RecurringJob.AddOrUpdate`):
the framework calls those methods (`graph/entry_faces.framework_contract`).
"""
from __future__ import annotations

import re

import tree_sitter

from ragstream.index.csharp.calls import TypeScope
from ragstream.index.csharp.syntax import (
    LANGUAGE, call_arguments, callee_of, descendants, lambda_parameter, line_of, node_text, type_arguments, type_name,
)
from ragstream.index.model import Reference

# The verbs of a registration call: `AddScoped`, `TryAddSingleton`, `RegisterType`, `UseMiddleware`
# (not `Address`, `Used`).
REGISTERING = re.compile(r"^(?:Add|TryAdd|Register|Use)(?:[A-Z]|$)")
# a job library's call that hands a type's method to run later (`BackgroundJob.Enqueue<T>(x => x.M())`):
# a registration only with a type argument and a lambda calling a method of it
_ENQUEUING = frozenset({"Enqueue", "Schedule"})


def _marks_assembly(typeof: tree_sitter.Node) -> bool:
    """`typeof(Program).Assembly`: the type only says which assembly to scan; it is not registered."""
    parent = typeof.parent
    return parent is not None and parent.type == "member_access_expression" and parent.child_by_field_name("expression") == typeof


def registration_references(method: tree_sitter.Node, source: str, scope: TypeScope) -> list[Reference]:
    """REFERENCES from the method to each type its registration calls name, once per type (at the
    innermost call naming it: `cfg.AddOpenBehavior(...)` inside `services.AddMediatR(...)`)."""
    found: dict[str, Reference] = {}
    for node in descendants(method):
        callee = callee_of(node)
        if callee is None:
            continue
        name = type_name(callee[1])
        arguments = node.child_by_field_name("arguments")
        invokes = _invoked_members(arguments) if arguments is not None and callee[1].type == "generic_name" else []
        if not name or not (REGISTERING.match(name) or (name in _ENQUEUING and invokes)):
            continue
        written = type_arguments(callee[1]) if callee[1].type == "generic_name" else []
        written += [type_name(t.child_by_field_name("type")) or "" for t in descendants(arguments)
                    if t.type == "typeof_expression" and not _marks_assembly(t)] if arguments is not None else []
        # the type argument's methods the job library calls, each with the call that says so
        called_by = ".".join(filter(None, (node_text(callee[0]) if callee[0] is not None else "", name)))
        for type_written in filter(None, written):
            line = line_of(node)
            # one reference per type: what earlier calls said it invokes stays
            earlier = found[type_written].attrs.get("invokes", {}) if type_written in found else {}
            attrs: dict = {"via": "registration", "registered_by": name}
            if earlier or invokes:
                attrs["invokes"] = {**earlier, **dict.fromkeys(invokes, called_by)}
            found[type_written] = Reference(  # source order: an inner call comes after the one around it
                source=source, edge_type="REFERENCES", target=type_written, target_language=LANGUAGE,
                candidates=scope.type_guesses(type_written), target_kinds=("TYPE",), by_name=True,
                external=False, line=line, attrs=attrs)
    return list(found.values())


def _invoked_members(arguments: tree_sitter.Node) -> list[str]:
    """The methods a lambda argument calls on its own parameter: `SendReminders` of
    `x => x.SendReminders()` (or `async x => await x.SendReminders(..)`)."""
    found = []
    for _, value in call_arguments(arguments):
        parameter = lambda_parameter(value) if value.type == "lambda_expression" else None
        body = value.child_by_field_name("body") if parameter else None
        while body is not None and body.type in ("await_expression", "parenthesized_expression"):
            body = body.named_children[0] if body.named_children else None
        callee = callee_of(body) if body is not None else None
        if callee is not None and callee[0] is not None and node_text(callee[0]) == parameter:
            found.append(type_name(callee[1]) or "")
    return [name for name in found if name]
