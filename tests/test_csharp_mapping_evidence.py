"""What an ORM mapping says where the code does not spell the table out: configurations without
`ToTable`, mapping classes that are no persistence mappings, the other side of a foreign key.
Each test names the edge that must be made and the one that must not."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.expansion import ExpansionLimits, expand_dependency_tree
from ragstream.graph.named import Named
from ragstream.graph.relations import GraphAnswer, by_relevance, impact_of, related, repeated_names_last, with_their_tables
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql
from ragstream.retrieval.filters import RetrievalFilters

ENTITIES = """
namespace Shop.Domain;
public class Customer { public string CustomerId { get; set; } public string Name { get; set; } }
public class Order { public int OrderId { get; set; } public string CustomerId { get; set; } public Customer Customer { get; set; } }
public class Invoice { public int Id { get; set; } }
"""

CONTEXT = """
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public class ShopContext : DbContext
{
    public DbSet<Customer> Customers { get; set; }
    public DbSet<Order> Orders { get; set; }
    public DbSet<Invoice> Invoices { get; set; }
}
"""

CONFIGURATIONS = """
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Metadata.Builders;
using Shop.Domain;
namespace Shop.Data.Configurations;
public class CustomerConfiguration : IEntityTypeConfiguration<Customer>
{
    public void Configure(EntityTypeBuilder<Customer> builder)
    {
        builder.Property(e => e.CustomerId).HasColumnName("CustomerID").HasMaxLength(5);
        builder.Property(e => e.Name).HasMaxLength(40);
    }
}
public class OrderConfiguration : IEntityTypeConfiguration<Order>
{
    public void Configure(EntityTypeBuilder<Order> builder)
    {
        builder.Property(e => e.CustomerId).HasColumnName("CustomerID");
        builder.HasOne(d => d.Customer).WithMany().HasForeignKey(d => d.CustomerId);
    }
}
"""

SCHEMA = """
CREATE TABLE dbo.Customers (CustomerID nchar(5) NOT NULL PRIMARY KEY, Name nvarchar(40));
CREATE TABLE dbo.Orders (OrderID int NOT NULL, CustomerID nchar(5) NULL
    CONSTRAINT FK_Orders_Customers FOREIGN KEY REFERENCES dbo.Customers (CustomerID));
CREATE TABLE dbo.Invoices (Id int);
"""

CSV_MAP = """
using CsvHelper.Configuration;
using Shop.Domain;
namespace Shop.Files;
public sealed class InvoiceRecordMap : ClassMap<Invoice>
{
    public InvoiceRecordMap() { AutoMap(); Map(m => m.Id).Name("Invoice number"); }
}
"""

NHIBERNATE_MAP_WITHOUT_USING = """
namespace Shop.Data.Mappings;
public class OrderLineMap : ClassMap<OrderLine>
{
    public OrderLineMap() { Id(x => x.Id); Map(x => x.Quantity); }
}
public class OrderLine { public int Id { get; set; } public int Quantity { get; set; } }
"""


def graph_of(files: dict[str, str]) -> nx.MultiDiGraph:
    return build_graph([parse_sql(path, text) if path.endswith(".sql") else parse_csharp(path, text)
                        for path, text in files.items()])[0]


def edge(graph: nx.MultiDiGraph, source: str, target: str, key: str) -> dict | None:
    return (graph.get_edge_data(source, target) or {}).get(key)


FILES = {"src/Domain/Entities.cs": ENTITIES, "src/Data/ShopContext.cs": CONTEXT,
         "src/Data/Configurations.cs": CONFIGURATIONS, "db/schema.sql": SCHEMA}
CUSTOMER_CONFIGURE = "cs:Shop.Data.Configurations.CustomerConfiguration.Configure|METHOD"
ORDER_CONFIGURE = "cs:Shop.Data.Configurations.OrderConfiguration.Configure|METHOD"


def test_a_configuration_without_to_table_links_its_entitys_conventional_table_and_columns():
    graph = graph_of(FILES)
    # the configure method references the table the DbSet names, a convention: marked a guess
    table = edge(graph, CUSTOMER_CONFIGURE, "sql:dbo.Customers|TABLE", "REFERENCES")
    assert table and table["via"] == "entity_type_configuration" and table["guess"] is True
    assert table["mapping"] == "by_convention" and table["entity"] == "cs:Shop.Domain.Customer|TYPE"
    # `HasColumnName("CustomerID")` maps the property to that column of that table
    column = edge(graph, "cs:Shop.Domain.Customer|TYPE", "sql:dbo.Customers.CustomerID|COLUMN", "MAPS_TO")
    assert column and column["property"] == "CustomerId" and column["mapped_by"] == CUSTOMER_CONFIGURE
    # a property configured without a column name gets no column edge of its own (matched by name)
    assert edge(graph, "cs:Shop.Domain.Customer|TYPE", "sql:dbo.Customers.Name|COLUMN", "MAPS_TO") is None
    # nor does a configuration reach a table its entity does not map to
    assert edge(graph, CUSTOMER_CONFIGURE, "sql:dbo.Orders|TABLE", "REFERENCES") is None


def test_a_column_impact_reaches_the_foreign_keys_other_side_and_its_configuration():
    graph = graph_of(FILES)
    column = "sql:dbo.Customers.CustomerID|COLUMN"
    found = {item.id: item for item in impact_of(
        graph, Named(column, "COLUMN", "dbo.Customers.CustomerID", "column", "sql:dbo.Customers|TABLE"),
        lambda ids: {})}
    assert "cs:Shop.Domain.Customer.CustomerId|PROPERTY" in found and CUSTOMER_CONFIGURE in found
    # the foreign key's column in Orders, the property filled from it and the code configuring it
    assert found["sql:dbo.Orders.CustomerID|COLUMN"].relation == "FOREIGN_KEY"
    assert found["cs:Shop.Domain.Order.CustomerId|PROPERTY"].relation == "FOREIGN_KEY"
    assert ORDER_CONFIGURE in found
    # the order's own key is no part of it
    assert "cs:Shop.Domain.Order.OrderId|PROPERTY" not in found


def test_a_columns_impact_names_the_mapping_code_configuring_it_before_code_using_the_property():
    profile = """
