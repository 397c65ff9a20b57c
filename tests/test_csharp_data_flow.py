"""EF Core data flow through type arguments (`index/csharp/data_access`): DbSet members,
`Set<T>()`, generic repositories declared here or in a package; and the edges it must not make
(in-memory collections, another entity's table, calls that are no data access)."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.named import named_node
from ragstream.graph.relations import Path, by_relevance, data_carriers, related
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA = """
CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Total INT);
CREATE TABLE dbo.Customers (Id INT PRIMARY KEY, Name NVARCHAR(50));
CREATE TABLE dbo.OrderLines (Id INT PRIMARY KEY, OrderId INT);
"""

MODEL = """
namespace Shop.Domain;
public class Order { public int Id { get; set; } public int Total { get; set; } }
public class Customer { public int Id { get; set; } public string Name { get; set; } }
public class OrderLine { public int Id { get; set; } public int OrderId { get; set; } }
public class OrderDto { public int Id { get; set; } }
"""

CONTEXT = """
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public interface IShopContext
{
    DbSet<Order> Orders { get; }
    DbSet<Customer> Customers { get; }
    Task<int> SaveChangesAsync(CancellationToken token);
}
public class ShopContext : DbContext, IShopContext
{
    public DbSet<Order> Orders => Set<Order>();
    public DbSet<Customer> Customers => Set<Customer>();
    public DbSet<OrderLine> OrderLines { get; set; }
}
"""


def build(cs: dict[str, str]) -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in {"Model.cs": MODEL, "Context.cs": CONTEXT, **cs}.items()]
    files.append(parse_sql("db/schema.sql", SCHEMA, "tsql"))
    graph, _ = build_graph(files)
    return graph


def tables(graph: nx.MultiDiGraph, method: str, edge_type: str) -> dict[str, dict]:
    source = f"cs:{method}|METHOD"
    return {target: data for _, target, data in graph.out_edges(source, data=True) if data["type"] == edge_type}


ORDERS, CUSTOMERS, LINES = "sql:dbo.Orders|TABLE", "sql:dbo.Customers|TABLE", "sql:dbo.OrderLines|TABLE"


def test_dbset_members_of_a_context_interface_read_and_write_their_entitys_table():
    graph = build({"Handlers.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class CreateOrderHandler
{
    private readonly IShopContext _context;
    public CreateOrderHandler(IShopContext context) { _context = context; }
    public async Task<int> Handle(int total, CancellationToken token)
    {
        var order = new Order { Total = total };
        _context.Orders.Add(order);
        await _context.SaveChangesAsync(token);
        return order.Id;
    }
    public Task<Order?> Find(int id) => _context.Orders.Where(o => o.Id == id).FirstOrDefaultAsync();
}
"""})
    writes = tables(graph, "Shop.App.CreateOrderHandler.Handle", "WRITES")
    assert set(writes) == {ORDERS}
    assert writes[ORDERS]["property"] == "cs:Shop.Data.IShopContext.Orders|PROPERTY"  # the member it goes through
    # a flow names the member as the context implementing the interface declares it
    paths = [Path(("cs:Shop.App.CreateOrderHandler.Handle|METHOD", ORDERS), ("WRITES",))]
    # (and, as it writes, names the unit of work it saves)
    assert [(c.id, c.relation) for c in data_carriers(graph, paths)] == [
        ("cs:Shop.Data.ShopContext.Orders|PROPERTY", "WRITES through"),
        ("cs:Shop.Data.IShopContext.SaveChangesAsync|METHOD", "saves")]
    assert writes[ORDERS]["via"] == "type_argument" and writes[ORDERS]["resolution"] == "inferred"
    assert writes[ORDERS]["entity"] == "cs:Shop.Domain.Order|TYPE" and "guess" not in writes[ORDERS]
    assert tables(graph, "Shop.App.CreateOrderHandler.Handle", "READS") == {}  # SaveChanges is no access
    assert set(tables(graph, "Shop.App.CreateOrderHandler.Find", "READS")) == {ORDERS}
    assert tables(graph, "Shop.App.CreateOrderHandler.Find", "WRITES") == {}


def test_set_of_t_and_a_generic_repository_bind_the_callers_type_argument():
    graph = build({"Repo.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.Data;
public interface IRepository<T> where T : class
{
    Task AddAsync(T entity);
    Task<T?> GetByIdAsync(int id);
    Task DeleteAsync(T entity);
}
public class EfRepository<T> : IRepository<T> where T : class
{
    private readonly ShopContext _db;
    public Task AddAsync(T entity) { _db.Set<T>().Add(entity); return _db.SaveChangesAsync(); }
    public Task<T?> GetByIdAsync(int id) => _db.Set<T>().FindAsync(id).AsTask();
    public Task DeleteAsync(T entity) { _db.Set<T>().Remove(entity); return Task.CompletedTask; }
}
public class LineWriter
{
    private readonly ShopContext _db;
    public void Add(OrderLine line) => _db.Set<OrderLine>().Add(line);
}
""", "Service.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class OrderService
{
    private readonly IRepository<Order> _orders;
    private readonly IRepository<Customer> _customers;
    public OrderService(IRepository<Order> orders, IRepository<Customer> customers) { _orders = orders; _customers = customers; }
    public async Task Place(int customerId, Order order)
    {
        var customer = await _customers.GetByIdAsync(customerId);
        await _orders.AddAsync(order);
    }
    public Task Cancel(Order order) => _orders.DeleteAsync(order);
}
"""})
    assert set(tables(graph, "Shop.App.OrderService.Place", "WRITES")) == {ORDERS}  # never Customers
    assert set(tables(graph, "Shop.App.OrderService.Place", "READS")) == {CUSTOMERS}  # never Orders
    assert set(tables(graph, "Shop.App.OrderService.Cancel", "WRITES")) == {ORDERS}
    assert set(tables(graph, "Shop.Data.LineWriter.Add", "WRITES")) == {LINES}
    # `Set<T>()` with T the repository's own parameter names no table: its callers do
    assert tables(graph, "Shop.Data.EfRepository.AddAsync", "WRITES") == {}


def test_a_package_repository_is_known_by_its_type_argument_and_verb_and_marked_a_guess():
    graph = build({"Service.cs": """
using Ardalis.Specification;
using Shop.Domain;
namespace Shop.App;
public class CustomerService
{
    private readonly IRepositoryBase<Customer> _repository;
    private readonly IReadRepositoryBase<Order> _reads;
    public Task Rename(Customer c) => _repository.UpdateAsync(c);
    public Task<int> Count() => _reads.CountAsync();
    public void Touch(Customer c) => _repository.Validate(c);
}
"""})
    writes = tables(graph, "Shop.App.CustomerService.Rename", "WRITES")
    assert set(writes) == {CUSTOMERS} and writes[CUSTOMERS]["guess"] is True
    assert set(tables(graph, "Shop.App.CustomerService.Count", "READS")) == {ORDERS}
    assert tables(graph, "Shop.App.CustomerService.Touch", "READS") == {}  # no data verb: no access
    assert tables(graph, "Shop.App.CustomerService.Touch", "WRITES") == {}


def test_in_memory_collections_and_unmapped_type_arguments_touch_no_table():
    graph = build({"Memory.cs": """
using System.Collections.Generic;
using Shop.Domain;
namespace Shop.App;
public class Basket
{
    private readonly List<Order> _orders = new();
    private readonly IRepository<OrderDto> _dtos;
    public void Keep(Order o) { _orders.Add(o); var seen = new HashSet<Customer>(); seen.Add(null); }
    public void Project(OrderDto d) => _dtos.AddAsync(d);
}
"""})
    for method in ("Shop.App.Basket.Keep", "Shop.App.Basket.Project"):
        assert tables(graph, method, "WRITES") == {} and tables(graph, method, "READS") == {}


MEDIATOR = """
using MediatR;
using Shop.Data;
using Shop.Domain;
namespace Shop.App.Orders;
public record PlaceOrder(int CustomerId, int Total) : IRequest<int>;
public record CancelOrder(int Id) : IRequest;
public record OrderPlaced(int Id) : INotification;
public class PlaceOrderHandler : IRequestHandler<PlaceOrder, int>
{
    private readonly IShopContext _context;
    private readonly IMediator _mediator;
    public async Task<int> Handle(PlaceOrder request, CancellationToken token)
    {
        var order = new Order { Total = request.Total };
        _context.Orders.Add(order);
        await _context.SaveChangesAsync(token);
        await _mediator.Publish(new OrderPlaced(order.Id), token);
        return order.Id;
    }
}
public class CancelOrderHandler : IRequestHandler<CancelOrder>
{
    public Task Handle(CancelOrder request, CancellationToken token) => Task.CompletedTask;
}
public class SendReceipt : INotificationHandler<OrderPlaced>
{
    public Task Handle(OrderPlaced notification, CancellationToken token) => Task.CompletedTask;
}
public class AuditOrder : INotificationHandler<OrderPlaced>
{
    public Task Handle(OrderPlaced notification, CancellationToken token) => Task.CompletedTask;
}
public class OrderStore : IStore<Order>
{
    public void Add(Order order) { }
    public void Remove(Order order) { }
}
"""


def calls(graph: nx.MultiDiGraph, method: str) -> dict[str, dict]:
    return {target: data for _, target, data in graph.out_edges(f"cs:{method}|METHOD", data=True)
            if data["type"] == "CALLS"}


