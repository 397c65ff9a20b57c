"""C# resolution through build_graph on small inline fixtures: stored procedure calls, interface
and virtual dispatch, receivers typed by inference, the short-name fallback's limits, overloads,
and a DbSet of a type outside the index (the `KeyError: 'id'` crash)."""
from __future__ import annotations

import networkx as nx

from ragstream.index.chunks import build_chunks
from ragstream.index.graph_build import build_graph
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.sql.parser import parse_sql
from ragstream.token_count import token_counter

PROCEDURES = """
CREATE TABLE dbo.Invoice (Id INT PRIMARY KEY, Total INT);
GO
CREATE PROCEDURE dbo.Invoice_Create @Total INT AS INSERT INTO dbo.Invoice (Total) VALUES (@Total);
GO
CREATE PROCEDURE dbo.Invoice_Insert @a INT, @b INT AS INSERT INTO dbo.Invoice (Id, Total) VALUES (@a, @b);
GO
CREATE PROCEDURE Billing.Invoice_Archive AS DELETE FROM dbo.Invoice;
"""


def build(cs: dict[str, str], sql: str = "") -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in cs.items()]
    if sql:
        files.append(parse_sql("db/schema.sql", sql, "tsql"))
    graph, _ = build_graph(files)
    return graph


def calls(graph: nx.MultiDiGraph, source: str) -> dict[str, dict]:
    """CALLS targets of a node -> the edge's attributes."""
    return {target: data for _, target, data in graph.out_edges(source, data=True)
            if data["type"] == "CALLS"}


def test_stored_procedures_are_called_through_dapper_ado_ef_and_exec():
    graph = build({"Repo.cs": '''
using System.Data;
namespace Billing;
public class InvoiceRepository
{
    private readonly IDbConnection _conn;
    public Task Create(int total) =>
        _conn.ExecuteAsync("[dbo].[Invoice_Create]", new { total }, commandType: CommandType.StoredProcedure);
    public void Insert(int a, int b) => _conn.Execute("EXEC dbo.Invoice_Insert @a, @b", new { a, b });
    public void Archive()
    {
        using var cmd = new SqlCommand("invoice_archive", _conn) { CommandType = CommandType.StoredProcedure };
        cmd.ExecuteNonQuery();
    }
    public void Legacy(SqlCommand cmd) { cmd.CommandType = CommandType.StoredProcedure; cmd.CommandText = "Invoice_Missing"; }
    public void Raw(Ctx db) => db.Database.ExecuteSqlRaw("EXECUTE [dbo].[invoice_create] @p0", 1);
    public int Read() => _conn.QuerySingle<int>("SELECT COUNT(*) FROM dbo.Invoice");
}
'''}, PROCEDURES)
    method = "cs:Billing.InvoiceRepository.{}|METHOD".format
    assert set(calls(graph, method("Create"))) == {"sql:dbo.Invoice_Create|PROCEDURE"}
    assert set(calls(graph, method("Insert"))) == {"sql:dbo.Invoice_Insert|PROCEDURE"}
    # unqualified and in another case: the one procedure of that name in any schema
    assert set(calls(graph, method("Archive"))) == {"sql:Billing.Invoice_Archive|PROCEDURE"}
    assert set(calls(graph, method("Raw"))) == {"sql:dbo.Invoice_Create|PROCEDURE"}
    # a procedure outside the repository: EXTERNAL, as tables are
    assert set(calls(graph, method("Legacy"))) == {"ext:Invoice_Missing|EXTERNAL"}
    assert graph.nodes["ext:Invoice_Missing|EXTERNAL"]["kind"] == "EXTERNAL"
    # a procedure name is not SQL that reads a table named after it; inline SQL keeps READS
    assert not any(d["type"] in ("READS", "WRITES") for *_, d in graph.out_edges(method("Create"), data=True))
    assert {(t, d["type"]) for _, t, d in graph.out_edges(method("Read"), data=True)} == {
        ("sql:dbo.Invoice|TABLE", "READS")}
    assert calls(graph, method("Read")) == {}
    create = graph.nodes[method("Create")]["attrs"]
    assert create["stored_procedures"] == ["dbo.Invoice_Create"]


