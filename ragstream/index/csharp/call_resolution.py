"""C# calls resolved through their receiver's type: the member on the type or, breadth-first, on
its bases and interfaces in the repository; receivers typed by what a call returns or by a
property's declared type (also of other types, and through a type's static properties), an
element of what a call returns, what a generic method's arguments bind; a member no type of the
family declares, the repository's one extension method for that type; the overloads the
arguments admit (count, literal kinds, known types); and, for a receiver the syntax does not type, the root of the one
interface family that declares the member. Pure lookups over the symbols and the graph's
inheritance edges; `graph_build` turns what they find into edges.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import zip_longest

import networkx as nx

from ragstream.index.csharp.calls import OBJECT_METHODS
from ragstream.index.csharp.hierarchy import direct_bases
from ragstream.index.csharp.member_fields import accessed_member_type, member_type
from ragstream.index.dispatch import merge_receivers
from ragstream.index.model import Node
from ragstream.index.symbols import SymbolTable, is_interface


@dataclass(frozen=True)
class CallResolution:
    methods: tuple[str, ...] = ()  # METHOD ids; several when the arguments leave overloads open
    receiver_outside: bool = False  # the receiver's type is known and not in the repository
    inferred: bool = False  # the receiver's type came from a declared return type or element
    through: Node | None = None  # the property the receiver was reached through, if any
    guessed: bool = False  # the receiver is what a call found only by its interface family returns
    # the receiver's own type when the member was found on a base of it (`ICipherRepository` for
    # `IRepository<T>.CreateAsync`): what binds the base's type parameters for this call
    receiver_type: str | None = None
    # how an inferred receiver was typed when not by a declared type: "type_argument" (what a
    # call on `IRepository<Order>` returns, read as `Order`)
    via: str | None = None
    typed: bool = False  # a type of the repository was found for the receiver
    # how overloads were chosen when several had the call's argument count: "argument_types" (the
    # arguments' types left one), "ambiguous" (several remain)
    overload: str | None = None
    # the member is on none of the repository's types of the receiver's family, and this base
    # outside the repository (an EXTERNAL node) is where it is: `Commit(uow)` of a package's
    # `CommandHandler`
    outside_base: str | None = None
    outside_guessed: bool = False  # the base was told from several by C#'s `I...` naming of interfaces


@dataclass(frozen=True)
class _Receiver:
    guesses: list[str]  # qualified guesses of its type
    through: Node | None = None  # the property it was reached through, if any
    guessed: bool = False  # typed by a call resolved through its interface family (a guess)
    via: str | None = None  # see CallResolution.via


def resolve_call(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict,
                 depth: int = 0) -> CallResolution:
    """The methods a C# call spec (`{"receiver", "member", "arguments"}`) reaches: the member
    on the receiver's type or, breadth-first, on its bases and interfaces in the repository."""
    receiver = call["receiver"]
    inferred = "types" not in receiver
    if depth > 5 or "unknown" in receiver:
        return CallResolution()
    found = _receiver(graph, symbols, receiver, depth)
    guesses, through, guessed = found.guesses, found.through, found.guessed
    if "member_of" in receiver:  # a field or property of the type's whole declaration: typed as declared
        if not guesses:
            return CallResolution()
        inferred = False
    if inferred and not guesses:  # the inner call is unknown, or returns nothing declared here
        return CallResolution()
    types = [node.id for node in (symbols.find("csharp", g, ("TYPE",)) for g in guesses) if node]
    if not types and not inferred:  # `Current.DB.Queries`: a type, then its properties
        chain = next((c for c in (_type_of_chain(graph, symbols, g) for g in guesses) if c.guesses or c.through),
                     None)
        if chain is not None:
            through = chain.through
            types = [n.id for n in (symbols.find("csharp", g, ("TYPE",)) for g in chain.guesses) if n][:1]
        inferred = bool(types)
    if not types:
        # `_bus.PublishDomainEvents(this)` on a package's `IMediatorHandler`: an extension for it
        extension = _extension(symbols, {g.rsplit(".", 1)[-1] for g in guesses}, call)
        if extension is not None:  # matched by the short names alone: a guess
            return CallResolution((extension,), inferred=True, through=through, guessed=True,
                                  via="extension")
        return CallResolution(receiver_outside=not inferred, through=through)
    methods, external_bases = _members(graph, symbols, types[0], call["member"])
    if not methods:  # `model.ToRegisterCommand()`: the repository's extension method for that type
        family = {types[0], *ancestors(graph, types[0])}
        extension = _extension(symbols, {symbols.nodes[t].name.rsplit(".", 1)[-1] for t in family
                                         if t in symbols.nodes}, call)
        if extension is not None:  # an instance member of a base outside would win in C#: then a guess
            return CallResolution((extension,), inferred=True, through=through,
                                  guessed=guessed or bool(external_bases), via="extension", typed=True)
    inherited = types[0] if methods and methods[0].parent != types[0] else None
    # Not declared in the repository but the type has a base outside it: the member is there.
    chosen, overload = _overloads(graph, symbols, methods, call)
    return CallResolution(chosen, receiver_outside=not methods and bool(external_bases),
                          inferred=inferred, through=through, guessed=guessed, receiver_type=inherited,
                          via=found.via, typed=True, overload=overload,
                          outside_base=_declaring_base(graph, external_bases)
                          # a constructor the type does not declare is its own, and `ToString` is object's
                          if not methods and call["member"] != symbols.nodes[types[0]].name.rsplit(".", 1)[-1]
                          and call["member"] not in OBJECT_METHODS else None,
                          outside_guessed=len(external_bases) > 1)