def test_a_mediator_request_reaches_its_handler_and_through_it_the_table():
    graph = build({"Orders.cs": MEDIATOR, "Controller.cs": """
using MediatR;
using Shop.App.Orders;
using Shop.Domain;
namespace Shop.Web;
public class OrdersController : ControllerBase
{
    private readonly ISender _sender;
    [HttpPost]
    public Task<int> Create(PlaceOrder command) => _sender.Send(command);
    [HttpDelete("{id}")]
    public Task Delete(int id) => _sender.Send(new CancelOrder(id));
    public void Log(Order order) => _logger.Log(order);
}
"""})
    place = "cs:Shop.App.Orders.PlaceOrderHandler.Handle|METHOD"
    create = calls(graph, "Shop.Web.OrdersController.Create")
    assert set(create) == {place}  # never the handler of another request
    assert create[place]["resolution"] == "dispatch" and create[place]["via"] == "message"
    assert create[place]["message"] == "cs:Shop.App.Orders.PlaceOrder|TYPE"
    assert set(calls(graph, "Shop.Web.OrdersController.Delete")) == {"cs:Shop.App.Orders.CancelOrderHandler.Handle|METHOD"}
    assert set(tables(graph, "Shop.App.Orders.PlaceOrderHandler.Handle", "WRITES")) == {ORDERS}
    # a type with two methods taking an Order is a store, not a handler: nothing is dispatched to it
    assert calls(graph, "Shop.Web.OrdersController.Log") == {}


def test_a_request_sent_through_a_property_a_base_controller_declares_reaches_its_handler():
    """`Mediator.Send(new CancelOrder(id))` in a controller whose base declares `protected
    IMediator Mediator`: the bare name is that property, not a type, so the request reaches its
    handler; a bare name that is a type (`JsonConvert.SerializeObject(...)`) sends nothing."""
    graph = build({"Orders.cs": MEDIATOR, "Controllers.cs": """
using MediatR;
using Shop.App.Orders;
namespace Shop.Web;
public abstract class BaseController : ControllerBase
{
    private IMediator _mediator;
    protected IMediator Mediator => _mediator ??= HttpContext.RequestServices.GetService<IMediator>();
}
public class OrdersController : BaseController
{
    public async Task<IActionResult> Delete(int id) { await Mediator.Send(new CancelOrder(id)); return NoContent(); }
    public string Show(int id) => JsonConvert.SerializeObject(new CancelOrder(id));
}
"""})
    assert set(calls(graph, "Shop.Web.OrdersController.Delete")) >= {"cs:Shop.App.Orders.CancelOrderHandler.Handle|METHOD"}
    assert "cs:Shop.App.Orders.CancelOrderHandler.Handle|METHOD" not in calls(graph, "Shop.Web.OrdersController.Show")


def test_a_request_sent_through_a_field_a_base_controller_declares_reaches_its_handler():
    """`CommandMediator.SendAsync(new X())` where the base declares the mediator as a field
    (`protected readonly ICommandMediator CommandMediator = commandMediator;`, Moonglade's
    `BlogControllerBase`): a field is as much a sender as a property; a private field of the
    base is not seen from the subclass, and sends nothing."""
    graph = build({"Orders.cs": MEDIATOR, "Controllers.cs": """
using MediatR;
using Shop.App.Orders;
namespace Shop.Web;
public abstract class BaseController(IMediator mediator) : ControllerBase
{
    protected readonly IMediator Mediator = mediator;
    private readonly IMediator Hidden = mediator;
}
public class OrdersController(IMediator mediator) : BaseController(mediator)
{
    public async Task<IActionResult> Delete(int id) { await Mediator.Send(new CancelOrder(id)); return NoContent(); }
    public async Task<IActionResult> Purge(int id) { await Hidden.Send(new CancelOrder(id)); return NoContent(); }
}
"""})
    assert "cs:Shop.App.Orders.CancelOrderHandler.Handle|METHOD" in calls(graph, "Shop.Web.OrdersController.Delete")
    assert "cs:Shop.App.Orders.CancelOrderHandler.Handle|METHOD" not in calls(graph, "Shop.Web.OrdersController.Purge")


def test_a_notification_reaches_every_handler_of_it_and_no_other():
    graph = build({"Orders.cs": MEDIATOR})
    published = calls(graph, "Shop.App.Orders.PlaceOrderHandler.Handle")
    handlers = {"cs:Shop.App.Orders.SendReceipt.Handle|METHOD", "cs:Shop.App.Orders.AuditOrder.Handle|METHOD"}
    assert handlers <= set(published)
    assert "cs:Shop.App.Orders.CancelOrderHandler.Handle|METHOD" not in published


def test_a_home_made_bus_in_the_repository_dispatches_by_its_handler_base_class():
    graph = build({"Bus.cs": """
namespace Shop.Core;
public interface ICommandBus { Task Send<T>(T command); }
public abstract class CommandHandler<T> { public abstract Task Execute(T command); }
public record RenameCustomer(int Id, string Name);
public record DeleteCustomer(int Id);
public class RenameCustomerHandler : CommandHandler<RenameCustomer>
{
    public override Task Execute(RenameCustomer command) => Task.CompletedTask;
}
public class DeleteCustomerHandler : CommandHandler<DeleteCustomer>
{
    public override Task Execute(DeleteCustomer command) => Task.CompletedTask;
}
public class CustomersEndpoint
{
    private readonly ICommandBus _bus;
    public Task Rename(int id, string name) => _bus.Send(new RenameCustomer(id, name));
}
"""})
    assert "cs:Shop.Core.RenameCustomerHandler.Execute|METHOD" in calls(graph, "Shop.Core.CustomersEndpoint.Rename")
    assert "cs:Shop.Core.DeleteCustomerHandler.Execute|METHOD" not in calls(graph, "Shop.Core.CustomersEndpoint.Rename")


def entry(graph: nx.MultiDiGraph, method: str) -> dict | None:
    return graph.nodes[f"cs:{method}|METHOD"]["attrs"].get("entry")


def test_http_entry_points_say_their_verb_whatever_the_style():
    graph = build({"Web.cs": """
using Microsoft.AspNetCore.Mvc;
namespace Shop.Web;
[ApiController]
[Route("api/[controller]")]
public class OrdersController : ControllerBase
{
    [HttpPost]
    public Task<int> Create(int total) => Task.FromResult(total);
    [HttpGet("{id}")]
    public Task<int> Get(int id) => Task.FromResult(id);
    public IActionResult Index() => Ok();
    private void Helper() { }
    [NonAction]
    public void NotAnAction() { }
}
public class EditModel : PageModel
{
    public Task OnGetAsync(int id) => Task.CompletedTask;
    public Task<IActionResult> OnPostDeleteAsync(int id) => null;
    public void Load() { }
}
public class OrderEndpoints
{
    public void Map(WebApplication app)
    {
        var group = app.MapGroup("/orders");
        group.MapPost(CreateOrder);
        group.MapDelete("/{id}", DeleteOrder);
    }
    public Task<int> CreateOrder(int total) => Task.FromResult(total);
    public Task DeleteOrder(int id) => Task.CompletedTask;
    public void NotMapped() { }
}
public class CreateCustomer : Endpoint<int, int>
{
    public override void Configure() { Post("/customers"); AllowAnonymous(); }
    public override Task HandleAsync(int request, CancellationToken ct) => Task.CompletedTask;
}
"""})
    web = "Shop.Web.{}".format
    assert entry(graph, web("OrdersController.Create")) == {"verb": "POST", "kind": "action"}
    assert entry(graph, web("OrdersController.Get")) == {"verb": "GET", "kind": "action", "route": "{id}"}
    assert entry(graph, web("OrdersController.Index")) == {"verb": "ANY", "kind": "action"}
    assert entry(graph, web("OrdersController.Helper")) is None
    assert entry(graph, web("OrdersController.NotAnAction")) is None
    assert entry(graph, web("EditModel.OnGetAsync"))["verb"] == "GET"
    assert entry(graph, web("EditModel.OnPostDeleteAsync")) == {"verb": "POST", "kind": "page_handler"}
    assert entry(graph, web("EditModel.Load")) is None
    assert entry(graph, web("OrderEndpoints.CreateOrder")) == {"verb": "POST", "kind": "minimal_api"}
    assert entry(graph, web("OrderEndpoints.DeleteOrder")) == {"verb": "DELETE", "kind": "minimal_api", "route": "/{id}"}
    assert entry(graph, web("OrderEndpoints.NotMapped")) is None
    assert entry(graph, web("CreateCustomer.HandleAsync")) == {"verb": "POST", "kind": "endpoint", "route": "/customers"}


def test_web_forms_event_handlers_are_postback_entry_points():
    """`btnSend_Click(object sender, EventArgs e)` of a page is a postback (POST); `Page_Load` runs for
    every request (ANY); a method of another shape, a handler-shaped method of a class that is no
    page or control, a validator's server check or a row's data binding, is no entry point."""
    graph = build({"Post.aspx.cs": """
using System;
using System.Web.UI;
namespace Wiki
{
    public partial class Post : BasePage
    {
        protected void Page_Load(object sender, EventArgs e) { }
        protected void btnSend_Click(object sender, EventArgs e) { }
        protected void rptMessages_ItemCommand(object sender, RepeaterCommandEventArgs e) { }
        protected void cvName_ServerValidate(object source, ServerValidateEventArgs args) { }
        protected void rptMessages_ItemDataBound(object sender, RepeaterItemEventArgs e) { }
        protected void gvUsers_RowDataBound(object sender, System.Web.UI.WebControls.GridViewRowEventArgs e) { }
        private void Render(string text) { }
    }
    public class MessageQueue
    {
        public void OnArrived(object sender, EventArgs e) { }
    }
}
"""})
    assert entry(graph, "Wiki.Post.btnSend_Click") == {"verb": "POST", "kind": "event_handler"}
    assert entry(graph, "Wiki.Post.rptMessages_ItemCommand") == {"verb": "POST", "kind": "event_handler"}
    assert entry(graph, "Wiki.Post.Page_Load") == {"verb": "ANY", "kind": "page_event"}
    assert entry(graph, "Wiki.Post.Render") is None
    assert entry(graph, "Wiki.MessageQueue.OnArrived") is None
    # a validator's check and a row bound for rendering run inside a request, none of their own
    for inside in ("cvName_ServerValidate", "rptMessages_ItemDataBound", "gvUsers_RowDataBound"):
        assert entry(graph, f"Wiki.Post.{inside}") is None, inside