SERVICES = {
    "IInvoiceService.cs": '''
namespace Billing.Services;
public interface IInvoiceService { Task<Invoice> CreateAsync(int total); void Log(); }
public class Invoice { public void Send() { } }
''',
    "InvoiceService.cs": '''
namespace Billing.Services;
public class InvoiceService : IInvoiceService
{
    public async Task<Invoice> CreateAsync(int total) { await Task.Yield(); return new Invoice(); }
    public void Log() { }
}
public class AuditedInvoiceService : InvoiceService { public override void Log() { base.Log(); } }
public abstract class Exporter { public abstract void Export(); public virtual void Close() { } }
public class PdfExporter : Exporter { public override void Export() { } public void Close(int x) { } }
''',
    "InvoicesController.cs": '''
using Billing.Services;
namespace Billing.Api;
public class InvoicesController
{
    private readonly IInvoiceService _service;
    public InvoicesController(IInvoiceService service) { _service = service; }
    public async Task Post(int total, Exporter exporter)
    {
        var invoice = await _service.CreateAsync(total);
        invoice.Send();
        exporter.Export();
        exporter.Close();
    }
}
''',
}


def test_a_call_on_an_interface_also_reaches_its_implementations():
    graph = build(SERVICES)
    post = calls(graph, "cs:Billing.Api.InvoicesController.Post|METHOD")
    interface_method = "cs:Billing.Services.IInvoiceService.CreateAsync|METHOD"
    assert post[interface_method]["resolution"] == "static"
    implementation = post["cs:Billing.Services.InvoiceService.CreateAsync|METHOD"]
    assert implementation["resolution"] == "dispatch" and implementation["via"] == interface_method
    # abstract -> override; a virtual method's non-overriding namesake is not a target
    assert post["cs:Billing.Services.PdfExporter.Export|METHOD"]["resolution"] == "dispatch"
    assert "cs:Billing.Services.PdfExporter.Close|METHOD" not in post


def test_dispatch_reaches_implementers_of_implementers_but_not_from_base_calls():
    graph = build(SERVICES)
    service = calls(graph, "cs:Billing.Services.InvoiceService.Log|METHOD")
    assert service == {}
    audited = calls(graph, "cs:Billing.Services.AuditedInvoiceService.Log|METHOD")
    assert set(audited) == {"cs:Billing.Services.InvoiceService.Log|METHOD"}  # base.Log() only


def test_the_return_type_of_an_awaited_call_types_the_variable():
    graph = build(SERVICES)
    post = calls(graph, "cs:Billing.Api.InvoicesController.Post|METHOD")
    send = post["cs:Billing.Services.Invoice.Send|METHOD"]
    assert send["resolution"] == "inferred" and "guess" not in send


def test_lambda_pattern_and_out_variables_are_typed():
    graph = build({"Types.cs": '''
namespace Shop;
public class Order { public int Total() => 0; }
public class Line { public int Price() => 0; }
public class Report
{
    private readonly List<Order> _orders;
    public int Sum(IEnumerable<Line> lines, object o, Func<Order, int> f)
    {
        var a = _orders.Where(x => x.Total() > 0).Count();
        var b = lines.Select(l => l.Price()).Sum();
        if (o is Order order) order.Total();
        TryGet(out Line line); line.Price();
        Func<Line, int> price = p => p.Price();
        return a + b;
    }
    private bool TryGet(out Line line) { line = null; return true; }
}
'''})
    sum_ = calls(graph, "cs:Shop.Report.Sum|METHOD")
    assert {"cs:Shop.Order.Total|METHOD", "cs:Shop.Line.Price|METHOD",
            "cs:Shop.Report.TryGet|METHOD"} == set(sum_)


UNRELATED = '''
namespace Billing.Util;
public static class Text { public static string ExecuteAsync(string s) => s; }
public class Store { public void Log(string m) { } }
'''


def test_a_receiver_typed_outside_the_repository_is_never_linked_by_short_name():
    graph = build({"Util.cs": UNRELATED, "Repo.cs": '''
using System.Data;
namespace Billing.Data;
public class Repo
{
    private readonly IDbConnection _conn;
    private readonly ILogger<Repo> _logger;
    public void Save() { _conn.ExecuteAsync("select 1"); _logger.Log("saved"); }
}
'''})
    assert calls(graph, "cs:Billing.Data.Repo.Save|METHOD") == {}


