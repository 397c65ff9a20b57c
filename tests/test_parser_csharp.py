"""C# parser: exact nodes, DEFINES edges and references for the Billing fixture, inline SQL in
every string form, Entity Framework mappings, and behaviour on broken files."""
from __future__ import annotations

from pathlib import Path

import pytest

from ragstream.errors import IndexingError
from ragstream.index.model import ParsedFile
from ragstream.index.csharp.property_reads import is_property_read
from ragstream.index.csharp.parser import parse_csharp

REPO = Path(__file__).parent / "fixtures" / "sample_repo"
SERVICE = "cs:Billing.Services.InvoiceService"
CONTEXT = "cs:Billing.Data.BillingContext"


def parse_fixture(relative: str) -> ParsedFile:
    return parse_csharp(relative, (REPO / relative).read_text(encoding="utf-8"))


def parse_source(source: str) -> ParsedFile:
    return parse_csharp("src/Sample.cs", source)


def node_ids(parsed: ParsedFile) -> set[str]:
    """Nodes other than properties (test_graph_build_csharp covers those)."""
    return {node.id for node in parsed.nodes if node.kind != "PROPERTY"}


def defines(parsed: ParsedFile) -> set[tuple[str, str]]:
    assert all(edge.type == "DEFINES" for edge in parsed.edges)
    return {(edge.source, edge.target) for edge in parsed.edges if not edge.target.endswith("|PROPERTY")}


def references(parsed: ParsedFile) -> set[tuple[str, str, str]]:
    """References other than calls on receivers the syntax does not type (test_graph_build_csharp
    covers what the resolver does with those) and property reads (linked only to a getter with
    code: test_csharp_property_accessors)."""
    return {(ref.source, ref.edge_type, ref.target) for ref in parsed.references
            if "unknown" not in ref.attrs.get("call", {}).get("receiver", {}) and not is_property_read(ref)}


def table_uses(parsed: ParsedFile, method: str) -> set[tuple[str, str]]:
    """(edge type, table) of the READS/WRITES references of one method."""
    return {(ref.edge_type, ref.target) for ref in parsed.references
            if ref.source == method and ref.edge_type in ("READS", "WRITES")}


def node(parsed: ParsedFile, node_id: str):
    return next(n for n in parsed.nodes if n.id == node_id)


def reference(parsed: ParsedFile, source: str, edge_type: str, target: str):
    return next(r for r in parsed.references
                if (r.source, r.edge_type, r.target) == (source, edge_type, target))


# --- the fixture, file by file ------------------------------------------------------------------

def test_invoice_service_nodes_and_edges():
    parsed = parse_fixture("src/Billing/Services/InvoiceService.cs")
    file_id = "file:src/Billing/Services/InvoiceService.cs|FILE"
    methods = {f"{SERVICE}.{name}|METHOD" for name in (
        "InvoiceService", "RecordPayment", "GetOpenInvoices", "GetCustomerBalance",
        "ValidateAmount", "CreateInvoice")}
    assert parsed.root_id == file_id
    assert parsed.language == "csharp"
    assert parsed.warnings == []
    assert node_ids(parsed) == {file_id, "cs:Billing.Services|NAMESPACE", f"{SERVICE}|TYPE",
                                *methods}
    assert defines(parsed) == {
        (file_id, "cs:Billing.Services|NAMESPACE"),
        ("cs:Billing.Services|NAMESPACE", f"{SERVICE}|TYPE"),
        *((f"{SERVICE}|TYPE", method) for method in methods),
    }