def test_look_alikes_make_no_data_or_dispatch_edge():
    """Dapper's `Query<Row>(sql)` (the SQL names the table), model configuration, grouping,
    `IEquatable<Self>`, comparers, validators and static helpers taking a message."""
    graph = build({"Orders.cs": MEDIATOR, "LookAlikes.cs": """
using System.Linq;
using Dapper;
using FluentValidation;
using Microsoft.EntityFrameworkCore;
using Shop.App.Orders;
using Shop.Domain;
namespace Shop.App;
public class Reports
{
    private readonly IDbConnection _db;
    public int Totals() => _db.Query<Order>("SELECT Total FROM dbo.Customers").Count();
    public void Configure(ModelBuilder modelBuilder) => modelBuilder.Entity<Order>().ToTable("Orders");
    public bool Grouped(IGrouping<int, Order> group) => group.Any();
    public string Json(PlaceOrder command) => JsonConvert.SerializeObject(command);
    public bool Same(Money a) => a.Equals(a);
}
public class Money : IEquatable<Money> { public bool Equals(Money other) => true; }
public class PlaceOrderValidator : AbstractValidator<PlaceOrder>
{
    public bool BeKnownCustomer(PlaceOrder command, int id) => true;
}
public class Checks
{
    private readonly IValidator<PlaceOrder> _validator;
    public void Check(PlaceOrder command) => _validator.Validate(command);
}
"""})
    method = "Shop.App.Reports.{}".format
    assert set(tables(graph, method("Totals"), "READS")) == {CUSTOMERS}  # the SQL's table, not Order's
    for name in ("Configure", "Grouped"):
        assert tables(graph, method(name), "READS") == {} and tables(graph, method(name), "WRITES") == {}
    assert calls(graph, method("Json")) == {}
    assert all(data.get("via") != "message" for data in calls(graph, method("Same")).values())
    assert all(data.get("via") != "message" for data in calls(graph, "Shop.App.Checks.Check").values())


def test_nhibernate_mapping_classes_and_session_calls_reach_the_entitys_table():
    graph = build({"Mappings.cs": """
using FluentNHibernate.Mapping;
using Shop.Domain;
namespace Shop.Data.Mappings;
public class OrderMapping : ClassMap<Order>
{
    public OrderMapping() { Id(x => x.Id); Map(x => x.Total); HasManyToMany(x => x.Lines).Table("OrderLines"); }
}
public class CustomerMapping : ClassMap<Customer>
{
    public CustomerMapping() { Table("Customers"); Id(x => x.Id); }
}
""", "Store.cs": """
using NHibernate;
using Shop.Domain;
namespace Shop.Data;
public class OrderStore
{
    private readonly ISession _session;
    public void Save(Order order) => _session.SaveOrUpdate(order);
    public IList<Customer> All() => _session.Query<Customer>().ToList();
    public void Forget(Customer customer) => _session.Evict(customer);
}
"""})
    maps = {t: d for _, t, d in graph.out_edges("cs:Shop.Domain.Customer|TYPE", data=True) if d["type"] == "MAPS_TO"}
    assert set(maps) == {CUSTOMERS} and maps[CUSTOMERS]["via"] == "mapping_class" and "guess" not in maps[CUSTOMERS]
    # no Table(...) of its own: the entity's name, by convention (a guess); the join table is no mapping of Order
    order_maps = {t: d for _, t, d in graph.out_edges("cs:Shop.Domain.Order|TYPE", data=True) if d["type"] == "MAPS_TO"}
    assert LINES not in order_maps
    assert all(d.get("guess") for d in order_maps.values())
    assert set(tables(graph, "Shop.Data.OrderStore.All", "READS")) == {CUSTOMERS}
    assert tables(graph, "Shop.Data.OrderStore.Forget", "READS") == {} and tables(graph, "Shop.Data.OrderStore.Forget", "WRITES") == {}
    assert set(tables(graph, "Shop.Data.OrderStore.Save", "WRITES")) == set(order_maps)


def test_an_ef_model_with_no_sql_has_tables_of_its_own_and_never_a_second_one():
    files = [parse_csharp("Model.cs", MODEL), parse_csharp("Context.cs", CONTEXT), parse_csharp("Handler.cs", """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class Handler
{
    private readonly IShopContext _context;
    public void Add(Customer c) => _context.Customers.Add(c);
}
"""), parse_sql("db/schema.sql", "CREATE TABLE dbo.Orders (Id INT PRIMARY KEY);", "tsql")]
    graph, _ = build_graph(files)
    table = graph.nodes["sql:dbo.Customers|TABLE"]
    assert table["attrs"]["via"] == "ef_model" and table["attrs"]["guess"] is True
    assert (table["path"], table["start_line"]) == ("Model.cs", 4)
    assert set(tables(graph, "Shop.App.Handler.Add", "WRITES")) == {"sql:dbo.Customers|TABLE"}
    assert "via" not in graph.nodes["sql:dbo.Orders|TABLE"].get("attrs", {})  # the script's table stays the one
    assert not [n for n in graph if n.startswith("ext:") and "Customers" in n]


PROCS = """
CREATE TABLE dbo.Cipher (Id UNIQUEIDENTIFIER PRIMARY KEY);
GO
CREATE TABLE dbo.Folder (Id UNIQUEIDENTIFIER PRIMARY KEY);
GO
CREATE PROCEDURE dbo.Cipher_Create @Id UNIQUEIDENTIFIER AS INSERT INTO dbo.Cipher (Id) VALUES (@Id);
GO
CREATE PROCEDURE dbo.Folder_Create @Id UNIQUEIDENTIFIER AS INSERT INTO dbo.Folder (Id) VALUES (@Id);
GO
CREATE PROCEDURE dbo.Folder_ReadById @Id UNIQUEIDENTIFIER AS SELECT * FROM dbo.Folder WHERE Id = @Id;
GO
CREATE PROCEDURE vault.Send_Create @Id UNIQUEIDENTIFIER AS SELECT 1;
"""


def test_procedure_names_composed_from_constants_and_a_type_parameter_bind_per_subclass():
    files = [parse_csharp("Repo.cs", """
using System.Data;
using Dapper;
namespace Vault.Data;
public class Cipher { } public class Folder { } public class Send { }
public abstract class Repository<T, TId> where T : class
{
    protected Repository(string connectionString, string schema = null, string table = null)
    {
        if (!string.IsNullOrWhiteSpace(table)) { Table = table; }
        if (!string.IsNullOrWhiteSpace(schema)) { Schema = schema; }
    }
    protected string Schema { get; private set; } = "dbo";
    protected string Table { get; private set; } = typeof(T).Name;
    private const string Suffix = "_Create";
    public virtual Task CreateAsync(T obj) =>
        Connection.ExecuteAsync($"[{Schema}].[{Table}{Suffix}]", obj, commandType: CommandType.StoredProcedure);
    public Task<T> GetByIdAsync(TId id) =>
        Connection.QuerySingleAsync<T>($"[{Schema}].[{typeof(T).Name}_ReadById]", new { Id = id },
            commandType: CommandType.StoredProcedure);
}
public class CipherRepository : Repository<Cipher, Guid> { public CipherRepository(string cs) : base(cs) { } }
public class FolderRepository : Repository<Folder, Guid> { public FolderRepository(string cs) : base(cs) { } }
public class Audit
{
    private const string Proc = "Folder" + "_ReadById";
    public Task Read() => Connection.ExecuteAsync($"dbo.{nameof(Folder)}_ReadById", commandType: CommandType.StoredProcedure);
}
"""), parse_sql("db/procs.sql", PROCS, "tsql")]
    graph, _ = build_graph(files)
    create = calls(graph, "Vault.Data.Repository.CreateAsync")
    assert set(create) == {"sql:dbo.Cipher_Create|PROCEDURE", "sql:dbo.Folder_Create|PROCEDURE"}
    for data in create.values():
        assert data["via"] == "type_argument" and data["guess"] is True and data["template"] == "dbo.{T}_Create"
        assert data["candidates"] == ["sql:dbo.Cipher_Create|PROCEDURE", "sql:dbo.Folder_Create|PROCEDURE"]
    assert create["sql:dbo.Cipher_Create|PROCEDURE"]["bound_by"] == "cs:Vault.Data.CipherRepository|TYPE"
    # only one subclass's name exists: inferred, no guess; the other schema's Send_Create is never reached
    read = calls(graph, "Vault.Data.Repository.GetByIdAsync")
    assert set(read) == {"sql:dbo.Folder_ReadById|PROCEDURE"} and "guess" not in read["sql:dbo.Folder_ReadById|PROCEDURE"]
    assert set(calls(graph, "Vault.Data.Audit.Read")) == {"sql:dbo.Folder_ReadById|PROCEDURE"}  # nameof


