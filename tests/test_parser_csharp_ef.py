"""Entity Framework Core mapping across files: configurations, conventions, inheritance,
DbSets of types outside the index, and migrations as the evidence of tables. Each test names
the edge that must be made and one that must not."""
from __future__ import annotations

import networkx as nx

from ragstream.index.graph_build import build_graph
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.sql.parser import parse_sql

ENTITIES = '''
namespace Shop.Domain;
public class Invoice { public int Id { get; set; } }
public class Customer { public int Id { get; set; } }
public class PremiumCustomer : Customer { }
public class Vehicle { }
public class Car : Vehicle { }
'''

CONTEXT = '''
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public class ShopContext : DbContext
{
    public DbSet<Invoice> Invoices { get; set; }
    public DbSet<Customer> Customers { get; set; }
    public DbSet<PremiumCustomer> PremiumCustomers { get; set; }
    public DbSet<Car> Cars { get; set; }
    public DbSet<DataProtectionKey> DataProtectionKeys { get; set; }
    protected override void OnModelCreating(ModelBuilder modelBuilder)
    {
        modelBuilder.Entity<Vehicle>().ToTable("Vehicles").UseTptMappingStrategy();
    }
}
'''

CONFIGURATION = '''
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Metadata.Builders;
using Shop.Domain;
namespace Shop.Data.Config;
public class InvoiceConfiguration : IEntityTypeConfiguration<Invoice>
{
    public void Configure(EntityTypeBuilder<Invoice> builder)
    {
        builder.ToTable("Invoice", schema: "billing");
        builder.Property(i => i.Buyer).HasMaxLength(20).HasColumnName("CustomerId");
        builder.Property(i => i.Note).HasColumnName("Remark");
        builder.OwnsOne(i => i.Address, a => a.ToTable("InvoiceAddress"));
    }
}
'''

MIGRATION = '''
using Microsoft.EntityFrameworkCore.Migrations;
namespace Shop.Data.Migrations;
public partial class Initial : Migration
{
    protected override void Up(MigrationBuilder migrationBuilder)
    {
        migrationBuilder.CreateTable(
            name: "Customers",
            columns: table => new
            {
                Id = table.Column<int>(type: "int", nullable: false)
                    .Annotation("SqlServer:Identity", "1, 1"),
                Name = table.Column<string>(type: "nvarchar(100)", nullable: true),
                Discriminator = table.Column<string>(nullable: false)
            },
            constraints: table =>
            {
                table.PrimaryKey("PK_Customers", x => x.Id);
            });

        migrationBuilder.CreateTable(
            name: "Invoice",
            schema: "billing",
            columns: table => new
            {
                Id = table.Column<int>(nullable: false),
                CustomerId = table.Column<int>(nullable: false)
            },
            constraints: table =>
            {
                table.PrimaryKey("PK_Invoice", x => x.Id);
                table.ForeignKey(
                    name: "FK_Invoice_Customers_CustomerId",
                    column: x => x.CustomerId,
                    principalTable: "Customers",
                    principalColumn: "Id", onDelete: ReferentialAction.Cascade);
            });

        migrationBuilder.CreateTable(
            name: "Legacy",
            columns: table => new { Id = table.Column<int>(nullable: false) });
    }

    protected override void Down(MigrationBuilder migrationBuilder)
    {
        migrationBuilder.DropTable(name: "Customers");
    }
}
'''

LATER_MIGRATION = '''
using Microsoft.EntityFrameworkCore.Migrations;
namespace Shop.Data.Migrations;
public partial class Reshape : Migration
{
    protected override void Up(MigrationBuilder migrationBuilder)
    {
        migrationBuilder.AddColumn<decimal>(name: "Total", schema: "billing", table: "Invoice",
                                            nullable: false);
        migrationBuilder.RenameColumn(name: "Name", table: "Customers", newName: "FullName");
        migrationBuilder.DropTable(name: "Legacy");
        migrationBuilder.RenameTable(name: "Cars", newName: "Automobiles");
    }
}
'''

CARS_MIGRATION = '''
using Microsoft.EntityFrameworkCore.Migrations;
namespace Shop.Data.Migrations;
public partial class AddCars : Migration
{
    protected override void Up(MigrationBuilder migrationBuilder)
    {
        migrationBuilder.CreateTable(name: "Cars",
            columns: table => new { Id = table.Column<int>(nullable: false) });
    }
}
'''

FILES = {
    "src/Domain/Entities.cs": ENTITIES,
    "src/Data/ShopContext.cs": CONTEXT,
    "src/Data/Config/InvoiceConfiguration.cs": CONFIGURATION,
    "src/Data/Migrations/20240101000000_Initial.cs": MIGRATION,
    "src/Data/Migrations/20240301000000_Reshape.cs": LATER_MIGRATION,
    "src/Data/Migrations/20240201000000_AddCars.cs": CARS_MIGRATION,
}