def test_a_short_name_guess_is_marked_as_one():
    graph = build({"Util.cs": UNRELATED, "Page.cs": '''
namespace Billing.Web;
public class Page : Billing.Util.Store
{
    public void Render() { Format(); }
}
public static class PageExtensions { public static void Format(this object page) { } }
'''})
    # Format is on no base of Page: the unique method of that name is a labelled guess
    render = calls(graph, "cs:Billing.Web.Page.Render|METHOD")
    edge = render["cs:Billing.Web.PageExtensions.Format|METHOD"]
    assert edge["resolution"] == "by_name" and edge["guess"] is True


MAILER = '''
namespace Mail;
public class Mailer
{
    public void Send(string to) { Audit(); }
    public void Send(string to, string subject) { Send(to); }
    public void Send(int id, string subject) { }
    private void Audit() { }
    public void Run(string to) { Send("a"); Send("a", "b"); Send(1, "b"); Send(to, "b"); }
}
'''


def test_overloads_are_separate_nodes_and_calls_pick_by_argument_count():
    graph = build({"Mailer.cs": MAILER})
    one = "cs:Mail.Mailer.Send(string)|METHOD"
    two = "cs:Mail.Mailer.Send(string,string)|METHOD"
    three = "cs:Mail.Mailer.Send(int,string)|METHOD"
    assert {one, two, three} <= set(graph.nodes)
    assert graph.nodes[one]["start_line"] != graph.nodes[two]["start_line"]
    assert set(calls(graph, one)) == {"cs:Mail.Mailer.Audit|METHOD"}  # its own body only
    assert set(calls(graph, two)) == {one}  # one argument decides
    run = graph.out_edges("cs:Mail.Mailer.Run|METHOD", data=True)
    # one argument decides; a string literal rules out (int,string), a number (string,string);
    # a variable does not, so Send(to, "b") also reaches (int,string), labelled ambiguous
    assert {(target, data.get("overload")) for _, target, data in run} == {
        (one, None), (two, None), (three, None)}
    ambiguous = build({"Mailer.cs": MAILER.replace('Send(1, "b"); ', "")})
    assert ambiguous.edges["cs:Mail.Mailer.Run|METHOD", three, "CALLS"]["overload"] == "ambiguous"



def test_a_static_and_an_instance_constructor_are_two_nodes_each_with_its_own_calls():
    graph = build({"Provider.cs": """
namespace Logs;
public class Provider
{
    static Provider() { Warm(); }
    public Provider() { Open(); }
    static void Warm() { }
    void Open() { }
}
"""})
    static, instance = "cs:Logs.Provider.Provider(static)|METHOD", "cs:Logs.Provider.Provider()|METHOD"
    assert graph.nodes[static]["start_line"] == 5 and graph.nodes[instance]["start_line"] == 6
    assert set(calls(graph, static)) == {"cs:Logs.Provider.Warm|METHOD"}
    assert set(calls(graph, instance)) == {"cs:Logs.Provider.Open|METHOD"}
    # `new Provider()` runs the instance constructor; the runtime runs the static one
    made = build({"Provider.cs": """
namespace Logs;
public class Provider { static Provider() { } public Provider() { } }
public class User { public void Make() { var p = new Provider(); } }
"""})
    assert set(calls(made, "cs:Logs.User.Make|METHOD")) == {"cs:Logs.Provider.Provider()|METHOD"}


ENTITIES = {"ShopContext.cs": '''
using Microsoft.AspNetCore.DataProtection.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore;
namespace Shop;
public class Order { }
public class ShopContext : DbContext
{
    public DbSet<Order> Orders { get; set; }
    public DbSet<DataProtectionKey> DataProtectionKeys { get; set; }
}
'''}


def test_a_dbset_of_a_type_outside_the_index_maps_from_an_external_node():
    graph = build(ENTITIES)
    assert all("id" in data for _, data in graph.nodes(data=True))  # no bare node
    external = "ext:DataProtectionKey|EXTERNAL"
    assert graph.nodes[external]["kind"] == "EXTERNAL"
    assert {(d["type"], t) for _, t, d in graph.out_edges(external, data=True)} == {
        ("MAPS_TO", "ext:DataProtectionKeys|EXTERNAL")}
    assert ("cs:Shop.Order|TYPE", "sql:dbo.Orders|TABLE") in {
        (s, t) for s, t, d in graph.edges(data=True) if d["type"] == "MAPS_TO"}


def test_chunks_build_with_a_dbset_of_an_external_type():
    graph = build(ENTITIES)
    chunks = build_chunks(graph, ENTITIES, token_counter(), max_tokens=400, max_names=8)
    assert {chunk.id for chunk in chunks} >= {"cs:Shop.ShopContext|TYPE", "cs:Shop.Order|TYPE"}