def test_a_flow_through_a_subclass_receiver_reaches_only_the_procedure_its_type_argument_names():
    """A call on `ICipherRepository` (which binds `T` to `Cipher`) runs the base's `CreateAsync`
    with `dbo.Cipher_Create`: the flow does not fan out to every subclass's procedure."""
    from ragstream.graph.relations import table_paths
    files = [parse_csharp("Repo.cs", """
using System.Data;
using Dapper;
namespace Vault.Data;
public class Cipher { } public class Folder { }
public interface IRepository<T, TId> { Task CreateAsync(T obj); }
public interface ICipherRepository : IRepository<Cipher, Guid> { }
public interface IFolderRepository : IRepository<Folder, Guid> { }
public abstract class Repository<T, TId> : IRepository<T, TId> where T : class
{
    protected string Table { get; private set; } = typeof(T).Name;
    public virtual Task CreateAsync(T obj) =>
        Connection.ExecuteAsync($"[dbo].[{Table}_Create]", obj, commandType: CommandType.StoredProcedure);
}
public class CipherRepository : Repository<Cipher, Guid>, ICipherRepository
{
    public Task Share(Cipher c) => CreateAsync(c);
}
public class FolderRepository : Repository<Folder, Guid>, IFolderRepository { }
public class CiphersController
{
    private readonly ICipherRepository _ciphers;
    private readonly IRepository<Folder, Guid> _any;
    public Task Post(Cipher c) => _ciphers.CreateAsync(c);
    public Task Untyped(Folder f) => _any.CreateAsync(f);
}
"""), parse_sql("db/procs.sql", PROCS, "tsql")]
    graph, _ = build_graph(files)

    def tables_reached(entry: str) -> set[str]:
        return {path.nodes[-1] for path in table_paths(graph, [f"cs:Vault.Data.{entry}|METHOD"])}

    assert tables_reached("CiphersController.Post") == {"sql:dbo.Cipher|TABLE"}
    assert tables_reached("CipherRepository.Share") == {"sql:dbo.Cipher|TABLE"}  # a call on `this`
    # a receiver that binds nothing of its own keeps every candidate (each a guess)
    assert tables_reached("CiphersController.Untyped") == {"sql:dbo.Cipher|TABLE", "sql:dbo.Folder|TABLE"}


def test_object_mapping_profiles_and_map_calls_connect_the_types_they_map():
    graph = build({"Mapping.cs": """
using AutoMapper;
using Shop.Domain;
namespace Shop.App;
public class OrderProfile : Profile
{
    public OrderProfile() { CreateMap<Order, OrderDto>().ForMember(d => d.Id, o => o.MapFrom(s => s.Id)); }
}
public class OrderQueries
{
    private readonly IMapper _mapper;
    public OrderDto One(Order order) => _mapper.Map<OrderDto>(order);
    public List<OrderDto> All(IShopContext db) => db.Orders.ProjectTo<OrderDto>(_mapper.ConfigurationProvider).ToList();
    public void Other(Customer c) => _mapper.Map(c, new object());
}
"""})
    def references(source: str) -> dict[str, dict]:
        return {t: d for _, t, d in graph.out_edges(source, data=True) if d["type"] == "REFERENCES"}
    dto, order = "cs:Shop.Domain.OrderDto|TYPE", "cs:Shop.Domain.Order|TYPE"
    profile = references("cs:Shop.App.OrderProfile.OrderProfile|METHOD")
    assert set(profile) == {order, dto, "cs:Shop.Domain.Order.Id|PROPERTY", "cs:Shop.Domain.OrderDto.Id|PROPERTY"}
    assert profile[dto]["via"] == "object_mapping"  # the types, and the members `ForMember` names
    between = references(order)
    assert between[dto]["mapped_by"] == "cs:Shop.App.OrderProfile.OrderProfile|METHOD"
    assert set(references("cs:Shop.App.OrderQueries.One|METHOD")) == {dto}
    assert set(references("cs:Shop.App.OrderQueries.All|METHOD")) == {dto}
    assert references("cs:Shop.App.OrderQueries.Other|METHOD") == {}  # not generic: nothing it names
    assert "cs:Shop.Domain.Customer|TYPE" not in references(order)


def test_an_entity_no_mapping_maps_reaches_the_one_table_named_after_it_as_a_guess():
    files = [parse_csharp("Model.cs", """
namespace Store.Catalog;
public class Product { } public class Category { } public class Brand { } public class Widget { }
"""), parse_csharp("Service.cs", """
using Store.Catalog;
namespace Store.Services;
public class CatalogService
{
    private readonly IRepository<Product> _products;
    private readonly IRepository<Category> _categories;
    private readonly IRepository<Brand> _brands;
    private readonly IRepository<Widget> _widgets;
    public void Add(Product p) => _products.Add(p);
    public object All() => _categories.Query();
    public object Brands() => _brands.Query();
    public object Widgets() => _widgets.Query();
}
"""), parse_sql("db/schema.sql", '''
CREATE TABLE Catalog_Product (Id INT);
CREATE TABLE dbo.Categories (Id INT);
CREATE TABLE dbo.Brand (Id INT);
CREATE TABLE sales.Brand (Id INT);
''', "tsql")]
    graph, _ = build_graph(files)
    add = tables(graph, "Store.Services.CatalogService.Add", "WRITES")
    assert set(add) == {"sql:dbo.Catalog_Product|TABLE"} and add["sql:dbo.Catalog_Product|TABLE"]["guess"] is True
    assert set(tables(graph, "Store.Services.CatalogService.All", "READS")) == {"sql:dbo.Categories|TABLE"}
    assert tables(graph, "Store.Services.CatalogService.Brands", "READS") == {}  # two tables named Brand: no answer
    assert tables(graph, "Store.Services.CatalogService.Widgets", "READS") == {}
    # the entity maps to the table it reaches by name (a guess), so its properties name its columns
    maps = {t: d for _, t, k, d in graph.out_edges("cs:Store.Catalog.Product|TYPE", keys=True, data=True) if k == "MAPS_TO"}
    assert set(maps) == {"sql:dbo.Catalog_Product|TABLE"}
    assert maps["sql:dbo.Catalog_Product|TABLE"]["via"] == "table_by_name" and maps["sql:dbo.Catalog_Product|TABLE"]["guess"]
    assert not [t for _, t, k in graph.out_edges("cs:Store.Catalog.Brand|TYPE", keys=True) if k == "MAPS_TO"]


def test_a_specification_and_include_read_the_root_and_the_navigations_tables():
    graph = build({"Model2.cs": """
namespace Shop.Domain;
public class Basket { public int Id { get; set; } public List<OrderLine> Lines { get; set; } public Customer Buyer { get; set; } }
""", "Specs.cs": """
using Ardalis.Specification;
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class OrderWithLines : Specification<Order>
{
    public OrderWithLines(int id) { Query.Where(o => o.Id == id); }
}
public class BasketQueries
{
    private readonly IRepository<Basket> _baskets;
    private readonly IShopContext _context;
    public object Full() => _baskets.ListAsync(new OrderWithLines(1));
    public object Customers() => _context.Customers.Include(c => c.Id).ToList();
}
public class BasketWithLines : Specification<Basket>
{
    public BasketWithLines() { Query.Include(b => b.Lines).Include(b => b.Buyer); }
}
"""}, )
    assert set(tables(graph, "Shop.App.OrderWithLines.OrderWithLines", "READS")) == {ORDERS}
    assert set(tables(graph, "Shop.App.BasketWithLines.BasketWithLines", "READS")) == {LINES, CUSTOMERS}
    assert set(tables(graph, "Shop.App.BasketQueries.Customers", "READS")) == {CUSTOMERS}  # Id is no navigation


def test_a_message_type_outside_the_index_is_matched_by_its_qualified_name_as_a_guess():
    graph = build({"Job.cs": """
using NServiceBus;
using Shop.Messages.Commands;
namespace Shop.Jobs;
public class ImportJob
{
    public Task Run(IMessageSession session) => session.Send(new ImportOrders(1));
}
""", "Handlers.cs": """
using NServiceBus;
using Shop.Messages.Commands;
namespace Shop.Handlers;
public class ImportOrdersHandler : IHandleMessages<ImportOrders>
{
    public Task Handle(ImportOrders message, IMessageHandlerContext context) => Task.CompletedTask;
}
public class OtherImportHandler : IHandleMessages<Other.ImportOrders>
{
    public Task Handle(Other.ImportOrders message, IMessageHandlerContext context) => Task.CompletedTask;
}
"""})
    sent = calls(graph, "Shop.Jobs.ImportJob.Run")
    handler = "cs:Shop.Handlers.ImportOrdersHandler.Handle|METHOD"
    assert set(sent) == {handler} and sent[handler]["guess"] is True
    assert sent[handler]["message"] == "?Shop.Messages.Commands.ImportOrders"