using AutoMapper;
using Shop.Domain;
namespace Shop.App;
public class CustomerDto { public string Id { get; set; } }
public class CustomerProfile : Profile
{
    public CustomerProfile() { CreateMap<Customer, CustomerDto>().ForMember(d => d.Id, o => o.MapFrom(s => s.CustomerId)); }
}
"""
    graph = graph_of({**FILES, "src/App/CustomerProfile.cs": profile})
    column = "sql:dbo.Customers.CustomerID|COLUMN"
    items = impact_of(graph, Named(column, "COLUMN", "dbo.Customers.CustomerID", "column", "sql:dbo.Customers|TABLE"),
                      lambda ids: {})
    order = [item.id for item in by_relevance(graph, items, (), ("READS", "WRITES", "FOREIGN_KEY"), [])]
    uses = "cs:Shop.App.CustomerProfile.CustomerProfile|METHOD"  # reads the property in a member option
    assert order.index(CUSTOMER_CONFIGURE) < order.index(uses)
    assert order.index("cs:Shop.Domain.Order.CustomerId|PROPERTY") < order.index(CUSTOMER_CONFIGURE)


def test_a_csv_class_map_is_no_table_mapping():
    graph = graph_of({**FILES, "src/Files/InvoiceRecordMap.cs": CSV_MAP})
    invoice = {t for _, t, k in graph.out_edges("cs:Shop.Domain.Invoice|TYPE", keys=True) if k == "MAPS_TO"}
    assert invoice == {"sql:dbo.Invoices|TABLE"}  # the DbSet's, not one of the CSV map
    assert "attrs" not in graph.nodes["cs:Shop.Files.InvoiceRecordMap|TYPE"] \
        or "ef_role" not in graph.nodes["cs:Shop.Files.InvoiceRecordMap|TYPE"]["attrs"]
    # a CSV map of a type nothing persists makes no table at all
    alone = graph_of({"src/Domain/Entities.cs": ENTITIES, "src/Files/InvoiceRecordMap.cs": CSV_MAP})
    assert not [t for t in alone if t.startswith("sql:") or t.startswith("ext:Invoice")]


def test_a_mapping_class_whose_constructor_names_a_key_maps_without_an_orm_using():
    graph = graph_of({"src/Mappings.cs": NHIBERNATE_MAP_WITHOUT_USING})
    maps = {t: d for _, t, k, d in graph.out_edges("cs:Shop.Data.Mappings.OrderLine|TYPE", keys=True, data=True)
            if k == "MAPS_TO"}
    assert list(maps) == ["sql:dbo.OrderLine|TABLE"] and maps["sql:dbo.OrderLine|TABLE"]["guess"] is True


AUTOMAPPER = """
using AutoMapper;
using Shop.Domain;
namespace Shop.App;
public class Category { public int CategoryId { get; set; } public string CategoryName { get; set; } }
public class Product { public string ProductName { get; set; } public Category Category { get; set; }
                       public int CategoryId { get; set; } }