def test_invoice_service_references():
    parsed = parse_fixture("src/Billing/Services/InvoiceService.cs")
    record, balance = f"{SERVICE}.RecordPayment|METHOD", f"{SERVICE}.GetCustomerBalance|METHOD"
    create = f"{SERVICE}.CreateInvoice|METHOD"
    assert references(parsed) == {
        (f"{SERVICE}|TYPE", "INHERITS", "ServiceBase"),
        (f"{SERVICE}|TYPE", "INHERITS", "IInvoiceService"),
        (record, "CALLS", "Billing.Services.InvoiceService.ValidateAmount"),
        (record, "CALLS", "Billing.Services.InvoiceService.Log"),
        (record, "CALLS", "IDbConnection.ExecuteAsync"),
        (record, "CALLS", "SqlCommand.SqlCommand"),
        (record, "CALLS", "SqlCommand.ExecuteNonQueryAsync"),
        (record, "WRITES", "dbo.Payments"),
        (record, "WRITES", "dbo.Invoices"),
        (f"{SERVICE}.GetOpenInvoices|METHOD", "READS", "dbo.Invoices"),
        (balance, "CALLS", "IDbConnection.ExecuteScalar"),
        (balance, "READS", "dbo.Invoices"),
        (balance, "READS", "dbo.Customers"),
        (f"{SERVICE}.ValidateAmount|METHOD",
         "CALLS", "ArgumentOutOfRangeException.ArgumentOutOfRangeException"),
        (create, "CALLS", "Billing.Services.InvoiceService.ValidateAmount"),
        (create, "CALLS", "Billing.Services.InvoiceService.Log"),
        (create, "CALLS", "InvoiceRepository.InvoiceRepository"),  # var repository = new InvoiceRepository(...)
        (create, "CALLS", "InvoiceRepository.InsertInvoice"),  # a call on that local: its type is known
        # calls on a property of a typed receiver: the resolver looks the property's type up
        (record, "CALLS", "command.Parameters.AddWithValue"),
        (f"{SERVICE}.GetOpenInvoices|METHOD", "CALLS", "_context.Invoices.FromSqlRaw"),
        # a call chained on a call: typed by what the inner call returns (here a library's)
        (f"{SERVICE}.GetOpenInvoices|METHOD", "CALLS",
         '_context.Invoices\n                .FromSqlRaw("SELECT * FROM dbo.Invoices WHERE Status = \'Open\'").ToListAsync'),
    }


def test_calls_and_bases_carry_qualified_candidates():
    parsed = parse_fixture("src/Billing/Services/InvoiceService.cs")
    record = f"{SERVICE}.RecordPayment|METHOD"
    log = reference(parsed, record, "CALLS", "Billing.Services.InvoiceService.Log")
    # an inherited method is found through the base list, not only by its short name
    assert log.candidates[:2] == ("Billing.Services.InvoiceService.Log",
                                  "Billing.Services.ServiceBase.Log")
    assert (log.target_kinds, log.by_name, log.external) == (("METHOD",), True, False)
    execute = reference(parsed, record, "CALLS", "IDbConnection.ExecuteAsync")
    assert "System.Data.IDbConnection.ExecuteAsync" in execute.candidates
    constructor = reference(parsed, record, "CALLS", "SqlCommand.SqlCommand")
    assert "Microsoft.Data.SqlClient.SqlCommand.SqlCommand" in constructor.candidates
    assert not constructor.by_name
    base = reference(parsed, f"{SERVICE}|TYPE", "INHERITS", "ServiceBase")
    assert base.candidates[0] == "Billing.Services.ServiceBase"
    assert (base.target_kinds, base.by_name, base.external) == (("TYPE",), True, True)