def graph_of(files: dict[str, str]) -> nx.MultiDiGraph:
    parsed = [parse_sql(path, text) if path.endswith(".sql") else parse_csharp(path, text)
              for path, text in files.items()]
    return build_graph(parsed)[0]


def maps_to(graph: nx.MultiDiGraph, source: str) -> dict[str, dict]:
    return {target: attrs for _, target, key, attrs in graph.out_edges(source, keys=True,
                                                                         data=True)
            if key == "MAPS_TO"}


def test_configuration_to_table_beats_the_dbset_convention_across_files():
    graph = graph_of(FILES)
    invoice = maps_to(graph, "cs:Shop.Domain.Invoice|TYPE")
    assert set(invoice) == {"sql:billing.Invoice|TABLE", "sql:billing.Invoice.CustomerId|COLUMN"}
    assert invoice["sql:billing.Invoice|TABLE"]["via"] == "entity_type_configuration"
    assert "guess" not in invoice["sql:billing.Invoice|TABLE"]
    # not the EXTERNAL node named after the DbSet property, which is gone
    assert "ext:Invoices|EXTERNAL" not in graph and "sql:dbo.Invoices|TABLE" not in graph
    # nor the owned type's table: `a.ToTable` is not called on the configured builder
    assert "sql:InvoiceAddress|TABLE" not in invoice
    configuration = "cs:Shop.Data.Config.InvoiceConfiguration|TYPE"
    assert graph.nodes[configuration]["attrs"]["ef_role"] == "configuration"
    assert graph.has_edge(configuration, "cs:Shop.Domain.Invoice|TYPE", key="REFERENCES")


def test_has_column_name_maps_the_entity_to_the_column():
    graph = graph_of(FILES)
    column = graph.get_edge_data("cs:Shop.Domain.Invoice|TYPE",
                                 "sql:billing.Invoice.CustomerId|COLUMN", "MAPS_TO")
    assert (column["property"], column["via"]) == ("Buyer", "entity_type_configuration")
    # a column no table defines makes no edge and no node
    assert "sql:billing.Invoice.Remark|COLUMN" not in graph


def test_a_convention_mapping_is_marked_as_a_guess():
    graph = graph_of(FILES)
    customers = maps_to(graph, "cs:Shop.Domain.Customer|TYPE")
    assert set(customers) == {"sql:Customers|TABLE"}
    assert customers["sql:Customers|TABLE"]["guess"] is True
    assert customers["sql:Customers|TABLE"]["mapping"] == "by_convention"


def test_tph_subclass_maps_to_the_base_table_not_to_its_own_name():
    graph = graph_of(FILES)
    premium = maps_to(graph, "cs:Shop.Domain.PremiumCustomer|TYPE")
    assert set(premium) == {"sql:Customers|TABLE"}
    assert premium["sql:Customers|TABLE"]["via"] == "tph"
    assert premium["sql:Customers|TABLE"]["base"] == "cs:Shop.Domain.Customer|TYPE"
    assert "ext:PremiumCustomers|EXTERNAL" not in graph


def test_tpt_subclass_keeps_its_own_table():
    graph = graph_of(FILES)
    vehicle = maps_to(graph, "cs:Shop.Domain.Vehicle|TYPE")
    assert vehicle["sql:dbo.Vehicles|TABLE"]["inheritance"] == "tpt"  # no script: the model's own table
    car = maps_to(graph, "cs:Shop.Domain.Car|TYPE")
    assert set(car) == {"sql:dbo.Cars|TABLE"}  # its DbSet's name, by convention
    assert car["sql:dbo.Cars|TABLE"]["guess"] is True
    assert "sql:dbo.Vehicles|TABLE" not in car  # not the base's table: the hierarchy is TPT


def test_dbset_of_a_type_outside_the_index_never_makes_a_bare_node():
    graph = graph_of(FILES)
    assert all("kind" in data for _, data in graph.nodes(data=True))
    context = "cs:Shop.Data.ShopContext|TYPE"
    assert graph.has_edge(context, "ext:DataProtectionKey|EXTERNAL", key="REFERENCES")
    assert not any(source.startswith("cs:") and "DataProtectionKey" in source
                   for source, _, key in graph.edges(keys=True) if key == "MAPS_TO")


