"""A home-made bus and a unit of work behind package types: a generic bus method that hands its
message on to a mediator reaches the handlers of what its caller passed (`messages.
link_forwarded_messages`, `relations.table_paths`), a package base's `Commit(uow)` reaches the
one repository class implementing the unit of work (`package_types.link_argument_implementers`,
its property typed through the one implementer of the repository's interface), and a table's
writers go up a chain of interfaces (`relations._repository_callers`); each with the edge it
must not make."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.named import Named
from ragstream.graph.relations import related, table_paths
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

BUS = """
using NetDevPack.Mediator;
using NetDevPack.Messaging;
using MediatR;
namespace Shop.Bus;
public interface IEventStore { void Save<T>(T @event) where T : Event; }
public class SqlEventStore : IEventStore
{
    public void Save<T>(T @event) where T : Event { var text = JsonConvert.SerializeObject(@event); }
}
public sealed class InMemoryBus : IMediatorHandler
{
    private readonly IMediator _mediator;
    public Task<bool> SendCommand<T>(T command) where T : Command { return _mediator.Send(command); }
    private readonly IEventStore _store;
    public Task PublishEvent<T>(T @event) where T : Event { _store.Save(@event); return _mediator.Publish(@event); }
    public Task Forward<T>(T anything) { return _mediator.Send(anything); }
}
"""

COMMANDS = """
using NetDevPack.Messaging;
using NetDevPack.Data;
using MediatR;
namespace Shop.Commands;
public class RegisterCustomerCommand : Command { }
public class RemoveCustomerCommand : Command { }
public class CustomerRegisteredEvent : Event { }
public interface ICustomerRepository : IRepository<Customer> { void Add(Customer customer); }
public class CustomerCommandHandler : CommandHandler,
    IRequestHandler<RegisterCustomerCommand, bool>, IRequestHandler<RemoveCustomerCommand, bool>
{
    private readonly ICustomerRepository _customers;
    public Task<bool> Handle(RegisterCustomerCommand message, CancellationToken token)
    {
        _customers.Add(new Customer());
        return Commit(_customers.UnitOfWork);
    }
    public Task<bool> Handle(RemoveCustomerCommand message, CancellationToken token) { return Task.FromResult(true); }
}
public class CustomerEventHandler : INotificationHandler<CustomerRegisteredEvent>
{
    public Task Handle(CustomerRegisteredEvent notification, CancellationToken token) { return Task.CompletedTask; }
}
"""

APP = """
using NetDevPack.Mediator;
using Shop.Commands;
namespace Shop.App;
public class CustomerAppService
{
    private readonly IMediatorHandler _mediator;
    public void Register() { var command = new RegisterCustomerCommand(); _mediator.SendCommand(command); }
    public void Remove() { var command = new RemoveCustomerCommand(); _mediator.SendCommand(command); }
}
"""

DATA = """
using NetDevPack.Data;
using Microsoft.EntityFrameworkCore;
using Shop.Commands;
namespace Shop.Data;
public class Customer { public int Id { get; set; } }
public sealed class ShopContext : DbContext, IUnitOfWork
{
    public DbSet<Customer> Customers { get; set; }
    public bool Commit() { return SaveChanges() > 0; }
}
public class CustomerRepository : ICustomerRepository
{
    private readonly ShopContext _db;
    public IUnitOfWork UnitOfWork => _db;
    public void Add(Customer customer) { _db.Customers.Add(customer); }
}
"""

SCHEMA = "CREATE TABLE dbo.Customers (Id INT PRIMARY KEY);"

SEND = "cs:Shop.Bus.InMemoryBus.SendCommand|METHOD"
PUBLISH = "cs:Shop.Bus.InMemoryBus.PublishEvent|METHOD"
REGISTER = "cs:Shop.App.CustomerAppService.Register|METHOD"
REGISTER_HANDLER = "cs:Shop.Commands.CustomerCommandHandler.Handle(RegisterCustomerCommand,CancellationToken)|METHOD"
REMOVE_HANDLER = "cs:Shop.Commands.CustomerCommandHandler.Handle(RemoveCustomerCommand,CancellationToken)|METHOD"
EVENT_HANDLER = "cs:Shop.Commands.CustomerEventHandler.Handle|METHOD"
COMMIT = "cs:Shop.Data.ShopContext.Commit|METHOD"


def _graph(*sources: tuple[str, str]) -> nx.MultiDiGraph:
    return build_graph([parse_csharp(path, text) for path, text in sources]
                       + [parse_sql("schema.sql", SCHEMA, "tsql")])[0]


def _calls(graph: nx.MultiDiGraph, source: str) -> dict[str, dict]:
    return {target: data for _, target, key, data in graph.out_edges(source, keys=True, data=True) if key == "CALLS"}


def test_a_bus_method_passing_its_constrained_parameter_on_reaches_the_handlers_of_that_base() -> None:
    graph = _graph(("Bus.cs", BUS), ("Commands.cs", COMMANDS), ("App.cs", APP), ("Data.cs", DATA))
    sends = _calls(graph, SEND)
    assert {REGISTER_HANDLER, REMOVE_HANDLER} <= set(sends)
    assert sends[REGISTER_HANDLER]["message_parameter"] == 0 and sends[REGISTER_HANDLER]["resolution"] == "dispatch"
    assert EVENT_HANDLER not in sends  # an event is no `Command`: its handler is never linked to the send
    published = _calls(graph, PUBLISH)
    assert published[EVENT_HANDLER]["member"] == "Publish"  # not the event store's `Save` it also passes the event to
    assert set(published) == {EVENT_HANDLER, "cs:Shop.Bus.IEventStore.Save|METHOD", "cs:Shop.Bus.SqlEventStore.Save|METHOD"}
    # a static helper given the event (`JsonConvert.SerializeObject(@event)`) sends nothing
    assert not _calls(graph, "cs:Shop.Bus.SqlEventStore.Save|METHOD")
    # an unconstrained `T` says nothing of what it carries: no handler
    assert not _calls(graph, "cs:Shop.Bus.InMemoryBus.Forward|METHOD")


def test_the_walk_goes_through_the_bus_to_the_handler_of_the_message_passed_only() -> None:
    graph = _graph(("Bus.cs", BUS), ("Commands.cs", COMMANDS), ("App.cs", APP), ("Data.cs", DATA))
    register = _calls(graph, REGISTER)
    assert register[SEND]["argument_types"] == [["cs:Shop.Commands.RegisterCustomerCommand|TYPE"]]
    assert register[REGISTER_HANDLER]["through"] == SEND  # the direct edge stays, marked
    walked = {node for path in table_paths(graph, [REGISTER]) for node in path.nodes}
    assert {SEND, REGISTER_HANDLER, "sql:dbo.Customers|TABLE"} <= walked
    assert REMOVE_HANDLER not in walked  # the bus sends only what it was passed
    paths = table_paths(graph, [REGISTER])
    assert all(path.nodes[:3] == (REGISTER, SEND, REGISTER_HANDLER) for path in paths)


def test_a_package_bases_commit_of_a_unit_of_work_runs_its_one_implementer() -> None:
    graph = _graph(("Commands.cs", COMMANDS), ("Data.cs", DATA))
    calls = _calls(graph, REGISTER_HANDLER)
    assert calls["ext:CommandHandler.Commit|EXTERNAL"]["via"] == "external_base"  # kept
    assert calls[COMMIT] == {"type": "CALLS", "line": 17, "resolution": "inferred", "via": "argument_implementer",
                             "guess": True, "package_method": "CommandHandler.Commit", "implements": "IUnitOfWork",
                             "argument": 0}


def test_a_unit_of_work_implemented_twice_or_a_class_argument_links_nothing() -> None:
    second = DATA + """