def test_an_entity_loaded_changed_and_saved_is_written_as_a_guess_and_a_stated_write_stays_stated():
    graph = build({"Handlers.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class OrderHandlers
{
    private readonly IShopContext _context;
    public async Task Rename(int id, int total, CancellationToken token)
    {
        var order = await _context.Orders.FindAsync(id);
        order.Total = total;
        await _context.SaveChangesAsync(token);
    }
    public async Task Remove(int id, CancellationToken token)
    {
        var order = await _context.Orders.FindAsync(id);
        _context.Orders.Remove(order);
        await _context.SaveChangesAsync(token);
    }
    public Task<Order?> Read(int id) => _context.Orders.FindAsync(id).AsTask();
}
"""})
    renamed = tables(graph, "Shop.App.OrderHandlers.Rename", "WRITES")
    assert renamed[ORDERS]["via"] == "change_tracking" and renamed[ORDERS]["guess"] is True
    removed = tables(graph, "Shop.App.OrderHandlers.Remove", "WRITES")
    assert removed[ORDERS]["member"] == "Remove" and "guess" not in removed[ORDERS]
    assert tables(graph, "Shop.App.OrderHandlers.Read", "WRITES") == {}  # nothing saved: a read only


def test_writing_an_aggregate_writes_the_entities_it_holds_in_collections_as_a_guess():
    files = [parse_csharp("Shop.cs", """
using Microsoft.EntityFrameworkCore;
namespace Shop;
public class Order { public int Id { get; set; } public ICollection<OrderItem> Items { get; set; } public List<string> Notes { get; set; } }
public class OrderItem { public int Id { get; set; } }
public class ShopContext : DbContext { public DbSet<Order> Orders { get; set; } public DbSet<OrderItem> OrderItems { get; set; } }
public class Checkout
{
    private readonly ShopContext _db;
    public void Place(Order order) => _db.Orders.Add(order);
    public object Show(int id) => _db.Orders.Find(id);
}
"""), parse_sql("db.sql", "CREATE TABLE dbo.Orders (Id INT); CREATE TABLE dbo.OrderItems (Id INT);", "tsql")]
    graph, _ = build_graph(files)
    place = tables(graph, "Shop.Checkout.Place", "WRITES")
    assert set(place) == {"sql:dbo.Orders|TABLE", "sql:dbo.OrderItems|TABLE"}
    items = place["sql:dbo.OrderItems|TABLE"]
    assert items["via"] == "aggregate" and items["guess"] is True and items["navigation"] == "Items"
    assert "guess" not in place["sql:dbo.Orders|TABLE"]
    assert set(tables(graph, "Shop.Checkout.Show", "READS")) == {"sql:dbo.Orders|TABLE"}  # a read reads the root only


DOMAIN = """
namespace Shop.Domain;
public class Basket { public void AddLine(int sku) { } public void Close() { } }
public class Invoice { public void Close() { } public void Void() { } }
"""


def test_what_a_generic_carrier_returns_is_read_as_its_type_argument_for_the_next_call():
    graph = build({"Domain.cs": DOMAIN, "Repository.cs": """
using Shop.Domain;
namespace Shop.Data;
public interface IStore<T> { T Get(int id); }
""", "Service.cs": """
using Ardalis.Specification;
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class BasketService
{
    private readonly IRepositoryBase<Basket> _baskets;
    private readonly IStore<Invoice> _invoices;
    public async Task Add(int id, int sku)
    {
        var basket = await _baskets.FirstOrDefaultAsync(id);
        basket.AddLine(sku);
    }
    public void VoidOne(int id)
    {
        var invoice = _invoices.Get(id);
        invoice.Void();
    }
    public async Task Unknown(int id)
    {
        var basket = await _baskets.FirstOrDefaultAsync(id);
        basket.Refresh();
    }
}
"""})
    added = calls(graph, "Shop.App.BasketService.Add")
    line = "cs:Shop.Domain.Basket.AddLine|METHOD"
    # a library's method: its result is read as the type argument, and the edge says it is a guess
    assert added[line]["resolution"] == "inferred" and added[line]["via"] == "type_argument"
    assert added[line]["guess"] is True
    assert "cs:Shop.Domain.Invoice.Close|METHOD" not in added and "cs:Shop.Domain.Basket.Close|METHOD" not in added
    # a type parameter declared here binds to the argument: inferred, no guess
    voided = calls(graph, "Shop.App.BasketService.VoidOne")
    assert voided["cs:Shop.Domain.Invoice.Void|METHOD"]["via"] == "type_argument"
    assert "guess" not in voided["cs:Shop.Domain.Invoice.Void|METHOD"]
    # a member the type argument does not declare is linked to nothing
    assert not [t for t in calls(graph, "Shop.App.BasketService.Unknown") if "Shop.Domain" in t]


def test_only_a_returned_type_parameter_or_an_entity_getter_binds_the_type_argument():
    graph = build({"Domain.cs": DOMAIN + "public class BasketDto { public void Close() { } }", "Store.cs": """
using Shop.Domain;
namespace Shop.Data;
public interface IStore<T> { int Count(); T Get(int id); TDto Project<TDto>(int id); }
""", "Service.cs": """
using Microsoft.Extensions.Logging;
using Ardalis.Specification;
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class Checks
{
    private readonly IStore<Basket> _store;
    private readonly IRepositoryBase<Basket> _baskets;
    private readonly ILogger<Basket> _log;
    public void Counted() { var n = _store.Count(); n.Close(); }
    public void Projected() { var dto = _store.Project<BasketDto>(1); dto.Close(); }
    public void Logged() { var scope = _log.BeginScope("x"); scope.Close(); }
    public async Task Counted2() { var n = await _baskets.CountAsync(); n.Close(); }
    public void Got() { var basket = _store.Get(1); basket.Close(); }
}
"""})
    close = "cs:Shop.Domain.Basket.Close|METHOD"
    for method in ("Counted", "Projected", "Logged", "Counted2"):  # an int, the method's own T, a library's scope
        assert close not in calls(graph, f"Shop.App.Checks.{method}"), method
    assert calls(graph, "Shop.App.Checks.Got")[close]["via"] == "type_argument"


def test_changing_a_member_of_a_loaded_entity_writes_its_table_whoever_saves_later():
    graph = build({"Handlers.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class RenameCustomer
{
    private readonly ShopContext _db;
    public async Task Handle(int id, string name)
    {
        var customer = await _db.Customers.FindAsync(id);
        customer.Name = name;
    }
    public async Task<string> Show(int id)
    {
        var customer = await _db.Customers.FindAsync(id);
        var shown = new OrderDto();
        shown.Id = customer.Id;
        return customer.Name;
    }
    public async Task Rename(int id, string name)
    {
        var customer = await _db.Customers.FindAsync(id) ?? throw new InvalidOperationException();
        customer.Name = name;
    }
    public async Task<OrderDto> Project(int id)
    {
        var row = await _db.Orders.Where(o => o.Id == id).Select(o => new OrderDto { Id = o.Id }).FirstAsync();
        row.Id = 0;
        var untracked = await _db.Customers.AsNoTracking().FirstAsync(c => c.Id == id);
        untracked.Name = "";
        return row;
    }
}
"""})
    writes = tables(graph, "Shop.App.RenameCustomer.Handle", "WRITES")
    assert set(writes) == {CUSTOMERS}
    assert writes[CUSTOMERS]["via"] == "change_tracking" and writes[CUSTOMERS]["guess"] is True
    # reading the loaded entity, or changing another object, writes nothing
    assert tables(graph, "Shop.App.RenameCustomer.Show", "WRITES") == {}
    assert set(tables(graph, "Shop.App.RenameCustomer.Show", "READS")) == {CUSTOMERS}
    # kept under `?? throw`, the loaded entity is still the one changed
    assert set(tables(graph, "Shop.App.RenameCustomer.Rename", "WRITES")) == {CUSTOMERS}
    # a projection is no tracked entity, nor are rows read untracked
    assert tables(graph, "Shop.App.RenameCustomer.Project", "WRITES") == {}