def test_migrations_make_tables_columns_and_foreign_keys():
    graph = graph_of(FILES)
    invoice = graph.nodes["sql:billing.Invoice|TABLE"]
    assert (invoice["kind"], invoice["path"]) == (
        "TABLE", "src/Data/Migrations/20240101000000_Initial.cs")
    assert (invoice["start_line"], invoice["end_line"]) == (22, 38)  # the CreateTable call
    assert invoice["attrs"]["via"] == "ef_migration"
    assert invoice["attrs"]["primary_key"] == ["Id"]
    assert invoice["parent"] == "cs:Shop.Data.Migrations.Initial|TYPE"
    fk = graph.get_edge_data("sql:billing.Invoice|TABLE", "sql:Customers|TABLE", "FOREIGN_KEY")
    assert (fk["columns"], fk["ref_columns"], fk["via"]) == (["CustomerId"], ["Id"], "ef_migration")
    assert fk["on_delete"] == "CASCADE"  # onDelete: ReferentialAction.Cascade
    identity = graph.nodes["sql:Customers.Id|COLUMN"]
    assert identity["attrs"]["data_type"] == "int"  # through the `.Annotation(...)` tail
    assert identity["attrs"]["primary_key"] is True
    assert graph.has_edge("sql:Customers|TABLE", "sql:Customers.Id|COLUMN", key="DEFINES")
    # the operations are statements of `Up` (which applies the migration), not of the class
    link = graph.get_edge_data("cs:Shop.Data.Migrations.Initial.Up|METHOD", "sql:billing.Invoice|TABLE",
                               "REFERENCES")
    assert (link["via"], link["operation"]) == ("ef_migration", "create_table")
    assert not [key for _, _, key in graph.out_edges("cs:Shop.Data.Migrations.Initial|TYPE", keys=True)
                if key == "REFERENCES"]
    # Down() reverts: its DropTable is on the Down node, marked, and not a fact about the schema
    down = graph.get_edge_data("cs:Shop.Data.Migrations.Initial.Down|METHOD", "sql:Customers|TABLE", "REFERENCES")
    assert (down["operation"], down["reverts"]) == ("drop_table", True)
    assert not graph.has_edge("cs:Shop.Data.Migrations.Initial.Down|METHOD", "sql:billing.Invoice|TABLE")
    assert "sql:Customers|TABLE" in graph


def test_later_migrations_add_rename_and_drop():
    graph = graph_of(FILES)
    total = graph.nodes["sql:billing.Invoice.Total|COLUMN"]
    assert (total["path"], total["attrs"]["data_type"]) == (
        "src/Data/Migrations/20240301000000_Reshape.cs", "decimal")
    assert graph.has_edge("sql:billing.Invoice|TABLE", "sql:billing.Invoice.Total|COLUMN",
                          key="DEFINES")
    assert "sql:Customers.FullName|COLUMN" in graph
    assert "sql:Customers.Name|COLUMN" not in graph
    assert "sql:Legacy|TABLE" not in graph and "sql:Legacy.Id|COLUMN" not in graph
    assert "sql:Automobiles|TABLE" in graph and "sql:Cars|TABLE" not in graph
    assert "sql:Automobiles.Id|COLUMN" in graph
    reshape = "cs:Shop.Data.Migrations.Reshape.Up|METHOD"
    assert graph.get_edge_data(reshape, "sql:Customers|TABLE", "REFERENCES")["operation"] \
        == "rename_column"


def test_a_sql_file_wins_for_the_definition_of_the_same_table():
    graph = graph_of({**FILES, "db/customers.sql": (
        "CREATE TABLE dbo.Customers (\n  Id INT PRIMARY KEY,\n  Email NVARCHAR(200)\n);\n")})
    table = graph.nodes["sql:dbo.Customers|TABLE"]
    assert table["path"] == "db/customers.sql"
    assert "sql:Customers|TABLE" not in graph  # one node, not one per source
    assert "sql:Customers.Id|COLUMN" not in graph
    assert graph.has_edge("sql:billing.Invoice|TABLE", "sql:dbo.Customers|TABLE",
                          key="FOREIGN_KEY")
    assert graph.has_edge("cs:Shop.Data.Migrations.Initial.Up|METHOD", "sql:dbo.Customers|TABLE",
                          key="REFERENCES")
    assert set(maps_to(graph, "cs:Shop.Domain.Customer|TYPE")) == {"sql:dbo.Customers|TABLE"}


def test_table_attribute_in_the_entity_file_beats_the_dbset_convention():
    graph = graph_of({
        "src/Order.cs": 'namespace S;\n[Table("OrderHeader", Schema = "sales")]\n'
                        'public class Order { }\n',
        "src/Context.cs": 'namespace S;\npublic class C : DbContext\n'
                          '{ public DbSet<Order> Orders { get; set; } }\n',
    })
    assert set(maps_to(graph, "cs:S.Order|TYPE")) == {"sql:sales.OrderHeader|TABLE"}
    assert "ext:Orders|EXTERNAL" not in graph and "sql:dbo.Orders|TABLE" not in graph


