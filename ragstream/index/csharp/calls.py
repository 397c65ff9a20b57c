"""Call targets of a method body (CALLS references).

Calls are emitted only when the receiver's type is known from the syntax: no receiver or `this`
(the type, then its bases), `base` (the bases only, and never by short name: an override
calling its base would find itself), a capitalised name that is no variable (a type), or a
parameter, local, field, property or constructor parameter whose type the file states
(`IDbConnection c`, `var c = new T(...)`). `new T(...)` calls the constructor `T.T`, exactly.
System.Object's methods (`ToString`, ...) are never resolved by short name. `nameof(...)` and
calls to local functions (part of their method) are not calls.

Each call also carries, in attrs["call"], what the resolver needs to find the method through
the type hierarchy: the receiver (`{"types": [qualified guesses]}`, or `{"call": ...}` when
the receiver is what another call returns: `var x = await service.GetAsync(); x.M()`; `{"member_of":
type, "name": field}` for a field or property the file does not declare, of another part or a base), the
member name and the argument count, and each argument's type where the syntax or a call it comes
from tells it (to choose among overloads; `_argument_facts`, also the caller's parameters it
forwards and the parameter it is made on, for a walk that binds a dispatch). A receiver whose type is only
known from a call's return type, or from a lambda over a collection, is never resolved by
short name: when the resolver cannot follow it, the call is not linked.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import tree_sitter

from ragstream.index.model import Reference
from ragstream.index.csharp.table_arguments import statement_of
from ragstream.index.csharp.declarations import Names, TypeDecl
from ragstream.index.csharp.job_handoffs import enqueued_by
from ragstream.index.csharp.member_fields import undeclared_member
from ragstream.index.csharp.syntax import (
    LANGUAGE, callee_of, child_of_type, created_type, descendants, forgiven, initializer, line_of, node_text,
    required_child, type_arguments, type_name, unique,
)
from ragstream.index.csharp.sql_parameters import passed_strings
from ragstream.index.csharp.strings import string_bindings, string_value, type_constraints
from ragstream.index.csharp.variables import (
    ElementOf, Generic, Returned, VariableType, declared_elements, declared_generics, declared_variables, foreach_generics,
    generic_of,
)


# System.Object's methods: an unresolved call to one is the framework's, never the only
# same-named method elsewhere in the repository.
OBJECT_METHODS = frozenset({
    "Equals", "GetHashCode", "GetType", "ToString", "MemberwiseClone", "ReferenceEquals",
})


# `receiver_parameter` of a call made on `this` (or on nothing): the caller's own object, which a
# walk binds to the type a caller's call was made on (`relations._walk_to_tables`).
THIS = -1


# attrs["via"] of a property read: its get accessor runs (`_property_read`, linked by `property_reads`)
PROPERTY_GET = "property_get"


# ORM methods that return the queryable table of their type argument: EF's `Set<T>()`,
# NHibernate's `Query<T>()` / `QueryOver<T>()`, linq2db's `GetTable<T>()`.
TABLE_OF_TYPE = frozenset({"Set", "Query", "QueryOver", "GetTable"})


@dataclass(frozen=True)
class TypeScope:
    """What a method body can see: its type, the file's names, the type's members."""

    decl: TypeDecl
    names: Names
    members: dict[str, VariableType]  # field, property, constructor parameter -> its type
    elements: dict[str, str]  # field or property of a collection type -> element type
    strings: dict[str, str]  # fields initialised with a string -> that string
    generics: dict[str, Generic]  # field, property, constructor parameter of a generic type
    # the type's type parameters -> the types their `where` clauses constrain them to
    constraints: dict[str, list[str]] = field(default_factory=dict)
    # field or property of a collection of a generic type (`List<IPipe<TOne>> _pipes`) -> that element type
    element_generics: dict[str, Generic] = field(default_factory=dict)

    def type_guesses(self, type_written: str) -> tuple[str, ...]:
        return self.names.type_candidates(type_written, self.decl.name)

    def member_candidates(self, type_written: str, member: str) -> tuple[str, ...]:
        return tuple(f"{guess}.{member}" for guess in self.type_guesses(type_written))

    def base_guesses(self) -> tuple[str, ...]:
        return unique(guess for base in self.decl.bases
                      for guess in self.names.type_candidates(base, self.decl.scope))

    def base_candidates(self, member: str) -> tuple[str, ...]:
        return tuple(f"{guess}.{member}" for guess in self.base_guesses())

    def own_candidates(self, member: str) -> tuple[str, ...]:
        return unique([f"{self.decl.name}.{member}", *self.base_candidates(member)])


@dataclass
class _Body:
    """A method body's view: its scope, variables and element types."""

    scope: TypeScope
    variables: dict[str, VariableType]
    elements: dict[str, str]
    local_functions: set[str]
    generics: dict[str, Generic]
    parameters: list[str]  # the method's own, in order
    constraints: dict[str, list[str]]  # the type's and the method's type parameters -> their constraints


@dataclass(frozen=True)
class _Target:
    target: str  # as written: what an EXTERNAL node or the short-name fallback uses
    candidates: tuple[str, ...]
    by_name: bool
    attrs: dict


