"""C# hops the repository cannot see the middle of: a call on a package's interface that one
repository type implements (`package_types`), a local typed by the extension method that returned
it and the message it then sends (`call_resolution._extension`, `messages`), a call on `this` in a
base narrowed by the subclass the walk came through (`relations.table_paths`), LINQ query syntax
over a DbSet (`calls._query_source`), and a member of a package's base class (`outside_base`);
each with the edge it must not make."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.relations import table_paths
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

BUS = """
using NetDevPack.Mediator;
namespace Shop.Bus;
public sealed class InMemoryBus : IMediatorHandler
{
    public Task SendCommand<T>(T command) where T : Command { return Task.CompletedTask; }
    public Task PublishEvent<T>(T @event) where T : Event { return Task.CompletedTask; }
}
"""

SECOND_BUS = """
using NetDevPack.Mediator;
namespace Shop.Bus;
public sealed class LoggingBus : IMediatorHandler
{
    public Task SendCommand<T>(T command) where T : Command { return Task.CompletedTask; }
}
"""

COMMANDS = """
using NetDevPack.Messaging;
using MediatR;
namespace Shop.Commands;
public class RegisterCustomerCommand : Command { public string Name { get; set; } }
public class RemoveCustomerCommand : Command { }
public class CustomerCommandHandler : CommandHandler,
    IRequestHandler<RegisterCustomerCommand, bool>, IRequestHandler<RemoveCustomerCommand, bool>
{
    public Task<bool> Handle(RegisterCustomerCommand message, CancellationToken token) { return Commit(message); }
    public Task<bool> Handle(RemoveCustomerCommand message, CancellationToken token) { return Task.FromResult(true); }
}
"""

APP = """
using NetDevPack.Mediator;
using Shop.Commands;
namespace Shop.App;
public class CustomerModel { public string Name { get; set; } }
public static class CustomerExtensions
{
    public static RegisterCustomerCommand ToRegisterCommand(this CustomerModel model) => new RegisterCustomerCommand();
}
public class CustomerAppService
{
    private readonly IMediatorHandler _mediator;
    public void Register(CustomerModel model)
    {
        var command = model.ToRegisterCommand();
        _mediator.SendCommand(command);
    }
}
"""


def _graph(*sources: tuple[str, str]) -> nx.MultiDiGraph:
    return build_graph([parse_csharp(path, text) for path, text in sources])[0]


def _calls(graph: nx.MultiDiGraph, source: str) -> dict[str, dict]:
    return {target: data for _, target, key, data in graph.out_edges(source, keys=True, data=True) if key == "CALLS"}


REGISTER = "cs:Shop.App.CustomerAppService.Register|METHOD"
SEND = "cs:Shop.Bus.InMemoryBus.SendCommand|METHOD"
REGISTER_HANDLER = "cs:Shop.Commands.CustomerCommandHandler.Handle(RegisterCustomerCommand,CancellationToken)|METHOD"
REMOVE_HANDLER = "cs:Shop.Commands.CustomerCommandHandler.Handle(RemoveCustomerCommand,CancellationToken)|METHOD"


def test_a_package_interface_implemented_once_runs_its_implementer() -> None:
    calls = _calls(_graph(("Bus.cs", BUS), ("Commands.cs", COMMANDS), ("App.cs", APP)), REGISTER)
    assert calls[SEND]["resolution"] == "inferred"
    assert calls[SEND]["via"] == "implementer" and calls[SEND]["implements"] == "IMediatorHandler"


DECORATOR = """
using NetDevPack.Mediator;
namespace Shop.Bus;
public sealed class LoggingBus : IMediatorHandler
{
    private readonly IMediatorHandler _inner;
    public Task SendCommand<T>(T command) where T : Command { return _inner.SendCommand(command); }
}
"""


def test_a_decorator_calling_what_it_wraps_is_not_linked_to_itself() -> None:
    graph = _graph(("Decorator.cs", DECORATOR))
    assert not _calls(graph, "cs:Shop.Bus.LoggingBus.SendCommand|METHOD")


def test_a_package_interface_implemented_twice_links_neither() -> None:
    calls = _calls(_graph(("Bus.cs", BUS), ("Second.cs", SECOND_BUS), ("Commands.cs", COMMANDS), ("App.cs", APP)),
                   REGISTER)
    assert SEND not in calls
    assert "cs:Shop.Bus.LoggingBus.SendCommand|METHOD" not in calls


def test_an_extension_methods_return_type_types_the_message_sent() -> None:
    calls = _calls(_graph(("Bus.cs", BUS), ("Commands.cs", COMMANDS), ("App.cs", APP)), REGISTER)
    extension = calls["cs:Shop.App.CustomerExtensions.ToRegisterCommand|METHOD"]
    assert extension["resolution"] == "inferred" and extension["via"] == "extension"
    assert calls[REGISTER_HANDLER]["via"] == "message"
    assert calls[REGISTER_HANDLER]["message"] == "cs:Shop.Commands.RegisterCustomerCommand|TYPE"
    assert REMOVE_HANDLER not in calls  # a handler of another request is never linked


def test_an_extension_of_another_type_is_not_taken() -> None:
    other = APP.replace("this CustomerModel model", "this string model")
    calls = _calls(_graph(("Bus.cs", BUS), ("Commands.cs", COMMANDS), ("App.cs", other)), REGISTER)
    assert not any(data.get("via") == "message" for data in calls.values())


def test_a_package_base_classes_member_is_named_by_the_base() -> None:
    graph = _graph(("Commands.cs", COMMANDS))
    calls = _calls(graph, REGISTER_HANDLER)
    # told from the handler's other package base (`IRequestHandler<...>`) by C#'s naming alone: a guess
    assert calls["ext:CommandHandler.Commit|EXTERNAL"] == {
        "type": "CALLS", "via": "external_base", "line": 10, "resolution": "external", "guess": True}
    # `new RegisterCustomerCommand()` calls its own default constructor, not a base's member
    assert "ext:Command.RegisterCustomerCommand|EXTERNAL" not in graph
    # and `ToString` is object's, not a package base's
    stringed = _graph(("Commands.cs", COMMANDS.replace("return Task.FromResult(true);",
                                                        "return Task.FromResult(message.ToString() != null);")))
    assert "ext:Command.ToString|EXTERNAL" not in stringed and "ext:CommandHandler.ToString|EXTERNAL" not in stringed


def test_a_delegate_invoked_is_no_call_of_a_method() -> None:
    source = """