def test_adding_to_an_entitys_collection_writes_what_is_added_and_a_local_list_writes_nothing():
    model = MODEL.replace("public class Order { public int Id { get; set; } public int Total { get; set; } }",
                          "public class Order { public int Id { get; set; } public int Total { get; set; } "
                          "public ICollection<OrderLine> Lines { get; set; } }")
    graph = build({"Model.cs": model, "Handlers.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class AddLine
{
    private readonly ShopContext _db;
    public async Task Handle(int id)
    {
        var order = await _db.Orders.FindAsync(id);
        order.Lines.Add(new OrderLine());
    }
    public List<OrderLine> Draft()
    {
        var lines = new List<OrderLine>();
        lines.Add(new OrderLine());
        return lines;
    }
}
"""})
    written = tables(graph, "Shop.App.AddLine.Handle", "WRITES")
    assert written[LINES]["via"] == "navigation" and written[LINES]["guess"] is True
    assert tables(graph, "Shop.App.AddLine.Draft", "WRITES") == {}


def test_an_entry_point_says_who_may_call_it_from_authorize_on_the_action_or_its_type():
    graph = build({"Admin.cs": """
namespace Shop.Web;
[Authorize(Roles = "Admin, Auditor")]
public class ReportsController : Controller
{
    [HttpPost]
    [Authorize("CanExport")]
    public IActionResult Export(int id) => Ok();
    [AllowAnonymous]
    public IActionResult Public() => Ok();
}
public class PostsController : Controller
{
    [HttpPost]
    [Authorize(Roles = "Moderator")]
    public IActionResult Edit(int id) => Ok();
    [Authorize(Policy = "Writers")]
    public IActionResult Draft() => Ok();
    public IActionResult Index() => Ok();
    [Authorize(Roles = "Moderator")]
    private void NotAnEntry() { }
}
"""})
    web = "Shop.Web.{}".format
    assert entry(graph, web("ReportsController.Export")) == {"verb": "POST", "kind": "action",
                                                             "who": ["CanExport", "Admin", "Auditor"]}
    assert entry(graph, web("ReportsController.Public")) == {"verb": "ANY", "kind": "action"}
    assert entry(graph, web("PostsController.Edit"))["who"] == ["Moderator"]
    assert entry(graph, web("PostsController.Draft"))["who"] == ["Writers"]
    assert "who" not in entry(graph, web("PostsController.Index"))
    assert entry(graph, web("PostsController.NotAnEntry")) is None


def test_a_generic_method_returning_its_type_parameter_returns_the_calls_type_argument():
    graph = build({"Blog.cs": """
namespace Blog;
public interface IRepository { TEntity Get<TEntity>(object id); TEntity Find<TEntity>(object id); void Add(object entity); }
public class Entry { public void Revise() { } public void Add() { } }
public class Tag { public void Add(Entry entry) { } }
public class Editor
{
    private readonly IRepository _repository;
    public void Save(int id, int tagId)
    {
        var entry = _repository.Get<Entry>(id);
        entry.Revise();
        var tag = _repository.Get<Tag>(tagId);
        tag.Add(entry);
        var unknown = _repository.Find(id);
        unknown.Revise();
    }
}
"""})
    calls = {target for _, target, key in graph.out_edges("cs:Blog.Editor.Save|METHOD", keys=True) if key == "CALLS"}
    assert {"cs:Blog.Entry.Revise|METHOD", "cs:Blog.Tag.Add|METHOD"} <= calls
    assert "cs:Blog.Entry.Add|METHOD" not in calls  # the Tag's Add, by the type argument, not the Entry's
    revise_sites = [data["line"] for _, target, key, data in graph.out_edges("cs:Blog.Editor.Save|METHOD", keys=True, data=True)
                    if key == "CALLS" and target == "cs:Blog.Entry.Revise|METHOD"]
    assert revise_sites == [12]  # `Find(id)` without a type argument types nothing


def test_a_method_forwarding_its_untyped_parameter_to_an_orm_write_writes_what_its_callers_pass():
    graph = build({"Repo.cs": """
using Shop.Domain;
namespace Shop.Data;
public interface IRepository { void Add(object entity); TEntity Get<TEntity>(object id); }
public class SessionRepository : IRepository
{
    private readonly ISession _session;
    public void Add(object entity) { _session.Persist(entity); }
    public TEntity Get<TEntity>(object id) => _session.Get<TEntity>(id);
}
public class Checkout
{
    private readonly IRepository _repository;
    public void Place(int id)
    {
        var order = _repository.Get<Order>(id);
        _repository.Add(order);
        _repository.Add(new Customer());
    }
    public void Note(OrderDto dto) { _repository.Add(dto); }
}
"""})
    writes = tables(graph, "Shop.Data.Checkout.Place", "WRITES")
    assert set(writes) == {ORDERS, CUSTOMERS}
    assert writes[ORDERS]["via"] == "forwarded" and writes[ORDERS]["forwarder"] == "cs:Shop.Data.SessionRepository.Add|METHOD"
    assert tables(graph, "Shop.Data.Checkout.Note", "WRITES") == {}  # a DTO maps to no table
    assert tables(graph, "Shop.Data.SessionRepository.Add", "WRITES") == {}  # `object` names no table


def test_a_flow_through_a_forwarded_write_names_the_forwarding_method_as_its_carrier():
    from ragstream.graph.answers import answer_from_graph

    graph = build({"Repo.cs": """
using Shop.Domain;
namespace Shop.Data;
public interface IRepository { void Add(object entity); }
public class SessionRepository : IRepository
{
    private readonly ISession _session;
    public void Add(object entity) { _session.Persist(entity); }
}
public class CheckoutController : Controller
{
    private readonly IRepository _repository;
    [HttpPost]
    public void Place(int total) { _repository.Add(new Order { Total = total }); }
}
"""})
    answer = answer_from_graph(graph, "How is an order saved, from the controller down to the tables?", [],
                               ["cs:Shop.Data.CheckoutController.Place|METHOD"], lambda ids: {})
    assert answer is not None and answer.paths[0].nodes[-1] == ORDERS
    assert "cs:Shop.Data.SessionRepository.Add|METHOD" in {c.id for c in answer.carriers}


def test_an_orm_write_says_how_it_writes_by_its_verb():
    from ragstream.graph.relations import written_as

    graph = build({"Orders.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class Orders
{
    private readonly ShopContext _db;
    public void Place(Order order) { _db.Orders.Add(order); }
    public void Cancel(Order order) { _db.Orders.Remove(order); }
    public void Fix(Order order) { _db.Orders.Update(order); }
}
"""})
    how = {m: written_as(graph, f"cs:Shop.App.Orders.{m}|METHOD", ORDERS) for m in ("Place", "Cancel", "Fix")}
    assert how == {"Place": {"INSERT"}, "Cancel": {"DELETE"}, "Fix": {"UPDATE"}}