def method_calls(method: tree_sitter.Node, source: str, scope: TypeScope) -> list[Reference]:
    """CALLS references of one method body (and `new T(...)` constructor calls)."""
    local = declared_variables(method)
    body = _Body(
        scope, {**scope.members, **local},
        {**scope.elements, **declared_elements(method)},
        {node_text(node.child_by_field_name("name"))
         for node in descendants(method) if node.type == "local_function_statement"},
        {**{name: g for name, g in scope.generics.items() if name not in local}, **declared_generics(method),
         **foreach_generics(method, {name: g for name, g in scope.element_generics.items() if name not in local})},
        parameter_names(method),
        type_constraints(method, scope.constraints),
    )
    calls = []
    changed = _changed_results(method)
    strings = {**scope.strings, **string_bindings(method, scope.strings)}
    known = {*body.variables, *body.parameters, *strings}  # names the file declares
    for node in descendants(method):
        if node.type not in _MAY_REFER:  # what neither a property read nor a call can be
            continue
        read = _property_read(node, body, local)
        if read is not None:
            calls.append(Reference(
                source=source, edge_type="CALLS", target=read.target, target_language=LANGUAGE,
                candidates=read.candidates, target_kinds=("PROPERTY",), external=False, line=line_of(node),
                attrs=read.attrs))
        found = _call_target(node, body)
        if found is not None:
            # what a helper that runs its parameter as SQL would run (`sql_parameters`)
            found.attrs.update(passed_strings(node, strings, known))
            carrier = _data_carrier(node, body)
            if carrier is not None:
                found.attrs["call"]["data"] = carrier
            if (node.start_byte, node.end_byte) in changed:
                found.attrs["call"]["changed"] = True
                assigned = changed[(node.start_byte, node.end_byte)]
                if assigned:  # the members set on the result itself: a setter with code runs (`setters`)
                    found.attrs["call"]["assigned"] = assigned
            navigation = _navigation(node)
            if navigation:
                found.attrs["call"]["navigation"] = navigation
            handoff = enqueued_by(node)
            if handoff:  # `BackgroundJob.Enqueue(() => svc.M())`: a job runs it later (`job_handoffs`)
                found.attrs["enqueued_by"] = handoff
            state = _entry_state_set(node)
            if state:
                found.attrs["call"]["state"] = state
            named = _named_receiver(node, body)
            if named:  # a type's name (a static call) or a base's member: `messages`, `facades`
                found.attrs["call"]["named_receiver"] = True
            message = _first_argument_type(node, body)
            if message:
                found.attrs["call"]["message"] = list(scope.type_guesses(message))
                arguments = _message_arguments(node, body)
                if arguments:  # `new Cmd<TEntity>(..)`: what binds a generic handler's parameters
                    found.attrs["call"]["message_arguments"] = arguments
            else:  # `repository.Add(entry)`, `entry` what a call returned: the resolver types it
                argument = _first_argument_inferred(node, body)
                if argument:
                    found.attrs["call"]["argument"] = argument
                    if _sends(node, body) and not named:
                        # `bus.SendCommand(command)`, `command` what `model.ToCommand()` returned:
                        # the message is the type the resolver finds for it (`messages`)
                        found.attrs["call"]["message_returned"] = True
            created = _lambda_created(node)
            if created:  # `UpdateOnly(() => new Post { .. })`: the type C# infers the method's type argument from
                found.attrs["call"]["creates"] = list(scope.type_guesses(created))
            calls.append(Reference(
                source=source, edge_type="CALLS", target=found.target, target_language=LANGUAGE,
                candidates=found.candidates, target_kinds=("METHOD",), by_name=found.by_name,
                external=False, line=line_of(node), attrs=found.attrs,
            ))
    return calls


# The nodes `_property_read` or `_call_target` may find something in (every other gives None).
_MAY_REFER = frozenset({"member_access_expression", "identifier", "query_expression", "object_creation_expression",
                        "invocation_expression"})

# Where a bare name is read as a value (the field the name sits in, None: any but `name` / `type`).
_VALUE_PLACES = {
    "argument": None, "binary_expression": None, "return_statement": None, "variable_declarator": None,
    "arrow_expression_clause": None, "conditional_expression": None, "parenthesized_expression": None,
    "interpolation": None, "prefix_unary_expression": None, "await_expression": None, "if_statement": "condition",
    "while_statement": "condition", "foreach_statement": "right", "element_access_expression": "expression",
    "member_access_expression": "expression", "assignment_expression": "right", "cast_expression": "value",
}


def _property_read(node: tree_sitter.Node, body: _Body, local: dict[str, VariableType]) -> _Target | None:
    """A member read as a value (`config.PageRevisions`, `this.Name`, a bare `Name` that is no
    local): a property's get accessor runs (C# spec, "Accessors"). Only a receiver whose type the
    syntax states (as for calls); `property_reads` links it when the property's getter has code."""
    kind, parent = node.type, node.parent
    if parent is None or kind not in ("member_access_expression", "identifier") \
            or kind == "identifier" and parent.type not in _VALUE_PLACES:  # a bare name read nowhere else
        return None
    field_in = _field_in(node)
    if field_in == "function" or _in_nameof(node):
        return None
    if parent.type == "assignment_expression" and field_in == "left":  # a set: the setter's path
        return None
    if kind == "member_access_expression":
        receiver, name = required_child(node, "expression"), node_text(node.child_by_field_name("name"))
        if receiver.type == "this":
            return _Target(f"{body.scope.decl.name}.{name}", body.scope.own_candidates(name), False,
                           {"via": PROPERTY_GET, "member": name})
        written = _written_type(receiver, body)
        return _Target(f"{written}.{name}", body.scope.member_candidates(written, name), False,
                       {"via": PROPERTY_GET, "member": name}) if written else None
    name, place = node_text(node), _VALUE_PLACES[parent.type]
    if name in local or name in body.parameters or (field_in != place if place else field_in in ("name", "type")):
        return None
    return _Target(f"{body.scope.decl.name}.{name}", body.scope.own_candidates(name), False,
                   {"via": PROPERTY_GET, "member": name})


