"""A bus's send inside a generic method narrowed by the type its caller passes
(`index/csharp/bound_method_dispatch`)."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.relations import table_paths
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

DOMAIN = """
namespace Cms.Domain;
using System.Data.Entity;
using System.Threading.Tasks;
public interface ICommand { }
public interface IQuery<TResult> { }
public class Page { } public class User { }
public class PublishPageCommand : ICommand { public int PageId { get; set; } }
public class DeleteUserCommand : ICommand { public int UserId { get; set; } }
public class GetPageQuery : IQuery<Page> { }
public class GetUserQuery : IQuery<User> { }
public class CmsContext : DbContext { public DbSet<Page> Pages { get; set; } public DbSet<User> Users { get; set; } }
public interface ICommandHandler<T> where T : ICommand { Task ExecuteAsync(T command); }
public interface IQueryHandler<TQuery, TResult> where TQuery : IQuery<TResult> { TResult Execute(TQuery query); }
public class PublishPageCommandHandler : ICommandHandler<PublishPageCommand>
{
    private readonly CmsContext _db;
    public Task ExecuteAsync(PublishPageCommand command) { _db.Pages.Add(new Page()); return Task.CompletedTask; }
    private Task OnTransactionComplete(PublishPageCommand command) => Task.CompletedTask;
}
public class DeleteUserCommandHandler : ICommandHandler<DeleteUserCommand>
{
    private readonly CmsContext _db;
    public Task ExecuteAsync(DeleteUserCommand command) { _db.Users.Remove(new User()); return Task.CompletedTask; }
}
public class GetPageQueryHandler : IQueryHandler<GetPageQuery, Page>
{
    private readonly CmsContext _db;
    public Page Execute(GetPageQuery query) => _db.Pages.Find(1);
}
public class GetUserQueryHandler : IQueryHandler<GetUserQuery, User>
{
    private readonly CmsContext _db;
    public User Execute(GetUserQuery query) => _db.Users.Find(1);
}
"""

# The helper's file names neither the domain's namespace nor the bus's (a `global using` elsewhere):
# `ICommandExecutor` is no type of the index, so the helper's sends are `messages`' forwarded ones.
HELPER = """
namespace Cms.Web;
using System.Threading.Tasks;
public interface IApiResponseHelper
{
    Task RunCommandAsync<TCommand>(TCommand command) where TCommand : ICommand;
    Task RunQueryAsync<TResult>(IQuery<TResult> query);
}
public class ApiResponseHelper : IApiResponseHelper
{
    private readonly ICommandExecutor _commandExecutor;
    private readonly IQueryExecutor _queryExecutor;
    public async Task RunCommandAsync<TCommand>(TCommand command) where TCommand : ICommand
    {
        await _commandExecutor.ExecuteAsync(command);
    }
    public Task RunQueryAsync<TResult>(IQuery<TResult> query) { return _queryExecutor.ExecuteAsync(query); }
    public Task RunLoggedAsync<TCommand>(TCommand command) where TCommand : ICommand { return RunCommandAsync(command); }
}
"""

CONTROLLERS = """
namespace Cms.Web.Admin;
using System.Threading.Tasks;
public class PagesApiController
{
    private readonly IApiResponseHelper _apiResponseHelper;
    private readonly ApiResponseHelper _helper;
    private readonly IBodyReader _reader;
    public Task Publish(int pageId)
    {
        var command = new PublishPageCommand() { PageId = pageId };
        return _apiResponseHelper.RunCommandAsync(command);
    }
    public Task PublishPosted() => _apiResponseHelper.RunCommandAsync<PublishPageCommand>(_reader.Read());
    public Task DeleteLogged(DeleteUserCommand command) => _helper.RunLoggedAsync(command);
    public Task GetById(int id) { var query = new GetPageQuery(); return _apiResponseHelper.RunQueryAsync(query); }
    public Task RunAny(ICommand command) => _apiResponseHelper.RunCommandAsync(command);
}
public class Relay<T> where T : ICommand
{
    private readonly IApiResponseHelper _apiResponseHelper;
    public Task Send(T command) => _apiResponseHelper.RunCommandAsync(command);
}
"""

SCHEMA = "CREATE TABLE dbo.Pages (Id INT PRIMARY KEY);\nCREATE TABLE dbo.Users (Id INT PRIMARY KEY);\n"

PUBLISH = "cs:Cms.Domain.PublishPageCommandHandler.ExecuteAsync|METHOD"
DELETE = "cs:Cms.Domain.DeleteUserCommandHandler.ExecuteAsync|METHOD"
RUN = "cs:Cms.Web.ApiResponseHelper.RunCommandAsync|METHOD"


def graph() -> nx.MultiDiGraph:
    files = {"Domain/Domain.cs": DOMAIN, "Web/ApiResponseHelper.cs": HELPER, "Web.Admin/PagesApiController.cs": CONTROLLERS}
    return build_graph([*(parse_csharp(path, text) for path, text in files.items()),
                        parse_sql("db/schema.sql", SCHEMA, "tsql")])[0]


def calls(graph: nx.MultiDiGraph, method: str) -> dict[str, dict]:
    return {target: data for _, target, data in graph.out_edges(f"cs:{method}|METHOD", data=True)
            if data["type"] == "CALLS"}


def test_the_helpers_own_send_still_reaches_every_handler_each_a_guess():
    run = calls(graph(), "Cms.Web.ApiResponseHelper.RunCommandAsync")
    assert {PUBLISH, DELETE} <= set(run)
    assert all(run[h]["message_parameter"] == 0 and run[h]["guess"] for h in (PUBLISH, DELETE))


def test_a_caller_passing_a_command_is_linked_to_that_commands_handler_only():
    publish = calls(graph(), "Cms.Web.Admin.PagesApiController.Publish")
    # nor to a private method of the handler's (it implements no contract), whatever it is named
    assert DELETE not in publish and "cs:Cms.Domain.PublishPageCommandHandler.OnTransactionComplete|METHOD" not in publish
    edge = publish[PUBLISH]
    assert (edge["resolution"], edge["via"], edge["host"], edge["host_parameter"]) == ("dispatch", "message", RUN, 0)
    assert edge["bound"] == edge["message"] == "cs:Cms.Domain.PublishPageCommand|TYPE"
    # the controller's file names no namespace of the command: found by its one type of that name
    assert edge["type_by_name"] is True and "guess" not in edge


def test_an_explicit_type_argument_binds_the_type_parameter_when_the_argument_says_nothing():
    posted = calls(graph(), "Cms.Web.Admin.PagesApiController.PublishPosted")
    assert posted[PUBLISH]["host"] == RUN and DELETE not in posted


def test_a_generic_method_passing_the_parameter_on_to_another_binds_it_there():
    logged = calls(graph(), "Cms.Web.Admin.PagesApiController.DeleteLogged")
    edge = logged[DELETE]
    assert (edge["host"], edge["host_parameter"], edge["sender"]) == ("cs:Cms.Web.ApiResponseHelper.RunLoggedAsync|METHOD", 0, RUN)
    assert PUBLISH not in logged


def test_a_query_passed_to_a_parameter_constructed_over_the_type_parameter_binds_its_handler():
    g = graph()
    run = calls(g, "Cms.Web.ApiResponseHelper.RunQueryAsync")
    page, user = "cs:Cms.Domain.GetPageQueryHandler.Execute|METHOD", "cs:Cms.Domain.GetUserQueryHandler.Execute|METHOD"
    assert {page, user} <= set(run) and run[user]["message_parameter"] == 0
    by_id = calls(g, "Cms.Web.Admin.PagesApiController.GetById")
    assert by_id[page]["host"] == "cs:Cms.Web.ApiResponseHelper.RunQueryAsync|METHOD" and user not in by_id


def test_a_base_type_or_the_callers_own_type_parameter_binds_no_handler():
    g = graph()
    assert not any(data.get("host") for data in calls(g, "Cms.Web.Admin.PagesApiController.RunAny").values())
    assert not any(data.get("host") for data in calls(g, "Cms.Web.Admin.Relay.Send").values())


def test_a_flow_from_the_caller_goes_through_the_helper_to_its_commands_tables_only():
    g = graph()
    paths = table_paths(g, ["cs:Cms.Web.Admin.PagesApiController.Publish|METHOD"])
    assert {path.nodes[-1] for path in paths} == {"sql:dbo.Pages|TABLE"}  # never the Users a user's deletion writes
    assert RUN in paths[0].nodes and PUBLISH in paths[0].nodes
    chained = table_paths(g, ["cs:Cms.Web.Admin.PagesApiController.DeleteLogged|METHOD"])
    assert {path.nodes[-1] for path in chained} == {"sql:dbo.Users|TABLE"}
    # the helper alone, which no caller binds, follows no guessed handler
    assert not table_paths(g, [RUN])


EXTENSION = """
namespace Bus;
using System.Threading.Tasks;
using MediatR;
public interface ICommand { }
public class CreateOrder : ICommand { } public class DeleteOrder : ICommand { }
public interface ICommandHandler<T> where T : ICommand { Task Handle(T c); }
public class CreateOrderHandler : ICommandHandler<CreateOrder> { public Task Handle(CreateOrder c) => null; }
public class DeleteOrderHandler : ICommandHandler<DeleteOrder> { public Task Handle(DeleteOrder c) => null; }
public class AppBus { public IMediator M; }
public static class BusExt
{
    public static Task RunAsync<T>(this AppBus bus, T command, ICommand audit) where T : ICommand => bus.M.Send(command);
}
public class Svc
{
    private AppBus _bus;
    public Task Instance() => _bus.RunAsync(new CreateOrder(), new DeleteOrder());
    public Task Static() => BusExt.RunAsync(_bus, new DeleteOrder(), new CreateOrder());
    public Task Relayed() => Relay(_bus, new CreateOrder());
    public Task Relay<T>(AppBus bus, T command) where T : ICommand => bus.RunAsync(command, null);
}
"""


def test_an_extension_method_called_on_its_receiver_binds_the_parameter_after_this():
    g = build_graph([parse_csharp("Bus/Bus.cs", EXTENSION)])[0]
    create, delete = "cs:Bus.CreateOrderHandler.Handle|METHOD", "cs:Bus.DeleteOrderHandler.Handle|METHOD"
    # `_bus.RunAsync(create, delete)`: T is CreateOrder (the call's argument 0 fills parameter 1)
    instance = calls(g, "Bus.Svc.Instance")
    assert instance[create]["host_parameter"] == 1 and instance[create]["bound"] == "cs:Bus.CreateOrder|TYPE"
    assert delete not in instance
    # the static form passes the receiver as argument 0: positions are the parameters' own
    static = calls(g, "Bus.Svc.Static")
    assert static[delete]["host_parameter"] == 1 and create not in static
    # passed on to the extension on its receiver: the forwarded argument 0 is its parameter 1
    relayed = calls(g, "Bus.Svc.Relayed")
    assert relayed[create]["sender"] == "cs:Bus.BusExt.RunAsync|METHOD" and delete not in relayed