def test_an_entity_a_repository_hands_back_and_the_method_saves_is_written():
    """`repository.Query().FirstOrDefaultAsync(...)` hands back a tracked entity; the method that
    changes it and saves the unit of work (through any repository) writes its table, a guess.
    A method that does not save writes nothing, nor does one that reads without loading."""
    graph = build({"Repo.cs": """
using Shop.Domain;
namespace Shop.Data;
public interface IRepository<T> where T : class
{
    IQueryable<T> Query();
    Task<int> GetCountAsync();
    void Add(T entity);
    Task SaveChangesAsync();
}
""", "Service.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class CustomerService
{
    private readonly IRepository<Customer> _customers;
    private readonly IRepository<OrderLine> _lines;
    public async Task Rename(int id, string name)
    {
        var customer = await _customers.Query().FirstOrDefaultAsync(c => c.Id == id);
        customer.Name = name;
        _lines.Add(new OrderLine());
        await _lines.SaveChangesAsync();
    }
    public async Task<string> Show(int id)
    {
        var customer = await _customers.Query().FirstOrDefaultAsync(c => c.Id == id);
        return customer.Name;
    }
    public async Task Count()
    {
        var known = await _customers.GetCountAsync();
        _lines.Add(new OrderLine());
        await _lines.SaveChangesAsync();
    }
}
"""})
    # a count hands back no entity: nothing of the customers is tracked, whatever is saved after
    assert set(tables(graph, "Shop.App.CustomerService.Count", "WRITES")) == {LINES}
    writes = tables(graph, "Shop.App.CustomerService.Rename", "WRITES")
    assert set(writes) == {CUSTOMERS, LINES}
    assert writes[CUSTOMERS]["via"] == "change_tracking" and writes[CUSTOMERS]["guess"] is True
    assert writes[LINES]["via"] == "type_argument"
    assert tables(graph, "Shop.App.CustomerService.Show", "WRITES") == {}
    assert set(tables(graph, "Shop.App.CustomerService.Show", "READS")) == {CUSTOMERS}


def test_a_method_handing_out_an_orm_table_reads_it_and_a_write_of_a_foreach_element_writes_its_table():
    """`return session.Query<Customer>();` reads the customers (its caller runs the query); a chained
    `Set<Customer>().Add(c)` only writes; `foreach (var c in customers) session.SaveOrUpdate(c)` writes
    the element's table, and passing a string writes nothing."""
    graph = build({"Mappings.cs": """
using FluentNHibernate.Mapping;
using Shop.Domain;
namespace Shop.Data.Mappings;
public class CustomerMapping : ClassMap<Customer>
{
    public CustomerMapping() { Table("Customers"); Id(x => x.Id); }
}
""", "Store.cs": """
using System.Collections.Generic;
using Microsoft.EntityFrameworkCore;
using NHibernate;
using Shop.Domain;
namespace Shop.Data;
public class CustomerStore
{
    private readonly ISession session;
    private readonly DbContext db;
    public IQueryable<Customer> All() { return session.Query<Customer>(); }
    public void Add(Customer customer) => db.Set<Customer>().Add(customer);
    public void SaveAll(IEnumerable<Customer> customers) { foreach (var customer in customers) { session.SaveOrUpdate(customer); } session.Flush(); }
    public void SaveNames(IEnumerable<string> names) { foreach (var name in names) { session.SaveOrUpdate(name); } }
}
"""})
    store = "Shop.Data.CustomerStore."
    assert set(tables(graph, store + "All", "READS")) == {CUSTOMERS} and tables(graph, store + "All", "WRITES") == {}
    assert set(tables(graph, store + "Add", "WRITES")) == {CUSTOMERS} and tables(graph, store + "Add", "READS") == {}
    saved = tables(graph, store + "SaveAll", "WRITES")
    assert set(saved) == {CUSTOMERS} and saved[CUSTOMERS]["member"] == "SaveOrUpdate"
    assert tables(graph, store + "SaveNames", "WRITES") == {}


def test_a_projection_reads_the_tables_of_the_navigations_its_type_names():
    """AutoMapper's `ProjectTo<Model>` over customers joins the orders when `Model` holds
    `Orders` (or flattens `OrdersCount`): a guess; a projection naming no navigation reads only
    the customers, and a property of an unmapped type (an enum) reaches no table."""
    model = """
namespace Shop.Domain;
public class Order { public int Id { get; set; } public int Total { get; set; } }
public class Customer { public int Id { get; set; } public string Name { get; set; } public ICollection<Order> Orders { get; set; } public Grade Grade { get; set; } }
public enum Grade { A, B }
public class OrderLine { public int Id { get; set; } public int OrderId { get; set; } }
"""
    graph = build({"Model.cs": model, "Pages.cs": """
using AutoMapper;
using AutoMapper.QueryableExtensions;
using Shop.Data;
using Shop.Domain;
namespace Shop.Pages;
public class Details
{
    public record Model { public int Id { get; init; } public List<OrderRow> Orders { get; init; } }
    public record Summary { public int Id { get; init; } public int OrdersCount { get; init; } }
    public record Plain { public int Id { get; init; } public string Name { get; init; } public Grade Grade { get; init; } }
    public record OrderRow { public int Total { get; init; } }
    public class Handler
    {
        private readonly ShopContext _db; private readonly IConfigurationProvider _configuration;
        public Task<Model> Handle(int id) => _db.Customers.Where(c => c.Id == id).ProjectTo<Model>(_configuration).SingleOrDefaultAsync();
        public Task<List<Summary>> Counts() => _db.Customers.ProjectTo<Summary>(_configuration).ToListAsync();
        public Task<List<Plain>> Names() => _db.Customers.ProjectTo<Plain>(_configuration).ToListAsync();
    }
}
"""})
    handler = "Shop.Pages.Details.Handler."
    read = tables(graph, handler + "Handle", "READS")
    assert set(read) == {CUSTOMERS, ORDERS} and read[ORDERS]["guess"] is True and "guess" not in read[CUSTOMERS]
    assert set(tables(graph, handler + "Counts", "READS")) == {CUSTOMERS, ORDERS}
    assert set(tables(graph, handler + "Names", "READS")) == {CUSTOMERS}


def test_a_member_inherited_from_a_generic_repository_base_carries_its_entity():
    """`_orders.Query()` on an `IOrderRepository : IRepository<Order>` reads the orders (the base
    declares `Query`); the repository's own `Recent()` does its access in its body (no edge from
    the caller), and an inherited member that is no data verb touches nothing."""
    graph = build({"Repositories.cs": """
using Shop.Domain;
namespace Shop.Data;
public interface IRepository<T> { IQueryable<T> Query(); void Add(T entity); string Describe(); }
public interface IAuditLog { IList<string> GetAuditTrail(); }
public interface IOrderRepository : IRepository<Order>, IAuditLog { IList<Order> Recent(); }
""", "Handlers.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class OrderReports
{
    private readonly IOrderRepository _orders;
    public int Count() => _orders.Query().Count();
    public void Add(Order order) => _orders.Add(order);
    public IList<Order> Recent() => _orders.Recent();
    public string Describe() => _orders.Describe();
    public IList<string> Trail() => _orders.GetAuditTrail();
}
"""})
    reports = "Shop.App.OrderReports."
    read = tables(graph, reports + "Count", "READS")
    assert set(read) == {ORDERS} and read[ORDERS]["carrier"] == "IRepository"
    assert set(tables(graph, reports + "Add", "WRITES")) == {ORDERS}
    for method in ("Recent", "Describe", "Trail"):  # `Trail`: a member of another base, no data verb
        assert tables(graph, reports + method, "READS") == {} and tables(graph, reports + method, "WRITES") == {}


UNIT_OF_WORK = """
using Microsoft.EntityFrameworkCore;
using Shop.Data;
using Shop.Domain;
namespace Shop.Repositories;
public interface IRepositoryAsync<T, TId> where T : class
{
    IQueryable<T> Entities { get; }
    Task<T> AddAsync(T entity);
    Task<T> GetByIdAsync(TId id);
}
public interface IUnitOfWork<TId>
{
    IRepositoryAsync<TEntity, TId> Repository<TEntity>() where TEntity : class;
    Task<int> Commit(CancellationToken token);
}
public class RepositoryAsync<T, TId> : IRepositoryAsync<T, TId> where T : class
{
    private readonly ShopContext _db;
    public IQueryable<T> Entities => _db.Set<T>();
    public async Task<T> AddAsync(T entity) { await _db.Set<T>().AddAsync(entity); return entity; }
    public async Task<T> GetByIdAsync(TId id) => await _db.Set<T>().FindAsync(id);
}
public class OrderChecks
{
    private readonly IRepositoryAsync<Order, int> _orders;
    public Task<bool> AnyOver(int total) => _orders.Entities.AnyAsync(o => o.Total > total);
}
public class PlaceOrderHandler
{
    private readonly IUnitOfWork<int> _unitOfWork;
    public async Task<int> Handle(Order order, CancellationToken token)
    {
        if (await _unitOfWork.Repository<Customer>().Entities.Where(c => c.Id == 1).AnyAsync())
        {
            await _unitOfWork.Repository<Order>().AddAsync(order);
        }
        return await _unitOfWork.Commit(token);
    }
}
"""


def test_a_generic_method_returning_a_generic_of_its_type_parameter_carries_the_calls_type_argument():
    # `_unitOfWork.Repository<Order>().AddAsync(order)`: `Repository<TEntity>()` returns
    # `IRepositoryAsync<TEntity, TId>`, so the write reaches Orders; `.Entities` of it (an
    # `IQueryable<T>` of the repository's own type parameter) reads Customers, not Orders
    graph = build({"UnitOfWork.cs": UNIT_OF_WORK})
    writes = tables(graph, "Shop.Repositories.PlaceOrderHandler.Handle", "WRITES")
    reads = tables(graph, "Shop.Repositories.PlaceOrderHandler.Handle", "READS")
    assert writes[ORDERS]["via"] == "type_argument" and writes[ORDERS]["member"] == "AddAsync"
    assert writes[ORDERS]["carrier"] == "IRepositoryAsync" and "guess" not in writes[ORDERS]
    # the Customers query in a method that saves is at most change tracking's guess
    assert CUSTOMERS not in writes or writes[CUSTOMERS].get("guess")
    assert CUSTOMERS in reads and ORDERS not in reads
    # a property of a generic variable binds the variable's type argument: Orders, read
    assert set(tables(graph, "Shop.Repositories.OrderChecks.AnyOver", "READS")) == {ORDERS}
    # the repository's own body names no entity: no table, and `_db.Set<T>().AddAsync` (a
    # library's DbSet) is not the repository's own AddAsync by name
    assert not tables(graph, "Shop.Repositories.RepositoryAsync.AddAsync", "WRITES")
    assert "cs:Shop.Repositories.IRepositoryAsync.AddAsync|METHOD" not in \
        {t for _, t, k in graph.out_edges("cs:Shop.Repositories.RepositoryAsync.AddAsync|METHOD", keys=True) if k == "CALLS"}


def test_values_a_call_returned_passed_on_as_arguments_parse_without_recursing_forever():
    # `var (x, y) = Compute(a.ToDict(), ...)`, then calls on `x` whose arguments name `x` again:
    # each walk is bounded by one depth (an argument used to start it again at zero)
    graph = build({"Expirer.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class Expirer
{
    private readonly IShopContext _context;
    private readonly ICalc _calc;
    public async Task Run(int total)
    {
        var a = await _context.Orders.Where(o => o.Total > total).ToListAsync();
        var b = await _context.Customers.ToListAsync();
        var (x, y) = _calc.Compute(a.ToDict(), b.ToDict(), a.Where(o => o.Id == 5).ToDict());
        if (!x.ContainsKey(1)) { x.Add(1, 0); }
        _calc.Create(total, x.ToList(), y.ToList());
    }
}
"""})
    assert {ORDERS, CUSTOMERS} <= set(tables(graph, "Shop.App.Expirer.Run", "READS"))


ENTRY_STATES = """
using Microsoft.EntityFrameworkCore;
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class OrderStore
{
    private readonly IDbContextFactory<ShopContext> _factory;
    public OrderStore(IDbContextFactory<ShopContext> factory) { _factory = factory; }
    public Order UpdateOrder(Order order)
    {
        using var db = _factory.CreateDbContext();
        db.Entry(order).State = EntityState.Modified;
        db.SaveChanges();
        return order;
    }
    public void DeleteCustomer(ShopContext db, Customer customer)
    {
        db.Entry(customer).State = Microsoft.EntityFrameworkCore.EntityState.Deleted;
        db.SaveChanges();
    }
    public List<Order> Big()
    {
        using var db = _factory.CreateDbContext();
        return db.Orders.Where(o => o.Total > 100).AsNoTracking().ToList();
    }
    public void Detach(ShopContext db, Order order) { db.Entry(order).State = EntityState.Detached; }
    public bool IsChanged(ShopContext db, Order order) => db.Entry(order).State == EntityState.Modified;
}
"""


def test_setting_a_written_entity_state_on_an_entry_writes_that_entitys_table():
    graph = build({"Store.cs": ENTRY_STATES})
    update = tables(graph, "Shop.App.OrderStore.UpdateOrder", "WRITES")
    assert set(update) == {ORDERS}  # the entry's entity, not another of the context's tables
    assert update[ORDERS]["member"] == "Entry" and update[ORDERS]["state"] == "Modified"
    assert set(tables(graph, "Shop.App.OrderStore.DeleteCustomer", "WRITES")) == {CUSTOMERS}


def test_an_entity_state_that_saves_nothing_or_is_only_compared_writes_no_table():
    graph = build({"Store.cs": ENTRY_STATES})
    assert tables(graph, "Shop.App.OrderStore.Detach", "WRITES") == {}
    assert tables(graph, "Shop.App.OrderStore.IsChanged", "WRITES") == {}


def test_a_service_the_container_locates_is_called_through_its_type_argument():
    graph = build({"Job.cs": """
using Microsoft.Extensions.DependencyInjection;
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public interface IOrderRepository { void AddOrder(Order order); }
public class OrderRepository : IOrderRepository
{
    private readonly ShopContext _db;
    public OrderRepository(ShopContext db) { _db = db; }
    public void AddOrder(Order order) { _db.Orders.Add(order); }
}
public interface ICustomerRepository { void AddOrder(Order order); }
public class PurgeJob
{
    public void Run(IServiceProvider provider)
    {
        var orders = provider.GetRequiredService<IOrderRepository>();
        orders.AddOrder(new Order());
    }
    public void Unknown(IServiceProvider provider) { provider.GetServices<IOrderRepository>().AddOrder(new Order()); }
}
"""})
    calls = {t: d for _, t, d in graph.out_edges("cs:Shop.App.PurgeJob.Run|METHOD", data=True) if d["type"] == "CALLS"}
    assert calls["cs:Shop.App.IOrderRepository.AddOrder|METHOD"]["via"] == "service_locator"
    assert "cs:Shop.App.OrderRepository.AddOrder|METHOD" in calls  # dispatched to the one implementer
    assert "cs:Shop.App.ICustomerRepository.AddOrder|METHOD" not in calls  # another service of the same member
    # a locator returning a collection (`GetServices<T>`) is not read as the service itself
    assert not [t for _, t, d in graph.out_edges("cs:Shop.App.PurgeJob.Unknown|METHOD", data=True)
                if d["type"] == "CALLS" and "AddOrder" in t]


def test_a_context_a_factory_creates_reads_its_tables_through_its_dbsets():
    """`using var db = _factory.CreateDbContext()` on an `IDbContextFactory<ShopContext>`: the
    context is the factory's type argument, so a query on its DbSet reads that set's table only;
    a `Create...` of a generic that is no factory types nothing."""
    graph = build({"Store.cs": ENTRY_STATES, "Cache.cs": """
using Shop.Data;
namespace Shop.App;
public class Warm
{
    private readonly ICache<ShopContext> _cache;
    public Warm(ICache<ShopContext> cache) { _cache = cache; }
    public int Count() { var db = _cache.CreateEntry(); return db.Customers.Count(); }
}
"""})
    reads = tables(graph, "Shop.App.OrderStore.Big", "READS")
    assert set(reads) == {ORDERS} and reads[ORDERS]["property"] == "cs:Shop.Data.ShopContext.Orders|PROPERTY"
    # a library's `ICache<ShopContext>` is no factory: what its `CreateEntry` returns is not known
    assert tables(graph, "Shop.App.Warm.Count", "READS") == {}


def test_an_extension_method_the_repository_declares_is_no_verb_of_its_receivers_entity():
    graph = build({"Process.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.Pipeline;
public interface IProcess<T> { T Entity { get; } bool Successful { get; } }
public interface IQueue<T> { void Add(T item); }
public static class ProcessExtensions
{
    public static void AddError<T>(this IProcess<T> process, string message) { }
}
public class OrderPipe
{
    private readonly ShopContext _db;
    private readonly IQueue<Order> _queue;
    public void Fail(IProcess<Order> input) => input.AddError("no stock");
    public void Save(IProcess<Order> input) => _db.Orders.Add(input.Entity);
    public void Enqueue(Order order) => _queue.Add(order);
}
"""})
    # `input.AddError(..)` binds to the static extension method: no write of Orders
    assert tables(graph, "Shop.Pipeline.OrderPipe.Fail", "WRITES") == {}
    assert graph.has_edge("cs:Shop.Pipeline.OrderPipe.Fail|METHOD", "cs:Shop.Pipeline.ProcessExtensions.AddError|METHOD")
    # a member of the generic type itself still says its verb, and the DbSet's write stays
    assert set(tables(graph, "Shop.Pipeline.OrderPipe.Enqueue", "WRITES")) == {ORDERS}
    assert set(tables(graph, "Shop.Pipeline.OrderPipe.Save", "WRITES")) == {ORDERS}


def test_a_table_s_stated_writers_come_before_those_guessed_from_an_aggregate():
    files = [parse_csharp("Shop.cs", """
using Microsoft.EntityFrameworkCore;
namespace Shop;
public class Order { public int Id { get; set; } public ICollection<OrderItem> Items { get; set; } }
public class OrderItem { public int Id { get; set; } }
public class ShopContext : DbContext { public DbSet<Order> Orders { get; set; } public DbSet<OrderItem> OrderItems { get; set; } }
public class Checkout
{
    private readonly ShopContext _db;
    public void Place(Order order) => _db.Orders.Add(order);
    public void AddItem(OrderItem item) => _db.OrderItems.Add(item);
}
"""), parse_sql("db.sql", "CREATE TABLE dbo.Orders (Id INT); CREATE TABLE dbo.OrderItems (Id INT);", "tsql")]
    graph, _ = build_graph(files)
    items = related(graph, named_node(graph, "sql:dbo.OrderItems|TABLE", "table"), ("WRITES",))
    place, add = "cs:Shop.Checkout.Place|METHOD", "cs:Shop.Checkout.AddItem|METHOD"
    # the search ranked the aggregate's writer first; the stated writer still leads
    ranked = [item.id for item in by_relevance(graph, items, ["item"], ("WRITES",), [place, add])]
    assert ranked[:2] == [add, place]


def test_raw_sql_on_a_table_only_the_ef_model_makes_reaches_that_table():
    """Dapper beside EF Core on a database the model creates (SQLite, `EnsureCreated`/model
    migrations): `UPDATE Customers` means the model's table, not an outside name; a name the
    model has no table for, or a table of another schema, stays outside."""
    files = [parse_csharp("Model.cs", MODEL), parse_csharp("Context.cs", CONTEXT), parse_csharp("Repo.cs", """
using System.Data;
using Dapper;
namespace Shop.Data;
public class CustomerRepository
{
    private readonly IDbConnection _db;
    public Task Rename(int id) => _db.ExecuteAsync("UPDATE customers SET Name = 'x' WHERE Id = @id", new { id });
    public Task<IEnumerable<int>> Tagged() => _db.QueryAsync<int>("SELECT T.Id FROM Tag T INNER JOIN audit.Customers A ON A.Id = T.Id");
}
""")]
    graph, _ = build_graph(files)
    customers = "sql:dbo.Customers|TABLE"
    writes = tables(graph, "Shop.Data.CustomerRepository.Rename", "WRITES")
    assert set(writes) == {customers}
    assert writes[customers]["resolution"] == "inferred" and writes[customers]["table_via"] == "ef_model"
    reads = tables(graph, "Shop.Data.CustomerRepository.Tagged", "READS")
    assert customers not in reads  # audit.Customers is another schema's table
    assert not [n for n in graph if n.startswith("ext:") and n.lower().startswith("ext:customers")]


def test_a_context_made_by_a_factory_delegate_is_that_context():
    """`using (var db = CreateContext())` on a `Func<ShopContext> CreateContext` property, or a
    `Func<ShopContext>` parameter: the local is a ShopContext, so its DbSets are read and written;
    what an `Action<...>` or an undeclared delegate returns is unknown, and makes no edge."""
    graph = build({"Store.cs": """
using System;
using System.Linq;
using Shop.Data;
using Shop.Domain;
namespace Shop.Services;
public class OrderStore
{
    public Func<ShopContext> CreateContext { get; set; }
    private Action<ShopContext> Configure;
    public void Delete(int id)
    {
        using (var db = CreateContext())
        {
            var order = db.Orders.FirstOrDefault(o => o.Id == id);
            db.Orders.Remove(order);
            db.SaveChanges();
        }
    }
    public int Count(Func<ShopContext> factory) { var db = factory(); return db.Customers.Count(); }
    public void Touch() { var db = Configure(); db.OrderLines.Remove(null); }
}
"""})
    assert ORDERS in tables(graph, "Shop.Services.OrderStore.Delete", "WRITES")
    assert ORDERS in tables(graph, "Shop.Services.OrderStore.Delete", "READS")
    assert CUSTOMERS in tables(graph, "Shop.Services.OrderStore.Count", "READS")
    assert tables(graph, "Shop.Services.OrderStore.Touch", "WRITES") == {}


def test_clearing_a_cache_of_entities_writes_no_table():
    """`ordersCache.Clear()` on a cache typed by the entity empties memory; only a mapped entity's
    navigation cleared deletes rows (`test_ef6_names_a_many_to_many_join_table_...`)."""
    graph = build({"Cache.cs": """
using Shop.Domain;
namespace Shop.Services;
public class PocoCache<TKey, T> { public void Clear() { } public T Get(TKey key) => default; }
public class OrderCache
{
    private readonly PocoCache<int, Order> cache = new PocoCache<int, Order>();
    public void Reset() { cache.Clear(); }
}
"""})
    assert tables(graph, "Shop.Services.OrderCache.Reset", "WRITES") == {}


def test_http_handlers_web_methods_and_hub_methods_are_entry_points():
    """An `.ashx`'s `ProcessRequest(HttpContext)` (any verb), an ASMX `[WebMethod]` (a POST) and a
    SignalR hub's public methods (what a client invokes) are entry points; the same names on a
    type that is no handler or hub, a hub's private or static method, are not."""
    graph = build({"Web.cs": """
using System.Web; using System.Web.Services; using Microsoft.AspNet.SignalR;
namespace Chat.Web
{
    public class Avatar : IHttpHandler
    {
        public void ProcessRequest(HttpContext context) { }
        public bool IsReusable => true;
    }
    public class Export : HttpTaskAsyncHandler
    {
        public override Task ProcessRequestAsync(HttpContext context) => Task.CompletedTask;
    }
    public class Lookup : WebService
    {
        [WebMethod]
        public string Find(string term) => term;
        public string NotExposed(string term) => term;
    }
    public class ChatHub : Hub<IChatClient>
    {
        public void Send(string message) { }
        public Task Join(string room) => Task.CompletedTask;
        private void Log(string text) { }
        public static string Name() => "chat";
    }
    public class Worker
    {
        public void ProcessRequest(HttpContext context) { }
        public void Send(string message) { }
    }
}
"""})
    web = "Chat.Web.{}".format
    assert entry(graph, web("Avatar.ProcessRequest")) == {"verb": "ANY", "kind": "http_handler"}
    assert entry(graph, web("Export.ProcessRequestAsync")) == {"verb": "ANY", "kind": "http_handler"}
    assert entry(graph, web("Lookup.Find")) == {"verb": "POST", "kind": "web_method"}
    assert entry(graph, web("Lookup.NotExposed")) is None
    assert entry(graph, web("ChatHub.Send")) == {"verb": "ANY", "kind": "hub_method"}
    assert entry(graph, web("ChatHub.Join")) == {"verb": "ANY", "kind": "hub_method"}
    assert entry(graph, web("ChatHub.Log")) is None and entry(graph, web("ChatHub.Name")) is None
    assert entry(graph, web("Worker.ProcessRequest")) is None and entry(graph, web("Worker.Send")) is None
