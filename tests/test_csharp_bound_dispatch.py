"""Dispatch through a generic host narrowed by the type arguments its caller constructs it with
(`index/csharp/bound_dispatch`)."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.relations import table_paths
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

PIPELINE = """
using System.Collections.Generic;
namespace Forum.Core;
public interface IEntity { }
public class Topic : IEntity { }
public class Category : IEntity { }
public interface IProcess<T> where T : IEntity { T Entity { get; } }
public class Process<T> : IProcess<T> where T : IEntity { public Process(T entity) { } public T Entity { get; } }
public interface IPipe<TInput> { TInput Run(TInput input); }
public class Pipeline<TOne, TTwo> where TOne : IProcess<TTwo> where TTwo : IEntity
{
    private readonly List<IPipe<TOne>> _pipes = new List<IPipe<TOne>>();
    public void Register(IPipe<TOne> pipe) { _pipes.Add(pipe); }
    public TOne Process(TOne model)
    {
        foreach (var pipe in _pipes) { pipe.Run(model); }
        return model;
    }
}
public class Relay<T> { private readonly IPipe<T> _pipe; public T Send(T input) => _pipe.Run(input); }
"""

PIPES = """
namespace Forum.Plugins;
using System.Data.Entity;
using Forum.Core;
public class ForumContext : DbContext
{
    public DbSet<Topic> Topic { get; set; }
    public DbSet<Category> Category { get; set; }
}
public class TopicSavePipe : IPipe<IProcess<Topic>>
{
    private readonly ForumContext _db;
    public IProcess<Topic> Run(IProcess<Topic> input) { _db.Topic.Add(input.Entity); return input; }
}
public class TopicSpamPipe : IPipe<IProcess<Topic>> { public IProcess<Topic> Run(IProcess<Topic> input) => input; }
public class CategorySavePipe : IPipe<IProcess<Category>>
{
    private readonly ForumContext _db;
    public IProcess<Category> Run(IProcess<Category> input) { _db.Category.Add(input.Entity); return input; }
}
"""

SCHEMA = "CREATE TABLE dbo.Topic (Id INT PRIMARY KEY);\nCREATE TABLE dbo.Category (Id INT PRIMARY KEY);\n"

SERVICES = """
namespace Forum.Core.Services;
using Forum.Core;
public class TopicService
{
    public IProcess<Topic> Create(Topic topic)
    {
        var pipeline = new Pipeline<IProcess<Topic>, Topic>();
        return pipeline.Process(new Process<Topic>(topic));
    }
}
public class CategoryService
{
    private readonly Pipeline<IProcess<Category>, Category> _pipeline;
    public IProcess<Category> Create(Category category) => _pipeline.Process(new Process<Category>(category));
}
public class Unbound
{
    private readonly Relay<string> _relay;
    public string Send(string text) => _relay.Send(text);
}
"""


def graph() -> nx.MultiDiGraph:
    files = {"Core/Pipeline.cs": PIPELINE, "Plugins/Pipes.cs": PIPES, "Core/Services.cs": SERVICES}
    return build_graph([*(parse_csharp(path, text) for path, text in files.items()),
                        parse_sql("db/schema.sql", SCHEMA, "tsql")])[0]


def calls(graph: nx.MultiDiGraph, method: str) -> dict[str, dict]:
    return {target: data for _, target, data in graph.out_edges(f"cs:{method}|METHOD", data=True) if data["type"] == "CALLS"}


def test_a_host_constructed_with_an_entity_dispatches_to_the_pipes_of_that_entity_only():
    g = graph()
    topic = calls(g, "Forum.Core.Services.TopicService.Create")
    save, spam = "cs:Forum.Plugins.TopicSavePipe.Run|METHOD", "cs:Forum.Plugins.TopicSpamPipe.Run|METHOD"
    assert {save, spam} <= set(topic)
    assert "cs:Forum.Plugins.CategorySavePipe.Run|METHOD" not in topic
    edge = topic[save]
    assert (edge["resolution"], edge["via"], edge["host"]) == (
        "dispatch", "cs:Forum.Core.IPipe.Run|METHOD", "cs:Forum.Core.Pipeline.Process|METHOD")
    assert edge["guess"] is True and set(edge["candidates"]) == {save, spam}
    # the host's own dispatch still reaches every pipe: it runs for any caller
    assert "cs:Forum.Plugins.CategorySavePipe.Run|METHOD" in calls(g, "Forum.Core.Pipeline.Process")


def test_a_field_of_a_constructed_host_binds_as_a_local_does_and_one_pipe_is_a_firm_edge():
    category = calls(graph(), "Forum.Core.Services.CategoryService.Create")
    edge = category["cs:Forum.Plugins.CategorySavePipe.Run|METHOD"]
    assert "guess" not in edge and edge["host"] == "cs:Forum.Core.Pipeline.Process|METHOD"
    assert "cs:Forum.Plugins.TopicSavePipe.Run|METHOD" not in category


def test_type_arguments_naming_no_implementers_types_add_no_edge():
    unbound = calls(graph(), "Forum.Core.Services.Unbound.Send")
    assert not any(data.get("host") for data in unbound.values())


def test_a_flow_goes_through_the_host_to_the_tables_of_the_bound_implementations_only():
    g = graph()
    paths = table_paths(g, ["cs:Forum.Core.Services.TopicService.Create|METHOD"])
    assert {path.nodes[-1] for path in paths} == {"sql:dbo.Topic|TABLE"}  # never Category's
    assert paths[0].nodes == ("cs:Forum.Core.Services.TopicService.Create|METHOD", "cs:Forum.Core.Pipeline.Process|METHOD",
                              "cs:Forum.Plugins.TopicSavePipe.Run|METHOD", "sql:dbo.Topic|TABLE")
    # a walk from the host itself, which no caller binds, still reaches every pipe's table
    unbound = table_paths(g, ["cs:Forum.Core.Pipeline.Process|METHOD"])
    assert {path.nodes[-1] for path in unbound} == {"sql:dbo.Topic|TABLE", "sql:dbo.Category|TABLE"}


# Review 8 (B1, B4): a dispatch on a fixed type argument, a base of another shape, an open generic pipe.
FIXED = """
namespace Shop.Core;
using System.Data.Entity;
public class Order { }
public class Customer { }
public interface IHandler<T> { void Handle(); }
public class ShopContext : DbContext { public DbSet<Order> Orders { get; set; } public DbSet<Customer> Customers { get; set; } }
public class OrderHandler : IHandler<Order> { private readonly ShopContext _db; public void Handle() { _db.Orders.Add(new Order()); } }
public class CustomerHandler : IHandler<Customer> { private readonly ShopContext _db; public void Handle() { _db.Customers.Add(new Customer()); } }
public class Audit<T> { private readonly IHandler<Order> _orders; public void Run(T item) { _orders.Handle(); } }
public class Caller { public void Go(Customer c) { var audit = new Audit<Customer>(); audit.Run(c); } }
"""

SHAPES = """
namespace F;
using System.Collections.Generic;
using System.Data.Entity;
public class Topic { } public class Category { } public class Log { }
public interface IProcess<T> { }
public class Ctx : DbContext { public DbSet<Topic> Topic { get; set; } public DbSet<Log> Log { get; set; } }
public interface IPipe<TInput> { TInput Run(TInput input); }
public class Pipeline<T>
{
    private readonly List<IPipe<T>> _pipes = new List<IPipe<T>>();
    public T Process(T model) { foreach (var pipe in _pipes) { pipe.Run(model); } return model; }
}
public class TopicPipe : IPipe<IProcess<Topic>> { private readonly Ctx _db; public IProcess<Topic> Run(IProcess<Topic> i) { _db.Topic.Add(null); return i; } }
public class RawTopicPipe : IPipe<Topic> { public Topic Run(Topic i) => i; }
public class CategoryPipe : IPipe<IProcess<Category>> { public IProcess<Category> Run(IProcess<Category> i) => i; }
public class LogPipe<T> : IPipe<T> { private readonly Ctx _db; public T Run(T i) { _db.Log.Add(new Log()); return i; } }
public class Svc { public void Go(IProcess<Topic> p) { var pl = new Pipeline<IProcess<Topic>>(); pl.Process(p); } }
"""

SHOP_SCHEMA = "CREATE TABLE dbo.Orders (Id INT);\nCREATE TABLE dbo.Customers (Id INT);\n" \
              "CREATE TABLE dbo.Topic (Id INT);\nCREATE TABLE dbo.Log (Id INT);\n"


def test_a_host_dispatch_on_a_fixed_type_argument_is_not_narrowed_by_the_callers_type_arguments():
    g = build_graph([parse_csharp("Core.cs", FIXED), parse_sql("s.sql", SHOP_SCHEMA, "tsql")])[0]
    assert not any(data.get("host") for data in calls(g, "Shop.Core.Caller.Go").values())
    # `IHandler<Order>` runs the Order handler whatever T is: the walk keeps the host's edge to it
    tables = {path.nodes[-1] for path in table_paths(g, ["cs:Shop.Core.Caller.Go|METHOD"])}
    assert "sql:dbo.Orders|TABLE" in tables


def test_implementations_are_matched_by_the_shape_of_their_type_argument_and_open_generic_ones_are_kept():
    g = build_graph([parse_csharp("Core.cs", SHAPES), parse_sql("s.sql", SHOP_SCHEMA, "tsql")])[0]
    bound = {target: data for target, data in calls(g, "F.Svc.Go").items() if data.get("host")}
    topic, log = "cs:F.TopicPipe.Run|METHOD", "cs:F.LogPipe.Run|METHOD"
    assert set(bound) == {topic, log}  # never `RawTopicPipe : IPipe<Topic>`, nor Category's
    assert bound[topic]["guess"] is True and set(bound[topic]["candidates"]) == {topic, log}
    tables = {path.nodes[-1] for path in table_paths(g, ["cs:F.Svc.Go|METHOD"])}
    assert tables == {"sql:dbo.Topic|TABLE", "sql:dbo.Log|TABLE"}


def test_a_base_with_generics_nested_a_thousand_deep_parses_with_its_shape():
    written = "Topic"
    for _ in range(1500):
        written = f"IWrap<{written}>"
    parsed = parse_csharp("D.cs", "namespace D { public interface IWrap<T> { } public class Topic { } "
                                  f"public class Deep : IWrap<{written}> {{ }} }}")
    deep = next(node for node in parsed.nodes if node.id == "cs:D.Deep|TYPE")
    shape = deep.attrs["generic_bases"][0]["shapes"][0]
    assert len(shape) == 1501 and shape[-1][-1] == "Topic"  # 1500 `IWrap`s, then `Topic`


def test_a_host_constructed_with_the_callers_own_type_parameter_is_not_narrowed():
    source = SHAPES.replace("public class Svc {", "public class Generic<TAny> { public void Go(TAny p) "
                            "{ var pl = new Pipeline<TAny>(); pl.Process(p); } }\npublic class Svc {")
    g = build_graph([parse_csharp("Core.cs", source), parse_sql("s.sql", SHOP_SCHEMA, "tsql")])[0]
    # `TAny` may be any type: every pipe may run, not only the open generic `LogPipe<T>`
    assert not any(data.get("host") for data in calls(g, "F.Generic.Go").values())
    assert any(data.get("host") for data in calls(g, "F.Svc.Go").values())