def test_invoice_service_node_details():
    parsed = parse_fixture("src/Billing/Services/InvoiceService.cs")
    service = node(parsed, f"{SERVICE}|TYPE")
    assert service.attrs == {"type_kind": "class", "modifiers": ["public"]}
    assert service.signature == "public class InvoiceService : ServiceBase, IInvoiceService"
    assert service.docstring == (
        "Records payments and queries invoices, mixing EF Core, Dapper and ADO.NET.")
    assert service.parent == "cs:Billing.Services|NAMESPACE"
    record = node(parsed, f"{SERVICE}.RecordPayment|METHOD")
    assert (record.start_line, record.end_line) == (33, 47)
    assert record.signature == "public async Task RecordPayment(int invoiceId, decimal amount)"
    assert record.docstring == (
        "Records a payment for an invoice and marks the invoice as Paid.\n"
        "invoiceId: The invoice being paid.\namount: The amount received.")
    assert record.attrs["modifiers"] == ["public", "async"]
    assert record.attrs["inline_sql"] == [
        "INSERT INTO dbo.Payments (InvoiceId, Amount, PaidAt) "
        "VALUES (@InvoiceId, @Amount, SYSUTCDATETIME())",
        "UPDATE dbo.Invoices SET Status = 'Paid' WHERE InvoiceId = @id",
    ]
    assert "overloads" not in record.attrs
    constructor = node(parsed, f"{SERVICE}.InvoiceService|METHOD")
    assert constructor.signature == (
        "public InvoiceService(BillingContext context, IDbConnection connection)")


def test_sql_reference_shape():
    parsed = parse_fixture("src/Billing/Services/InvoiceService.cs")
    payments = reference(parsed, f"{SERVICE}.RecordPayment|METHOD", "WRITES", "dbo.Payments")
    assert payments.target_language == "sql"
    assert payments.candidates == ("dbo.Payments",)
    assert payments.target_kinds == ("TABLE", "VIEW")
    assert (payments.by_name, payments.external, payments.line) == (False, True, 38)


def test_billing_context():
    parsed = parse_fixture("src/Billing/Data/BillingContext.cs")
    file_id = "file:src/Billing/Data/BillingContext.cs|FILE"
    on_model_creating = f"{CONTEXT}.OnModelCreating|METHOD"
    assert node_ids(parsed) == {file_id, "cs:Billing.Data|NAMESPACE", f"{CONTEXT}|TYPE",
                                f"{CONTEXT}.BillingContext|METHOD", on_model_creating}
    assert defines(parsed) == {
        (file_id, "cs:Billing.Data|NAMESPACE"),
        ("cs:Billing.Data|NAMESPACE", f"{CONTEXT}|TYPE"),
        (f"{CONTEXT}|TYPE", f"{CONTEXT}.BillingContext|METHOD"),
        (f"{CONTEXT}|TYPE", on_model_creating),
    }
    assert references(parsed) == {
        (f"{CONTEXT}|TYPE", "INHERITS", "DbContext"),
        (f"{CONTEXT}.Customers|PROPERTY", "CALLS", "Billing.Data.BillingContext.Set"),  # `=> Set<Customer>()`: its getter
        (on_model_creating, "CALLS", "DbContext.OnModelCreating"),
        (on_model_creating, "CALLS", "ModelBuilder.Entity"),
        # calls chained on a call are followed: the resolver types them by what it returns
        (on_model_creating, "CALLS", "modelBuilder.Entity<Invoice>().HasMany"),
        (on_model_creating, "CALLS", "modelBuilder.Entity<Invoice>()\n            .HasMany(i => i.Lines).WithOne"),
        (on_model_creating, "CALLS",
         "modelBuilder.Entity<Invoice>()\n            .HasMany(i => i.Lines)\n            .WithOne().HasForeignKey"),
        (on_model_creating, "CALLS", "modelBuilder.Entity<InvoiceLine>().ToTable"),
        (f"{CONTEXT}|TYPE", "REFERENCES", "Customer"),
        (f"{CONTEXT}|TYPE", "REFERENCES", "Invoice"),
        (f"{CONTEXT}|TYPE", "REFERENCES", "InvoiceLine"),
        ("cs:Billing.Data.Customer|TYPE", "MAPS_TO", "Customers"),
        ("cs:Billing.Data.Invoice|TYPE", "MAPS_TO", "Invoices"),
        ("cs:Billing.Data.InvoiceLine|TYPE", "MAPS_TO", "dbo.InvoiceLines"),
        # the model OnModelCreating builds: the entities its `Entity<T>()` calls configure (ef_configured)
        (on_model_creating, "REFERENCES", "Invoice"),
        (on_model_creating, "REFERENCES", "InvoiceLine"),
    }
    assert node(parsed, f"{CONTEXT}|TYPE").attrs["ef_role"] == "dbcontext"
    namespace = node(parsed, "cs:Billing.Data|NAMESPACE")
    assert (namespace.start_line, namespace.end_line) == (4, 32)  # file-scoped: to the end