public class ProductDto
{
    public string Name { get; set; }
    public string CategoryName { get; set; }
    public string Label { get; set; }
    public void Mapping(Profile profile)
    {
        profile.CreateMap<Product, ProductDto>()
            .ForMember(d => d.Name, o => o.MapFrom(s => s.ProductName.Trim()))
            .ForMember(d => d.CategoryName, o => o.MapFrom(s => s.Category != null ? s.Category.CategoryName : ""))
            .ForMember(d => d.Label, o => o.MapFrom(s => Labels.Default.Text));
    }
}
public static class Labels { public static readonly Label Default = new(); }
public class Label { public string Text { get; set; } }
"""


def test_automapper_member_options_reference_what_they_read_and_fill():
    graph = graph_of({"src/App/ProductDto.cs": AUTOMAPPER})
    mapping = "cs:Shop.App.ProductDto.Mapping|METHOD"
    used = {t: d for _, t, k, d in graph.out_edges(mapping, keys=True, data=True)
            if k == "REFERENCES" and graph.nodes[t].get("kind") == "PROPERTY"}
    # the destination members, the source members, and through the navigation its property
    assert used["cs:Shop.App.ProductDto.CategoryName|PROPERTY"]["side"] == "destination"
    assert used["cs:Shop.App.Product.ProductName|PROPERTY"]["side"] == "source"
    reached = used["cs:Shop.App.Category.CategoryName|PROPERTY"]
    assert reached["through"] == "cs:Shop.App.Product.Category|PROPERTY" and reached["via"] == "object_mapping"
    # not the method called on a member, nor what a lambda reads from anything but its parameter
    assert not [t for t in used if t.endswith(".Trim|PROPERTY") or t.startswith("cs:Shop.App.Label")]
    assert "cs:Shop.App.Product.CategoryId|PROPERTY" not in used and "cs:Shop.App.Category.CategoryId|PROPERTY" not in used
    # renaming the property finds the mapping that reads it
    found = impact_of(graph, Named("cs:Shop.App.Category.CategoryName|PROPERTY", "PROPERTY",
                                   "Shop.App.Category.CategoryName", "property", None), lambda ids: {})
    assert mapping in {item.id for item in found if item.relation == "maps member"}


SEED_SCRIPT = """
CREATE TABLE dbo.Customers (Id int, Name nvarchar(10));
GO
INSERT INTO dbo.Customers (Id, Name) VALUES (1, 'a');
INSERT INTO dbo.Customers (Id, Name) VALUES (2, 'b');
UPDATE Customers SET Name = 'c' WHERE Id = 2;
IF NOT EXISTS (SELECT 1 FROM dbo.Orders) BEGIN INSERT INTO dbo.Orders (Id) VALUES (1) END
GO
CREATE PROCEDURE dbo.Purge AS BEGIN DELETE FROM dbo.Logs END
GO
SELECT * FROM dbo.Invoices;
"""


def test_a_sql_data_script_writes_the_tables_its_statements_write_and_no_other():
    graph = graph_of({"db/schema.sql": SCHEMA + "CREATE TABLE dbo.Logs (Id int);",
                      "db/seed.sql": SEED_SCRIPT})
    script = "file:db/seed.sql|FILE"
    writes = {t: d for _, t, k, d in graph.out_edges(script, keys=True, data=True) if k == "WRITES"}
    assert set(writes) == {"sql:dbo.Customers|TABLE", "sql:dbo.Orders|TABLE"}
    customers = writes["sql:dbo.Customers|TABLE"]  # one edge for three statements, written and unqualified
    assert customers["via"] == "data_script" and customers["operations"] == ["INSERT", "UPDATE"]
    assert customers["statements"] == 3
    # the procedure's DELETE is the procedure's; a SELECT writes nothing
    assert graph.has_edge("sql:dbo.Purge|PROCEDURE", "sql:dbo.Logs|TABLE", key="WRITES")
    assert not graph.has_edge(script, "sql:dbo.Logs|TABLE") and not graph.has_edge(script, "sql:dbo.Invoices|TABLE")


BLOG = """
using System.Collections.Generic;
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Metadata.Builders;
namespace Blog;
public class Post { public int Id { get; set; } public ICollection<Tag> Tags { get; set; }
                    public ICollection<Author> Authors { get; set; } public ICollection<Comment> Comments { get; set; } }