public sealed class AuditContext : DbContext, IUnitOfWork { public bool Commit() { return true; } }
"""
    assert COMMIT not in _calls(_graph(("Commands.cs", COMMANDS), ("Data.cs", second)), REGISTER_HANDLER)
    # `Validate(command)` on a package base does not run `command.Validate()`: a class is no contract
    validating = COMMANDS.replace("return Task.FromResult(true);", "return Validate(message);") \
        .replace("public class RemoveCustomerCommand : Command { }",
                 "public class RemoveCustomerCommand : Command { public bool Validate() { return true; } }")
    graph = _graph(("Commands.cs", validating), ("Data.cs", DATA))
    assert "cs:Shop.Commands.RemoveCustomerCommand.Validate|METHOD" not in _calls(graph, REMOVE_HANDLER)


EVENT_STORE = """
using NetDevPack.Messaging;
namespace Shop.Events;
public class StoredEvent { public int Id { get; set; } }
public interface IEventStore { void Save(Event e); }
public interface IEventStoreRepository { void Store(StoredEvent e); }
public class EventStoreRepository : IEventStoreRepository
{
    private readonly EventContext _context;
    public void Store(StoredEvent e) { _context.StoredEvent.Add(e); _context.SaveChanges(); }
}
public class EventContext : DbContext { public DbSet<StoredEvent> StoredEvent { get; set; } }
public class SqlEventStore : IEventStore
{
    private readonly IEventStoreRepository _repository;
    public void Save(Event e) { _repository.Store(new StoredEvent()); }
}
public class Bus
{
    private readonly IEventStore _store;
    public void PublishEvent(Event e) { _store.Save(e); }
}
"""


def _writers(graph: nx.MultiDiGraph) -> dict[str, str]:
    table = Named("sql:dbo.StoredEvent|TABLE", "TABLE", "dbo.StoredEvent", "table")
    return {item.id: item.relation for item in related(graph, table, ("WRITES",))}


def test_the_writers_of_a_table_go_up_a_chain_of_interfaces_to_the_code_that_starts_it() -> None:
    schema = parse_sql("schema.sql", "CREATE TABLE dbo.StoredEvent (Id INT PRIMARY KEY);", "tsql")
    writers = _writers(build_graph([parse_csharp("Events.cs", EVENT_STORE), schema])[0])
    assert writers["cs:Shop.Events.EventStoreRepository.Store|METHOD"] == "WRITES"
    assert writers["cs:Shop.Events.SqlEventStore.Save|METHOD"] == "CALLS"
    assert writers["cs:Shop.Events.Bus.PublishEvent|METHOD"] == "calls a caller"
    # a store also called directly, on its class, is no layer behind an interface: its callers stay out
    direct = EVENT_STORE + """