def test_maps_to_from_a_db_context_guesses_the_entity_id():
    parsed = parse_fixture("src/Billing/Data/BillingContext.cs")
    customers = reference(parsed, "cs:Billing.Data.Customer|TYPE", "MAPS_TO", "Customers")
    assert customers.candidates == ("Customers", "dbo.Customers", "Customer", "dbo.Customer")
    assert customers.attrs["source_candidates"] == [
        "cs:Billing.Data.Customer|TYPE", "cs:Billing.Customer|TYPE",
        "cs:Billing.Models.Customer|TYPE", "cs:Microsoft.EntityFrameworkCore.Customer|TYPE",
        "cs:Customer|TYPE",
    ]
    assert (customers.target_language, customers.target_kinds) == ("sql", ("TABLE", "VIEW"))
    assert (customers.by_name, customers.external) == (False, True)
    lines = reference(parsed, "cs:Billing.Data.InvoiceLine|TYPE", "MAPS_TO", "dbo.InvoiceLines")
    # ToTable comes before the DbSet name and the class name
    assert lines.candidates == ("dbo.InvoiceLines", "InvoiceLines", "InvoiceLine",
                                "dbo.InvoiceLine")
    entity = reference(parsed, f"{CONTEXT}|TYPE", "REFERENCES", "Invoice")
    assert "Billing.Models.Invoice" in entity.candidates
    assert (entity.target_kinds, entity.by_name, entity.external) == (("TYPE",), True, True)


def test_entity_with_table_attribute_maps_from_its_own_file():
    parsed = parse_fixture("src/Billing/Models/Invoice.cs")
    invoice = "cs:Billing.Models.Invoice"
    assert node_ids(parsed) == {"file:src/Billing/Models/Invoice.cs|FILE",
                                "cs:Billing.Models|NAMESPACE", f"{invoice}|TYPE",
                                f"{invoice}.IsPaid|METHOD"}
    assert references(parsed) == {(f"{invoice}|TYPE", "MAPS_TO", "dbo.Invoices")}
    maps_to = next(ref for ref in parsed.references if ref.edge_type == "MAPS_TO")
    assert maps_to.candidates == ("dbo.Invoices",)
    assert maps_to.attrs == {}
    invoice_node = node(parsed, f"{invoice}|TYPE")
    assert invoice_node.attrs == {"type_kind": "class", "modifiers": ["public"],
                                  "ef_role": "entity", "attributes": ["Table"]}
    assert invoice_node.start_line == 11  # the [Table] attribute line
    assert invoice_node.docstring == (
        "An invoice issued to a Customer; its status moves from Open to Paid.")
    assert node(parsed, f"{invoice}.IsPaid|METHOD").signature == "public bool IsPaid()"