def _field_in(node: tree_sitter.Node) -> str | None:
    """The name of the field `node` fills in its parent (None: no field)."""
    parent = node.parent
    index = next((i for i, child in enumerate(parent.children) if child.id == node.id), None) if parent else None
    return parent.field_name_for_child(index) if parent is not None and index is not None else None


# what lies between a name and the `nameof(` around it: the name's own parts and the argument
_NAMEOF_PATH = frozenset({"member_access_expression", "qualified_name", "generic_name", "alias_qualified_name",
                          "type_argument_list", "argument", "argument_list"})


def _in_nameof(node: tree_sitter.Node) -> bool:
    """Inside `nameof(...)`: a name, not a read. Only the name's own parts and the argument are
    climbed (a walk to the statement made a long `a + b + ...` chain cubic)."""
    current = node.parent
    while current is not None and current.type in _NAMEOF_PATH:
        current = current.parent
    return current is not None and current.type == "invocation_expression" \
        and node_text(current.child_by_field_name("function")) == "nameof"


def _changed_results(method: tree_sitter.Node) -> dict[tuple[int, int], list[str]]:
    """The calls (by byte span) whose result the method keeps in a variable and then changes a
    member of (`var dept = await db.Departments.FindAsync(id); dept.Name = name;`): an ORM
    writes such a tracked entity back when the unit of work is saved, wherever that happens.
    Each with the names of its own members assigned (`Name`; not `City` of `dept.Address.City`)."""
    assigned_into: dict[str, set[str]] = {}
    for changed in filter(None, map(_changed_member, descendants(method))):
        names = assigned_into.setdefault(_root_identifier(changed) or "", set())
        if required_child(changed, "expression").type == "identifier":
            names.add(node_text(changed.child_by_field_name("name")))
    kept: dict[tuple[int, int], str] = {}
    for node in descendants(method):
        if node.type == "variable_declarator":
            name, value = node_text(node.child_by_field_name("name")), initializer(node)
        elif node.type == "assignment_expression" and required_child(node, "left").type == "identifier":
            name, value = node_text(required_child(node, "left")), required_child(node, "right")
        else:
            continue
        value = _produced(value)
        if value is not None and value.type == "invocation_expression" and not _projects(value):
            kept[(value.start_byte, value.end_byte)] = name
    return {span: sorted(assigned_into[name]) for span, name in kept.items() if name and name in assigned_into}


# Query operators whose result is not a tracked entity: a projection (`Select(o => new Dto
# {...})`, AutoMapper's `ProjectTo<T>`, NHibernate's `SelectList`/`TransformUsing`) or untracked rows.
UNTRACKED = frozenset({"Select", "SelectList", "ProjectTo", "TransformUsing", "AsNoTracking",
                       "AsNoTrackingWithIdentityResolution"})


def _projects(call: tree_sitter.Node) -> bool:
    """A query chain that projects its rows or reads them untracked anywhere along it."""
    while call.type == "invocation_expression" and (callee := callee_of(call)) is not None:
        if type_name(callee[1]) in UNTRACKED:
            return True
        if callee[0] is None:
            return False
        produced = _produced(callee[0])
        if produced is None:
            return False
        call = produced
    return False


# The entity states that make EF write the entity at the next save: `db.Entry(user).State =
# EntityState.Modified` is an UPDATE of its row, `Added` an INSERT, `Deleted` a DELETE.
WRITTEN_STATES = frozenset({"Added", "Modified", "Deleted"})


def _entry_state_set(call: tree_sitter.Node) -> str | None:
    """The state an assignment sets on what the call returns (`Modified` of `db.Entry(user).State =
    EntityState.Modified`), when it is one EF writes; None for any other call or state (`Unchanged`,
    `Detached`, a state read)."""
    access = call.parent
    if access is None or access.type != "member_access_expression" \
            or node_text(access.child_by_field_name("name")) != "State":
        return None
    assignment = access.parent
    if assignment is None or assignment.type != "assignment_expression" \
            or required_child(assignment, "left").start_byte != access.start_byte:
        return None
    value = required_child(assignment, "right")  # `EntityState.Modified`, also namespace-qualified
    if value.type != "member_access_expression" \
            or node_text(required_child(value, "expression")).rsplit(".", 1)[-1] != "EntityState":
        return None
    state = node_text(value.child_by_field_name("name"))
    return state if state in WRITTEN_STATES else None