def test_an_unqualified_table_resolves_past_a_copied_script_and_a_template_schema():
    files = [parse_csharp("Store.cs", '''namespace N { class Store {
        void Add(IDbConnection c) { c.Execute("insert into Job (Id) values (1)"); } } }'''),
             parse_sql("DefaultInstall.sql", "CREATE TABLE [HangFire].[Job] (Id INT);", "tsql"),
             parse_sql("Copy.sql", "CREATE TABLE [HangFire].[Job] (Id INT);", "tsql"),
             parse_sql("Install.sql", "CREATE TABLE [$(HangFireSchema)].[Job] (Id INT);", "tsql")]
    graph, _ = build_graph(files)
    writes = [t for _, t, k in graph.out_edges("cs:N.Store.Add|METHOD", keys=True) if k == "WRITES"]
    assert writes == ["sql:HangFire.Job|TABLE"]
    # two concrete schemas holding a table of that name: no guess
    files.append(parse_sql("Other.sql", "CREATE TABLE dbo2.Job (Id INT);", "tsql"))
    graph, _ = build_graph(files)
    assert [t for _, t, k in graph.out_edges("cs:N.Store.Add|METHOD", keys=True) if k == "WRITES"] == [
        "ext:Job|EXTERNAL"]


def test_a_dapper_query_maps_its_row_type_to_the_tables_it_reads():
    graph = build({
        "Api.cs": '''using N.Entities; namespace N { class Api { void Details(IDbConnection c) {
            var job = c.Query<SqlJob>("select * from dbo.Invoice where Id = @id").Single();
            var count = c.Query<int>("select count(*) from dbo.Invoice");
            var rows = c.Query<ExternalRow>("select Total from dbo.Invoice"); } } }''',
        "SqlJob.cs": "namespace N.Entities { public class SqlJob { public int Total { get; set; } } }"},
        PROCEDURES)
    maps = [(u, v, d["via"]) for u, v, k, d in graph.edges(keys=True, data=True) if k == "MAPS_TO"]
    assert maps == [("cs:N.Entities.SqlJob|TYPE", "sql:dbo.Invoice|TABLE", "dapper_row_type")]
    # Query<int> has no row type to map; a row type outside the repository makes no EXTERNAL node
    assert not [n for n in graph if "ExternalRow" in n]


def test_properties_are_nodes_and_a_rainbow_database_names_its_tables():
    graph = build({
        "Db.cs": '''namespace N.Models { public class AppDb : Dapper.Database<AppDb> {
            public Table<Revision> Revisions { get; private set; }
            public Table<Missing> Others { get; set; }
            public int Timeout { get; set; } }
          public class Plain { public Table<Revision> Revisions { get; set; } } }''',
        "Revision.cs": "namespace N.Models { public class Revision { public int Total { get; set; } } }"},
        "CREATE TABLE dbo.Revisions (Id INT, Total INT);")
    assert graph.nodes["cs:N.Models.Revision.Total|PROPERTY"]["parent"] == "cs:N.Models.Revision|TYPE"
    assert graph.has_edge("cs:N.Models.Revision|TYPE", "cs:N.Models.Revision.Total|PROPERTY", "DEFINES")
    maps = {(u, v): d for u, v, k, d in graph.edges(keys=True, data=True) if k == "MAPS_TO"}
    # the convention is marked as one; Plain derives from no Database<T>; Missing is not in the
    # repository (its table is not either: the property stands for an EXTERNAL table)
    assert set(maps) == {("cs:N.Models.Revision|TYPE", "sql:dbo.Revisions|TABLE"),
                         ("cs:N.Models.AppDb.Revisions|PROPERTY", "sql:dbo.Revisions|TABLE"),
                         ("cs:N.Models.AppDb.Others|PROPERTY", "ext:Others|EXTERNAL")}
    assert maps["cs:N.Models.AppDb.Revisions|PROPERTY", "sql:dbo.Revisions|TABLE"]["guess"] is True
    edge = maps["cs:N.Models.Revision|TYPE", "sql:dbo.Revisions|TABLE"]
    assert (edge["via"], edge["guess"], edge["property"]) == ("dapper_rainbow", True, "N.Models.AppDb.Revisions")