@pytest.mark.parametrize("relative, type_id, type_kind, methods", [
    ("src/Billing/Models/Customer.cs", "cs:Billing.Models.Customer", "class", []),
    ("src/Billing/Models/InvoiceLine.cs", "cs:Billing.Models.InvoiceLine", "class", ["Amount"]),
    ("src/Billing/Models/Payment.cs", "cs:Billing.Models.Payment", "record", []),
    ("src/Billing/Services/IInvoiceService.cs", "cs:Billing.Services.IInvoiceService",
     "interface", ["RecordPayment", "CreateInvoice", "GetOpenInvoices"]),
    ("src/Billing/Services/ServiceBase.cs", "cs:Billing.Services.ServiceBase", "class", ["Log"]),
])
def test_simple_fixture_files(relative, type_id, type_kind, methods):
    parsed = parse_fixture(relative)
    file_id = f"file:{relative}|FILE"
    namespace = "cs:" + type_id[3:].rsplit(".", 1)[0] + "|NAMESPACE"
    method_ids = {f"{type_id}.{name}|METHOD" for name in methods}
    assert node_ids(parsed) == {file_id, namespace, f"{type_id}|TYPE", *method_ids}
    assert defines(parsed) == {(file_id, namespace), (namespace, f"{type_id}|TYPE"),
                               *((f"{type_id}|TYPE", method) for method in method_ids)}
    type_node = node(parsed, f"{type_id}|TYPE")
    assert type_node.attrs["type_kind"] == type_kind
    assert "ef_role" not in type_node.attrs  # no DbContext or [Table] in these files


def test_service_base_calls_skip_framework_names_by_short_name():
    parsed = parse_fixture("src/Billing/Services/ServiceBase.cs")
    log = "cs:Billing.Services.ServiceBase.Log|METHOD"
    assert references(parsed) == {
        (log, "CALLS", "Console.WriteLine"),
        (log, "CALLS", "Billing.Services.ServiceBase.GetType"),
    }
    assert not reference(parsed, log, "CALLS", "Billing.Services.ServiceBase.GetType").by_name
    assert node(parsed, log).docstring == (
        "Writes a timestamped line to the service log.\nmessage: What happened.")


def test_interface_methods_have_header_signatures():
    parsed = parse_fixture("src/Billing/Services/IInvoiceService.cs")
    method = node(parsed, "cs:Billing.Services.IInvoiceService.GetOpenInvoices|METHOD")
    assert method.signature == "Task<List<Invoice>> GetOpenInvoices()"
    assert method.docstring == "Returns every invoice that is still open."


# --- inline SQL in every string form -----------------------------------------------------------

SQL_FORMS = '''
using System.Data;
using Dapper;
using Microsoft.Data.SqlClient;
using Microsoft.EntityFrameworkCore;

namespace Billing.Reports;

public sealed class ReportQueries
{
    private const string LinesSql = "SELECT * FROM dbo.InvoiceLines";
    private readonly IDbConnection _db;
    private readonly BillingContext _context;

    public void Regular() => _db.Execute("UPDATE dbo.Invoices SET Status = \\"Void\\"");

    public void Verbatim() => _db.Execute(@"DELETE FROM dbo.Payments WHERE Note = ""x""");

    public void Raw()
    {
        var rows = _db.Query<int>("""
            SELECT p.InvoiceId
            FROM dbo.Payments p
            """);
    }

    public void Interpolated(int id)
    {
        _context.Database.ExecuteSqlInterpolated(
            $"UPDATE dbo.Invoices SET Status = 'Void' WHERE InvoiceId = {id}");
    }

    public void InterpolatedVerbatimAndRaw(int id)
    {
        _db.QueryFirstOrDefault<int>(
            $@"SELECT COUNT(*) FROM ""dbo"".""Customers"" WHERE CustomerId = {id}");
        _db.QuerySingle<int>($$"""SELECT {{id}} FROM dbo.InvoiceLines""");
    }

    public void ConstLocal()
    {
        const string sql = "INSERT INTO dbo.Customers (Name) VALUES (@name)";
        _db.Execute(sql, new { name = "x" });
    }

    public void VarLocalConcatenated()
    {
        var sql = "SELECT * FROM dbo.Invoices " +
                  "WHERE Status = @status";
        using var command = new SqlCommand();
        command.CommandText = sql;
    }

    public void ConstField() => _db.Query(LinesSql);

    public void CommandInitializer()
    {
        var command = new SqlCommand { CommandText = "DELETE FROM dbo.InvoiceLines" };
    }

    public void EfRaw() => _context.Invoices.FromSqlRaw("SELECT * FROM dbo.Invoices").ToList();

    public void NotSql() => Log("SELECT * FROM dbo.Secrets");
}
'''
REPORTS = "cs:Billing.Reports.ReportQueries"