def _declaring_base(graph: nx.MultiDiGraph, bases: list[str]) -> str | None:
    """Of the bases outside the repository a type's family reaches, the one a member no
    repository type declares is on: the only one, or else the only class among them (C# names
    interfaces `I...`); None when that cannot be told."""
    if len(bases) == 1:
        return bases[0]
    classes = [b for b in bases if not re.match(r"I[A-Z]", graph.nodes[b].get("name", "").rsplit(".", 1)[-1])]
    return classes[0] if len(classes) == 1 else None


def _extension(symbols: SymbolTable, names: set[str], call: dict) -> str | None:
    """The one extension method of the repository named as the call whose `this` parameter's
    type has one of `names` (the receiver's type and its bases, short) and which takes the call's
    arguments after it; None when none or several do (C# would need the usings to choose)."""
    found = [m.id for m in symbols.short("csharp", call["member"], ("METHOD",))
             if m.attrs.get("extension") and m.attrs.get("parameters")
             and generic_parts(m.attrs["parameters"][0])[0].rsplit(".", 1)[-1] in names
             and accepts(m, call["arguments"] + 1, ["", *call.get("kinds", ())])]
    return found[0] if len(found) == 1 else None


def _receiver(graph: nx.MultiDiGraph, symbols: SymbolTable, receiver: dict, depth: int) -> _Receiver:
    """A receiver's type guesses: as written (`types`), what a call returns (`call`), an element
    of what a call returns (`element_of`), or the declared type of a property of another receiver
    (`property`, which it is reached through)."""
    if "call" in receiver:
        inner = resolve_call(graph, symbols, receiver["call"], depth + 1)
        methods, guessed = inner.methods, inner.guessed
        if not methods and untyped(receiver["call"]["receiver"]):
            # `providers[0].GetJobQueue().Dequeue()`: what the one interface declaring the member returns
            root = interface_family_root(graph, symbols, receiver["call"]["member"])
            methods, guessed = ((root,), True) if root else ((), False)
        returned = [g for m in methods for g in symbols.nodes[m].attrs.get("returns", ())] \
            or _method_type_argument_returned(graph, symbols, receiver["call"], methods)
        located = _service_located(receiver["call"], methods)
        if not returned and located:
            return _Receiver(located, via="service_locator")
        # the generic the inner call is made on: a variable's (parsed) or a property's (`db.Orders`)
        carrier = receiver["call"].get("data") or (inner.through.attrs.get("generic") if inner.through else None)
        if carrier and not any(symbols.find("csharp", g, ("TYPE",)) for g in returned):
            bound = _type_argument_returned(symbols, carrier, methods, receiver["call"]["member"],
                                            inner.receiver_outside or guessed)
            if bound is not None:
                return bound
        return _Receiver(returned, guessed=guessed)
    if "element_of" in receiver:  # `foreach (var tag in GetTags())`: an element of what the call returns
        spec = receiver["element_of"]
        inner = resolve_call(graph, symbols, spec["call"], depth + 1) if "call" in spec else CallResolution()
        return _Receiver([g for m in inner.methods for g in symbols.nodes[m].attrs.get("returns_element", ())],
                         guessed=inner.guessed)
    if "member_of" in receiver:  # `_procedures` of another part of a partial type, or of a base
        declaring = symbols.find("csharp", receiver["member_of"], ("TYPE",))
        member = member_type(graph, symbols, declaring.id, receiver["name"]) if declaring is not None else None
        return _Receiver(*member) if member is not None else _Receiver([])
    if "property" in receiver:
        spec = receiver["property"]
        owner = _receiver(graph, symbols, spec["receiver"], depth + 1)
        dotted = _written_path(receiver) if not owner.guesses else None
        if dotted:  # `btnet.DbUtil.execute_nonquery(sql)`: a type named with its namespace, not a member's member
            named = symbols.find("csharp", dotted, ("TYPE",))
            chain = _Receiver([named.name]) if named is not None else _type_of_chain(graph, symbols, dotted)
            if chain.guesses or chain.through:
                return chain
        types = [node.id for node in (symbols.find("csharp", g, ("TYPE",)) for g in owner.guesses) if node]
        member = accessed_member_type(graph, symbols, types[0], spec["member"]) if types else None
        if member is not None:  # a property or field, typed as declared
            return _Receiver(*member, guessed=owner.guessed)
        implemented = _implemented_property(graph, symbols, types[0], spec["member"]) if types else None
        if implemented is not None:  # declared on the interface's package base: the one implementer's
            return _Receiver(list(implemented.attrs.get("returns", ())), implemented, owner.guessed, via="implementer")
        return _wrapped_value(owner, spec["member"]) if not types else _Receiver([])
    guesses = list(receiver["types"])
    if guesses and not any(symbols.find("csharp", g, ("TYPE",)) for g in guesses):
        inherited = _inherited_member(graph, symbols, guesses[0])
        if inherited is not None:
            return inherited
    return _Receiver(guesses)