public class Tag { public int Id { get; set; } public ICollection<Post> Posts { get; set; } }
public class Author { public int Id { get; set; } public ICollection<Post> Posts { get; set; } }
public class Comment { public int Id { get; set; } public Post Post { get; set; } }
public class BlogContext : DbContext
{
    public DbSet<Post> Posts { get; set; }
    public DbSet<Tag> Tags { get; set; }
    public DbSet<Author> Authors { get; set; }
    public DbSet<Comment> Comments { get; set; }
}
public class PostConfiguration : IEntityTypeConfiguration<Post>
{
    public void Configure(EntityTypeBuilder<Post> builder)
    {
        builder.HasMany(p => p.Tags).WithMany(t => t.Posts);
        builder.HasMany(p => p.Authors).WithMany(a => a.Posts).UsingEntity(j => j.ToTable("PostAuthors"));
        builder.HasMany(p => p.Comments).WithOne(c => c.Post);
    }
}
public class Editor
{
    private readonly BlogContext db;
    public void Tag(Post post, Tag tag) { post.Tags.Add(tag); db.SaveChanges(); }
    public void Credit(Post post, Author author) { post.Authors.Add(author); db.SaveChanges(); }
    public void Reply(Post post, Comment comment) { post.Comments.Add(comment); db.SaveChanges(); }
}
"""

BLOG_SCHEMA = """
CREATE TABLE dbo.Posts (Id int); CREATE TABLE dbo.Tags (Id int); CREATE TABLE dbo.Authors (Id int);
CREATE TABLE dbo.Comments (Id int, PostId int); CREATE TABLE dbo.PostTag (PostsId int, TagsId int);
CREATE TABLE dbo.PostAuthors (PostsId int, AuthorsId int);
"""


def test_adding_to_a_many_to_many_navigation_writes_its_join_table():
    graph = graph_of({"src/Blog.cs": BLOG, "db/schema.sql": BLOG_SCHEMA})

    def join_writes(method: str) -> dict[str, dict]:
        return {t: d for _, t, k, d in graph.out_edges(f"cs:Blog.Editor.{method}|METHOD", keys=True, data=True)
                if k == "WRITES" and d.get("via") == "join_table"}
    # EF Core's convention (`PostTag`, the two names in order), a guess; the table `UsingEntity` names
    tagged = join_writes("Tag")
    assert set(tagged) == {"sql:dbo.PostTag|TABLE"} and tagged["sql:dbo.PostTag|TABLE"]["how"] == "by_convention"
    assert tagged["sql:dbo.PostTag|TABLE"]["guess"] is True and tagged["sql:dbo.PostTag|TABLE"]["navigation"] == "Tags"
    credited = join_writes("Credit")
    assert set(credited) == {"sql:dbo.PostAuthors|TABLE"} and credited["sql:dbo.PostAuthors|TABLE"]["how"] == "mapping"
    # a one-to-many collection has no join table
    assert join_writes("Reply") == {}


EF6_REPOSITORIES = """
using System.Collections.Generic;
using System.Data.Entity;
using System.Data.Entity.ModelConfiguration;
namespace Git.Data;
public class Repository { public int Id { get; set; } public ICollection<User> Users { get; set; }
                          public ICollection<Team> Teams { get; set; } }