def test_calls_through_properties_reach_the_property_types_members():
    graph = build({
        "Factory.cs": '''namespace N { public class CreateContext { public IStorageConnection Connection { get; } }
          public class Factory { public void Create(CreateContext context) {
              context.Connection.CreateExpiredJob(); Current.Db.Jobs.Insert(); context.Missing.Run(); } } }''',
        "Storage.cs": '''namespace N { public interface IStorageConnection { void CreateExpiredJob(); }
          public class SqlConnection : IStorageConnection { public void CreateExpiredJob() { } }
          public static class Current { public static AppDb Db { get; } }
          public class AppDb { public JobTable Jobs { get; set; } }
          public class JobTable { public void Insert() { } public void Run() { } } }'''})
    found = calls(graph, "cs:N.Factory.Create|METHOD")
    assert found["cs:N.IStorageConnection.CreateExpiredJob|METHOD"]["resolution"] == "inferred"
    dispatched = found["cs:N.SqlConnection.CreateExpiredJob|METHOD"]
    assert dispatched["resolution"] == "dispatch" and "guess" not in dispatched
    assert found["cs:N.JobTable.Insert|METHOD"]["resolution"] == "inferred"  # type Current, then its properties
    assert "cs:N.JobTable.Run|METHOD" not in found  # an unknown property leads nowhere, not to a namesake


def test_a_call_on_an_untyped_receiver_links_only_to_an_interface_family_root():
    graph = build({
        "Factory.cs": '''namespace N { public class Factory { public void Create(Retry retry) {
            retry.Run(static (_, ctx) => ctx.Context.Connection.CreateExpiredJob());
            retry.Run(static (_, ctx) => ctx.Items.Add(1));
            retry.Run(static (_, ctx) => ctx.Other.Save()); } } }''',
        "Storage.cs": '''namespace N { public interface IStorageConnection { void CreateExpiredJob(); }
          public abstract class JobStorageConnection : IStorageConnection { public abstract void CreateExpiredJob(); }
          public class SqlConnection : JobStorageConnection { public override void CreateExpiredJob() { } }
          public class Bag { public void Add(int x) { } }
          public interface IRepo { void Save(); } public class Repo : IRepo { public void Save() { } }
          public class Unrelated { public void Save() { } } }'''})
    found = calls(graph, "cs:N.Factory.Create|METHOD")
    root = found["cs:N.IStorageConnection.CreateExpiredJob|METHOD"]
    assert (root["resolution"], root["guess"]) == ("by_name", True)
    dispatched = found["cs:N.SqlConnection.CreateExpiredJob|METHOD"]
    assert (dispatched["resolution"], dispatched["guess"]) == ("dispatch", True)  # a guess stays one
    # Bag.Add is unique but no interface's: an untyped `ctx.Items.Add` may be a List's
    assert "cs:N.Bag.Add|METHOD" not in found
    # Save belongs to IRepo's family and to an unrelated class: no guess
    assert not [t for t in found if t.endswith(".Save|METHOD")]


def test_a_call_on_a_rainbow_table_property_reads_or_writes_its_table():
    graph = build({
        "Db.cs": '''namespace N.Models { public class AppDb : Dapper.Database<AppDb> {
            public Table<Revision> Revisions { get; private set; } }
          public static class Current { public static AppDb DB { get; } } }''',
        "Revision.cs": "namespace N.Models { public class Revision { public int Total { get; set; } } }",
        "Controller.cs": '''using N.Models; namespace N.Web { public class RevisionController {
            public void Save() { Current.DB.Revisions.Insert(new { Total = 1 }); }
            public void Show() { var r = Current.DB.Revisions.Get(1); } } }'''},
        "CREATE TABLE dbo.Revisions (Id INT, Total INT);")
    def data_edges(method):
        return {(k, v, d["via"]) for _, v, k, d in graph.out_edges(method, keys=True, data=True) if k in ("READS", "WRITES")}
    assert data_edges("cs:N.Web.RevisionController.Save|METHOD") == {("WRITES", "sql:dbo.Revisions|TABLE", "dapper_rainbow")}
    assert data_edges("cs:N.Web.RevisionController.Show|METHOD") == {("READS", "sql:dbo.Revisions|TABLE", "dapper_rainbow")}