namespace Shop.Commands;
public class Retrier : RetryBase
{
    private readonly Func<bool> _attempt;
    public bool Run(Action onDone) { onDone(); return _attempt(); }
}
"""
    graph = _graph(("Retrier.cs", source))
    assert not _calls(graph, "cs:Shop.Commands.Retrier.Run|METHOD")


ACTIVE_RECORD = """
namespace Blog.Core;
public abstract class BusinessBase<T, TKey> where T : BusinessBase<T, TKey>
{
    public bool IsNew { get; set; }
    public virtual void Save() { if (IsNew) { this.Update(); } }
    private void Update() { this.DataInsert(); }
    protected abstract void DataInsert();
}
public class Post : BusinessBase<Post, Guid>
{
    protected override void DataInsert() { BlogService.InsertPost(this); }
}
public class Page : BusinessBase<Page, Guid>
{
    protected override void DataInsert() { BlogService.InsertPage(this); }
}
public static class BlogService
{
    public static void InsertPost(Post post) { new SqlCommand("INSERT INTO dbo.Posts (Id) VALUES (1)").ExecuteNonQuery(); }
    public static void InsertPage(Page page) { new SqlCommand("INSERT INTO dbo.Pages (Id) VALUES (1)").ExecuteNonQuery(); }
}
public class PostRepository
{
    public void Add() { var post = new Post(); Save(post); }
    private void Save(Post post) { post.Save(); }
    public void AddAny(BusinessBase<Post, Guid> item) { item.Save(); }
}
"""

SCHEMA = "CREATE TABLE dbo.Posts (Id INT PRIMARY KEY); CREATE TABLE dbo.Pages (Id INT PRIMARY KEY);"


def _tables(graph: nx.MultiDiGraph, entry: str) -> set[str]:
    return {path.nodes[-1] for path in table_paths(graph, [entry])}


def test_a_call_on_this_in_a_base_runs_the_override_of_the_subclass_called() -> None:
    graph = build_graph([parse_csharp("Core.cs", ACTIVE_RECORD), parse_sql("schema.sql", SCHEMA, "tsql")])[0]
    update = "cs:Blog.Core.BusinessBase.Update|METHOD"
    # the graph keeps both overrides; the walk from a `Post` takes only the post's
    assert {"cs:Blog.Core.Post.DataInsert|METHOD", "cs:Blog.Core.Page.DataInsert|METHOD"} <= set(_calls(graph, update))
    assert _tables(graph, "cs:Blog.Core.PostRepository.Add|METHOD") == {"sql:dbo.Posts|TABLE"}
    # called on the base itself, nothing binds it: every override may run
    assert _tables(graph, "cs:Blog.Core.PostRepository.AddAny|METHOD") == {"sql:dbo.Posts|TABLE", "sql:dbo.Pages|TABLE"}


EVENTS = """
using Microsoft.EntityFrameworkCore;
namespace Shop.Data;
public class StoredEvent { public Guid Id { get; set; } public Guid AggregateId { get; set; } }
public class EventContext : DbContext { public DbSet<StoredEvent> StoredEvent { get; set; } }
public class EventRepository
{
    private readonly EventContext _context;
    private readonly List<StoredEvent> _cache = new();
    public IList<StoredEvent> All(Guid id) => (from e in _context.StoredEvent where e.AggregateId == id select e).ToList();
    public IList<StoredEvent> Cached(Guid id) => (from e in _cache where e.AggregateId == id select e).ToList();
}
"""


def test_linq_query_syntax_over_a_dbset_reads_its_table() -> None:
    graph = _graph(("Events.cs", EVENTS))
    reads = [(target, data) for _, target, key, data in graph.out_edges(
        "cs:Shop.Data.EventRepository.All|METHOD", keys=True, data=True) if key == "READS"]
    assert [target for target, _ in reads] == ["sql:dbo.StoredEvent|TABLE"]
    assert reads[0][1]["member"] == "Where" and reads[0][1]["carrier"] == "DbSet"
    assert not [key for _, _, key in graph.out_edges("cs:Shop.Data.EventRepository.Cached|METHOD", keys=True)
                if key in ("READS", "WRITES")]


def test_the_one_implementer_is_reached_through_its_nearest_override():
    # `Store : Middle, IPackageStore`, `Middle : Aaa` both declare Save: C# runs Middle's, whatever the names sort as
    source = """
using Vendor.Storage;
namespace Shop.Store;
public class Aaa { public virtual void Save() { } }
public class Middle : Aaa { public override void Save() { } }
public class Store : Middle, IPackageStore { }
public class Saver
{
    private readonly IPackageStore _store;
    public void Run() { _store.Save(); }
}
"""
    calls = _calls(_graph(("Store.cs", source)), "cs:Shop.Store.Saver.Run|METHOD")
    assert "cs:Shop.Store.Middle.Save|METHOD" in calls and "cs:Shop.Store.Aaa.Save|METHOD" not in calls