def _written_path(receiver: dict) -> str | None:
    """`btnet.DbUtil` of a receiver the parser could only read as a member chain (`btnet`, a name the
    file does not declare, then its `DbUtil`): the dotted name as written, for a namespace-qualified type."""
    if "member_of" in receiver:
        return receiver["name"]
    if "property" in receiver:
        owner = _written_path(receiver["property"]["receiver"])
        return f"{owner}.{receiver['property']['member']}" if owner else None
    return None


def _implemented_property(graph: nx.MultiDiGraph, symbols: SymbolTable, type_id: str, member: str) -> Node | None:
    """A property of a repository interface that none of its repository bases declares (a
    package's `IRepository<T>` does: `_customers.UnitOfWork` on an `ICustomerRepository`), read
    on the interface's one implementer in the repository (`CustomerRepository.UnitOfWork`)."""
    implementer = sole_implementer(graph, symbols, type_id)
    found = _members(graph, symbols, implementer, member, symbols.properties)[0] if implementer else []
    return found[0] if found else None


def sole_implementer(graph: nx.MultiDiGraph, symbols: SymbolTable, type_id: str) -> str | None:
    """The one class or struct of the repository that implements the repository interface
    `type_id`, directly or through other interfaces; None for a class or when several do."""
    if not is_interface(symbols.nodes.get(type_id)):
        return None
    found, seen, queue = set(), {type_id}, [type_id]
    while queue:
        for child, _, key in graph.in_edges(queue.pop(), keys=True):
            if key in ("INHERITS", "IMPLEMENTS") and child not in seen and child in symbols.nodes:
                seen.add(child)
                queue.append(child)
                if not is_interface(symbols.nodes[child]):
                    found.add(child)
    return found.pop() if len(found) == 1 else None


def _inherited_member(graph: nx.MultiDiGraph, symbols: SymbolTable, guess: str) -> _Receiver | None:
    """A bare name no type has, read first as a type nested in the calling type
    (`CategoriesController.Mediator`): a property or field of that type (any part of it), of one
    of its bases (`protected IMediator Mediator` on `BaseController`) or of an enclosing type,
    typed as declared (`member_fields.member_type`)."""
    owner_name, _, member = guess.rpartition(".")
    owner = symbols.find("csharp", owner_name, ("TYPE",)) if owner_name else None
    found = member_type(graph, symbols, owner.id, member) if owner is not None else None
    return _Receiver(*found) if found is not None else None