def test_a_row_type_whose_query_is_built_by_a_helper_maps_as_a_guess():
    graph = build({
        "Api.cs": '''using N.Entities; namespace N { class Api { void Details(IDbConnection c, Storage s) {
            var sql = s.GetQuery(schema => $"select * from [{schema}].Invoice where Id = @id");
            var job = c.Query<SqlJob>(sql).Single(); } } }''',
        "SqlJob.cs": "namespace N.Entities { public class SqlJob { public int Total { get; set; } } }"},
        PROCEDURES)
    [(source, target, data)] = [(u, v, d) for u, v, k, d in graph.edges(keys=True, data=True) if k == "MAPS_TO"]
    assert (source, target) == ("cs:N.Entities.SqlJob|TYPE", "sql:dbo.Invoice|TABLE")
    assert data["via"] == "dapper_row_type" and data["guess"] is True


def test_what_an_interface_family_method_returns_types_the_next_receiver_as_a_guess():
    graph = build({
        "Connection.cs": '''namespace N { public class Connection { public void Fetch(Registry registry) {
            var queue = registry.Providers[0].GetJobQueue();
            queue.Dequeue(); } } }''',
        "Queues.cs": '''namespace N { public interface IQueue { void Dequeue(); }
          public interface IQueueProvider { IQueue GetJobQueue(); }
          public class SqlQueue : IQueue { public void Dequeue() { } }
          public class SqlQueueProvider : IQueueProvider { public IQueue GetJobQueue() => new SqlQueue(); } }'''})
    found = calls(graph, "cs:N.Connection.Fetch|METHOD")
    assert (found["cs:N.IQueue.Dequeue|METHOD"]["resolution"], found["cs:N.IQueue.Dequeue|METHOD"]["guess"]) == \
        ("by_name", True)
    assert found["cs:N.SqlQueue.Dequeue|METHOD"]["guess"] is True  # dispatched from a guess


def test_a_file_named_in_code_is_referenced():
    installer = parse_csharp("src/Acme.Data/Installer.cs", '''
namespace Acme.Data;
public static class Installer
{
    private const string Seed = "Scripts/seed.sql";
    public static string Script() => Read(typeof(Installer).Assembly, "Acme.Data.Install.sql");
    public static string SeedScript() => System.IO.File.ReadAllText(Seed);
    public static string Ambiguous() => System.IO.File.ReadAllText("schema.sql");
    public static string Message() => "Install.sql is not a file name here";
}
''')
    scripts = [parse_sql(path, "CREATE TABLE dbo.T (Id INT)", "tsql") for path in
               ("src/Acme.Data/Install.sql", "src/Acme.Data/Scripts/seed.sql", "db/a/schema.sql", "db/b/schema.sql")]
    graph, _ = build_graph([installer, *scripts])
    refs = {(s, t): d for s, t, k, d in graph.edges(keys=True, data=True) if k == "REFERENCES"}
    resource = refs[("cs:Acme.Data.Installer.Script|METHOD", "file:src/Acme.Data/Install.sql|FILE")]
    assert resource["via"] == "file_name"
    assert ("cs:Acme.Data.Installer.SeedScript|METHOD", "file:src/Acme.Data/Scripts/seed.sql|FILE") in refs
    # two files answer to "schema.sql", and a sentence is no name: no edge, no guess
    assert not [t for s, t in refs if s in ("cs:Acme.Data.Installer.Ambiguous|METHOD",
                                            "cs:Acme.Data.Installer.Message|METHOD")]


def test_a_call_on_an_untyped_query_chain_reaches_the_one_extension_method_of_its_name_as_a_guess():
    graph = build({"Paging.cs": """
using System.Linq;
namespace Shop;
public static class Paging
{
    public static Task<List<T>> PageAsync<T>(this IQueryable<T> query, int page) => null;
}
public class Students
{
    private readonly IQueryable<int> _rows;
    public Task Show(int page) => _rows.Where(r => r > 0).OrderBy(r => r).PageAsync(page);
    public void Other(object any) => any.ToString().Unknown();
}
"""})
    page = "cs:Shop.Paging.PageAsync|METHOD"
    edge = graph.edges["cs:Shop.Students.Show|METHOD", page, "CALLS"]
    assert edge["resolution"] == "by_name" and edge["guess"] is True and edge["via"] == "extension"
    assert not [t for t in calls(graph, "cs:Shop.Students.Other|METHOD") if t.startswith("cs:Shop.")]
    # a receiver whose type was found (what `Get()` returns), or arguments the extension cannot take: none
    typed = build({"Paging.cs": """
namespace Shop;
public class Order { }
public static class OrderChecks { public static bool Validate(this Customer c) => true; public static int Page(this Order o, int a, int b) => 0; }
public class Customer { }
public interface IOrders { Order Get(); }
public class Use
{
    private readonly IOrders _orders;
    public void Check() { var order = _orders.Get(); order.Validate(); }
    public void Paged(System.Linq.IQueryable<int> q) { q.Where(x => x > 0).Page(1); }
}
"""})
    assert "cs:Shop.OrderChecks.Validate|METHOD" not in calls(typed, "cs:Shop.Use.Check|METHOD")
    assert "cs:Shop.OrderChecks.Page|METHOD" not in calls(typed, "cs:Shop.Use.Paged|METHOD")


