"""EF data access through what a package declares (`index/csharp/data_access`, `package_dbsets`):
a context reached through a constrained type parameter, a DbSet of a package's entity, and a
DbSet only a package's context declares; and the edges each must not make."""
from __future__ import annotations

import networkx as nx
import tree_sitter

from ragstream.index.csharp.parser import grammar, parse_csharp
from ragstream.index.csharp.strings import type_constraints
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA = """
CREATE TABLE dbo.Log (Id INT PRIMARY KEY);
CREATE TABLE dbo.Clients (Id INT PRIMARY KEY, ClientId NVARCHAR(200));
CREATE TABLE dbo.ClientSecrets (Id INT PRIMARY KEY, ClientId INT);
CREATE TABLE Identity.RoleClaims (Id INT PRIMARY KEY);
CREATE TABLE dbo.AspNetUsers (Id NVARCHAR(450) PRIMARY KEY);
"""

CONTEXTS = """
using Microsoft.EntityFrameworkCore;
using Pkg.Entities;
using App.Entities;
namespace App.Data
{
    public interface ILogDbContext { DbSet<Log> Logs { get; set; } }
    public interface IAdminConfigurationDbContext : IConfigurationDbContext
    {
        DbSet<ClientSecret> ClientSecrets { get; set; }
        DbSet<Widget> Widgets { get; set; }
    }
    public class AdminConfigurationDbContext : ConfigurationDbContext<AdminConfigurationDbContext>, IAdminConfigurationDbContext
    {
        public DbSet<ClientSecret> ClientSecrets { get; set; }
        public DbSet<Widget> Widgets { get; set; }
    }
    public class AppIdentityContext : IdentityDbContext<AppUser, AppRole, string>
    {
        protected override void OnModelCreating(ModelBuilder builder) { base.OnModelCreating(builder); }
    }
}
namespace App.Entities
{
    [Table("Log")]
    public class Log { public int Id { get; set; } }
    public class AppUser { public string Id { get; set; } }
    public class AppRole { public string Id { get; set; } }
}
"""


def build(code: str) -> nx.MultiDiGraph:
    files = [parse_csharp("Contexts.cs", CONTEXTS), parse_csharp("Code.cs", code),
             parse_sql("db/schema.sql", SCHEMA, "tsql")]
    graph, _ = build_graph(files)
    return graph


def touched(graph: nx.MultiDiGraph, method: str) -> dict[tuple[str, str], dict]:
    return {(key, target): data for _, target, key, data in graph.out_edges(f"cs:{method}|METHOD", keys=True, data=True)
            if key in ("READS", "WRITES")}


LOG, CLIENTS, SECRETS = "sql:dbo.Log|TABLE", "sql:dbo.Clients|TABLE", "sql:dbo.ClientSecrets|TABLE"


def test_a_receiver_typed_by_a_constrained_type_parameter_has_its_constraints_members():
    graph = build("""
using Microsoft.EntityFrameworkCore;
using App.Data;
namespace App.Repositories
{
    public class LogRepository<TDbContext> where TDbContext : DbContext, ILogDbContext
    {
        protected readonly TDbContext DbContext;
        public async Task DeleteOlderThan(DateTime date)
        {
            var old = await DbContext.Logs.Where(x => x.Id < 10).ToListAsync();
            DbContext.Logs.RemoveRange(old);
        }
    }
    public class Unconstrained<TDbContext> where TDbContext : class
    {
        protected readonly TDbContext DbContext;
        public void Delete(object old) { DbContext.Logs.RemoveRange(old); }
    }
}
""")
    found = touched(graph, "App.Repositories.LogRepository.DeleteOlderThan")
    assert found[("READS", LOG)]["property"] == "cs:App.Data.ILogDbContext.Logs|PROPERTY"
    assert found[("WRITES", LOG)]["via"] == "type_argument"
    # `class` says nothing of the members: no table
    assert touched(graph, "App.Repositories.Unconstrained.Delete") == {}


