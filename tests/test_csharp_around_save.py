"""The code that runs around a save or a request sent: EF SaveChanges interceptors
(`index/csharp/interceptors`), domain events raised by entities and published on save
(`domain_events`, `setters`), MediatR pipeline behaviours (`pipeline_behaviours`); and how a flow
answer ranks them (`graph/relations.around_saves`). Each with the edge it must make and the one it
must not (a look-alike that does not derive from EF's base, a handler of another event or request)."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.answers import answer_from_graph
from ragstream.graph.expansion import ExpansionLimits, expand_dependency_tree
from ragstream.graph.named import find_named
from ragstream.graph.relations_view import render_graph_answer
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql
from ragstream.retrieval.filters import RetrievalFilters

SCHEMA = """
CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Total INT, Paid BIT);
CREATE TABLE dbo.AuditLogs (Id INT PRIMARY KEY, Text NVARCHAR(200));
"""

DOMAIN = """
namespace Shop.Domain;
public abstract class BaseEvent : INotification { }
public abstract class BaseEntity
{
    private readonly List<BaseEvent> _events = new();
    public IReadOnlyCollection<BaseEvent> DomainEvents => _events.AsReadOnly();
    public void AddDomainEvent(BaseEvent domainEvent) { _events.Add(domainEvent); }
    public void ClearDomainEvents() { _events.Clear(); }
}
public class OrderShipped : BaseEvent { public OrderShipped(Order order) { } }
public class OrderPaid : BaseEvent { public OrderPaid(Order order) { } }
public class OrderCancelled : BaseEvent { public OrderCancelled(Order order) { } }
public class Order : BaseEntity
{
    public int Id { get; set; }
    public int Total { get; set; }
    private bool _paid;
    public bool Paid
    {
        get => _paid;
        set { if (value && !_paid) { AddDomainEvent(new OrderPaid(this)); } _paid = value; }
    }
    public void Ship() { AddDomainEvent(new OrderShipped(this)); }
    public void Describe(OrderShipped shipped) { }
}
"""

CONTEXT = """
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public interface IShopContext
{
    DbSet<Order> Orders { get; }
    Task<int> SaveChangesAsync(CancellationToken token);
}
public class ShopContext : DbContext, IShopContext
{
    public DbSet<Order> Orders => Set<Order>();
}
"""

INTERCEPTORS = """
using MediatR;
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Diagnostics;
using Shop.Domain;
namespace Shop.Data.Interceptors;
public class AuditInterceptor : SaveChangesInterceptor
{
    public override InterceptionResult<int> SavingChanges(DbContextEventData data, InterceptionResult<int> result)
    {
        Stamp(data.Context);
        return base.SavingChanges(data, result);
    }
    public override ValueTask<InterceptionResult<int>> SavingChangesAsync(DbContextEventData data,
        InterceptionResult<int> result, CancellationToken token = default)
    {
        Stamp(data.Context);
        return base.SavingChangesAsync(data, result, token);
    }
    public void Stamp(DbContext? context) { }
}
public abstract class EventsInterceptorBase : SaveChangesInterceptor { }
public class DispatchEventsInterceptor : EventsInterceptorBase
{
    private readonly IMediator _mediator;
    public override async ValueTask<InterceptionResult<int>> SavingChangesAsync(DbContextEventData data,
        InterceptionResult<int> result, CancellationToken token = default)
    {
        await Dispatch(data.Context);
        return await base.SavingChangesAsync(data, result, token);
    }
    public async Task Dispatch(DbContext? context)
    {
        var events = context.ChangeTracker.Entries<BaseEntity>().SelectMany(e => e.Entity.DomainEvents).ToList();
        foreach (var domainEvent in events)
            await _mediator.Publish(domainEvent);
    }
}
public class LookAlikeInterceptor
{
    public ValueTask<int> SavingChangesAsync(object data, int result) => new(result);
}
"""

APP = """
using MediatR;
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public interface ICommand { }
public record ShipOrder(int Id) : IRequest, ICommand;
public record PayOrder(int Id) : IRequest, ICommand;
public record GetOrder(int Id) : IRequest<Order>;
public class ShipOrderHandler : IRequestHandler<ShipOrder>
{
    private readonly IShopContext _context;
    public async Task Handle(ShipOrder request, CancellationToken token)
    {
        var order = await _context.Orders.FindAsync(request.Id);
        order.Ship();
        await _context.SaveChangesAsync(token);
    }
}
public class PayOrderHandler : IRequestHandler<PayOrder>
{
    private readonly IShopContext _context;
    public async Task Handle(PayOrder request, CancellationToken token)
    {
        var order = await _context.Orders.FindAsync(request.Id);
        order.Paid = true;
        order.Total = 0;
        await _context.SaveChangesAsync(token);
    }
}
public class GetOrderHandler : IRequestHandler<GetOrder, Order>
{
    private readonly IShopContext _context;
    public async Task<Order> Handle(GetOrder request, CancellationToken token) => await _context.Orders.FindAsync(request.Id);
}
public class OrderShippedHandler : INotificationHandler<OrderShipped>
{
    public Task Handle(OrderShipped notification, CancellationToken token) => Task.CompletedTask;
}
public interface IDomainEventHandler<T> { Task HandleAsync(T domainEvent); }
public class OrderPaidHandler : IDomainEventHandler<OrderPaid>
{
    public Task HandleAsync(OrderPaid domainEvent) => Task.CompletedTask;
}
public class OrderCancelledHandler : INotificationHandler<OrderCancelled>
{
    public Task Handle(OrderCancelled notification, CancellationToken token) => Task.CompletedTask;
}
public class ValidationBehaviour<TRequest, TResponse> : IPipelineBehavior<TRequest, TResponse> where TRequest : notnull
{
    public async Task<TResponse> Handle(TRequest request, RequestHandlerDelegate<TResponse> next, CancellationToken token)
        => await next();
}
public class CommandBehaviour<TRequest, TResponse> : IPipelineBehavior<TRequest, TResponse>
    where TRequest : ICommand
{
    public async Task<TResponse> Handle(TRequest request, RequestHandlerDelegate<TResponse> next, CancellationToken token)
        => await next();
}
"""

ENDPOINTS = """
using MediatR;
using Shop.App;
namespace Shop.Web;
public class OrdersController : ControllerBase
{
    private readonly ISender _sender;
    [HttpPost("{id}/ship")]
    public Task Ship(int id) => _sender.Send(new ShipOrder(id));
    [HttpPost("{id}/pay")]
    public Task Pay(int id) => _sender.Send(new PayOrder(id));
    [HttpGet("{id}")]
    public Task<Order> Get(int id) => _sender.Send(new GetOrder(id));
}
"""

REGISTRATION = """
using Shop.Data;
using Shop.Data.Interceptors;
namespace Shop.Web;
public static class Setup
{
    public static void AddData(IServiceCollection services) =>
        services.AddDbContext<ShopContext>((sp, options) => options.AddInterceptors(sp.GetServices<ISaveChangesInterceptor>()));
}
"""

SOURCES = {"src/Domain/Order.cs": DOMAIN, "src/Data/Context.cs": CONTEXT, "src/Data/Interceptors.cs": INTERCEPTORS,
           "src/App/Orders.cs": APP, "src/Web/OrdersController.cs": ENDPOINTS}


def build(extra: dict[str, str] | None = None) -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in {**SOURCES, **(extra or {})}.items()]
    files.append(parse_sql("db/schema.sql", SCHEMA, "tsql"))
    return build_graph(files)[0]


def calls(graph: nx.MultiDiGraph, source: str, via: str) -> dict[str, dict]:
    return {target: data for _, target, key, data in graph.out_edges(source, keys=True, data=True)
            if key == "CALLS" and data.get("via") == via}


SHIP = "cs:Shop.App.ShipOrderHandler.Handle|METHOD"
PAY = "cs:Shop.App.PayOrderHandler.Handle|METHOD"
AUDIT = "cs:Shop.Data.Interceptors.AuditInterceptor.SavingChangesAsync|METHOD"
AUDIT_SYNC = "cs:Shop.Data.Interceptors.AuditInterceptor.SavingChanges|METHOD"
DISPATCH_HOOK = "cs:Shop.Data.Interceptors.DispatchEventsInterceptor.SavingChangesAsync|METHOD"
DISPATCH = "cs:Shop.Data.Interceptors.DispatchEventsInterceptor.Dispatch|METHOD"
SHIPPED = "cs:Shop.App.OrderShippedHandler.Handle|METHOD"
PAID = "cs:Shop.App.OrderPaidHandler.HandleAsync|METHOD"
CANCELLED = "cs:Shop.App.OrderCancelledHandler.Handle|METHOD"


def test_a_save_runs_the_hooks_of_interceptors_deriving_from_efs_base_and_no_look_alike():
    graph = build()
    hooks = calls(graph, SHIP, "interceptor")
    # async save: the async hooks of both interceptors (one through a base of the repository's own)
    assert set(hooks) == {AUDIT, DISPATCH_HOOK}
    assert AUDIT_SYNC not in hooks  # SaveChanges runs SavingChanges; SaveChangesAsync does not
    assert "cs:Shop.Data.Interceptors.LookAlikeInterceptor.SavingChangesAsync|METHOD" not in hooks
    assert hooks[AUDIT]["resolution"] == "dispatch" and hooks[AUDIT]["member"] == "SaveChangesAsync"
    assert hooks[AUDIT]["guess"] is True  # no `AddInterceptors(...)` seen: which context runs it is a guess
    # a method that saves nothing runs no interceptor
    assert calls(graph, "cs:Shop.App.GetOrderHandler.Handle|METHOD", "interceptor") == {}
    registered = calls(build({"src/Web/Setup.cs": REGISTRATION}), SHIP, "interceptor")
    assert set(registered) == {AUDIT, DISPATCH_HOOK} and "guess" not in registered[AUDIT]


def test_a_raised_domain_event_reaches_its_handlers_by_type_and_the_dispatcher_stands_between_save_and_handlers():
    graph = build()
    # a method raising OrderShipped: its handler, never the handler of another event
    assert set(calls(graph, "cs:Shop.Domain.Order.Ship|METHOD", "domain_event")) == {SHIPPED}
    # a setter raising OrderPaid: the home-made handler shape, by its type argument
    raised = calls(graph, "cs:Shop.Domain.Order.Paid|PROPERTY", "domain_event")
    assert set(raised) == {PAID} and raised[PAID]["message"] == "cs:Shop.Domain.OrderPaid|TYPE"
    # a method taking the event handles it; it raises nothing
    assert calls(graph, "cs:Shop.Domain.Order.Describe|METHOD", "domain_event") == {}
    # the interceptor method that publishes what the entities collected: every raised event's handlers,
    # guesses; OrderCancelled is never raised, so its handler is not among them
    published = calls(graph, DISPATCH, "domain_event")
    assert set(published) == {SHIPPED, PAID}
    assert all(data["guess"] and data["dispatcher"] for data in published.values())


def test_assigning_a_loaded_entitys_property_runs_its_setter_only_when_the_setter_has_code():
    graph = build()
    setters = calls(graph, PAY, "setter")
    assert set(setters) == {"cs:Shop.Domain.Order.Paid|PROPERTY"}  # `Total` is a plain { get; set; }
    assert setters["cs:Shop.Domain.Order.Paid|PROPERTY"]["member"] == "Paid"


def test_pipeline_behaviours_run_around_each_request_sent_as_their_constraints_allow():
    graph = build()
    validation = "cs:Shop.App.ValidationBehaviour.Handle|METHOD"
    command = "cs:Shop.App.CommandBehaviour.Handle|METHOD"
    ship = calls(graph, "cs:Shop.Web.OrdersController.Ship|METHOD", "pipeline")
    assert set(ship) == {validation, command}
    assert ship[command]["guess"] is True and ship[command]["message"] == "cs:Shop.App.ShipOrder|TYPE"
    # a query is no ICommand: the command behaviour's `where TRequest : ICommand` keeps it out
    assert set(calls(graph, "cs:Shop.Web.OrdersController.Get|METHOD", "pipeline")) == {validation}
    # the handler of another request is never reached through a behaviour
    assert "cs:Shop.App.GetOrderHandler.Handle|METHOD" not in calls(graph, "cs:Shop.Web.OrdersController.Ship|METHOD",
                                                                    "message")


def test_a_flow_ranks_what_runs_around_its_save_after_its_changes_and_walks_no_path_through_it():
    graph = build()
    question = "What happens when an order is shipped? Walk from the API endpoint down to the database table."
    found = answer_from_graph(graph, question, find_named(graph, question),
                              ["cs:Shop.Web.OrdersController.Ship|METHOD"], lambda ids: {})
    assert found is not None and found.shape == "flow"
    stamp = "cs:Shop.Data.Interceptors.AuditInterceptor.Stamp|METHOD"
    # each interceptor by the repository method its hook runs, then the handler of the event the flow raised
    assert [(a.id, a.via) for a in found.around] == [(stamp, "interceptor"), (DISPATCH, "interceptor"),
                                                     (SHIPPED, "domain_event")]
    assert PAID not in {a.id for a in found.around}  # raised elsewhere, not by this flow
    ranked = found.node_ids(graph)
    change = "cs:Shop.Domain.Order.Ship|METHOD"
    assert ranked.index("sql:dbo.Orders|TABLE") < ranked.index(change) < ranked.index(stamp) < ranked.index(SHIPPED)
    assert ranked.index(SHIPPED) < ranked.index("cs:Shop.Data.ShopContext.Orders|PROPERTY")  # the carrier after
    # no path goes through an interceptor or a pipeline behaviour
    assert not any(node in (AUDIT, DISPATCH_HOOK, DISPATCH) or "Behaviour" in node
                   for path in found.paths for node in path.nodes)
    text = render_graph_answer(found, graph)
    assert "Around the save" in text and "Shop.Data.Interceptors.AuditInterceptor.Stamp" in text


def test_a_flow_setting_a_property_whose_setter_raises_an_event_ranks_the_setter_and_the_events_handler():
    graph = build()
    question = "What happens when an order is paid? Walk from the API endpoint down to the database table."
    found = answer_from_graph(graph, question, find_named(graph, question),
                              ["cs:Shop.Web.OrdersController.Pay|METHOD"], lambda ids: {})
    assert found is not None
    assert "cs:Shop.Domain.Order.Paid|PROPERTY" in [c.id for c in found.changes]
    assert [a.id for a in found.around if a.via == "domain_event"] == [PAID]
    assert SHIPPED not in found.node_ids(graph)


def test_expansion_does_not_walk_from_a_hook_to_every_method_that_saves():
    graph = build()
    limits = ExpansionLimits(max_depth=2, max_nodes=50, edges={"CALLS": "both", "DEFINES": "both"})
    reached = expand_dependency_tree(graph, ["cs:Shop.Data.Interceptors.AuditInterceptor.Stamp|METHOD"],
                                     RetrievalFilters(), limits).nodes
    assert AUDIT in reached  # the hook calls it: its own code
    assert SHIP not in reached and PAY not in reached  # they save; the interceptor runs around that


def test_a_flow_that_raises_no_event_leaves_the_dispatcher_out():
    graph = build({"src/App/Reprice.cs": """
using MediatR;
using Shop.Data;
namespace Shop.App;
public record RepriceOrder(int Id, int Total) : IRequest;
public class RepriceOrderHandler : IRequestHandler<RepriceOrder>
{
    private readonly IShopContext _context;
    public async Task Handle(RepriceOrder request, CancellationToken token)
    {
        var order = await _context.Orders.FindAsync(request.Id);
        order.Total = request.Total;
        await _context.SaveChangesAsync(token);
    }
}
""", "src/Web/PricesController.cs": """
using MediatR;
using Shop.App;
namespace Shop.Web;
public class PricesController : ControllerBase
{
    private readonly ISender _sender;
    [HttpPut("{id}/price")]
    public Task Reprice(int id, int total) => _sender.Send(new RepriceOrder(id, total));
}
"""})
    question = "What happens when an order is repriced? Walk from the API endpoint down to the database table."
    found = answer_from_graph(graph, question, find_named(graph, question),
                              ["cs:Shop.Web.PricesController.Reprice|METHOD"], lambda ids: {})
    assert found is not None
    # the auditing interceptor runs; the one publishing collected events has nothing of this flow's
    assert [a.id for a in found.around] == ["cs:Shop.Data.Interceptors.AuditInterceptor.Stamp|METHOD"]