def test_an_element_of_what_a_call_returns_is_typed_by_the_declared_collection():
    """`foreach (var tag in toAdd)` where `toAdd` is `GetTags(..).Where(..).ToList()` and `GetTags`
    returns `List<Tag>`: `tag.Attach(..)` is `Tag.Attach`; a projection (`Select`) types nothing."""
    graph = build({"Tags.cs": '''
namespace Blog;
public class Entry { public void Attach(Entry other) { } }
public class Tag { public void Attach(Entry entry) { } public string Name { get; set; } }
public class Editor
{
    private List<Tag> GetTags(string text) { return new List<Tag>(); }
    private async Task<IEnumerable<Tag>> LoadTags() { return new List<Tag>(); }
    public void Save(Entry entry, string text)
    {
        var tags = GetTags(text);
        var toAdd = tags.Where(t => t.Name != "").ToList();
        foreach (var tag in toAdd) tag.Attach(entry);
    }
    public async Task Load(Entry entry) { foreach (var loaded in await LoadTags()) loaded.Attach(entry); }
    public void Names(Entry entry, string text) { foreach (var name in GetTags(text).Select(t => t.Name)) name.Attach(entry); }
}
'''})
    for method in ("Save", "Load"):
        assert calls(graph, f"cs:Blog.Editor.{method}|METHOD")["cs:Blog.Tag.Attach|METHOD"]["resolution"] == "inferred"
    assert set(calls(graph, "cs:Blog.Editor.Names|METHOD")) == {"cs:Blog.Editor.GetTags|METHOD"}  # `Select` makes strings


def test_a_foreach_variable_takes_the_element_type_of_an_injected_collection():
    """`foreach (var job in _jobs) job.Clean()` over an injected `IEnumerable<IJob>` (a field, a
    parameter with LINQ chained, an array): the call reaches every implementation as a guess; a
    loop over `IEnumerable<IOther>` reaches no `IJob` implementation; a string loop variable calls
    nothing of the repository."""
    graph = build({"Jobs.cs": '''
namespace Jobs;
public interface IJob { void Clean(); bool Due { get; } }
public interface IOther { void Clean(); }
public class TrimLogs : IJob { public void Clean() { } public bool Due => true; }
public class PurgeCache : IJob { public void Clean() { } public bool Due => true; }
public class Stray : IOther { public void Clean() { } }
public class Runner
{
    private readonly IEnumerable<IJob> _jobs;
    private readonly IEnumerable<IOther> _others;
    public Runner(IEnumerable<IJob> jobs, IEnumerable<IOther> others) { _jobs = jobs; _others = others; }
    public void Run() { foreach (var job in _jobs) { try { job.Clean(); } catch { } } }
    public void Due(IReadOnlyList<IJob> jobs) { foreach (var job in jobs.Where(j => j.Due).OrderBy(j => j.Due)) job.Clean(); }
    public void Listed(IJob[] jobs) { foreach (IJob job in jobs) job.Clean(); }
    public void Other() { foreach (var other in _others) other.Clean(); }
    public void Names(string[] names) { foreach (var name in names) name.Clean(); }
}
'''})
    implementations = {"cs:Jobs.TrimLogs.Clean|METHOD", "cs:Jobs.PurgeCache.Clean|METHOD"}
    for method in ("Run", "Due", "Listed"):
        found = calls(graph, f"cs:Jobs.Runner.{method}|METHOD")
        assert implementations <= set(found)
        assert all(found[i]["resolution"] == "dispatch" and found[i]["guess"] for i in implementations)
    assert set(calls(graph, "cs:Jobs.Runner.Other|METHOD")) == {"cs:Jobs.IOther.Clean|METHOD", "cs:Jobs.Stray.Clean|METHOD"}
    assert not calls(graph, "cs:Jobs.Runner.Names|METHOD")