def test_a_dbset_of_a_package_entity_reaches_the_table_the_context_maps_it_to():
    graph = build("""
using Microsoft.EntityFrameworkCore;
using Pkg.Entities;
using App.Data;
namespace App.Repositories
{
    public class SecretRepository
    {
        private readonly IAdminConfigurationDbContext _db;
        public async Task Add(ClientSecret secret) { await _db.ClientSecrets.AddAsync(secret); }
        public List<ClientSecret> Cached(List<ClientSecret> secrets) { return secrets.Where(s => s.Id > 0).ToList(); }
        public void AddWidget(Widget widget) { _db.Widgets.Add(widget); }
    }
}
""")
    found = touched(graph, "App.Repositories.SecretRepository.Add")
    assert set(found) == {("WRITES", SECRETS)}
    assert found[("WRITES", SECRETS)]["entity"] == "ext:ClientSecret|EXTERNAL"
    # the same package entity in an in-memory list is no table access
    assert touched(graph, "App.Repositories.SecretRepository.Cached") == {}
    # a package entity no table of the schema stands for (its mapping names an outside name only): nothing
    assert touched(graph, "App.Repositories.SecretRepository.AddWidget") == {}


def test_a_dbset_only_a_package_context_declares_is_the_table_of_its_name_a_guess():
    graph = build("""
using Microsoft.EntityFrameworkCore;
using Pkg.Entities;
using App.Data;
namespace App.Repositories
{
    public class ClientRepository<TDbContext> where TDbContext : DbContext, IAdminConfigurationDbContext
    {
        protected readonly TDbContext DbContext;
        private readonly ClientCache _cache;
        public void Add(Client client) { DbContext.Clients.Add(client); }
        public Task<bool> Exists(string id) { return DbContext.Clients.Where(x => x.ClientId == id).AnyAsync(); }
        public void Migrate() { DbContext.Database.Migrate(); }
        public void Remember(Client client) { _cache.Clients.Add(client); }
    }
    public class ClientCache { }
}
""")
    added = touched(graph, "App.Repositories.ClientRepository.Add")
    assert set(added) == {("WRITES", CLIENTS)}
    assert added[("WRITES", CLIENTS)]["via"] == "dbset_name" and added[("WRITES", CLIENTS)]["guess"] is True
    assert set(touched(graph, "App.Repositories.ClientRepository.Exists")) == {("READS", CLIENTS)}
    # no table is named `Database`; a member of what is no context is no DbSet
    assert touched(graph, "App.Repositories.ClientRepository.Migrate") == {}
    assert touched(graph, "App.Repositories.ClientRepository.Remember") == {}


def test_identity_sets_reach_the_renamed_table_or_identitys_default_one():
    graph = build("""
using Microsoft.EntityFrameworkCore;
using App.Data;
namespace App.Services
{
    public class RoleClaimService
    {
        private readonly AppIdentityContext _db;
        public Task<int> Count() { return _db.RoleClaims.CountAsync(); }
        public Task<List<AppUser>> Users() { return _db.Users.ToListAsync(); }
        public Task<List<AppUser>> Tokens() { return _db.UserTokens.ToListAsync(); }
    }
}
""")
    assert set(touched(graph, "App.Services.RoleClaimService.Count")) == {("READS", "sql:Identity.RoleClaims|TABLE")}
    assert set(touched(graph, "App.Services.RoleClaimService.Users")) == {("READS", "sql:dbo.AspNetUsers|TABLE")}
    # neither a table named UserTokens nor AspNetUserTokens: nothing
    assert touched(graph, "App.Services.RoleClaimService.Tokens") == {}


def test_a_constraint_naming_another_type_parameter_has_its_types_and_a_method_parameter_hides_the_types():
    graph = build("""
using Microsoft.EntityFrameworkCore;
using App.Data;
namespace App.Repositories
{
    public class Chained<TBase, TDbContext> where TBase : DbContext, ILogDbContext where TDbContext : TBase
    {
        protected readonly TDbContext DbContext;
        public void Delete(object old) { DbContext.Logs.RemoveRange(old); }
        // a method's own `TDbContext` (legal, warning CS0693) has none of the type's constraints
        public void Other<TDbContext>(TDbContext context, object old) { context.Logs.RemoveRange(old); }
    }
}
""")
    assert ("WRITES", LOG) in touched(graph, "App.Repositories.Chained.Delete")
    assert touched(graph, "App.Repositories.Chained.Other") == {}


def test_constraints_that_name_no_type_are_no_types():
    tree = tree_sitter.Parser(grammar()).parse(b"class R<T, U, V, W> where T : notnull where U : unmanaged, IFoo<U> "
                                               b"where V : class?, new() where W : default { }")
    declaration = next(n for n in tree.root_node.named_children if n.type == "class_declaration")
    assert type_constraints(declaration) == {"T": [], "U": ["IFoo"], "V": [], "W": []}
