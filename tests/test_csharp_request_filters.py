"""ASP.NET filters around actions and page handlers (`index/csharp/request_filters`): an attribute
filter on the controller or the action, a page filter registered for every page; the edges they
must not make (a look-alike not deriving from ASP.NET's filter types, an action that does not
carry the attribute, a page filter around an MVC action); and the flow answer that names them
(`graph/relations.around_request`)."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.answers import answer_from_graph
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SOURCES = {
    "src/Data/Db.cs": """
using Microsoft.EntityFrameworkCore;
namespace Shop.Data;
public class Order { public int Id { get; set; } }
public class ShopContext : DbContext
{
    public DbSet<Order> Orders { get; set; }
    public Task BeginTransactionAsync() => Task.CompletedTask;
    public Task CommitTransactionAsync() => Task.CompletedTask;
}
""",
    "src/Web/Filters.cs": """
using Microsoft.AspNetCore.Mvc.Filters;
using Shop.Data;
namespace Shop.Web;
public class UnitOfWorkAttribute : ActionFilterAttribute
{
    private readonly ShopContext _db;
    public override void OnResultExecuted(ResultExecutedContext context) { _db.CommitTransactionAsync(); }
}
public class TransactionPageFilter : IAsyncPageFilter
{
    private readonly ShopContext _db;
    public async Task OnPageHandlerExecutionAsync(PageHandlerExecutingContext context, PageHandlerExecutionDelegate next)
    {
        await _db.BeginTransactionAsync();
        await next();
        await _db.CommitTransactionAsync();
    }
    public Task OnPageHandlerSelectionAsync(PageHandlerSelectedContext context) => Task.CompletedTask;
}
public class LooksLikeAFilter
{
    public void OnActionExecuting(object context) { }
}
public static class Startup
{
    public static void Configure(RazorPagesOptions opt) { opt.Conventions.ConfigureFilter(new TransactionPageFilter()); }
}
""",
    "src/Web/Orders.cs": """
using Microsoft.AspNetCore.Mvc;
using Shop.Data;
namespace Shop.Web;
[UnitOfWork]
public class OrdersController : Controller
{
    private readonly ShopContext _db;
    [HttpPost]
    public IActionResult Create(Order order) { _db.Orders.Add(order); return Ok(); }
}
public class ReportsController : Controller
{
    private readonly ShopContext _db;
    public IActionResult Index() => Ok(_db.Orders.Count());
    [UnitOfWork]
    public IActionResult Rebuild() => Ok();
}
public class EditModel : PageModel
{
    private readonly ShopContext _db;
    public IActionResult OnPost(int id) { _db.Orders.Remove(_db.Orders.Find(id)); return Page(); }
}
""",
}


def build() -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in SOURCES.items()]
    files.append(parse_sql("db/schema.sql", "CREATE TABLE dbo.Orders (Id INT PRIMARY KEY);", "tsql"))
    return build_graph(files)[0]


def filters_of(graph: nx.MultiDiGraph, method: str) -> dict[str, dict]:
    return {target: data for _, target, data in graph.out_edges(f"cs:Shop.Web.{method}|METHOD", data=True)
            if data.get("via") == "request_filter"}


def test_an_attribute_filter_runs_around_the_actions_that_carry_it_on_their_type_or_themselves():
    graph = build()
    hook = "cs:Shop.Web.UnitOfWorkAttribute.OnResultExecuted|METHOD"
    assert set(filters_of(graph, "OrdersController.Create")) == {hook}
    assert filters_of(graph, "OrdersController.Create")[hook]["resolution"] == "dispatch"
    assert not filters_of(graph, "OrdersController.Create")[hook].get("guess")  # the attribute states it
    assert set(filters_of(graph, "ReportsController.Rebuild")) == {hook}
    assert filters_of(graph, "ReportsController.Index") == {}  # carries no attribute, and no page filter
    assert not [t for t in filters_of(graph, "OrdersController.Create") if "LooksLikeAFilter" in t]


def test_a_registered_page_filter_runs_around_every_page_handler_and_no_action():
    graph = build()
    hooks = filters_of(graph, "EditModel.OnPost")
    assert set(hooks) == {"cs:Shop.Web.TransactionPageFilter.OnPageHandlerExecutionAsync|METHOD",
                          "cs:Shop.Web.TransactionPageFilter.OnPageHandlerSelectionAsync|METHOD"}
    assert not any(data.get("guess") for data in hooks.values())  # created in the configuration: registered
    assert not [t for t in filters_of(graph, "OrdersController.Create") if "TransactionPageFilter" in t]


def test_a_flow_names_the_filter_around_its_entry_and_what_the_filter_commits():
    graph = build()
    answer = answer_from_graph(graph, "What happens in the database when I delete an order on the edit page?", [],
                               ["cs:Shop.Web.EditModel.OnPost|METHOD"], lambda ids: {})
    assert answer is not None
    around = [item.id for item in answer.around]
    assert around[:2] == ["cs:Shop.Web.TransactionPageFilter.OnPageHandlerExecutionAsync|METHOD",
                          "cs:Shop.Data.ShopContext.BeginTransactionAsync|METHOD"]
    assert "cs:Shop.Data.ShopContext.CommitTransactionAsync|METHOD" in around
    # the filter's edges are no path: the flow's tables are reached from the handler itself
    assert all("TransactionPageFilter" not in node for path in answer.paths for node in path.nodes)


def test_an_action_filter_runs_for_actions_only_where_registered_or_applied_by_type():
    """A global action filter around every action (a guess: registered by DI and a test only, no
    `Filters.Add`), never around a minimal API; one applied by `[ServiceFilter(typeof(X))]` only
    where it is written."""
    sources = {
        "src/Web/Audit.cs": """
using Microsoft.AspNetCore.Mvc.Filters;
namespace Shop.Web;
public class AuditFilter : IActionFilter
{
    public void OnActionExecuting(ActionExecutingContext context) { }
    public void OnActionExecuted(ActionExecutedContext context) { }
}
public class TimingFilter : IActionFilter
{
    public void OnActionExecuting(ActionExecutingContext context) { }
    public void OnActionExecuted(ActionExecutedContext context) { }
}
public static class Setup
{
    public static void Services(IServiceCollection services) { services.AddScoped<TimingFilter>(); }
    public static void Map(WebApplication app) { app.MapPost("/ping", Ping); }
    public static IResult Ping() => Results.Ok();
}
public class OrdersController : Controller
{
    [HttpPost]
    [ServiceFilter(typeof(AuditFilter))]
    public IActionResult Create() => Ok();
    public IActionResult Index() => Ok();
}
""",
        "tests/Web.Tests/TimingTests.cs": """
namespace Shop.Web.Tests;
public class TimingTests { public void Runs() { var filter = new TimingFilter(); } }
""",
    }
    graph = build_graph([parse_csharp(path, text) for path, text in sources.items()])[0]
    create, index = filters_of(graph, "OrdersController.Create"), filters_of(graph, "OrdersController.Index")
    assert "cs:Shop.Web.AuditFilter.OnActionExecuting|METHOD" in create
    assert not [t for t in index if "AuditFilter" in t]  # applied by type where written, nowhere else
    timing = "cs:Shop.Web.TimingFilter.OnActionExecuting|METHOD"
    assert timing in index and index[timing].get("guess")  # DI and a test register nothing for every request
    assert filters_of(graph, "Setup.Ping") == {}  # a minimal API runs no MVC filter