def test_to_table_binds_a_positional_argument_after_a_named_one_by_its_position():
    # `ToTable(name: "Users", "Identity")`: the second argument is the schema, not the table
    context = '''
using Microsoft.EntityFrameworkCore;
namespace Shop.Data;
public class AppUser { public string Id { get; set; } }
public class Role { public string Id { get; set; } }
public class ShopContext : DbContext
{
    protected override void OnModelCreating(ModelBuilder builder)
    {
        builder.Entity<AppUser>(entity => { entity.ToTable(name: "Users", "Identity"); });
        builder.Entity<Role>(entity => entity.ToTable(schema: "Identity", name: "Roles"));
    }
}
'''
    graph = graph_of({"src/Data/ShopContext.cs": context})
    assert set(maps_to(graph, "cs:Shop.Data.AppUser|TYPE")) == {"sql:Identity.Users|TABLE"}
    assert set(maps_to(graph, "cs:Shop.Data.Role|TYPE")) == {"sql:Identity.Roles|TABLE"}
    assert "sql:Identity|TABLE" not in graph


def test_a_schema_named_by_the_types_own_constant_and_the_contexts_default_schema():
    # `ToTable("OrdersView", SchemaName)` with `const string SchemaName` of the same context, and
    # `HasDefaultSchema(...)` for what the context maps without a schema; another type's constant
    # (`Other.Schema`) is not known from this file and names no schema
    context = '''
using System.Data.Entity;
namespace Reg.Data;
public class DraftOrder { public int Id { get; set; } }
public class Seat { public int Id { get; set; } }
public class Payment { public int Id { get; set; } }
public class Refund { public int Id { get; set; } }
public class RegistrationContext : DbContext
{
    public const string SchemaName = "Registration";
    public DbSet<Refund> Refunds { get; set; }
    protected override void OnModelCreating(DbModelBuilder modelBuilder)
    {
        modelBuilder.HasDefaultSchema("reg");
        modelBuilder.Entity<DraftOrder>().ToTable("OrdersView", SchemaName);
        modelBuilder.Entity<Seat>().ToTable("Seats", RegistrationContext.SchemaName);
        modelBuilder.Entity<Payment>().ToTable("Payments", Other.SchemaName);
    }
}
'''
    graph = graph_of({"src/Data/RegistrationContext.cs": context})
    assert set(maps_to(graph, "cs:Reg.Data.DraftOrder|TYPE")) == {"sql:Registration.OrdersView|TABLE"}
    assert set(maps_to(graph, "cs:Reg.Data.Seat|TYPE")) == {"sql:Registration.Seats|TABLE"}
    assert set(maps_to(graph, "cs:Reg.Data.Payment|TYPE")) == {"sql:reg.Payments|TABLE"}  # the default, not a guess
    assert set(maps_to(graph, "cs:Reg.Data.Refund|TYPE")) == {"sql:reg.Refunds|TABLE"}
    assert "sql:dbo.OrdersView|TABLE" not in graph and "sql:dbo.Refunds|TABLE" not in graph


def test_a_context_deriving_from_the_repositorys_own_base_context_is_a_context():
    # `ShopContext : AuditableContext` (itself an IdentityDbContext in another file): its DbSets
    # and OnModelCreating map entities; a class with neither is no context whatever its base
    base = '''
using Microsoft.EntityFrameworkCore;
namespace Shop.Data;
public abstract class AuditableContext : IdentityDbContext<AppUser> { public DbSet<Audit> AuditTrails { get; set; } }
public class Audit { public int Id { get; set; } }
public class AppUser { public string Id { get; set; } }
public class Order { public int Id { get; set; } }
public class Helper : AuditableContextHelper { public Order Make() => new Order(); }
public interface IShopContext : IDisposable { DbSet<Order> Orders { get; } }
'''
    context = '''
using Microsoft.EntityFrameworkCore;
namespace Shop.Data;
public class ShopContext : AuditableContext
{
    public DbSet<Order> Orders { get; set; }
    protected override void OnModelCreating(ModelBuilder builder)
    {
        builder.Entity<AppUser>(entity => entity.ToTable("Users", "Identity"));
    }
}
'''
    graph = graph_of({"src/Data/AuditableContext.cs": base, "src/Data/ShopContext.cs": context})
    assert set(maps_to(graph, "cs:Shop.Data.Order|TYPE")) == {"sql:dbo.Orders|TABLE"}
    assert set(maps_to(graph, "cs:Shop.Data.AppUser|TYPE")) == {"sql:Identity.Users|TABLE"}
    assert set(maps_to(graph, "cs:Shop.Data.Audit|TYPE")) == {"sql:dbo.AuditTrails|TABLE"}
    assert graph.nodes["cs:Shop.Data.Helper|TYPE"].get("attrs", {}).get("ef_role") != "dbcontext"
    # an interface declaring DbSets is what a context implements, not one: no mapping of its own
    assert graph.nodes["cs:Shop.Data.IShopContext|TYPE"].get("attrs", {}).get("ef_role") != "dbcontext"