def _wrapped_value(owner: _Receiver, member: str) -> _Receiver:
    """`Value` of a property of a library's one-argument generic (`Lazy<Entry>`, `IFutureValue<Entry>`,
    `IOptions<Settings>`): its type argument, a guess (the library's member is not read)."""
    generic = owner.through.attrs.get("generic") if owner.through is not None else None
    entities = generic["entities"] if generic else []
    if member != "Value" or len(entities) != 1:
        return _Receiver([])
    return _Receiver(list(entities[0]), guessed=True, via="type_argument")


def _method_type_argument_returned(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict,
                                   methods: tuple[str, ...]) -> list[str]:
    """What `repository.Get<Entry>(id)` returns when `Get<TEntity>` returns its own type parameter:
    the call's type argument at that position (qualified guesses), else what the arguments bind it
    to (`_bound_by_arguments`)."""
    positions = {symbols.nodes[m].attrs.get("returns_method_type_parameter") for m in methods}
    position = positions.pop() if len(positions) == 1 else None
    written = call.get("type_arguments") or []
    if position is None or position < len(written):
        return list(written[position]) if position is not None else []
    return _bound_by_arguments(graph, symbols, symbols.nodes[methods[0]], position, call) if len(methods) == 1 else []


def _bound_by_arguments(graph: nx.MultiDiGraph, symbols: SymbolTable, method: Node, position: int,
                        call: dict) -> list[str]:
    """A method type parameter inferred from the arguments, as C# does: a parameter of that type
    takes the argument's type; one of a generic type (`IQuery<TEntity> query`) takes the type
    argument the argument's type, or one of its bases, gives that generic (`EntryByNameQuery :
    IQuery<EntryRevision>`: `EntryRevision`)."""
    names = method.attrs.get("type_parameters") or []
    if position >= len(names):
        return []
    for parameter, argument in zip(method.attrs.get("parameters", ()), argument_type_ids(graph, symbols, call)):
        if not argument:
            continue
        if parameter == names[position]:
            return [symbols.nodes[argument[0]].name]
        generic, arguments = generic_parts(parameter)
        if names[position] not in arguments:
            continue
        for type_id in (argument[0], *sorted(ancestors(graph, argument[0]))):
            node = symbols.nodes.get(type_id)
            bases = node.attrs.get("generic_bases", ()) if node is not None else ()
            found = next((base["arguments"] for base in bases if base["name"].rsplit(".", 1)[-1] == generic
                          and len(base["arguments"]) == len(arguments)), None)
            if found is not None:
                return list(found[arguments.index(names[position])])
    return []


# A dependency-injection container's service locator: `provider.GetRequiredService<IOrderRepository>()`
# (Microsoft.Extensions.DependencyInjection), Autofac's `Resolve<T>()`, Simple Injector's `GetInstance<T>()`.
SERVICE_LOCATORS = frozenset({"GetService", "GetRequiredService", "GetKeyedService", "GetRequiredKeyedService",
                              "Resolve", "GetInstance"})


def _service_located(call: dict, methods: tuple[str, ...]) -> list[str]:
    """What a container's service locator the repository does not declare returns: the service
    type its one type argument names (a background job's `scope.ServiceProvider.GetRequiredService<
    INotificationRepository>()`, then `.GetNotifications(...)` on it); the container's contract says
    so, the method's name tells the container. Empty for any other call, or one the repository
    declares (its declared return type speaks)."""
    written = call.get("type_arguments") or []
    if methods or call["member"] not in SERVICE_LOCATORS or len(written) != 1:
        return []
    return list(written[0])


# What a library's query or repository method named so returns: one entity of its type argument.
_ENTITY_GETTERS = re.compile(r"^(?:First|Single|Last|Find|Get)(?:OrDefault)?(?:By\w+)?(?:Async)?$")


