"""Graph answers over C# built from source: a flow's entry point chosen by what the code is (an
HTTP action and its verb) and reaching the table through a mediator; lists with production code
first and tests grouped and labelled; a method's overloads named once."""
from __future__ import annotations

from collections.abc import Callable

import networkx as nx

from ragstream.graph.answers import answer_from_graph
from ragstream.graph.named import find_named
from ragstream.graph.relations_view import render_graph_answer
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA = "CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Total INT);"
APP = {
    "src/Domain/Order.cs": "namespace Shop.Domain; public class Order { public int Id { get; set; } public int Total { get; set; } }",
    "src/Data/ShopContext.cs": """
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public class ShopContext : DbContext { public DbSet<Order> Orders { get; set; } }
""",
    "src/App/Orders.cs": """
using MediatR;
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public record CreateOrder(int Total) : IRequest<int>;
public record GetOrder(int Id) : IRequest<Order>;
public class CreateOrderHandler : IRequestHandler<CreateOrder, int>
{
    private readonly ShopContext _db;
    public async Task<int> Handle(CreateOrder request, CancellationToken token)
    {
        var order = new Order { Total = request.Total };
        _db.Orders.Add(order);
        await _db.SaveChangesAsync(token);
        return order.Id;
    }
}
public class GetOrderHandler : IRequestHandler<GetOrder, Order>
{
    private readonly ShopContext _db;
    public Task<Order> Handle(GetOrder request, CancellationToken token) => _db.Orders.FindAsync(request.Id).AsTask();
}
public class OrderWriter
{
    private readonly ShopContext _db;
    public void Write(Order order) => _db.Orders.Add(order);
    public void Write(Order order, bool now) => _db.Orders.Add(order);
}
""",
    "src/Web/OrdersController.cs": """
using MediatR;
using Microsoft.AspNetCore.Mvc;
using Shop.App;
namespace Shop.Web;
[ApiController]
public class OrdersController : ControllerBase
{
    private readonly ISender _sender;
    [HttpGet("{id}")]
    public Task<Order> Get(int id) => _sender.Send(new GetOrder(id));
    [HttpPost]
    public Task<int> Create(CreateOrder command) => _sender.Send(command);
}
""",
    "tests/Shop.Tests/OrderTests.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.Tests;
public class OrderTests
{
    private readonly ShopContext _db;
    public void Seeds_an_order() => _db.Orders.Add(new Order());
    public void Adds_another() => _db.Orders.Add(new Order());
}
""",
}


def script(sql: str) -> nx.MultiDiGraph:
    """The graph of one T-SQL script."""
    return build_graph([parse_sql("db/schema.sql", sql, "tsql")])[0]


def graph() -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in APP.items()]
    files.append(parse_sql("db/schema.sql", SCHEMA, "tsql"))
    return build_graph(files)[0]


def graph_and_texts(sources: dict[str, str]) -> tuple[nx.MultiDiGraph, Callable[[list[str]], dict[str, str]]]:
    """The graph of C# `sources` and a `text_of` giving each node's lines, as the index would."""
    built = build_graph([parse_csharp(path, text) for path, text in sources.items()])[0]
    texts = {node: "\n".join(sources[data["path"]].split("\n")[data["start_line"] - 1:data["end_line"]])
             for node, data in built.nodes(data=True) if data.get("path") in sources and data.get("start_line")}
    return built, lambda ids: {i: texts.get(i, "") for i in ids}


def answer(built: nx.MultiDiGraph, question: str, hits: list[str]):
    return answer_from_graph(built, question, find_named(built, question), hits, lambda ids: {})


def test_a_flow_starts_at_the_action_whose_verb_the_question_asks_and_reaches_the_table_through_the_mediator():
    built = graph()
    # the search ranks the reading handler first: it shares the question's words
    hits = ["cs:Shop.App.GetOrderHandler.Handle|METHOD", "cs:Shop.App.CreateOrderHandler.Handle|METHOD"]
    found = answer(built, "How is a new order created, from the API controller down to the SQL tables?", hits)
    assert found is not None and found.shape == "flow"
    first = found.paths[0]
    assert first.nodes == ("cs:Shop.Web.OrdersController.Create|METHOD", "cs:Shop.App.CreateOrderHandler.Handle|METHOD",
                           "sql:dbo.Orders|TABLE")
    assert first.edges == ("CALLS (dispatch)", "WRITES")
    shown = found.paths[0].nodes[0]
    assert built.nodes[shown]["attrs"]["entry"]["verb"] == "POST"
    # asked how an order is shown, the GET action comes first
    shown = answer(built, "How is an order shown, from the controller down to the database?", hits)
    assert shown is not None and shown.paths[0].nodes[0] == "cs:Shop.Web.OrdersController.Get|METHOD"


def test_writers_of_a_table_list_production_code_first_and_tests_in_a_labelled_group():
    built = graph()
    found = answer(built, "Which methods write to the Orders table?", [])
    assert found is not None
    ids = [item.id for item in found.items]
    tests = [i for i in ids if i.startswith("cs:Shop.Tests.")]
    assert len(tests) == 2 and ids[-2:] == tests  # after every production writer
    assert "cs:Shop.App.CreateOrderHandler.Handle|METHOD" in ids[:4]
    text = render_graph_answer(found, built)
    assert "; 2 in tests." in text.splitlines()[0]
    assert "In tests (2):" in text
    assert text.index("In tests (2):") > text.index("Shop.App.CreateOrderHandler.Handle")


def test_a_method_with_overloads_is_named_once_with_its_parameter_types():
    built = graph()
    found = answer(built, "What breaks if I change Shop.App.OrderWriter.Write?", [])
    assert found is not None and len(found.subjects) == 2
    header = render_graph_answer(found, built).splitlines()[0]
    assert header.count("Shop.App.OrderWriter.Write") == 1
    assert "2 overloads: (Order), (Order,bool)" in header


def test_an_application_that_lives_under_a_samples_folder_is_code_not_samples():
    files = [parse_csharp(f"samples/app/{path}", text) for path, text in APP.items()]
    files.append(parse_sql("samples/app/db/schema.sql", SCHEMA, "tsql"))
    built = build_graph(files)[0]
    assert built.graph["code_root"] == "samples/app/"
    found = answer(built, "Which methods write to the Orders table?", [])
    assert found is not None
    text = render_graph_answer(found, built)
    assert "In tests (2):" in text  # its tests/ folder is still tests
    assert text.index("In tests (2):") > text.index("Shop.App.CreateOrderHandler.Handle")


def test_a_mapped_property_has_its_columns_impact():
    files = [parse_csharp(path, text) for path, text in APP.items()]
    files.append(parse_sql("db/schema.sql", SCHEMA + """
GO
CREATE PROCEDURE dbo.Order_Totals AS SELECT SUM(Total) FROM dbo.Orders;
GO
CREATE PROCEDURE dbo.Order_Ids AS SELECT Id FROM dbo.Orders;
""", "tsql"))
    built = build_graph(files)[0]
    texts = {"sql:dbo.Order_Totals|PROCEDURE": "CREATE PROCEDURE dbo.Order_Totals AS SELECT SUM(Total) FROM dbo.Orders;",
             "sql:dbo.Order_Ids|PROCEDURE": "CREATE PROCEDURE dbo.Order_Ids AS SELECT Id FROM dbo.Orders;"}
    question = "What breaks if I rename Shop.Domain.Order.Total?"
    found = answer_from_graph(built, question, find_named(built, question), [],
                              lambda ids: {i: texts[i] for i in ids if i in texts})
    assert found is not None and found.shape == "impact"
    ids = [item.id for item in found.items]
    assert ids[0] == "sql:dbo.Orders.Total|COLUMN"
    assert "sql:dbo.Order_Totals|PROCEDURE" in ids and "sql:dbo.Order_Ids|PROCEDURE" not in ids


def test_questions_as_developers_ask_them_read_as_flows_lists_and_named_tables():
    from ragstream.graph.named import tables_in_words
    from ragstream.graph.action_verbs import asked_http_verbs
    from ragstream.graph.questions import question_shape
    for flow in ("What does deleting a todo list through the API do in the database?",
                 "When I save the form, what code runs and which tables get written?",
                 "Trace POST /orders from the endpoint.",
                 "Walk me from the scheduled job to the tables.",
                 "When a brand is deleted, what does it check first, and which tables does it read and change?"):
        assert question_shape(flow) == "flow", flow
    assert question_shape("Which handlers write to the Department table?") == "list"
    # rows or columns turned into an object: how a type is filled from a table, a mapping
    assert question_shape("Which code copies the database columns into the Invoice object?") == "mapping"
    assert question_shape("How is an invoice row read from the database turned into an Invoice object?") == "mapping"
    assert question_shape("How is an invoice read from the database when the page opens?") == "flow"
    assert question_shape("Which code copies the invoice into the archive table?") == "list"
    assert question_shape("Which query handlers read from the Enrollment table?") == "list"
    assert question_shape("Which tables do the handlers of orders read?") == "list"
    assert asked_http_verbs("How is a new order created?") == {"POST"}
    assert asked_http_verbs("How is an order edited?") == {"PUT", "PATCH", "POST"}
    assert asked_http_verbs("How is an order shown?") == {"GET"}
    built = graph()
    files = [parse_sql("db/more.sql", "CREATE TABLE dbo.OrderLines (Id INT); CREATE TABLE dbo.Lines (Id INT); "
                       "CREATE TABLE dbo.Sales_PriceHistory (Id INT);", "tsql")]
    more = build_graph([*(parse_csharp(p, t) for p, t in APP.items()), parse_sql("db/schema.sql", SCHEMA, "tsql"), *files])[0]
    assert [n.id for n in tables_in_words(more, "Which code writes order lines?")] == ["sql:dbo.OrderLines|TABLE"]
    # a module prefix before the first `_` need not be said
    assert [n.id for n in tables_in_words(more, "Who records the price history?")] == ["sql:dbo.Sales_PriceHistory|TABLE"]
    assert tables_in_words(built, "Which code writes orders?") == []  # one plain word names no table
    # unless the question calls it a table: the word after a module prefix (`Sales_History`)
    prefixed = build_graph([parse_sql("db/p.sql", "CREATE TABLE dbo.Sales_History (Id INT); "
                                      "CREATE TABLE dbo.Sales_HistoryLines (Id INT);", "tsql")])[0]
    assert [n.id for n in tables_in_words(prefixed, "Which procedures change rows in the history table?")] == \
        ["sql:dbo.Sales_History|TABLE"]
    assert tables_in_words(prefixed, "Which procedures change the history?") == []
    # a column of it named in words before "column", the table's own word in front of it unsaid
    from ragstream.graph.named import columns_in_words
    columns = build_graph([parse_sql("db/c.sql", "CREATE TABLE dbo.App_Issues (IssueId INT, IssueDueDate DATETIME, "
                                     "DueDateSet BIT, Title NVARCHAR(10));", "tsql")])[0]
    issues = tables_in_words(columns, "If we rename the due date column of the issues table, what breaks?")
    assert [n.id for n in columns_in_words(columns, issues, "If we rename the due date column of the issues table?")] == \
        ["sql:dbo.App_Issues.IssueDueDate|COLUMN"]
    assert columns_in_words(columns, issues, "If we rename the issues table, what breaks?") == []
    # a procedure named by what it does, when the question says "procedure"
    from ragstream.graph.named import procedures_in_words
    procedures = build_graph([parse_sql("db/d.sql", "CREATE PROCEDURE dbo.App_Project_DeleteProject AS SELECT 1;\nGO\n"
                                        "CREATE PROCEDURE dbo.App_Project_GetProject AS SELECT 1;", "tsql")])[0]
    assert [n.id for n in procedures_in_words(procedures, "If I change the stored procedure that deletes a project?")] == \
        ["sql:dbo.App_Project_DeleteProject|PROCEDURE"]
    assert procedures_in_words(procedures, "What breaks if the code that deletes a project changes?") == []
    # a key's kind may stand between a column's name and "column"
    assert [n.id for n in find_named(built, "What breaks if the Id primary key column on Orders is renamed?")] == \
        ["sql:dbo.Orders.Id|COLUMN"]
    named = find_named(more, "Which handlers change rows in the Orders or OrderLines tables?")
    assert {n.id for n in named} == {"sql:dbo.Orders|TABLE", "sql:dbo.OrderLines|TABLE"}


def test_how_an_entity_is_stored_names_its_table_configuration_dbset_and_the_asked_property():
    from ragstream.graph.questions import question_shape
    config = """
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Metadata.Builders;
using Shop.Domain;
namespace Shop.Data;
public class OrderConfiguration : IEntityTypeConfiguration<Order>
{
    public void Configure(EntityTypeBuilder<Order> builder) { builder.ToTable("Orders"); builder.Property(o => o.Total); }
}
"""
    files = [parse_csharp(p, t) for p, t in {**APP, "src/Data/OrderConfiguration.cs": config}.items()]
    built = build_graph([*files, parse_sql("db/schema.sql", SCHEMA, "tsql")])[0]
    question = "How is an order's total stored in the Orders table?"
    assert question_shape(question) == "mapping"
    assert question_shape("How are rows of the Orders table mapped to C# objects?") == "mapping"
    assert question_shape("How is an order saved, from the controller down to the tables?") == "flow"
    found = answer(built, question, [])
    assert found is not None and found.shape == "mapping"
    ids = {item.id for item in found.items}
    assert {"cs:Shop.Domain.Order|TYPE", "cs:Shop.Data.OrderConfiguration.Configure|METHOD",
            "cs:Shop.Data.ShopContext.Orders|PROPERTY", "cs:Shop.Domain.Order.Total|PROPERTY"} <= ids
    assert "cs:Shop.Domain.Order.Id|PROPERTY" not in ids  # a property the question does not name
    assert "how it is stored" in render_graph_answer(found, built).splitlines()[0]


STORE = {
    "src/Domain/Student.cs": """
using System.ComponentModel.DataAnnotations.Schema;
namespace School.Domain;
public class Student
{
    public int Id { get; set; }
    [Column("FirstName")] public string FirstMidName { get; set; }
    public byte[] RowVersion { get; set; }
}
""",
    "src/Data/SchoolContext.cs": """
using Microsoft.EntityFrameworkCore;
using School.Domain;
namespace School.Data;
public class SchoolContext : DbContext { public DbSet<Student> Student { get; set; } }
""",
    "src/Pages/Edit.cs": """
using AutoMapper;
using School.Data;
using School.Domain;
namespace School.Pages;
public class Command { public int Id { get; set; } public string FirstMidName { get; set; } public byte[] RowVersion { get; set; } }
public class MappingProfile : Profile { public MappingProfile() => CreateMap<Student, Command>(); }
public class CommandHandler
{
    private readonly SchoolContext _db;
    public void Handle(Command message) { var s = _db.Student.Find(message.Id); s.FirstMidName = message.FirstMidName; _db.SaveChanges(); }
}
""",
}
STUDENT = "CREATE TABLE dbo.Student (ID INT PRIMARY KEY, FirstName NVARCHAR(50), RowVersion ROWVERSION);"


def test_a_renamed_column_reaches_the_property_its_attribute_maps_and_the_properties_mapped_from_it():
    built = build_graph([*(parse_csharp(p, t) for p, t in STORE.items()), parse_sql("db/schema.sql", STUDENT, "tsql")])[0]
    edges = sorted((s, d.get("property") or d.get("via")) for s, _, k, d in built.in_edges(
        "sql:dbo.Student.FirstName|COLUMN", keys=True, data=True) if k == "MAPS_TO")
    assert edges == [("cs:School.Domain.Student.FirstMidName|PROPERTY", "column_attribute"),  # [Column("FirstName")]
                     ("cs:School.Domain.Student|TYPE", "FirstMidName")]
    texts = {"cs:School.Pages.CommandHandler.Handle|METHOD": STORE["src/Pages/Edit.cs"]}
    for question in ("What breaks if I rename the FirstName column in the Student table?",
                     "What breaks if I rename the FirstName column from the Student table?"):
        found = answer_from_graph(built, question, find_named(built, question), [],
                                  lambda ids: {i: texts[i] for i in ids if i in texts})
        assert found is not None and found.subjects[0].id == "sql:dbo.Student.FirstName|COLUMN"
        items = {item.id: item for item in found.items}
        assert items["cs:School.Domain.Student.FirstMidName|PROPERTY"].relation == "maps column"
        twin = items["cs:School.Pages.Command.FirstMidName|PROPERTY"]  # AutoMapper fills it by name: a guess
        assert twin.relation == "mapped from" and twin.guess
        assert "cs:School.Pages.CommandHandler.Handle|METHOD" in items  # its code names the property


def test_a_column_of_a_table_made_from_the_model_is_named_by_its_property():
    built = build_graph([parse_csharp(p, t) for p, t in STORE.items()])[0]  # no script: EF model tables
    question = "If I rename the RowVersion column on Student, what code is affected?"
    named = find_named(built, question)
    assert named[0].id == "cs:School.Domain.Student.RowVersion|PROPERTY" and named[0].cue == "column"
    texts = {"cs:School.Pages.CommandHandler.Handle|METHOD": "s.RowVersion = message.RowVersion;"}
    found = answer_from_graph(built, question, named, [], lambda ids: {i: texts[i] for i in ids if i in texts})
    assert found is not None
    ids = [item.id for item in found.items]
    assert "cs:School.Pages.Command.RowVersion|PROPERTY" in ids
    assert "cs:School.Pages.CommandHandler.Handle|METHOD" in ids


def test_a_flow_names_a_methods_tables_together_after_its_first_path():
    from ragstream.graph.relations import path_nodes
    paths = [("job", "handler", "process", "view"), ("job", "cleanup", "table_a"),
             ("job", "handler", "process", "table_b"), ("job", "handler", "create", "table_c")]
    assert path_nodes(paths) == ["job", "handler", "process", "view", "table_b", "cleanup", "table_a",
                                 "create", "table_c"]


def test_a_flow_starts_at_the_action_the_question_describes_even_when_the_search_missed_it():
    reports = """
using Microsoft.AspNetCore.Mvc;
using Shop.Data;
namespace Shop.Web;
public class OrderTotalsController : Controller
{
    private readonly ShopContext _db;
    [HttpGet]
    [Route("finance/{year}/{month}")]
    public IActionResult MonthView(int year, int month) => View(_db.Orders.Where(o => o.Id > month).ToList());
}
"""
    files = [parse_csharp(p, t) for p, t in {**APP, "src/Web/OrderTotalsController.cs": reports}.items()]
    built = build_graph([*files, parse_sql("db/schema.sql", SCHEMA, "tsql")])[0]
    action = "cs:Shop.Web.OrderTotalsController.MonthView|METHOD"
    assert built.nodes[action]["attrs"]["entry"] == {"verb": "GET", "kind": "action", "route": "finance/{year}/{month}"}
    # the search found only a writer that shares no path with the action
    found = answer(built, "When I open the finance order totals page for a month, how are the totals loaded "
                          "from the database?", ["cs:Shop.App.OrderWriter.Write|METHOD"])
    assert found is not None and found.paths[0].nodes == (action, "sql:dbo.Orders|TABLE")


def test_a_flow_ranks_the_changes_it_makes_to_the_entities_it_saves_and_shows_its_other_calls():
    domain = APP["src/Domain/Order.cs"].replace(
        "public int Total { get; set; } }",
        "public int Total { get; set; } public void Approve() { Recalculate(); } "
        "private void Recalculate() { Total = Total + 0; } }")
    domain += "\npublic static class Audit { public static void Note(string what) { } }"
    handler = APP["src/App/Orders.cs"].replace(
        "_db.Orders.Add(order);", "order.Approve(); Audit.Note(\"created\"); _db.Orders.Add(order);")
    files = [parse_csharp(p, t) for p, t in {**APP, "src/Domain/Order.cs": domain, "src/App/Orders.cs": handler}.items()]
    built = build_graph([*files, parse_sql("db/schema.sql", SCHEMA, "tsql")])[0]
    found = answer(built, "How is a new order created, from the API controller down to the SQL tables?",
                   ["cs:Shop.App.CreateOrderHandler.Handle|METHOD"])
    assert found is not None
    handle = "cs:Shop.App.CreateOrderHandler.Handle|METHOD"
    approve, recalculate = "cs:Shop.Domain.Order.Approve|METHOD", "cs:Shop.Domain.Order.Recalculate|METHOD"
    note = "cs:Shop.Domain.Audit.Note|METHOD"
    # the order Handle writes is changed by Approve, which runs Recalculate on it
    assert [(c.id, c.subject) for c in found.changes] == [(approve, handle), (recalculate, approve)]
    ranked = found.node_ids(built)
    assert ranked.index("sql:dbo.Orders|TABLE") < ranked.index(approve) < ranked.index(recalculate)
    # the table is reached through the context's DbSet: ranked after what runs
    orders, dbset = "sql:dbo.Orders|TABLE", "cs:Shop.Data.ShopContext.Orders|PROPERTY"
    assert [(c.id, c.subject) for c in found.carriers] == [(dbset, orders)]
    assert ranked.index(recalculate) < ranked.index(dbset)
    # a call on something that is not an entity the flow reads or writes: shown, not ranked as evidence
    assert [(c.id, c.subject) for c in found.calls] == [(note, handle)] and note not in ranked
    text = render_graph_answer(found, built)
    assert "Changes made to the entities it reads or writes:" in text and "Shop.Domain.Order.Approve" in text
    assert "On the way, the first path also calls:" in text and "Shop.Domain.Audit.Note" in text
    assert "The tables are reached through:\n- `Shop.Data.ShopContext.Orders` for `dbo.Orders`" in text


def test_a_delete_flow_goes_on_along_foreign_keys_that_cascade():
    from ragstream.index.sql.parser import parse_sql as sql
    schema = SCHEMA + """
CREATE TABLE dbo.OrderLines (Id INT, OrderId INT CONSTRAINT FK_Lines FOREIGN KEY REFERENCES dbo.Orders (Id) ON DELETE CASCADE);
CREATE TABLE dbo.LineNotes (Id INT, LineId INT, CONSTRAINT FK_Notes FOREIGN KEY (LineId) REFERENCES dbo.OrderLines (Id) ON DELETE CASCADE);
CREATE TABLE dbo.Invoices (Id INT, OrderId INT, CONSTRAINT FK_Inv FOREIGN KEY (OrderId) REFERENCES dbo.Orders (Id));
"""
    remover = """
using Microsoft.AspNetCore.Mvc;
using Shop.Data;
using Shop.Domain;
namespace Shop.Web;
public class OrderAdminController : ControllerBase
{
    private readonly ShopContext _db;
    [HttpDelete("{id}")]
    public void Delete(Order order) => _db.Orders.Remove(order);
}
"""
    files = [parse_csharp(p, t) for p, t in {**APP, "src/Web/OrderAdminController.cs": remover}.items()]
    built = build_graph([*files, sql("db/schema.sql", schema, "tsql")])[0]
    fk = built.get_edge_data("sql:dbo.OrderLines|TABLE", "sql:dbo.Orders|TABLE")["FOREIGN_KEY"]
    assert fk["on_delete"] == "CASCADE"
    found = answer(built, "What happens in the database when an order is deleted from the admin API?",
                   ["cs:Shop.Web.OrderAdminController.Delete|METHOD"])
    assert found is not None
    ends = {path.nodes[-1]: path.edges[-1] for path in found.paths}
    assert ends["sql:dbo.OrderLines|TABLE"] == "CASCADE (on delete)" and "sql:dbo.LineNotes|TABLE" in ends
    assert "sql:dbo.Invoices|TABLE" not in ends  # no cascade: the delete fails there, it does not spread
    created = answer(built, "How is a new order created, from the API controller down to the SQL tables?", [])
    assert created is not None and not [p for p in created.paths if "CASCADE" in p.edges[-1]]


def test_renaming_a_foreign_key_property_reaches_the_relationship_it_stands_for():
    from ragstream.graph.named import Named
    from ragstream.graph.relations import impact_of
    model = {"src/Domain/Lists.cs": """
namespace Shop.Domain;
public class TodoList { public int Id { get; set; } public IList<TodoItem> Items { get; set; } = new List<TodoItem>(); }
public class TodoItem
{
    public int Id { get; set; }
    public int ListId { get; set; }
    public TodoList List { get; set; }
    public int CustomerId { get; set; }
    public string Title { get; set; }
}
public class TodoItemDto { public int ListId { get; set; } }
""", "src/Data/ListsContext.cs": """
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public class ListsContext : DbContext { public DbSet<TodoList> TodoLists { get; set; } public DbSet<TodoItem> TodoItems { get; set; } }
"""}
    built = build_graph([parse_csharp(p, t) for p, t in model.items()])[0]

    def impact(prop: str) -> dict[str, str]:
        node = f"cs:Shop.Domain.TodoItem.{prop}|PROPERTY"
        found = impact_of(built, Named(node, "PROPERTY", f"Shop.Domain.TodoItem.{prop}", prop), lambda ids: {})
        return {item.id: item.via for item in found}

    lists_table = next(t for _, t, k in built.out_edges("cs:Shop.Domain.TodoList|TYPE", keys=True) if k == "MAPS_TO")
    related = impact("ListId")
    assert {"cs:Shop.Domain.TodoItem.List|PROPERTY", "cs:Shop.Domain.TodoList.Items|PROPERTY", lists_table} <= set(related)
    assert related["cs:Shop.Domain.TodoList.Items|PROPERTY"] == "fk_convention"
    # a DTO's copy of the key is no relationship
    dto = "cs:Shop.Domain.TodoItemDto.ListId|PROPERTY"
    assert not [i for i in impact_of(built, Named(dto, "PROPERTY", "Shop.Domain.TodoItemDto.ListId", "ListId"),
                                     lambda ids: {}) if i.via == "fk_convention"]
    # no principal entity named Customer, and Title is no key: no relationship
    assert not [v for v in impact("CustomerId").values() if v == "fk_convention"]
    assert not [v for v in impact("Title").values() if v == "fk_convention"]


def test_a_flow_through_a_repository_names_the_repository_method_as_implemented_and_what_saves():
    repository = {"src/Data/Repository.cs": """
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public interface IRepository<T> { void Add(T item); Task SaveChangesAsync(); }
public class Repository<T> : IRepository<T> where T : class
{
    private readonly ShopContext _db;
    public void Add(T item) => _db.Set<T>().Add(item);
    public Task SaveChangesAsync() => _db.SaveChangesAsync();
}
""", "src/App/Orders.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class PlaceOrder
{
    private readonly IRepository<Order> _orders;
    public async Task Handle(int total)
    {
        var order = new Order { Total = total };
        _orders.Add(order);
        await _orders.SaveChangesAsync();
    }
}
"""}
    fakes = {"tests/Fakes.cs": """
using Shop.Data;
namespace Shop.Tests;
public class FakeRepository<T> : IRepository<T> { public void Add(T item) { } public Task SaveChangesAsync() => null; }
"""}
    files = [parse_csharp(p, t) for p, t in {**{k: v for k, v in APP.items() if k != "src/App/Orders.cs"},
                                             **repository, **fakes}.items()]
    built = build_graph([*files, parse_sql("db/schema.sql", SCHEMA, "tsql")])[0]
    found = answer(built, "What happens when an order is placed, down to the tables?",
                   ["cs:Shop.App.PlaceOrder.Handle|METHOD"])
    assert found is not None and found.paths[0].nodes == ("cs:Shop.App.PlaceOrder.Handle|METHOD", "sql:dbo.Orders|TABLE")
    assert [(c.id, c.relation) for c in found.carriers] == [
        ("cs:Shop.Data.Repository.Add|METHOD", "WRITES through"),
        ("cs:Shop.Data.Repository.SaveChangesAsync|METHOD", "saves")]  # the implementations, not IRepository's
    # (nor a test's fake, which implements it too)


def test_the_impact_of_a_join_table_or_a_configured_property_names_the_mapping_code():
    from ragstream.graph.named import Named
    from ragstream.graph.relations import impact_of
    model = {"src/Model/Users.cs": """
using System.Collections.Generic;
using FluentNHibernate.Mapping;
namespace Blog.Model;
public class Role { public virtual int Id { get; set; } public virtual string Name { get; set; } }
public class User { public virtual int Id { get; set; } public virtual string Name { get; set; }
                    public virtual IList<Role> Roles { get; set; } }
public class UserMapping : ClassMap<User>
{
    public UserMapping() { Table("Users"); Id(x => x.Id); Map(x => x.Name); HasManyToMany(x => x.Roles).Table("UserRoles"); }
}
public class RoleMapping : ClassMap<Role> { public RoleMapping() { Table("Roles"); Id(x => x.Id); Map(x => x.Name); } }
public class Roles
{
    public bool IsIn(User user, string role) => user.Roles.Any(r => r.Name == role);
    public string Named(User user) => user.Name;
}
"""}
    schema = "CREATE TABLE dbo.Users (Id INT, Name NVARCHAR(50)); CREATE TABLE dbo.Roles (Id INT, Name NVARCHAR(50)); " \
             "CREATE TABLE dbo.UserRoles (UserId INT, RoleId INT);"
    built = build_graph([*(parse_csharp(p, t) for p, t in model.items()), parse_sql("db/schema.sql", schema, "tsql")])[0]
    join = "sql:dbo.UserRoles|TABLE"
    found = impact_of(built, Named(join, "TABLE", "dbo.UserRoles", "table"), lambda ids: {})
    assert "cs:Blog.Model.UserMapping|TYPE" in {i.id for i in found if i.relation == "maps join table"}
    assert "cs:Blog.Model.RoleMapping|TYPE" not in {i.id for i in found}  # it names no join table
    texts = {"cs:Blog.Model.Roles.IsIn|METHOD": "user.Roles.Any(r => r.Name == role)", "cs:Blog.Model.Roles.Named|METHOD":
             "user.Name"}
    uses = impact_of(built, Named(join, "TABLE", "dbo.UserRoles", "table"), lambda ids: {i: texts.get(i, "") for i in ids})
    # the code that walks the navigation the join table stands for, a guess by name; not the one reading a column
    assert {i.id for i in uses if i.relation == "uses property"} == {"cs:Blog.Model.Roles.IsIn|METHOD"}
    name = "cs:Blog.Model.User.Name|PROPERTY"
    configured = {i.id for i in impact_of(built, Named(name, "PROPERTY", "Blog.Model.User.Name", "Name"),
                                          lambda ids: {}) if i.relation == "configures"}
    assert configured == {"cs:Blog.Model.UserMapping|TYPE"}  # not RoleMapping, which maps Role's Name


def test_the_impact_of_an_entity_property_reaches_the_code_that_uses_it_through_what_it_holds():
    """`product.StockQuantity` used where a product is held: read from its table, reached through
    a cart item's navigation, or taken as a parameter; a guess by the member's name. A class
    that holds no product and names a `StockQuantity` of its own is not linked."""
    from ragstream.graph.named import Named
    from ragstream.graph.relations import impact_of
    sources = {"src/Domain/Model.cs": """
namespace Shop.Domain;
public class Product { public int Id { get; set; } public int StockQuantity { get; set; } }
public class CartItem { public int Id { get; set; } public Product Product { get; set; } public int Quantity { get; set; } }
public class StockReport { public int StockQuantity { get; set; } }
""", "src/Data/ShopContext.cs": """
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public class ShopContext : DbContext { public DbSet<Product> Products { get; set; } public DbSet<CartItem> CartItems { get; set; } }
""", "src/App/Services.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class CartService
{
    private readonly ShopContext _db;
    public void Check(int id)
    {
        var item = _db.CartItems.Find(id);
        if (item.Quantity > item.Product.StockQuantity) { throw new Exception(); }
    }
    public int Count(int id) => _db.CartItems.Find(id).Quantity;
    public int Report(int id, StockReport report) { var item = _db.CartItems.Find(id); return report.StockQuantity; }
}
public static class Thumbnails
{
    public static string Of(Product product) => product.StockQuantity > 0 ? "in stock" : "sold out";
}
public class Reports
{
    public int Total(StockReport report) => report.StockQuantity;
}
"""}
    built, text_of = graph_and_texts(sources)
    prop = "cs:Shop.Domain.Product.StockQuantity|PROPERTY"
    found = {item.id: item for item in impact_of(built, Named(prop, "PROPERTY", "Shop.Domain.Product.StockQuantity",
                                                               "StockQuantity"), text_of)}
    uses = {node for node, item in found.items() if item.relation == "uses property"}
    assert uses == {"cs:Shop.App.CartService.Check|METHOD", "cs:Shop.App.Thumbnails.Of|METHOD"}
    assert found["cs:Shop.App.CartService.Check|METHOD"].via == "member_name"
    assert "cs:Shop.App.Reports.Total|METHOD" not in found and "cs:Shop.App.CartService.Count|METHOD" not in found
    # a cart item's reader naming another type's `StockQuantity`, never its `.Product`: not a user
    assert "cs:Shop.App.CartService.Report|METHOD" not in found


def test_a_list_of_writers_through_procedures_names_who_calls_the_repository_through_its_interface():
    """The writers of a table written by a procedure: the procedure, the repository method that runs
    it, then (a hop further) the handler that calls that method through the repository's
    interface. A handler calling only the repository's reader is no writer, and a test calling
    the writer is not listed as one."""
    schema = """
CREATE TABLE dbo.AccountPaye (Id INT PRIMARY KEY, Ref NVARCHAR(16));
GO
CREATE PROCEDURE dbo.CreateAccountPaye @Ref NVARCHAR(16) AS INSERT INTO dbo.AccountPaye (Ref) VALUES (@Ref);
GO
CREATE PROCEDURE dbo.GetAccountPaye @Ref NVARCHAR(16) AS SELECT Id FROM dbo.AccountPaye WHERE Ref = @Ref;
"""
    sources = {"src/Data/PayeRepository.cs": """
using System.Data;
namespace Paye.Data;
public interface IPayeRepository { Task Create(string paye); Task<int> Get(string paye); }
public class PayeRepository : IPayeRepository
{
    private readonly IDbConnection _conn;
    public Task Create(string paye) => _conn.ExecuteAsync("[dbo].[CreateAccountPaye]", new { paye }, commandType: CommandType.StoredProcedure);
    public Task<int> Get(string paye) => _conn.QuerySingleAsync<int>("[dbo].[GetAccountPaye]", new { paye }, commandType: CommandType.StoredProcedure);
}
""", "src/App/Handlers.cs": """
using Paye.Data;
namespace Paye.App;
public class AddPayeHandler
{
    private readonly IPayeRepository _repository;
    public Task Handle(string paye) => _repository.Create(paye);
}
public class ShowPayeHandler
{
    private readonly IPayeRepository _repository;
    public Task<int> Handle(string paye) => _repository.Get(paye);
}
""", "tests/Paye.Tests/HandlerTests.cs": """
using Paye.Data;
namespace Paye.Tests;
public class HandlerTests
{
    private readonly IPayeRepository _repository;
    public Task Adds() => _repository.Create("x");
}
"""}
    files = [parse_csharp(path, text) for path, text in sources.items()]
    files.append(parse_sql("db/schema.sql", schema, "tsql"))
    built = build_graph(files)[0]
    found = answer(built, "Which code adds PAYE schemes to the AccountPaye table?", [])
    assert found is not None
    ids = [item.id for item in found.items]
    assert ids[:3] == ["sql:dbo.CreateAccountPaye|PROCEDURE", "cs:Paye.Data.PayeRepository.Create|METHOD",
                       "cs:Paye.App.AddPayeHandler.Handle|METHOD"]
    assert "cs:Paye.App.ShowPayeHandler.Handle|METHOD" not in ids
    assert "cs:Paye.Tests.HandlerTests.Adds|METHOD" not in ids


def test_which_classes_read_or_write_a_table_names_its_mapping_class_and_not_a_namesake_class():
    """"Which classes read or write" a table names the ORM's mapping class of its entity beside the
    code that queries it; "which methods" does not. A class named as the table is no subject of a
    list of what writes the table's rows."""
    sources = {"src/Model/Setting.cs": """
namespace Blog.Model;
public class Setting { public virtual int Id { get; set; } public virtual string Value { get; set; } }
public class AppSettings { public int Count { get; set; } }
""", "src/Model/Mappings/SettingMapping.cs": """
using FluentNHibernate.Mapping;
namespace Blog.Model.Mappings;
public class SettingMapping : ClassMap<Setting>
{
    public SettingMapping() { Table("AppSettings"); Id(x => x.Id); Map(x => x.Value); }
}
""", "src/Model/AdminRepository.cs": """
using NHibernate;
namespace Blog.Model;
public class AdminRepository
{
    private readonly ISession session;
    public IQueryable<Setting> GetSettings() { return session.Query<Setting>(); }
    public void Save(IEnumerable<Setting> settings) { foreach (var setting in settings) { session.SaveOrUpdate(setting); } }
}
"""}
    files = [parse_csharp(path, text) for path, text in sources.items()]
    files.append(parse_sql("db/schema.sql", "CREATE TABLE dbo.AppSettings (Id INT PRIMARY KEY, Value NVARCHAR(50));", "tsql"))
    built = build_graph(files)[0]
    classes = answer(built, "Which classes read or write the AppSettings table?", [])
    assert classes is not None
    ids = [item.id for item in classes.items]
    assert {"cs:Blog.Model.AdminRepository.GetSettings|METHOD", "cs:Blog.Model.AdminRepository.Save|METHOD",
            "cs:Blog.Model.Mappings.SettingMapping|TYPE"} <= set(ids)
    assert ids.index("cs:Blog.Model.Mappings.SettingMapping|TYPE") == 2  # after the code that queries
    methods = answer(built, "Which methods read or write the AppSettings table?", [])
    assert methods is not None and "cs:Blog.Model.Mappings.SettingMapping|TYPE" not in [i.id for i in methods.items]
    rows = answer(built, "Which methods insert rows into AppSettings?", [])
    assert rows is not None and [s.id for s in rows.subjects] == ["sql:dbo.AppSettings|TABLE"]
    assert [i.id for i in rows.items] == ["cs:Blog.Model.AdminRepository.Save|METHOD"]


def test_the_impact_of_an_entity_property_reaches_a_projection_naming_the_entity_as_a_type_argument():
    """A projection builder over the entity's query (`Func<ProjectionBuilder<Product>, ...>`) that
    selects `p.StockQuantity` uses the property; one over another type naming a `StockQuantity`
    of its own does not."""
    from ragstream.graph.named import Named
    from ragstream.graph.relations import impact_of
    sources = {"src/Domain/Model.cs": """
namespace Shop.Domain;
public class Product { public int Id { get; set; } public int StockQuantity { get; set; } }
public class StockReport { public int StockQuantity { get; set; } }
""", "src/Data/ShopContext.cs": """
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public class ShopContext : DbContext { public DbSet<Product> Products { get; set; } }
""", "src/Data/Projections.cs": """
using Shop.Domain;
namespace Shop.Data;
public static class Projections
{
    public static Func<ProjectionBuilder<Product>, ProjectionBuilder<Product>> Stock(StockRow alias)
    {
        return list => list.Select(p => p.StockQuantity).WithAlias(() => alias.Quantity);
    }
    public static Func<ProjectionBuilder<StockReport>, ProjectionBuilder<StockReport>> Report(StockRow alias)
    {
        return list => list.Select(r => r.StockQuantity).WithAlias(() => alias.Quantity);
    }
}
public class StockRow { public int Quantity { get; set; } }
"""}
    built, text_of = graph_and_texts(sources)
    prop = "cs:Shop.Domain.Product.StockQuantity|PROPERTY"
    found = {item.id: item for item in impact_of(built, Named(prop, "PROPERTY", "Shop.Domain.Product.StockQuantity",
                                                               "StockQuantity"), text_of)}
    assert found["cs:Shop.Data.Projections.Stock|METHOD"].relation == "uses property"
    assert "cs:Shop.Data.Projections.Report|METHOD" not in found


def test_renaming_a_column_no_property_declares_reaches_the_sql_naming_it_and_the_relationship():
    """`ProjectId` of `ToDoItems` is EF's shadow key of `Project.Items`: renaming it breaks the raw
    SQL naming it, the handler calling that query through its interface and the endpoint sending
    to the handler, and the relationship `Project.Items` stands for. A handler naming a C#
    `ProjectId` (its request's) while writing the table is not affected, nor is the table's
    whole impact the answer."""
    sources = {"src/Core/Model.cs": """
namespace Todo.Core;
public class Project { public int Id { get; set; } public List<ToDoItem> Items { get; set; } = new(); }
public class ToDoItem { public int Id { get; set; } public string Title { get; set; } }
""", "src/Data/AppDbContext.cs": """
using Microsoft.EntityFrameworkCore;
using Todo.Core;
namespace Todo.Data;
public class AppDbContext : DbContext
{
    public DbSet<Project> Projects => Set<Project>();
    public DbSet<ToDoItem> ToDoItems => Set<ToDoItem>();
}
""", "src/Data/Queries.cs": """
using Microsoft.EntityFrameworkCore;
using Todo.Core;
namespace Todo.Data;
public interface IListItems { Task<List<ToDoItem>> ListAsync(int projectId); }
public class ListItems : IListItems
{
    private readonly AppDbContext _db;
    public Task<List<ToDoItem>> ListAsync(int projectId) =>
        _db.ToDoItems.FromSqlRaw("SELECT Id, Title FROM ToDoItems WHERE ProjectId = @ProjectId", projectId).ToListAsync();
}
""", "src/App/Handlers.cs": """
using MediatR;
using Todo.Core;
using Todo.Data;
namespace Todo.App;
public record ListItemsQuery(int ProjectId) : IRequest<List<ToDoItem>>;
public record AddItem(int ProjectId, string Title) : IRequest;
public class ListItemsHandler : IRequestHandler<ListItemsQuery, List<ToDoItem>>
{
    private readonly IListItems _query;
    public Task<List<ToDoItem>> Handle(ListItemsQuery request, CancellationToken token) => _query.ListAsync(request.ProjectId);
}
public class AddItemHandler : IRequestHandler<AddItem>
{
    private readonly AppDbContext _db;
    public Task Handle(AddItem request, CancellationToken token)
    {
        _db.ToDoItems.Add(new ToDoItem { Title = request.Title + request.ProjectId });
        return _db.SaveChangesAsync(token);
    }
}
public class ItemsEndpoint
{
    private readonly IMediator _mediator;
    public Task<List<ToDoItem>> HandleAsync(int projectId) => _mediator.Send(new ListItemsQuery(projectId));
}
"""}
    built, text_of = graph_and_texts(sources)
    question = "What would break if the ProjectId column of the ToDoItems table were renamed?"
    found = answer_from_graph(built, question, find_named(built, question), [], text_of)
    assert found is not None and found.shape == "impact"
    assert [s.id for s in found.subjects] == ["sql:dbo.ToDoItems|TABLE"]
    items = {item.id: item for item in found.items}
    assert set(items) == {"cs:Todo.Data.ListItems.ListAsync|METHOD", "cs:Todo.Core.Project.Items|PROPERTY",
                          "cs:Todo.App.ListItemsHandler.Handle|METHOD", "cs:Todo.App.ItemsEndpoint.HandleAsync|METHOD"}
    assert items["cs:Todo.Core.Project.Items|PROPERTY"].via == "fk_convention"
    assert items["cs:Todo.Core.Project.Items|PROPERTY"].guess


def test_the_impact_of_a_table_type_reaches_the_tables_its_procedures_write_its_rows_to():
    """A column added to `PaymentsTable` reaches the procedure taking it, the code running that,
    and the tables the procedure writes the rows to; a procedure that does not take the type
    brings none of its tables."""
    schema = """
CREATE TYPE dbo.PaymentsTable AS TABLE (PaymentId INT, Amount DECIMAL(18, 2));
GO
CREATE TABLE dbo.Payment (PaymentId INT PRIMARY KEY, Amount DECIMAL(18, 2));
GO
CREATE TABLE dbo.Audit (Id INT PRIMARY KEY, Note NVARCHAR(50));
GO
CREATE PROCEDURE dbo.CreatePayments @payments dbo.PaymentsTable READONLY AS
INSERT INTO dbo.Payment (PaymentId, Amount) SELECT PaymentId, Amount FROM @payments;
GO
CREATE PROCEDURE dbo.WriteAudit @note NVARCHAR(50) AS INSERT INTO dbo.Audit (Note) VALUES (@note);
"""
    built = build_graph([parse_sql("db/schema.sql", schema, "tsql")])[0]
    question = "If I add a column to the PaymentsTable table type, what else has to change?"
    found = answer(built, question, [])
    assert found is not None and found.shape == "impact"
    items = {item.id: item for item in found.items}
    assert "sql:dbo.CreatePayments|PROCEDURE" in items
    assert items["sql:dbo.Payment|TABLE"].relation == "receives its rows"
    assert "sql:dbo.Audit|TABLE" not in items and "sql:dbo.WriteAudit|PROCEDURE" not in items


def test_which_code_runs_raw_sql_lists_the_methods_with_sql_of_their_own_and_their_tables():
    """"Which classes run raw SQL": the Dapper query and its table; not the code going through the
    ORM, nor a method whose string only reads like SQL (a route) and reaches no table."""
    sources = {**{path: APP[path] for path in ("src/Domain/Order.cs", "src/Data/ShopContext.cs")}, "src/Data/Reports.cs": """
using System.Data;
using Dapper;
using Shop.Data;
using Shop.Domain;
namespace Shop.Reports;
public class OrderReport
{
    private readonly IDbConnection _conn;
    private readonly ShopContext _db;
    public Task<int> Total() => _conn.ExecuteScalarAsync<int>("SELECT SUM(Total) FROM dbo.Orders");
    public Task<List<Order>> All() => _db.Orders.ToListAsync();
    public string Route() => "DELETE /orders/{id}";
}
"""}
    files = [parse_csharp(path, text) for path, text in sources.items()]
    files.append(parse_sql("db/schema.sql", SCHEMA, "tsql"))
    built = build_graph(files)[0]
    found = answer(built, "Which classes run raw SQL queries against the database instead of going through the repository?", [])
    assert found is not None and found.shape == "list" and found.subjects == []
    assert [(i.id, i.indirect) for i in found.items] == [("cs:Shop.Reports.OrderReport.Total|METHOD", False),
                                                          ("sql:dbo.Orders|TABLE", True)]
    assert "the code running SQL of its own: 1 direct" in render_graph_answer(found, built)


def test_which_class_a_table_stores_leads_a_list_with_its_entity_and_the_context_member():
    built = graph()
    question = "Which class is stored in the Orders table, and which code writes its rows?"
    found = answer_from_graph(built, question, find_named(built, question), [], lambda ids: {})
    ids = [item.id for item in found.items]
    assert "cs:Shop.Domain.Order|TYPE" in ids and "cs:Shop.Data.ShopContext.Orders|PROPERTY" in ids
    # asked only for the writers, the entity is not listed as one
    plain = "Which code writes rows of the Orders table?"
    assert "cs:Shop.Domain.Order|TYPE" not in [
        item.id for item in answer_from_graph(built, plain, find_named(built, plain), [], lambda ids: {}).items]


def test_a_column_is_named_by_what_the_clause_after_column_says_it_holds():
    """"The column that stores the client IP address in the system log table" is `ClientIP` of
    `SystemLogs`; "the column holding a repository's logo image", where no script declares the
    `Repository` table's columns, is the mapped entity's `Logo` property; a column whose words the
    clause does not say, or a table the question does not name, is none of them."""
    from ragstream.graph.named import columns_in_words, tables_in_words

    logs = script("CREATE TABLE dbo.SystemLogs (Id INT, ClientIP NVARCHAR(64), ClientAgent NVARCHAR(200)); "
                  "CREATE TABLE dbo.Visits (Id INT, ClientIP NVARCHAR(64));")
    question = "If the column that stores the client IP address in the system log table is renamed, which code is affected?"
    tables = tables_in_words(logs, question)
    assert [n.id for n in tables] == ["sql:dbo.SystemLogs|TABLE"]
    assert [n.id for n in columns_in_words(logs, tables, question)] == ["sql:dbo.SystemLogs.ClientIP|COLUMN"]
    assert columns_in_words(logs, tables, "If the column that stores the user agent is renamed?") == []
    model = build_graph([parse_csharp("src/Data.cs", """
using System.Data.Entity;
namespace Git.Data;
public class Repository { public int Id { get; set; } public string Name { get; set; } public byte[] Logo { get; set; } }
public class Team { public int Id { get; set; } public byte[] Logo { get; set; } }
public class GitContext : DbContext { public DbSet<Repository> Repository { get; set; } public DbSet<Team> Team { get; set; } }
""")])[0]
    question = "If the column holding a repository's logo image were renamed or dropped, which code would have to change?"
    assert [n.id for n in columns_in_words(model, [], question)] == ["cs:Git.Data.Repository.Logo|PROPERTY"]
    assert columns_in_words(model, [], "If the column holding the logo image were renamed, what breaks?") == []


def test_a_question_about_several_tables_names_one_in_each_place_it_says_a_name():
    """"the system log and the customer activity log tables": `Log` by its cue word, `ActivityLog`
    in words, not `Log` again inside "activity log"; a question about one table keeps to the
    longest name it says."""
    from ragstream.graph.answers import asked_subjects
    from ragstream.graph.named import find_named, tables_in_words

    logs = script("CREATE TABLE dbo.Log (Id INT); CREATE TABLE dbo.ActivityLog (Id INT); "
                  "CREATE TABLE dbo.OrderItems (Id INT); CREATE TABLE dbo.ShoppingCartItems (Id INT);")
    question = "Which methods bulk-delete the system log and the customer activity log tables?"
    named = find_named(logs, question)
    assert [n.id for n in named] == ["sql:dbo.Log|TABLE"]
    assert [n.id for n in asked_subjects(logs, question, "list", named)] == \
        ["sql:dbo.Log|TABLE", "sql:dbo.ActivityLog|TABLE"]
    assert [n.id for n in tables_in_words(logs, "Which code copies shopping cart items into order items tables?")] == \
        ["sql:dbo.ShoppingCartItems|TABLE", "sql:dbo.OrderItems|TABLE"]
    # one table asked about: the longest name said, not every shorter one beside it
    assert [n.id for n in tables_in_words(logs, "Which code copies shopping cart items into order items?")] == \
        ["sql:dbo.ShoppingCartItems|TABLE"]
    single = "Which methods write order items in the log table?"
    assert [n.id for n in asked_subjects(logs, single, "list", find_named(logs, single))] == ["sql:dbo.Log|TABLE"]


def test_a_table_described_by_the_two_it_links_is_the_one_with_keys_to_both():
    """"the table that assigns customers to customer roles" is `CustomerRoleMapping` (foreign keys
    to `Customer` and `CustomerRole`), not `CustomerRole`, whose words it also says; a clause
    naming one table, or a table keyed to only one of the two, links nothing."""
    from ragstream.graph.answers import asked_subjects
    from ragstream.graph.named import link_tables_in_words

    roles = script("""
CREATE TABLE dbo.Customer (Id INT PRIMARY KEY);
CREATE TABLE dbo.CustomerRole (Id INT PRIMARY KEY);
CREATE TABLE dbo.CustomerRoleMapping (Id INT PRIMARY KEY,
    CustomerId INT REFERENCES dbo.Customer (Id), CustomerRoleId INT REFERENCES dbo.CustomerRole (Id));
CREATE TABLE dbo.CustomerNote (Id INT PRIMARY KEY, CustomerId INT REFERENCES dbo.Customer (Id));
""")
    question = "Which methods insert or delete rows of the table that assigns customers to customer roles?"
    assert [n.id for n in asked_subjects(roles, question, "list", [])] == ["sql:dbo.CustomerRoleMapping|TABLE"]
    assert link_tables_in_words(roles, "Which methods write the table that keeps notes on customers?") == []
    assert [n.id for n in asked_subjects(roles, "Which methods write the customer role table?", "list", [])] == \
        ["sql:dbo.CustomerRole|TABLE"]


def test_an_impact_question_naming_a_column_in_words_is_about_that_column():
    from ragstream.graph.answers import asked_subjects

    issues = script("CREATE TABLE dbo.App_Issues (IssueId INT, IssueDueDate DATETIME);")
    assert [n.id for n in asked_subjects(issues, "If we rename the due date column of the issues table, what breaks?",
                                         "impact", [])] == ["sql:dbo.App_Issues.IssueDueDate|COLUMN"]