@pytest.mark.parametrize("method, expected", [
    ("Regular", {("WRITES", "dbo.Invoices")}),
    ("Verbatim", {("WRITES", "dbo.Payments")}),
    ("Raw", {("READS", "dbo.Payments")}),
    ("Interpolated", {("WRITES", "dbo.Invoices")}),
    ("InterpolatedVerbatimAndRaw", {("READS", "dbo.Customers"), ("READS", "dbo.InvoiceLines")}),
    ("ConstLocal", {("WRITES", "dbo.Customers")}),
    ("VarLocalConcatenated", {("READS", "dbo.Invoices")}),
    ("ConstField", {("READS", "dbo.InvoiceLines")}),
    ("CommandInitializer", {("WRITES", "dbo.InvoiceLines")}),
    ("EfRaw", {("READS", "dbo.Invoices")}),
    ("NotSql", set()),
])
def test_inline_sql_forms(method, expected):
    parsed = parse_source(SQL_FORMS)
    assert table_uses(parsed, f"{REPORTS}.{method}|METHOD") == expected


def test_inline_sql_text_is_the_string_value():
    parsed = parse_source(SQL_FORMS)

    def sql_of(method: str) -> list[str]:
        return node(parsed, f"{REPORTS}.{method}|METHOD").attrs["inline_sql"]

    assert sql_of("Regular") == ['UPDATE dbo.Invoices SET Status = "Void"']
    assert sql_of("Verbatim") == ['DELETE FROM dbo.Payments WHERE Note = "x"']
    assert sql_of("Raw") == ["SELECT p.InvoiceId\nFROM dbo.Payments p"]
    assert sql_of("Interpolated") == [
        "UPDATE dbo.Invoices SET Status = 'Void' WHERE InvoiceId = @p0"]
    assert sql_of("InterpolatedVerbatimAndRaw") == [
        'SELECT COUNT(*) FROM "dbo"."Customers" WHERE CustomerId = @p0',
        "SELECT @p0 FROM dbo.InvoiceLines",
    ]
    assert sql_of("VarLocalConcatenated") == ["SELECT * FROM dbo.Invoices WHERE Status = @status"]
    assert "inline_sql" not in node(parsed, f"{REPORTS}.NotSql|METHOD").attrs


# --- structure -----------------------------------------------------------------------------------

STRUCTURE = '''
using Billing.Models;
using Alias = Billing.Shared.Clock;

namespace Billing
{
    namespace Api
    {
        /// <summary>Outer type.</summary>
        public partial class Outer : Base<int>, Contracts.IOuter
        {
            private readonly Repository _repository;

            public enum Mode { Fast, Slow }

            internal struct Inner
            {
                public void Touch() { }
            }

            [HttpGet("run")]
            [Obsolete]
            public void Run() { Run(1); _repository.Save(); this.Stop(); Alias.Now(); Helper(); }

            public void Run(int times)
            {
                var local = new Repository();
                local.Load();
                Local();
                var name = nameof(times);
                void Local() { }
            }

            private void Stop() => Inner.Create().Touch();
        }
    }
}
'''
OUTER = "cs:Billing.Api.Outer"