def _type_argument_returned(symbols: SymbolTable, carrier: dict, methods: tuple[str, ...], member: str,
                            guessed: bool) -> _Receiver | None:
    """What a call on a generic carrier (`IRepository<Order> orders`) returns when no declared type
    of the repository says it: the type argument the method returns, bound by position (`T
    GetById(int id)` of `IRepository<T>`: `Order`, inferred); for a library's method, only one
    that returns an entity by its name (`FirstOrDefaultAsync`, `GetByIdAsync`, `Find`), read as
    the first type argument, a guess, or a factory's `Create...` (`_factory_creates`). None when
    neither holds (`int Count()`, `ILogger<T>`)."""
    entities = carrier.get("entities") or []
    if methods:
        positions = {symbols.nodes[m].attrs.get("returns_type_parameter") for m in methods}
        position = positions.pop() if len(positions) == 1 else None
        if position is None or position >= len(entities):
            return None
        return _Receiver(list(entities[position]), guessed=guessed, via="type_argument")
    if entities and _factory_creates(carrier, member):
        return _Receiver(list(entities[0]), guessed=True, via="factory")
    if not entities or not _ENTITY_GETTERS.match(member):
        return None
    return _Receiver(list(entities[0]), guessed=True, via="type_argument")


def _factory_creates(carrier: dict, member: str) -> bool:
    """A library factory of one type argument asked to create (`IDbContextFactory<ShopContext>
    .CreateDbContext()`, EF Core's pooled or per-unit-of-work contexts; `IFactory<T>.Create()`):
    what it creates is that type, by the factory convention (a guess, `via="factory"`), so
    `using var db = _factory.CreateDbContext(); db.Orders.Where(...)` reads the context's table."""
    generic = (carrier.get("generic") or "").rsplit(".", 1)[-1]
    return generic.endswith("Factory") and member.startswith("Create") and len(carrier.get("entities") or []) == 1


def untyped(receiver: dict) -> bool:
    """A receiver the syntax gives no type: unknown, an element of what a call returns (typed only
    where the call declares a collection), a member the file does not declare, or a property of either. When the resolver finds
    nothing for it, the interface family that declares the member is the guess left."""
    if "property" in receiver:
        return untyped(receiver["property"]["receiver"])
    return "unknown" in receiver or "element_of" in receiver or "member_of" in receiver


def receiver_types(graph: nx.MultiDiGraph, symbols: SymbolTable, receiver: dict) -> list[str]:
    """The qualified guesses of a receiver spec's type (`{"call": ...}`: what the call returns)."""
    return _receiver(graph, symbols, receiver, 0).guesses


def receiver_property(graph: nx.MultiDiGraph, symbols: SymbolTable, receiver: dict) -> Node | None:
    """The PROPERTY a receiver is reached through (`db.Orders` of `db.Orders.Add(o)`), if any."""
    return _receiver(graph, symbols, receiver, 0).through


def names_a_member(graph: nx.MultiDiGraph, symbols: SymbolTable, receiver: dict) -> bool:
    """A bare receiver name that is no type but a field or property the calling type, a base or an
    enclosing type declares (`Mediator` of `protected readonly IMediator Mediator = mediator;` on a
    base controller; `_inherited_member`)."""
    guesses = receiver.get("types") or []
    return bool(guesses) and not any(symbols.find("csharp", guess, ("TYPE",)) for guess in guesses) \
        and _inherited_member(graph, symbols, guesses[0]) is not None