def _changed_member(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The member an assignment (`x.Name = n`, `x.Total += 1`) or an increment (`x.Count++`) changes."""
    target: tree_sitter.Node | None = None
    if node.type == "assignment_expression":
        target = required_child(node, "left")
    elif node.type in ("postfix_unary_expression", "prefix_unary_expression") \
            and any(child.type in ("++", "--") for child in node.children) and node.named_children:
        target = node.named_children[0]
    return target if target is not None and target.type == "member_access_expression" else None


def _produced(value: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The call that produces a value as kept: under `await`, parentheses, `!` and the left of
    `??` (`await db.Orders.FindAsync(id) ?? throw new NotFound()`)."""
    while value is not None:
        if value.type in ("await_expression", "parenthesized_expression") and value.named_children:
            value = value.named_children[0]
        elif value.type == "postfix_unary_expression" and any(c.type == "!" for c in value.children):
            value = value.named_children[0]
        elif value.type == "binary_expression" and any(c.type == "??" for c in value.children):
            value = value.child_by_field_name("left")
        else:
            return value
    return None


def _root_identifier(expression: tree_sitter.Node) -> str | None:
    """`dept` of `dept.Address.City`."""
    while expression.type == "member_access_expression":
        expression = required_child(expression, "expression")
    return node_text(expression) if expression.type == "identifier" else None


def _call_target(node: tree_sitter.Node, body: _Body, depth: int = 0) -> _Target | None:
    """Where an invocation or `new T(...)` goes; None when the call is not followed."""
    scope = body.scope
    if node.type == "query_expression":
        return _query_source(node, body, depth)
    created = created_type(node)
    if created is not None:
        constructor = created.rsplit(".", 1)[-1]
        spec = _call_spec({"types": scope.type_guesses(created)}, constructor, node, body, depth)
        return _Target(f"{created}.{constructor}", scope.member_candidates(created, constructor),
                       False, {"call": spec})
    callee = callee_of(node)
    if callee is None or depth > 5:
        return None
    receiver, name = callee[0], type_name(callee[1]) or ""
    if receiver is None and (name == "nameof" or name in body.local_functions or name in body.variables):
        # `nameof(x)` parses as a call; local functions belong to the method; `onDone()` on a
        # field, parameter or local invokes the delegate it holds, no method of that name
        return None
    if receiver is None or receiver.type == "this":
        spec = _call_spec({"types": (scope.decl.name,)}, name, node, body, depth)
        return _Target(f"{scope.decl.name}.{name}", scope.own_candidates(name),
                       name not in OBJECT_METHODS, {"call": spec})
    if receiver.type == "base":
        base = scope.decl.bases[0] if scope.decl.bases else ""
        spec = _call_spec({"types": scope.base_guesses()}, name, node, body, depth)
        return _Target(f"{base}.{name}", scope.base_candidates(name), False,
                       {"call": spec, "via_base": True})
    written = _written_type(receiver, body)
    if written is not None:
        spec = _call_spec(_typed(written, receiver, body), name, node, body, depth)
        return _Target(f"{written}.{name}", scope.member_candidates(written, name),
                       name not in OBJECT_METHODS, {"call": spec})
    inferred = _inferred_receiver(receiver, body, depth, through_call=True)
    if (inferred is None or "member_of" in inferred) and name in OBJECT_METHODS:
        return None
    if inferred is None:
        # Unknown receiver: the resolver links it only to an interface method family's root.
        return _Target(name, (), False, {"call": _call_spec({"unknown": True}, name, node, body, depth)})
    # Only the resolver can tell the type: no qualified guesses, never a short-name guess.
    return _Target(f"{node_text(receiver)}.{name}", (), False,
                   {"call": _call_spec(inferred, name, node, body, depth)})


def _query_source(query: tree_sitter.Node, body: _Body, depth: int) -> _Target | None:
    """`from e in db.StoredEvent where ... select e`: what the compiler makes of it, a call of
    `Where` (`Select` without a `where`) on the collection, so that it reads what the method
    syntax reads (`data_access`). Only the first `from`: a later one is a nested collection."""
    clause = child_of_type(query, "from_clause")
    collection = clause.named_children[-1] if clause is not None and clause.named_children else None
    if collection is None or depth > 5:
        return None
    member = "Where" if child_of_type(query, "where_clause") is not None else "Select"
    written = _written_type(collection, body)
    receiver = _typed(written, collection, body) if written else \
        _inferred_receiver(collection, body, depth + 1, through_call=True)
    if receiver is None:
        return None
    spec = _call_spec(receiver, member, query, body, depth)
    carrier = _carrier_of(collection, body, depth)
    if carrier is not None:
        spec["data"] = carrier
    return _Target(f"{node_text(collection)}.{member}", (), False, {"call": spec})


def _method_type_arguments(call: tree_sitter.Node) -> list[str]:
    """The type arguments written on the method of a call (`Entry` of `repo.Get<Entry>(id)`)."""
    callee = callee_of(call)
    return type_arguments(callee[1]) if callee is not None and callee[1].type == "generic_name" else []


# Argument expressions whose kind tells overloads apart (`Send("a")` vs `Send(1)`).
ARGUMENT_KINDS = {
    "string_literal": "string", "verbatim_string_literal": "string",
    "raw_string_literal": "string", "interpolated_string_expression": "string",
    "integer_literal": "number", "real_literal": "number", "lambda_expression": "lambda",
}


def _call_spec(receiver: dict, member: str, call: tree_sitter.Node, body: _Body, depth: int = 0) -> dict:
    scope = body.scope
    arguments = call.child_by_field_name("arguments")
    values = [child for child in arguments.named_children if child.type == "argument"] \
        if arguments is not None else []
    spec: dict = {"receiver": receiver, "member": member, "arguments": len(values)}
    written = _method_type_arguments(call)
    if written:  # `Get<Entry>(id)`: what a method returning its type parameter returns
        spec["type_arguments"] = [list(scope.type_guesses(t)) for t in written]
        named = _literal_name(values) if len(written) == 1 else None
        if named:  # `Mapper.Entity<History>("History")`: a registry may name the type's table
            spec["literal"] = named
    typed = [value.named_children[-1].named_children[0] for value in values if value.named_children
             and value.named_children[-1].type == "typeof_expression" and value.named_children[-1].named_children]
    if typed:  # `db.CreateTable(typeof(Order))`: the non-generic form of a call on a type (`code_first_tables`)
        spec["typeof_arguments"] = [list(scope.type_guesses(name)) for t in typed if (name := type_name(t))]
    names = table_name_arguments(member, values)
    if names:  # `queryBuilder.InsertInto("User", columns, parameters)`: a statement built on a named table
        spec["table_names"] = names
    kinds = [ARGUMENT_KINDS.get(value.named_children[-1].type, "") if value.named_children
             and value.child_by_field_name("name") is None else "" for value in values]
    if any(kinds):
        spec["kinds"] = kinds  # positional: "" where the syntax does not tell
    return {**spec, **_argument_facts(call, body, depth)}


def table_name_arguments(member: str, values: list[tree_sitter.Node]) -> list[str]:
    """The plain string literals a call whose name says an SQL statement (`SelectFrom`, `InsertInto`,
    `Update`, `DeleteFrom`: `table_arguments.statement_of`) passes that read as a name, not as SQL."""
    if not statement_of(member):
        return []
    literals = [value.named_children[-1] for value in values if value.named_children
                and value.child_by_field_name("name") is None and value.named_children[-1].type == "string_literal"]
    return [text for literal in literals if (text := string_value(literal, {})) and _PLAIN_NAME.fullmatch(text)]


_PLAIN_NAME = re.compile(r"[A-Za-z_][\w$#]*(?:\.[A-Za-z_][\w$#]*)?")


def _literal_name(values: list[tree_sitter.Node]) -> str | None:
    """The text of a call's one argument when it is a plain string literal."""
    value = values[0].named_children[-1] if len(values) == 1 and values[0].named_children else None
    if value is None or value.type != "string_literal" or values[0].child_by_field_name("name") is not None:
        return None
    return string_value(value, {})


def _data_carrier(call: tree_sitter.Node, body: _Body, depth: int = 0) -> dict | None:
    """The entity types a call's receiver carries as type arguments, for `data_access`: a variable
    of a generic type (`IRepository<Order> orders`: `orders.AddAsync(o)`) or what a generic
    method returns (`db.Set<Order>().Add(o)`). A receiver reached through another type's
    property (`db.Orders.Add(o)`) is the resolver's to tell."""
    callee = callee_of(call)
    return _carrier_of(callee[0], body, depth) if callee is not None and callee[0] is not None else None


def _carrier_of(receiver: tree_sitter.Node, body: _Body, depth: int = 0) -> dict | None:
    """`_data_carrier` of the expression a call is made on."""
    while receiver.type in ("await_expression", "parenthesized_expression") and receiver.named_children:
        receiver = receiver.named_children[0]
    if depth > 5:
        return None
    if receiver.type == "invocation_expression" and not _table_of_type(receiver):
        # `db.Orders.Include(...).Where(...)`: a query chained on a carrier reads what its root does
        root = receiver
        while root.type == "invocation_expression" and not _table_of_type(root) \
                and (inner_callee := callee_of(root)) is not None and inner_callee[0] is not None:
            root = inner_callee[0]
        if root.type == "member_access_expression" and _variable(root, body) is None:
            spec = _inferred_receiver(root, body, depth + 1, through_call=True)
            return {"chained": True, "property": spec} if spec and "property" in spec else None
        chained = _receiver_carrier(root, body)
        return {**chained, "chained": True} if chained else None
    return _receiver_carrier(receiver, body)


def _table_of_type(call: tree_sitter.Node) -> bool:
    """`Set<Order>()`: an ORM's table of its type argument, called with no arguments."""
    callee = callee_of(call)
    return callee is not None and callee[1].type == "generic_name" and type_name(callee[1]) in TABLE_OF_TYPE \
        and not _has_arguments(call)


def _receiver_carrier(receiver: tree_sitter.Node, body: _Body) -> dict | None:
    """The carrier a receiver is itself: a generic variable, an ORM's table of its type argument,
    or a member a generic base declares."""
    generic = body.generics.get(_variable(receiver, body) or "")
    if generic is not None:
        return {"generic": generic.name, "entities": _entity_guesses(generic.arguments, body),
                "shapes": _shape_guesses(generic, body)}
    if receiver.type == "invocation_expression" and _table_of_type(receiver):
        # `Set<Order>()`, `Query<Entry>()`: the type argument alone picks the table (Dapper's
        # `Query<Row>(sql)` passes SQL, which names its tables itself)
        callee = callee_of(receiver)
        assert callee is not None  # _table_of_type found it
        name = callee[1]
        return {"generic_call": type_name(name), "entities": _entity_guesses(type_arguments(name), body)}
    inherited = _generic_base(body.scope.decl) if receiver.type == "identifier" \
        and node_text(receiver) not in body.variables else None
    if inherited is not None:
        # `Query.Include(...)` in a `Specification<Order>`: a member the generic base declares
        return {"generic": inherited.name, "entities": _entity_guesses(inherited.arguments, body), "inherited": True}
    return None


def _generic_base(decl: TypeDecl) -> Generic | None:
    """The type's first generic base (`Specification<Order>`), if any."""
    base_list = child_of_type(decl.syntax, "base_list")
    return next(filter(None, (generic_of(base) for base in base_list.named_children)), None) \
        if base_list is not None else None


def _navigation(call: tree_sitter.Node) -> str | None:
    """`Items` of `.Include(o => o.Items)` or `.Include("Items")`: the navigation a query loads."""
    callee = callee_of(call)
    if callee is None or type_name(callee[1]) != "Include":
        return None
    arguments = call.child_by_field_name("arguments")
    value = next((child.named_children[-1] for child in arguments.named_children
                  if child.type == "argument" and child.named_children), None) if arguments is not None else None
    if value is not None and value.type == "lambda_expression":
        body = value.child_by_field_name("body")
        return node_text(body.child_by_field_name("name")) if body is not None \
            and body.type == "member_access_expression" else None
    text = string_value(value, {}) if value is not None else None
    return text.split(".", 1)[0] if text else None


def _has_arguments(call: tree_sitter.Node) -> bool:
    arguments = call.child_by_field_name("arguments")
    return arguments is not None and any(child.type == "argument" for child in arguments.named_children)


def _argument_values(call: tree_sitter.Node) -> list[tree_sitter.Node | None]:
    """Each argument's expression by position; None for one passed by name."""
    arguments = call.child_by_field_name("arguments")
    values = [child for child in arguments.named_children if child.type == "argument"] \
        if arguments is not None else []
    return [value.named_children[-1] if value.named_children and value.child_by_field_name("name") is None
            else None for value in values]


def _argument_facts(call: tree_sitter.Node, body: _Body, depth: int = 0) -> dict:
    """What a call's arguments and receiver say for overloads and for dispatch bound by an
    argument: each argument's type as a receiver spec (`new EntryByNameQuery(name)`, a typed
    local, what a call returned; None where unknown), the arguments that are the method's own
    parameters (`forwards`: [argument, parameter] pairs, `Find(query)` inside `FindFirst(IQuery
    query)`) and the parameter the call is made on (`receiver_parameter`: `query.Execute()`)."""
    facts: dict = {}
    parameters = body.parameters
    values = _argument_values(call)
    specs = [_argument_spec(value, body, depth) if value is not None else None for value in values]
    if any(specs):
        facts["argument_types"] = specs
    forwards = [[position, parameters.index(node_text(value))] for position, value in enumerate(values)
                if value is not None and value.type == "identifier" and node_text(value) in parameters]
    if forwards:
        facts["forwards"] = forwards
    callee = callee_of(call)
    receiver = callee[0] if callee is not None else None
    if receiver is not None and receiver.type == "identifier" and node_text(receiver) in parameters:
        facts["receiver_parameter"] = parameters.index(node_text(receiver))
    elif callee is not None and (receiver is None or receiver.type == "this"):
        # `this.DataInsert()` in a base: the object the caller was called on decides the override
        facts["receiver_parameter"] = THIS
    return facts


def _argument_spec(value: tree_sitter.Node, body: _Body, depth: int = 0) -> dict | None:
    """An argument's type as a receiver spec: as written (`new T(...)`, a cast, a typed
    variable), else what only the resolver can tell (a call's declared return type)."""
    stated = value.type in ("object_creation_expression", "cast_expression", "parenthesized_expression") \
        or _variable(value, body) is not None  # not `Status.Open` nor `Default`: no type of their value
    written = _written_type(value, body) if stated else None
    if written is not None:
        return {"types": list(body.scope.type_guesses(written))}
    # the depth goes on from the call's own: an argument naming a variable a call returned
    # (`query = query.Where(...)`) would otherwise start the same walk again
    return _inferred_receiver(value, body, depth + 1, through_call=True)


def _first_argument_inferred(call: tree_sitter.Node, body: _Body) -> dict | None:
    """The first argument as a receiver only the resolver can type (a variable holding what a call
    returned, a collection's element): the entity a forwarded write writes (`data_access`)."""
    first = _first_argument(call)
    return _inferred_receiver(first, body, 0, through_call=True) if first is not None else None


def _first_argument(call: tree_sitter.Node) -> tree_sitter.Node | None:
    """The first argument of a call when it is a plain identifier or a call (`Send(_mapper
    .Map<Cmd>(model))`), passed by position."""
    first = next(iter(_argument_values(call)), None)
    return first if first is not None and forgiven(first).type in ("identifier", "invocation_expression") else None


def parameter_names(method: tree_sitter.Node) -> list[str]:
    """The names of a method's parameters, in order."""
    parameters = method.child_by_field_name("parameters")
    return [node_text(p.child_by_field_name("name")) for p in parameters.named_children
            if p.type == "parameter" and p.child_by_field_name("name") is not None] if parameters is not None else []


def _first_argument_type(call: tree_sitter.Node, body: _Body) -> str | None:
    """The type of an invocation's first argument when the syntax states it (`new X(...)`, or a
    variable declared `X`): what `messages` dispatches a request or event by."""
    if not _sends(call, body):
        return None
    # a bare name (`JsonConvert.Serialize(x)`, or `Mediator.Send(x)` through a property a base
    # declares) is told apart by the resolver (`messages`: only a member dispatches)
    value = next(iter(_argument_values(call)), None)
    if value is None:
        return None
    return _written_type(value, body) if value.type in (
        "object_creation_expression", "identifier", "member_access_expression", "cast_expression") else None


def _lambda_created(call: tree_sitter.Node) -> str | None:
    """`Post` of a call whose first argument is a lambda that returns a new object (`() => new
    Post { Deleted = true }`): the type a generic method taking an `Expression<Func<T>>` is bound to."""
    value = next(iter(_argument_values(call)), None)
    result = value.child_by_field_name("body") if value is not None and value.type == "lambda_expression" else None
    return created_type(result) if result is not None and result.type == "object_creation_expression" else None


def _message_arguments(call: tree_sitter.Node, body: _Body) -> list[str]:
    """The type arguments of the message a call passes, as written and in place (`new
    Cmd<int, TEntity>(..)`, or the `Cmd<TEntity> command` passed on): what binds the type
    parameters of a generic message's handler (`base_bindings`)."""
    value = next(iter(_argument_values(call)), None)
    if value is not None and value.type == "object_creation_expression":
        written = value.child_by_field_name("type")
        generic = written.child_by_field_name("name") if written is not None and written.type == "qualified_name" \
            else written
        return type_arguments(generic, positional=True) if generic is not None and generic.type == "generic_name" else []
    variable = _variable(value, body) if value is not None else None
    declared = body.generics.get(variable) if variable else None
    return list(declared.arguments) if declared else []


def _sends(call: tree_sitter.Node, body: _Body) -> bool:
    """An invocation that may pass its first argument to a bus: not a static helper named by a
    dotted type (`Newtonsoft.Json.JsonConvert.SerializeObject(command)`)."""
    callee = callee_of(call)
    return callee is not None and (callee[0] is None or callee[0].type == "identifier"
                                   or _type_path(callee[0], body.variables) is None)


def _named_receiver(call: tree_sitter.Node, body: _Body) -> bool:
    """The receiver is a bare capitalised name that is no variable: a type's name or a member a
    base declares (`Mediator.Send(x)`), which the resolver tells apart (`messages`)."""
    callee = callee_of(call)
    return callee is not None and callee[0] is not None and callee[0].type == "identifier" \
        and _type_path(callee[0], body.variables) is not None


def _entity_guesses(arguments: Iterable[str], body: _Body) -> list[list[str]]:
    return [list(body.scope.type_guesses(argument)) for argument in arguments]


def _shape_guesses(generic: Generic, body: _Body) -> list[list[list[str]]]:
    """`Generic.shapes` with each name's qualified guesses: what `bound_dispatch` matches."""
    return [_entity_guesses(shape, body) for shape in generic.shapes]


def _typed(written: str, receiver: tree_sitter.Node, body: _Body) -> dict:
    """A receiver spec typed as written, with the type arguments of a generic variable
    (`IRepository<Order, int> orders`: `arguments`), which bind what its members declare in
    the type's parameters (`IQueryable<T> Entities`: `data_access`)."""
    # a receiver typed by a type parameter (`TDbContext DbContext` of `Repository<TDbContext> where
    # TDbContext : DbContext, IAdminDbContext`) has the members of the types it is constrained to
    # (C# spec, "Type parameter constraints": member lookup on a type parameter searches its effective
    # base class and interface set): those types, in the clause's order, are the guesses
    constrained = body.constraints.get(written)
    spec: dict = {"types": list(unique(g for t in constrained for g in body.scope.type_guesses(t)) if constrained
                                else body.scope.type_guesses(written))}
    generic = body.generics.get(_variable(receiver, body) or "")
    if generic is not None:
        spec["arguments"] = _entity_guesses(generic.arguments, body)
        spec["shapes"] = _shape_guesses(generic, body)
    return spec


def _written_type(receiver: tree_sitter.Node, body: _Body) -> str | None:
    """The receiver's type as written, when the syntax states it."""
    if receiver.type == "object_creation_expression":
        return created_type(receiver)
    if receiver.type == "cast_expression":
        return type_name(receiver.child_by_field_name("type"))
    if receiver.type == "parenthesized_expression" and receiver.named_children:
        return _written_type(receiver.named_children[0], body)
    variable = _variable(receiver, body)
    if variable is not None:
        value = body.variables.get(variable)
        return value if isinstance(value, str) else None
    return _type_path(receiver, body.variables)


def _variable(expression: tree_sitter.Node, body: _Body) -> str | None:
    """The variable (or `this.` member) an expression names, when it is one."""
    if expression.type == "identifier" and node_text(expression) in body.variables:
        return node_text(expression)
    if expression.type == "member_access_expression" \
            and required_child(expression, "expression").type == "this":
        return node_text(expression.child_by_field_name("name"))
    return None


def _inferred_receiver(receiver: tree_sitter.Node, body: _Body, depth: int,
                       through_call: bool) -> dict | None:
    """A receiver whose type only the resolver can tell: what a call returns (`x` of
    `var x = await s.GetAsync()`), or a collection's element. Chains written in one
    expression (`a.B().C()`, fluent builders and LINQ) are followed only `through_call`."""
    receiver = forgiven(receiver)
    while receiver.type in ("await_expression", "parenthesized_expression") \
            and receiver.named_children:
        receiver = forgiven(receiver.named_children[0])
    if receiver.type == "invocation_expression":
        inner = _call_target(receiver, body, depth + 1) if through_call else None
        if inner is None:
            return _delegate_result(receiver, body) if through_call else None
        # `await orders.FirstAsync(spec)` on an `IRepository<Order>`: when the resolver cannot
        # read what the method returns (a library's type), the type argument is the candidate;
        # a method given type arguments of its own (`Get<OrderDto>(id)`) returns by those
        callee = callee_of(receiver)
        carrier = _data_carrier(receiver, body, depth + 1) \
            if callee is not None and callee[1].type != "generic_name" else None
        return {"call": {**inner.attrs["call"], "data": carrier} if carrier else inner.attrs["call"]}
    if receiver.type == "member_access_expression" and _variable(receiver, body) is None and depth < 5:
        # `context.Connection`: a property of a receiver whose type is known or inferred
        owner = forgiven(required_child(receiver, "expression"))
        written = _written_type(owner, body)
        owner_type = _typed(written, owner, body) if written else \
            _inferred_receiver(owner, body, depth + 1, through_call)
        return {"property": {"receiver": owner_type, "member": node_text(receiver.child_by_field_name("name"))}} \
            if owner_type else None
    value = body.variables.get(_variable(receiver, body) or "")
    if isinstance(value, Returned):
        return _inferred_receiver(value.call, body, depth + 1, through_call=True)
    if isinstance(value, ElementOf):
        element = _element_of(value.collection, body)
        if element:
            return {"types": body.scope.type_guesses(element)}
        returned = _returned_collection(value.collection, body, depth, 0)
        return {"element_of": returned} if returned else None
    member = undeclared_member(receiver, body.variables)
    # a field or property the file does not declare: another part's or a base's (`member_fields`)
    return {"member_of": body.scope.decl.name, "name": member} if member is not None else None


def _delegate_result(invocation: tree_sitter.Node, body: _Body) -> dict | None:
    """What invoking a `Func<..., T>` field, property or parameter returns, a T: `CreateContext()`
    of a `Func<GitContext> CreateContext` (a context factory) is a `GitContext`."""
    callee = callee_of(invocation)
    held = body.generics.get(type_name(callee[1]) or "") if callee is not None and callee[0] is None else None
    return {"types": body.scope.type_guesses(held.arguments[-1])} \
        if held is not None and held.name == "Func" and held.arguments else None


# LINQ operators whose result holds the elements of what they are called on.
SAME_ELEMENTS = frozenset({
    "Where", "ToList", "ToArray", "ToHashSet", "AsEnumerable", "AsQueryable", "OrderBy", "OrderByDescending",
    "ThenBy", "ThenByDescending", "Distinct", "Take", "Skip", "TakeWhile", "SkipWhile", "Reverse", "Concat",
    "Union", "Except", "Intersect", "ToListAsync", "ToArrayAsync",
})


MAX_CHAIN = 8  # operators and variables between an element and the call it comes from


def _returned_collection(collection: tree_sitter.Node, body: _Body, depth: int, steps: int) -> dict | None:
    """The call (as a receiver spec) a collection expression's elements come from, through LINQ
    operators that keep them (`GetTags(model).Where(...)`, or a variable holding what
    `GetTags(model)` returned): the resolver reads its declared element type (`returns_element`)."""
    while collection.type in ("await_expression", "parenthesized_expression") and collection.named_children:
        collection = collection.named_children[0]
    callee = callee_of(collection) if collection.type == "invocation_expression" else None
    if steps > MAX_CHAIN:
        return None
    if callee is not None and callee[0] is not None and type_name(callee[1]) in SAME_ELEMENTS:
        return _returned_collection(callee[0], body, depth, steps + 1)
    value = body.variables.get(_variable(collection, body) or "")
    if isinstance(value, Returned):  # `var toAdd = tags.Where(...).ToList()`: the chain it holds
        return _returned_collection(value.call, body, depth, steps + 1)
    return _inferred_receiver(collection, body, depth + 1, through_call=True) if callee is not None else None


def _element_of(collection: tree_sitter.Node, body: _Body) -> str | None:
    """The element type of a collection expression: a variable or member of a collection type,
    or a LINQ call chained on one (`items.Where(...)`)."""
    while collection.type == "invocation_expression":
        function = required_child(collection, "function")
        if function.type != "member_access_expression":
            return None
        collection = required_child(function, "expression")
    return body.elements.get(_variable(collection, body) or "")


def _type_path(expression: tree_sitter.Node, variables: dict[str, VariableType]) -> str | None:
    """`Console` or `System.Console`: a dotted name that can only be a type (capitalised,
    and not a variable or member)."""
    if expression.type == "identifier":
        name = node_text(expression)
        return name if name not in variables and name[:1].isupper() else None
    if expression.type == "member_access_expression":
        head = _type_path(forgiven(required_child(expression, "expression")), variables)
        return head and f"{head}.{node_text(expression.child_by_field_name('name'))}"
    return None