def test_nested_namespaces_types_and_overloads():
    parsed = parse_source(STRUCTURE)
    assert node_ids(parsed) == {
        "file:src/Sample.cs|FILE", "cs:Billing|NAMESPACE", "cs:Billing.Api|NAMESPACE",
        f"{OUTER}|TYPE", f"{OUTER}.Mode|TYPE", f"{OUTER}.Inner|TYPE",
        f"{OUTER}.Inner.Touch|METHOD", f"{OUTER}.Run()|METHOD", f"{OUTER}.Run(int)|METHOD",
        f"{OUTER}.Stop|METHOD",
    }
    assert defines(parsed) == {
        ("file:src/Sample.cs|FILE", "cs:Billing|NAMESPACE"),
        ("file:src/Sample.cs|FILE", "cs:Billing.Api|NAMESPACE"),
        ("cs:Billing.Api|NAMESPACE", f"{OUTER}|TYPE"),
        (f"{OUTER}|TYPE", f"{OUTER}.Mode|TYPE"),
        (f"{OUTER}|TYPE", f"{OUTER}.Inner|TYPE"),
        (f"{OUTER}.Inner|TYPE", f"{OUTER}.Inner.Touch|METHOD"),
        (f"{OUTER}|TYPE", f"{OUTER}.Run()|METHOD"),
        (f"{OUTER}|TYPE", f"{OUTER}.Run(int)|METHOD"),
        (f"{OUTER}|TYPE", f"{OUTER}.Stop|METHOD"),
    }
    # Overloads are separate nodes: the id carries the parameter types, the name does not.
    run = node(parsed, f"{OUTER}.Run()|METHOD")
    assert run.attrs["overloads"] == 2
    assert run.name == f"{OUTER[3:]}.Run"
    assert (run.start_line, run.end_line) == (21, 23)  # from [HttpGet]
    assert run.signature == "public void Run()"
    other = node(parsed, f"{OUTER}.Run(int)|METHOD")
    assert other.start_line > run.end_line and other.attrs["arity"] == [1, 1]
    assert node(parsed, f"{OUTER}.Mode|TYPE").attrs["type_kind"] == "enum"
    assert node(parsed, f"{OUTER}.Inner|TYPE").attrs == {"type_kind": "struct",
                                                         "modifiers": ["internal"]}
    outer = node(parsed, f"{OUTER}|TYPE")
    assert outer.attrs["modifiers"] == ["public", "partial"]
    assert outer.signature == "public partial class Outer : Base<int>, Contracts.IOuter"
    assert outer.docstring == "Outer type."


def test_calls_from_every_overload_and_receiver_kind():
    parsed = parse_source(STRUCTURE)
    run, run_int = f"{OUTER}.Run()|METHOD", f"{OUTER}.Run(int)|METHOD"
    stop = f"{OUTER}.Stop|METHOD"
    assert {(s, e, t) for s, e, t in references(parsed) if e == "CALLS"} == {
        (run, "CALLS", "Billing.Api.Outer.Run"),
        (run, "CALLS", "Repository.Save"),  # field type
        (run, "CALLS", "Billing.Api.Outer.Stop"),  # this.Stop()
        (run, "CALLS", "Alias.Now"),
        (run, "CALLS", "Billing.Api.Outer.Helper"),
        (run_int, "CALLS", "Repository.Repository"),  # new Repository()
        (run_int, "CALLS", "Repository.Load"),  # local declared by `new`
        (stop, "CALLS", "Inner.Create"),  # a type name
        (stop, "CALLS", "Inner.Create().Touch"),  # chained: typed by what `Create` returns
    }
    # What the resolver needs to pick an overload: the receiver's types and the argument count.
    assert reference(parsed, run, "CALLS", "Billing.Api.Outer.Run").attrs["call"] == {
        "receiver": {"types": ("Billing.Api.Outer",)}, "member": "Run", "arguments": 1,
        "kinds": ["number"], "receiver_parameter": -1}  # made on `this`: the caller's own object
    save = reference(parsed, run, "CALLS", "Repository.Save")
    assert save.candidates[:4] == (
        "Billing.Api.Outer.Repository.Save", "Billing.Api.Repository.Save",
        "Billing.Repository.Save", "Billing.Models.Repository.Save")
    assert save.candidates[-1] == "Repository.Save"
    assert reference(parsed, run, "CALLS", "Alias.Now").candidates == ("Billing.Shared.Clock.Now",)
    assert "Billing.Api.Outer.Inner.Create" in reference(
        parsed, stop, "CALLS", "Inner.Create").candidates


