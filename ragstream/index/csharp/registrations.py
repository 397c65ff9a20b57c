"""Where a type is wired in: dependency-injection and framework registrations.

An interceptor, a mediator's pipeline behaviour, a middleware or a hosted service is never called
by the repository's code: it runs because a method registers it (`services.AddScoped<
EventDispatchInterceptor>()`, `cfg.AddOpenBehavior(typeof(ValidationBehaviour<,>))`,
`app.UseMiddleware<ErrorHandler>()`, `options.PipelineBehaviors = [typeof(CachingBehavior<,>)]`
inside `services.AddMediator(...)`). Each type a registration call names, as a generic type
argument of the call or in a `typeof(...)` among its arguments, becomes REFERENCES from the
method to the type (attrs `via="registration"`, `registered_by`: the call's name); a type the
repository does not declare is left out.
"""
from __future__ import annotations

import re

import tree_sitter

from ragstream.index.csharp.calls import TypeScope
from ragstream.index.csharp.syntax import LANGUAGE, callee_of, descendants, line_of, type_arguments, type_name
from ragstream.index.model import Reference

# The verbs of a registration call: `AddScoped`, `TryAddSingleton`, `RegisterType`, `UseMiddleware`
# (not `Address`, `Used`).
REGISTERING = re.compile(r"^(?:Add|TryAdd|Register|Use)(?:[A-Z]|$)")


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
        if not name or not REGISTERING.match(name):
            continue
        written = type_arguments(callee[1]) if callee[1].type == "generic_name" else []
        arguments = node.child_by_field_name("arguments")
        written += [type_name(t.child_by_field_name("type")) or "" for t in descendants(arguments)
                    if t.type == "typeof_expression" and not _marks_assembly(t)] if arguments is not None else []
        for type_written in filter(None, written):
            line = line_of(node)
            found[type_written] = Reference(  # source order: an inner call comes after the one around it
                source=source, edge_type="REFERENCES", target=type_written, target_language=LANGUAGE,
                candidates=scope.type_guesses(type_written), target_kinds=("TYPE",), by_name=True,
                external=False, line=line, attrs={"via": "registration", "registered_by": name})
    return list(found.values())