def _type_of_chain(graph: nx.MultiDiGraph, symbols: SymbolTable, dotted: str) -> _Receiver:
    """The type a dotted receiver reaches when it starts with a type and goes on through its
    static members, each typed as declared (`Current.DB.Queries`: type Current, property DB,
    property Queries; `RepoFactory.Users.Save(u)`: a `public static UserRepository Users` field,
    a service locator's, is a receiver as typed as an injected one)."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        owner = symbols.find("csharp", ".".join(parts[:cut]), ("TYPE",))
        if owner is None:
            continue
        current: str | None = owner.id
        last: Node | None = None
        for name in parts[cut:]:
            found = accessed_member_type(graph, symbols, current, name) if current else None
            returns, last = found if found is not None else ([], None)
            reached = symbols.first("csharp", returns, ("TYPE",))
            current = reached.id if reached is not None else None
        # the last property counts even when its type is not in the repository (a library's Table<T>)
        return _Receiver([symbols.nodes[current].name] if current else [], last)
    return _Receiver([])


def _members(graph: nx.MultiDiGraph, symbols: SymbolTable, type_id: str, member: str,
             table: dict[tuple[str, str], list[Node]] | None = None) -> tuple[list[Node], list[str]]:
    """`member`'s overloads (or, with `symbols.properties`, its property) on the type or on the
    nearest of its ancestors that declares it, and the bases outside the repository the ancestry
    reaches (EXTERNAL node ids)."""
    table = symbols.members if table is None else table
    queue, seen, external_bases = [type_id], {type_id}, list[str]()
    while queue:
        current = queue.pop(0)
        found = table.get((current, member))
        if found:
            return found, external_bases
        for base in direct_bases(graph, current):
            if base in seen:
                continue
            seen.add(base)
            if base in symbols.nodes:
                queue.append(base)
            else:
                external_bases.append(base)
    return [], external_bases


def _overloads(graph: nx.MultiDiGraph, symbols: SymbolTable, methods: list[Node],
               call: dict) -> tuple[tuple[str, ...], str | None]:
    """The overloads the call's argument count and literal kinds admit, then, of several, those
    whose parameter types the arguments' known types fit (`FindFirst(IQuery<T>)`, not
    `FindFirst(IPagedQuery<T>)`, for a `new EntryByNameQuery(..)`); every overload when none
    does (the syntax was misread, not the call). A static constructor is never called. With
    how the overload was chosen when several had the call's argument count (`CallResolution`)."""
    methods = [m for m in methods if not is_static_constructor(m)]
    fitting = [m for m in methods if accepts(m, call["arguments"], call.get("kinds", ()))] or methods
    if len(fitting) < 2:
        return tuple(m.id for m in fitting), None
    arguments = argument_type_ids(graph, symbols, call)
    typed = [m for m in fitting if all(_fits(graph, symbols, parameter, argument) for parameter, argument
                                       in zip(m.attrs.get("parameters", ()), arguments))]
    if typed and len(typed) < len(fitting):
        return tuple(m.id for m in typed), "argument_types" if len(typed) == 1 else "ambiguous"
    return tuple(m.id for m in fitting), "ambiguous"