def test_generic_and_qualified_bases():
    parsed = parse_source(STRUCTURE)
    assert {(s, e, t) for s, e, t in references(parsed) if e == "INHERITS"} == {
        (f"{OUTER}|TYPE", "INHERITS", "Base"),
        (f"{OUTER}|TYPE", "INHERITS", "Contracts.IOuter"),
    }
    qualified = reference(parsed, f"{OUTER}|TYPE", "INHERITS", "Contracts.IOuter")
    assert qualified.candidates == ("Billing.Api.Contracts.IOuter", "Billing.Contracts.IOuter",
                                    "Billing.Models.Contracts.IOuter", "Contracts.IOuter")


def test_entities_declared_next_to_their_context():
    parsed = parse_source('''
using Microsoft.EntityFrameworkCore;
using System.ComponentModel.DataAnnotations.Schema;

namespace Shop;

[Table("Orders", Schema = "sales")]
public class Order { }

public class Product { }

public class Ledger { }

public class ShopContext : DbContext
{
    public DbSet<Order> Orders { get; set; }
    public DbSet<Product> Products { get; set; }

    protected override void OnModelCreating(ModelBuilder modelBuilder)
    {
        modelBuilder.Entity<Ledger>(b => b.ToTable("GeneralLedger", schema: "acct"));
    }
}
''')
    roles = {n.id: n.attrs.get("ef_role") for n in parsed.nodes if n.kind == "TYPE"}
    assert roles == {"cs:Shop.Order|TYPE": "entity", "cs:Shop.Product|TYPE": "entity",
                     "cs:Shop.Ledger|TYPE": "entity", "cs:Shop.ShopContext|TYPE": "dbcontext"}
    maps_to = {ref.source: ref for ref in parsed.references if ref.edge_type == "MAPS_TO"}
    assert {source: ref.target for source, ref in maps_to.items()} == {
        "cs:Shop.Order|TYPE": "sales.Orders",  # [Table] wins over the DbSet name
        "cs:Shop.Product|TYPE": "Products",
        "cs:Shop.Ledger|TYPE": "acct.GeneralLedger",
    }
    assert all("source_candidates" not in ref.attrs for ref in maps_to.values())


# --- broken files --------------------------------------------------------------------------------

BROKEN_METHOD = '''
namespace Billing.Broken
{
    public class First
    {
        public void Good() { Helper(); }
        public void Bad() { var total = 1 +; Helper(; }
        private void Helper() { }
    }

    public class Second
    {
        public int Answer() => 42;
    }
}
'''


def test_syntax_error_in_one_method_keeps_the_other_types():
    parsed = parse_source(BROKEN_METHOD)
    assert {"cs:Billing.Broken.First|TYPE", "cs:Billing.Broken.First.Good|METHOD",
            "cs:Billing.Broken.First.Helper|METHOD", "cs:Billing.Broken.Second|TYPE",
            "cs:Billing.Broken.Second.Answer|METHOD"} <= node_ids(parsed)
    assert parsed.warnings == ["src/Sample.cs:7: syntax error; declarations near it may be missing"]
    assert ("cs:Billing.Broken.First.Good|METHOD", "CALLS",
            "Billing.Broken.First.Helper") in references(parsed)


def test_garbage_raises_indexing_error():
    with pytest.raises(IndexingError, match="not parseable as C#"):
        parse_source("}}}} ((( this is not C# at all <<<>>> ;;; @@@\nlorem ipsum")


def test_file_without_types_is_just_its_file_node():
    parsed = parse_source('using System;\nConsole.WriteLine("top-level statements");\n')
    assert node_ids(parsed) == {"file:src/Sample.cs|FILE"}
    assert (parsed.edges, parsed.references, parsed.warnings) == ([], [], [])