public class User { public int Id { get; set; } public ICollection<Repository> Repositories { get; set; } }
public class Team { public int Id { get; set; } public ICollection<Repository> Repositories { get; set; } }
public class RepositoryMap : EntityTypeConfiguration<Repository>
{
    public RepositoryMap()
    {
        ToTable("Repository");
        SetRelationships();
    }
    private void SetRelationships()
    {
        HasMany(t => t.Users).WithMany(u => u.Repositories).Map(m =>
        {
            m.ToTable("UserRepository_Permission");
            m.MapLeftKey("Repository_Id");
            m.MapRightKey("User_Id");
        });
        HasMany(t => t.Teams).WithMany(t => t.Repositories).Map(m => m.ToTable("TeamRepository_Permission"));
    }
    private void Unused() { HasMany(t => t.Users).WithMany(u => u.Repositories).Map(m => m.ToTable("Wrong")); }
}
public class Permissions
{
    private readonly DbContext db;
    public void Grant(Repository repository, User user) { repository.Users.Add(user); db.SaveChanges(); }
    public void Share(Repository repository, Team team) { repository.Teams.Add(team); db.SaveChanges(); }
    public void GrantAll(Repository repository) { foreach (var user in db.Set<User>()) repository.Users.Add(user); }
    public void Revoke(Repository repository) { repository.Teams.Clear(); db.SaveChanges(); }
    public int Count(Repository repository) => repository.Users.Count;
}
"""


def test_ef6_names_a_many_to_many_join_table_in_map_even_from_a_step_of_the_constructor():
    """EF6's `HasMany(..).WithMany(..).Map(m => { m.ToTable("X"); ... })`, in a method the mapping
    class's constructor calls (Bonobo's `SetRelationships()`): adding to the navigation (or clearing
    it) writes X; a method the constructor does not call configures nothing."""
    graph = graph_of({"src/Data.cs": EF6_REPOSITORIES, "db/schema.sql": (
        "CREATE TABLE dbo.UserRepository_Permission (Repository_Id int, User_Id int);\n"
        "CREATE TABLE dbo.TeamRepository_Permission (Repository_Id int, Team_Id int);\n"
        "CREATE TABLE dbo.Wrong (Repository_Id int);\n")})

    def join_writes(method: str) -> set[str]:
        return {t for _, t, k, d in graph.out_edges(f"cs:Git.Data.Permissions.{method}|METHOD", keys=True, data=True)
                if k == "WRITES" and d.get("via") == "join_table" and d.get("how") == "mapping"}
    assert join_writes("Grant") == {"sql:dbo.UserRepository_Permission|TABLE"}
    assert join_writes("Share") == {"sql:dbo.TeamRepository_Permission|TABLE"}
    # what is added is of the collection's type where the index cannot tell it; a cleared
    # collection deletes its join rows; counting it writes nothing
    assert join_writes("GrantAll") == {"sql:dbo.UserRepository_Permission|TABLE"}
    assert join_writes("Revoke") == {"sql:dbo.TeamRepository_Permission|TABLE"}
    assert join_writes("Count") == set()
    # clearing writes the join rows only: neither the teams nor what a repository holds
    assert {t for _, t, k in graph.out_edges("cs:Git.Data.Permissions.Revoke|METHOD", keys=True) if k == "WRITES"} \
        == {"sql:dbo.TeamRepository_Permission|TABLE"}
    from ragstream.graph.relations import written_as
    assert written_as(graph, "cs:Git.Data.Permissions.Revoke|METHOD", "sql:dbo.TeamRepository_Permission|TABLE") == {"DELETE"}


WRITERS = """
using Microsoft.EntityFrameworkCore;
namespace Shop;
public class Customer { public int Id { get; set; } }
public class ShopContext : DbContext { public DbSet<Customer> Customers { get; set; } }
public interface ICustomerStore { void Add(Customer c); }
public class CustomerStore : ICustomerStore
{
    private readonly ShopContext db;
    public void Add(Customer c) { db.Customers.Add(c); db.SaveChanges(); }
}
public class CustomersController { private readonly ICustomerStore store; public void Post(Customer c) => store.Add(c); }
"""


def test_a_data_script_is_listed_after_the_code_and_is_no_neighbourhood_of_it():
    seed = "INSERT INTO dbo.Customers (CustomerID, Name) VALUES ('ALFKI', 'Alfreds');"
    graph = graph_of({"src/Shop.cs": WRITERS, "db/schema.sql": SCHEMA, "db/seed.sql": seed})
    table = "sql:dbo.Customers|TABLE"
    items = related(graph, Named(table, "TABLE", "dbo.Customers", "table", None), ("WRITES",))
    order = [item.id for item in by_relevance(graph, items, (), ("WRITES",), [])]
    # the code writing it, then the code calling that (one hop), then the script
    assert order == ["cs:Shop.CustomerStore.Add|METHOD", "cs:Shop.CustomersController.Post|METHOD", "file:db/seed.sql|FILE"]
    limits = ExpansionLimits(max_depth=2, max_nodes=50, edges={"WRITES": "both", "DEFINES": "both"})
    reached = expand_dependency_tree(graph, ["cs:Shop.CustomerStore.Add|METHOD"], RetrievalFilters(), limits).nodes
    assert table in reached and "file:db/seed.sql|FILE" not in reached
    # a search hit on the script is not followed by the tables it fills, the code's by its own
    assert with_their_tables(graph, ["file:db/seed.sql|FILE", "cs:Shop.CustomerStore.Add|METHOD"]) == [
        "file:db/seed.sql|FILE", "cs:Shop.CustomerStore.Add|METHOD", table]


def test_a_configuration_names_its_composite_key_parts_and_the_foreign_key_it_holds():
    configuration = """
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Metadata.Builders;
using Shop.Domain;
namespace Shop.Data.Configurations;
public class OrderLineConfiguration : IEntityTypeConfiguration<OrderLine>
{
    public void Configure(EntityTypeBuilder<OrderLine> builder)
    {
        builder.HasKey(e => new { e.OrderId, e.LineNo });
        builder.HasOne(d => d.Product).WithMany(p => p.Lines).HasForeignKey(d => d.ProductRef);
        builder.HasMany(d => d.Notes).WithOne(n => n.Line).HasForeignKey(n => n.LineRef);
    }
}
"""
    graph = graph_of({"src/Data/OrderLineConfiguration.cs": configuration})
    members = next(d["members"] for _, _, k, d in graph.out_edges(
        "cs:Shop.Data.Configurations.OrderLineConfiguration|TYPE", keys=True, data=True) if k == "REFERENCES")
    assert {name: said["configured"] for name, said in members.items()} == {
        "OrderId": "HasKey", "LineNo": "HasKey", "Product": "HasOne", "ProductRef": "HasForeignKey", "Notes": "HasMany"}
    # `LineRef` is the key the notes hold (the other entity's property), not this entity's


def test_two_maps_through_one_navigation_keep_every_member_they_read_through_it():
    # a second map reads `Category.CategoryId` through the navigation the first one used: both reached
    source = AUTOMAPPER.replace(
        '''            .ForMember(d => d.Label, o => o.MapFrom(s => Labels.Default.Text));''',
        '''            .ForMember(d => d.Label, o => o.MapFrom(s => Labels.Default.Text));
        profile.CreateMap<Product, Label>()
            .ForMember(d => d.Text, o => o.MapFrom(s => s.Category.CategoryId));''')
    graph = graph_of({"src/App/ProductDto.cs": source})
    used = {t for _, t, k in graph.out_edges("cs:Shop.App.ProductDto.Mapping|METHOD", keys=True) if k == "REFERENCES"}
    assert {"cs:Shop.App.Category.CategoryName|PROPERTY", "cs:Shop.App.Category.CategoryId|PROPERTY"} <= used


# WRITERS with an overload and a sibling of `CustomerStore.Add`, and a second type writing the same table
OVERLOADED_WRITERS = WRITERS.replace(
    "    public void Add(Customer c) { db.Customers.Add(c); db.SaveChanges(); }\n}\n",
    """    public void Add(Customer c) { db.Customers.Add(c); db.SaveChanges(); }
    public void Add(Customer c, bool save) { db.Customers.Add(c); if (save) db.SaveChanges(); }
    public void Remove(Customer c) { db.Customers.Remove(c); db.SaveChanges(); }
}
public class ArchiveStore
{
    private readonly ShopContext db;
    public void Add(Customer c) { db.Customers.Add(c); db.SaveChanges(); }
}
""")


def test_an_answer_ranks_a_methods_other_overloads_after_every_other_name():
    graph = graph_of({"src/Shop.cs": OVERLOADED_WRITERS, "db/schema.sql": SCHEMA})
    table = "sql:dbo.Customers|TABLE"
    first, second = "cs:Shop.CustomerStore.Add(Customer)|METHOD", "cs:Shop.CustomerStore.Add(Customer,bool)|METHOD"
    # the search ranked both overloads first; another type's `Add` is no overload of them
    hits = [first, second, "cs:Shop.ArchiveStore.Add|METHOD", "cs:Shop.CustomerStore.Remove|METHOD"]
    items = by_relevance(graph, related(graph, Named(table, "TABLE", "dbo.Customers", "table", None), ("WRITES",)),
                         (), ("WRITES",), hits)
    answer = GraphAnswer("list", [Named(table, "TABLE", "dbo.Customers", "table", None)], ("WRITES",), items)
    # the list itself keeps the overloads side by side; the ranking names each method once first
    assert [item.id for item in items][:2] == [first, second]
    assert answer.node_ids(graph) == [table, first, "cs:Shop.ArchiveStore.Add|METHOD",
                                      "cs:Shop.CustomerStore.Remove|METHOD", "cs:Shop.CustomersController.Post|METHOD",
                                      second]


def test_a_column_of_another_table_is_no_repeat_of_a_column_of_its_name():
    graph = graph_of(FILES)
    ids = ["sql:dbo.Customers.CustomerID|COLUMN", "sql:dbo.Orders.CustomerID|COLUMN", "sql:dbo.Customers|TABLE"]
    assert repeated_names_last(graph, ids) == ids


def test_a_mapping_class_over_a_packages_own_mapping_base_maps_when_its_constructor_names_the_table():
    """`BlogPostMap : EntitySubClassMapBase<BlogPost>` (a base from a package, over FluentNHibernate's)
    with `Table("BlogPosts")` maps `BlogPost`; a base named as a mapping whose constructor names no
    table or key (`CsvMapping<Row>` with `MapProperty`) maps nothing."""
    models = "namespace Blog.Models { public class BlogPost { public virtual string Title { get; set; } } public class Row { } }"
    maps = """
using BetterModules.Core.Models;
namespace Blog.Models.Maps
{
    public class BlogPostMap : EntitySubClassMapBase<BlogPost>
    {
        public BlogPostMap() : base("blog") { Table("BlogPosts"); Map(x => x.Title).Not.Nullable(); }
    }
    public class RowMapping : CsvMapping<Row>
    {
        public RowMapping() { MapProperty(0, x => x.Name); }
    }
}
"""
    graph, _ = build_graph([parse_csharp("Models.cs", models), parse_csharp("Maps.cs", maps),
                            parse_sql("db/schema.sql", "CREATE TABLE BlogPosts (Id int, Title nvarchar(100));", "tsql")])

    def maps_to(entity: str) -> list[str]:
        return [t for _, t, k in graph.out_edges(f"cs:Blog.Models.{entity}|TYPE", keys=True) if k == "MAPS_TO"]

    assert maps_to("BlogPost") == ["sql:dbo.BlogPosts|TABLE"]
    assert maps_to("Row") == []


def test_a_packages_repository_reads_and_writes_the_table_of_its_generic_methods_type_argument():
    """`repository.AsQueryable<BlogPost>()` / `Repository.Delete<BlogPost>(id)` on a package's
    repository (declared nowhere in the code) read / write BlogPost's table, as guesses; a cache's
    `Get<BlogPost>(key)` and an unmapped type argument touch no table."""
    models = "namespace Blog.Models { public class BlogPost { public virtual int Id { get; set; } } public class Draft { } }"
    maps = 'namespace Blog.Models.Maps { public class BlogPostMap : EntityMapBase<BlogPost> { public BlogPostMap() { Table("BlogPosts"); } } }'
    commands = """
using BetterModules.Core.DataAccess;
using Blog.Models;
namespace Blog.Commands {
 public class PostCommand : CommandBase {
   private readonly IRepository repository;
   private readonly ICacheService cache;
   public object Load(int id) => repository.AsQueryable<BlogPost>().Where(x => x.Id == id).ToList();
   public void Remove(int id) => Repository.Delete<BlogPost>(id, 1);
   public object Cached() => cache.Get<BlogPost>("k");
   public object Unmapped() => repository.First<Draft>(1);
 } }
"""
    graph, _ = build_graph([parse_csharp("Models.cs", models), parse_csharp("Maps.cs", maps), parse_csharp("Commands.cs", commands),
                            parse_sql("db/schema.sql", "CREATE TABLE BlogPosts (Id int);", "tsql")])

    def touched(method: str) -> set[tuple[str, str, bool]]:
        return {(d["type"], t, bool(d.get("guess"))) for _, t, d in graph.out_edges(f"cs:Blog.Commands.PostCommand.{method}|METHOD", data=True)
                if d["type"] in ("READS", "WRITES")}

    assert touched("Load") == {("READS", "sql:dbo.BlogPosts|TABLE", True)}
    assert touched("Remove") == {("WRITES", "sql:dbo.BlogPosts|TABLE", True)}
    assert touched("Cached") == set() and touched("Unmapped") == set()


def test_a_mapper_handing_its_base_the_table_maps_its_entity_and_a_unit_of_work_writes_it():
    """Griffin.Data: `HistoryEntryMapper : CrudEntityMapper<HistoryEntry>` with `: base("IncidentHistory")`
    maps the entity to that table, and `_unitOfWork.InsertAsync(entry)` then writes it; a CSV
    `ClassMap<T>` beside it maps nothing, and a mapper handing its base no string names no table."""
    files = {"History.cs": """
using Griffin.Data.Mapper;
namespace Errors.History;
public class HistoryEntry { public int Id { get; set; } public int IncidentId { get; set; } }
public class Note { public int Id { get; set; } }
public class HistoryEntryMapper : CrudEntityMapper<HistoryEntry>
{
    public HistoryEntryMapper() : base("IncidentHistory") { Property(x => x.Id).PrimaryKey(true); }
}
public class NoteMapper : CrudEntityMapper<Note> { public NoteMapper() : base(Settings.Name) { } }
public class Csv : ClassMap<HistoryEntry> { public Csv() { Map(x => x.Id); } }
public class HistoryRepository
{
    private readonly IAdoNetUnitOfWork _unitOfWork;
    public async Task CreateAsync(HistoryEntry entry) { await _unitOfWork.InsertAsync(entry); }
}
""", "schema.sql": "CREATE TABLE IncidentHistory (Id int NOT NULL, IncidentId int NOT NULL);"}
    graph = graph_of(files)
    table = "sql:IncidentHistory|TABLE"
    assert edge(graph, "cs:Errors.History.HistoryEntry|TYPE", table, "MAPS_TO")["via"] == "mapping_class"
    assert edge(graph, "cs:Errors.History.HistoryRepository.CreateAsync|METHOD", table, "WRITES") is not None
    assert not [t for _, t, k in graph.out_edges("cs:Errors.History.Note|TYPE", keys=True) if k == "MAPS_TO"]


def test_a_mapping_class_maps_the_properties_its_constructor_names_a_column_for():
    """EF6's `this.Property(t => t.Columns).HasColumnName("qu_columns")` in an `EntityTypeConfiguration<T>`
    constructor, FluentNHibernate's `Map(x => x.Email).Column("EmailAddr")` and `Id(x => x.Id).Column(..)`:
    each property maps to the column named; one without a column name keeps the column of its own
    name, and no property maps to a column of another."""
    graph = graph_of({"Models.cs": """
using System.Data.Entity.ModelConfiguration;
namespace Bugs.Models;
public class Query { public int Id { get; set; } public string Columns { get; set; } }
public class QueryMap : EntityTypeConfiguration<Query>
{
    public QueryMap() { this.ToTable("queries"); this.HasKey(t => t.Id);
        this.Property(t => t.Id).HasColumnName("qu_id"); this.Property(t => t.Columns).HasColumnName("qu_columns"); }
}
""", "Students.cs": """
using FluentNHibernate.Mapping;
namespace School;
public class Student { public virtual long Id { get; set; } public virtual string Name { get; set; } public virtual string Email { get; set; } }
public class StudentMap : ClassMap<Student>
{
    public StudentMap() { Table("Student"); Id(x => x.Id).Column("StudentID"); Map(x => x.Name); Map(x => x.Email).Column("EmailAddr"); }
}
""", "schema.sql": """CREATE TABLE queries (qu_id int NOT NULL, qu_columns nvarchar(max));
CREATE TABLE Student (StudentID bigint NOT NULL, Name nvarchar(200), EmailAddr nvarchar(200));"""})

    def columns(prop: str) -> set[str]:
        return {t for _, t, k in graph.out_edges(prop, keys=True) if k == "MAPS_TO"}
    assert columns("cs:Bugs.Models.Query.Columns|PROPERTY") == {"sql:dbo.queries.qu_columns|COLUMN"}
    assert columns("cs:Bugs.Models.Query.Id|PROPERTY") == {"sql:dbo.queries.qu_id|COLUMN"}
    assert columns("cs:School.Student.Email|PROPERTY") == {"sql:dbo.Student.EmailAddr|COLUMN"}
    assert columns("cs:School.Student.Id|PROPERTY") == {"sql:dbo.Student.StudentID|COLUMN"}
    assert columns("cs:School.Student.Name|PROPERTY") == {"sql:dbo.Student.Name|COLUMN"}


def test_a_table_name_attribute_maps_its_class_as_a_table_attribute_does():
    """PetaPoco's, NPoco's and Serenity's `[TableName("Customers")]` is EF's `[Table("Customers")]`:
    the row class maps to the table, its properties to the columns of their names."""
    graph = graph_of({"CustomerRow.cs": """
using Serenity.Data.Mapping;
namespace Shop.Entities;
[ConnectionKey("Northwind"), TableName("Customers")]
public sealed class CustomerRow : Row<CustomerRow.RowFields>
{
    [Size(5), PrimaryKey] public string CustomerID { get => fields.CustomerID[this]; set => fields.CustomerID[this] = value; }
    public class RowFields : RowFieldsBase { public StringField CustomerID; }
}
[DisplayName("Orders")]
public sealed class OrderRow { public int OrderID { get; set; } }
""", "schema.sql": "CREATE TABLE Customers (CustomerID nchar(5) NOT NULL); CREATE TABLE Orders (OrderID int NOT NULL);"})
    assert edge(graph, "cs:Shop.Entities.CustomerRow|TYPE", "sql:Customers|TABLE", "MAPS_TO") is not None
    assert edge(graph, "cs:Shop.Entities.CustomerRow.CustomerID|PROPERTY", "sql:Customers.CustomerID|COLUMN",
                "MAPS_TO") is not None
    assert not [t for _, t, k in graph.out_edges("cs:Shop.Entities.OrderRow|TYPE", keys=True) if k == "MAPS_TO"]