public class Replayer { private readonly SqlEventStore _store; public void Replay() { _store.Save(null); } }
"""
    writers = _writers(build_graph([parse_csharp("Events.cs", direct), schema])[0])
    assert "cs:Shop.Events.Bus.PublishEvent|METHOD" not in writers and "cs:Shop.Events.Replayer.Replay|METHOD" not in writers


def _sending(body: str) -> str:
    """An application service whose `Send` makes the sends `body` says."""
    return f"""
using NetDevPack.Mediator;
using Shop.Commands;
namespace Shop.App;
public class Sender
{{
    private readonly IMediatorHandler _mediator;
    private readonly IOtherBus _other;
    private readonly IMapper _mapper;
    public void Send(CustomerViewModel vm)
    {{
        {body}
    }}
}}
"""


# both handlers reach the table, so a walk to either shows in the paths
REACHING = COMMANDS.replace("public Task<bool> Handle(RemoveCustomerCommand message, CancellationToken token) {",
                            "public Task<bool> Handle(RemoveCustomerCommand message, CancellationToken token) { "
                            "_customers.Add(new Customer());")
SENDER = "cs:Shop.App.Sender.Send|METHOD"


def _walked(graph: nx.MultiDiGraph) -> set[str]:
    return {node for path in table_paths(graph, [SENDER]) for node in path.nodes}


def test_a_bus_send_of_an_unknown_message_reaches_no_handler_of_its_several() -> None:
    sending = _sending("_mediator.SendCommand(_mapper.Map<RegisterCustomerCommand>(vm));")
    graph = _graph(("Bus.cs", BUS), ("Commands.cs", REACHING), ("App.cs", sending), ("Data.cs", DATA))
    sends = _calls(graph, SEND)
    assert sends[REMOVE_HANDLER]["guess"] is True
    assert sends[REMOVE_HANDLER]["candidates"] == [REGISTER_HANDLER, REMOVE_HANDLER]
    assert SEND in _calls(graph, SENDER)
    # what was sent is unknown: neither command's handler is walked to, above all not the other command's
    assert REMOVE_HANDLER not in _walked(graph) and REGISTER_HANDLER not in _walked(graph)


def test_a_typed_and_an_untyped_send_from_one_method_walk_to_the_typed_messages_handler() -> None:
    sending = _sending("_mediator.SendCommand(_mapper.Map<RegisterCustomerCommand>(vm));\n"
                       "        _mediator.SendCommand(new RegisterCustomerCommand());")
    graph = _graph(("Bus.cs", BUS), ("Commands.cs", REACHING), ("App.cs", sending), ("Data.cs", DATA))
    assert _calls(graph, SENDER)[SEND]["argument_types"] == [["cs:Shop.Commands.RegisterCustomerCommand|TYPE"]]
    assert REGISTER_HANDLER in _walked(graph) and REMOVE_HANDLER not in _walked(graph)


def test_a_send_on_another_line_is_not_marked_as_going_through_the_bus() -> None:
    sending = _sending("_mediator.SendCommand(_mapper.Map<RegisterCustomerCommand>(vm));\n"
                       "        _other.SendCommand(new RemoveCustomerCommand());")
    graph = _graph(("Bus.cs", BUS), ("Commands.cs", REACHING), ("App.cs", sending), ("Data.cs", DATA))
    direct = _calls(graph, SENDER)[REMOVE_HANDLER]
    assert direct["via"] == "message" and "through" not in direct  # `_other` is no call of the bus
    assert REMOVE_HANDLER in _walked(graph)


ORDERS = """
using Acme.Framework;
namespace Shop.Orders;
public interface IOrder { bool Validate(); }
public class Order : IOrder { public bool Validate() { return true; } public void Save() { } }
public class OrderService : ServiceBase
{
    public void Place(IOrder order) { Validate(order); Save(order); }
}
"""


def test_a_repository_interface_passed_to_a_package_base_links_only_the_members_it_declares() -> None:
    calls = _calls(build_graph([parse_csharp("Orders.cs", ORDERS)])[0], "cs:Shop.Orders.OrderService.Place|METHOD")
    assert calls["cs:Shop.Orders.Order.Validate|METHOD"]["via"] == "argument_implementer"
    # `IOrder` declares no `Save`: that the package's `Save(order)` calls `order.Save()` rests on nothing
    assert "cs:Shop.Orders.Order.Save|METHOD" not in calls