def argument_type_ids(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> list[tuple[str, ...]]:
    """The repository TYPE ids each argument of a call is known to have, by position (empty where
    unknown or not the repository's): as written, or what a call it is returned by declares."""
    found: list[tuple[str, ...]] = []
    for spec in call.get("argument_types", ()):
        guesses = receiver_types(graph, symbols, spec) if spec else []
        node = symbols.first("csharp", guesses, ("TYPE",))
        found.append((node.id,) if node is not None else ())
    return found


def argument_binding(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> dict:
    """What a call edge says of its arguments, for a walk that binds a dispatch by them
    (`relations.table_paths`): the repository types each argument is known to have
    (`argument_types`, by position, empty where unknown), which arguments are the caller's own
    parameters (`forwards`: [argument, parameter] pairs) and the caller's parameter the call is
    made on (`receiver_parameter`)."""
    binding: dict = {}
    types = [list(ids) for ids in argument_type_ids(graph, symbols, call)]
    if any(types):
        binding["argument_types"] = types
    for key in ("forwards", "receiver_parameter"):
        if key in call:
            binding[key] = call[key]
    return binding


def merge_binding(edge: dict, other: dict) -> None:
    """One edge for two calls: an argument keeps the types either call says it has (one
    call's unknown argument does not unsay the other's); a forwarded parameter only where both
    calls say so; the receiver parameter only if both are made on it; the receivers' declared
    types, what either is made on (`dispatch.merge_receivers`)."""
    merge_receivers(edge, other)
    mine: list[list[str]] = edge.get("argument_types", [])
    theirs: list[list[str]] = other.get("argument_types", [])
    none: list[str] = []
    types = [sorted({*a, *b}) for a, b in zip_longest(mine, theirs, fillvalue=none)]
    forwards = [pair for pair in edge.get("forwards", []) if pair in other.get("forwards", [])]
    for key, value in (("argument_types", types if any(types) else None), ("forwards", forwards or None),
                       ("receiver_parameter", edge.get("receiver_parameter")
                        if edge.get("receiver_parameter") == other.get("receiver_parameter") else None)):
        if value is None:
            edge.pop(key, None)
        else:
            edge[key] = value


def _fits(graph: nx.MultiDiGraph, symbols: SymbolTable, parameter: str, argument: tuple[str, ...]) -> bool:
    """Whether an argument of a repository type can be passed to a parameter of the type written:
    the type or one of its bases has the parameter type's name and generic arity. A parameter
    type the repository does not declare (a type parameter, `object`, a library's) may take
    anything; a predefined one (`string`, `int`) no type of the repository."""
    if not argument:
        return True
    name, arguments = generic_parts(parameter)
    if name in _PREDEFINED:
        return False
    if not symbols.short("csharp", name, ("TYPE",)):
        return True
    family = {argument[0], *ancestors(graph, argument[0])}
    return any(symbols.nodes[t].name.rsplit(".", 1)[-1] == name
               and len(symbols.nodes[t].attrs.get("type_parameters", ())) == len(arguments)
               for t in family if t in symbols.nodes)


def generic_parts(written: str) -> tuple[str, list[str]]:
    """A parameter type's name and its type arguments: `IQuery<TEntity>` is ("IQuery", ["TEntity"])."""
    name, _, rest = written.rstrip("?").removesuffix("[]").partition("<")
    parts, depth, current = [], 0, ""
    for char in rest[:-1]:  # without the closing `>`
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return name, [*parts, current] if rest else []


def is_static_constructor(method: Node) -> bool:
    """`static Order() { ... }`: run by the runtime, once, never by a call."""
    parts = method.name.rsplit(".", 2)
    return "static" in method.attrs.get("modifiers", ()) and len(parts) == 3 and parts[1] == parts[2]


# Parameter types an argument of a kind can never be passed to.
_PREDEFINED = frozenset({"bool", "byte", "sbyte", "char", "decimal", "double", "float", "int",
                         "uint", "long", "ulong", "short", "ushort", "string", "Guid",
                         "DateTime", "TimeSpan"})
_NUMBERS = _PREDEFINED - {"bool", "char", "string", "Guid", "DateTime", "TimeSpan"}
_REJECTS = {"string": _PREDEFINED - {"string"}, "number": _PREDEFINED - _NUMBERS,
            "lambda": _PREDEFINED}


def accepts(method: Node, arguments: int, kinds: list[str] | tuple[str, ...]) -> bool:
    least, most = method.attrs.get("arity", (arguments, arguments))
    parameters = method.attrs.get("parameters", ())
    return least <= arguments <= most and not any(
        kind and index < len(parameters) and parameters[index].rstrip("?") in _REJECTS[kind]
        for index, kind in enumerate(kinds))


def interface_family_root(graph: nx.MultiDiGraph, symbols: SymbolTable, member: str) -> str | None:
    """For a call whose receiver's type the syntax does not tell (`ctx.Context.Connection.X()`
    inside a lambda): the one interface method named `member` when every method of that name
    in the repository is it or an implementation of it. Code reaches implementations through
    such abstractions; the dispatch pass then links the implementations. A guess still."""
    methods = symbols.short("csharp", member, ("METHOD",))
    roots = [m for m in methods if is_interface(symbols.nodes.get(m.parent or ""))]
    if len({m.parent for m in roots}) != 1:
        return None
    root_type = roots[0].parent
    if not all(m.parent == root_type or root_type in ancestors(graph, m.parent or "") for m in methods):
        return None
    return roots[0].id if len(roots) == 1 else None


def settled_in_repository(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> bool:
    """The resolver finds the call's method, with a body, in the repository (not an interface's
    or an abstract member, not a library's): the call goes where the code says."""
    found = resolve_call(graph, symbols, call)
    return any(not is_interface(symbols.nodes.get(graph.nodes[method].get("parent", "")))
               and "abstract" not in graph.nodes[method].get("attrs", {}).get("modifiers", ())
               for method in found.methods)


def ancestors(graph: nx.MultiDiGraph, type_id: str) -> set[str]:
    """Every type `type_id` inherits from or implements, transitively."""
    return set(nearest_ancestors(graph, type_id))


def nearest_ancestors(graph: nx.MultiDiGraph, type_id: str) -> list[str]:
    """Every type `type_id` inherits from or implements, transitively, nearest first (a parent
    before a grandparent: the override C# calls is the nearest one)."""
    order: list[str] = []
    seen, queue = {type_id}, [type_id]
    while queue:
        for base in direct_bases(graph, queue.pop(0)):
            if base not in seen:
                seen.add(base)
                order.append(base)
                queue.append(base)
    return order
