"""Write scope of EF Core change tracking and ASP.NET Core Identity managers: an entry's state,
`Attach` write the entity's own table, not its collections' (`Update`, `Add` and `Remove` still
guess them: `Update` tracks every reachable entity as Modified); a `UserManager` / `RoleManager` / `SignInManager` call reads and writes the Identity
store tables its method names, never the collections of the application's user type."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

ORDERS, ITEMS = "sql:dbo.Orders|TABLE", "sql:dbo.OrderItems|TABLE"
USERS, BOOKMARKS = "sql:dbo.AppUser|TABLE", "sql:dbo.Bookmarks|TABLE"
USER_ROLES, ROLES = "sql:dbo.AppUserRole|TABLE", "sql:dbo.AppRole|TABLE"
TOKENS, CLAIMS = "sql:dbo.AspNetUserTokens|TABLE", "sql:dbo.AspNetUserClaims|TABLE"

SHOP = """
using Microsoft.EntityFrameworkCore;
namespace Shop;
public class Order { public int Id { get; set; } public ICollection<OrderItem> Items { get; set; } }
public class OrderItem { public int Id { get; set; } }
public class ShopContext : DbContext { public DbSet<Order> Orders { get; set; } public DbSet<OrderItem> OrderItems { get; set; } }
public class Store
{
    private readonly ShopContext _db;
    public void Modify(Order order) { _db.Entry(order).State = EntityState.Modified; }
    public void AddState(Order order) { _db.Entry(order).State = EntityState.Added; }
    public void DeleteState(Order order) { _db.Entry(order).State = EntityState.Deleted; }
    public void AttachIt(Order order) { _db.Orders.Attach(order); }
    public void UpdateIt(Order order) { _db.Update(order); }
    public void Place(Order order) { _db.Orders.Add(order); }
    public void Drop(Order order) { _db.Orders.Remove(order); }
    public void AddLine(Order order, OrderItem item) { _db.Orders.Attach(order); order.Items.Add(item); }
}
"""
SHOP_SQL = "CREATE TABLE dbo.Orders (Id INT); CREATE TABLE dbo.OrderItems (Id INT);"

IDENTITY = """
using Microsoft.AspNetCore.Identity;
using Microsoft.EntityFrameworkCore;
namespace App;
public class AppUser : IdentityUser<int> { public ICollection<Bookmark> Bookmarks { get; set; } }
public class AppRole : IdentityRole<int> { }
public class AppUserRole : IdentityUserRole<int> { }
public class Bookmark { public int Id { get; set; } }
public class DataContext : IdentityDbContext<AppUser, AppRole, int>
{
    public DbSet<AppUser> AppUser { get; set; }
    public DbSet<AppRole> AppRole { get; set; }
    public DbSet<AppUserRole> AppUserRole { get; set; }
    public DbSet<Bookmark> Bookmarks { get; set; }
}
public class Account
{
    private readonly UserManager<AppUser> _userManager;
    private readonly RoleManager<AppRole> _roleManager;
    private readonly SignInManager<AppUser> _signInManager;
    public async Task Register(AppUser user) { await _userManager.CreateAsync(user, "pw"); }
    public async Task Stamp(AppUser user) { await _userManager.UpdateSecurityStampAsync(user); }
    public async Task Promote(AppUser user) { await _userManager.AddToRoleAsync(user, "Admin"); }
    public async Task Roles(AppUser user) { await _userManager.GetRolesAsync(user); }
    public async Task Find(string name) { await _userManager.FindByNameAsync(name); }
    public async Task Logout(AppUser user) { await _userManager.RemoveAuthenticationTokenAsync(user, "p", "t"); }
    public async Task Claim(AppUser user) { await _userManager.AddClaimAsync(user, null); }
    public async Task Check(AppUser user) { await _userManager.CheckPasswordAsync(user, "pw"); }
    public async Task NewRole(AppRole role) { await _roleManager.CreateAsync(role); }
    public async Task Login(string name) { await _signInManager.PasswordSignInAsync(name, "pw", false, false); }
    public async Task Confirm(AppUser user) { await _userManager.GenerateEmailConfirmationTokenAsync(user); }
    public async Task Schemes() { await _signInManager.GetExternalAuthenticationSchemesAsync(); }
}
"""
IDENTITY_SQL = ("CREATE TABLE dbo.AppUser (Id INT); CREATE TABLE dbo.AppRole (Id INT); CREATE TABLE dbo.AppUserRole (Id INT);"
                " CREATE TABLE dbo.Bookmarks (Id INT); CREATE TABLE dbo.AspNetUserTokens (Id INT);"
                " CREATE TABLE dbo.AspNetUserClaims (Id INT);")


def _graph(code: str, sql: str) -> nx.MultiDiGraph:
    graph, _ = build_graph([parse_csharp("Code.cs", code), parse_sql("db.sql", sql, "tsql")])
    return graph


def _edges(graph: nx.MultiDiGraph, method: str, kind: str) -> dict[str, dict]:
    return {t: a for _, t, k, a in graph.out_edges(f"cs:{method}|METHOD", keys=True, data=True) if k == kind}


def test_an_entry_state_and_attach_write_the_entitys_own_table_only():
    graph = _graph(SHOP, SHOP_SQL)
    for method in ("Modify", "AddState", "DeleteState", "AttachIt"):
        assert set(_edges(graph, f"Shop.Store.{method}", "WRITES")) == {ORDERS}, method


def test_update_add_and_remove_still_guess_the_aggregates_collections():
    graph = _graph(SHOP, SHOP_SQL)
    for method in ("Place", "Drop", "UpdateIt"):
        writes = _edges(graph, f"Shop.Store.{method}", "WRITES")
        assert writes[ITEMS]["via"] == "aggregate" and writes[ITEMS]["guess"] is True, method


def test_code_adding_to_a_collection_after_attach_writes_the_collections_table():
    writes = _edges(_graph(SHOP, SHOP_SQL), "Shop.Store.AddLine", "WRITES")
    assert set(writes) == {ORDERS, ITEMS} and writes[ITEMS]["via"] == "navigation"


def test_user_manager_changes_write_the_users_table_not_the_users_collections():
    graph = _graph(IDENTITY, IDENTITY_SQL)
    for method in ("Register", "Stamp"):
        writes = _edges(graph, f"App.Account.{method}", "WRITES")
        assert set(writes) == {USERS}, method
        assert writes[USERS]["via"] == "identity_store" and writes[USERS]["store"] == "Users"
    assert BOOKMARKS not in _edges(graph, "App.Account.Register", "READS")


def test_user_manager_role_token_and_claim_methods_write_their_store_tables():
    graph = _graph(IDENTITY, IDENTITY_SQL)
    promote = _edges(graph, "App.Account.Promote", "WRITES")
    assert set(promote) == {USER_ROLES, USERS} and "guess" not in promote[USER_ROLES]  # AppUserRole : IdentityUserRole
    assert set(_edges(graph, "App.Account.Promote", "READS")) == {ROLES}
    logout = _edges(graph, "App.Account.Logout", "WRITES")
    assert set(logout) == {TOKENS, USERS} and logout[TOKENS]["guess"] is True  # Identity's default table name
    assert set(_edges(graph, "App.Account.Claim", "WRITES")) == {CLAIMS, USERS}


def test_user_manager_queries_read_and_write_nothing():
    graph = _graph(IDENTITY, IDENTITY_SQL)
    assert set(_edges(graph, "App.Account.Roles", "READS")) == {USER_ROLES, ROLES}
    assert set(_edges(graph, "App.Account.Find", "READS")) == {USERS}
    assert set(_edges(graph, "App.Account.Check", "READS")) == {USERS}
    for method in ("Roles", "Find", "Check"):
        assert _edges(graph, f"App.Account.{method}", "WRITES") == {}, method
    for method in ("Confirm", "Schemes"):  # a token from the stamp in memory; a sign-in's schemes: no table
        assert _edges(graph, f"App.Account.{method}", "READS") == _edges(graph, f"App.Account.{method}", "WRITES") == {}


def test_role_and_sign_in_managers_touch_their_own_tables():
    graph = _graph(IDENTITY, IDENTITY_SQL)
    assert set(_edges(graph, "App.Account.NewRole", "WRITES")) == {ROLES}
    assert set(_edges(graph, "App.Account.Login", "WRITES")) == {USERS}
    assert set(_edges(graph, "App.Account.Login", "READS")) == {USERS}


UNMAPPED_ROLES = """
using Microsoft.AspNetCore.Identity;
namespace Shop;
public class User : IdentityUser<long> { public IList<UserRole> Roles { get; set; } public IList<Address> Addresses { get; set; } }
public class UserRole : IdentityUserRole<long> { }
public class UserManager { }  // the client's own, no type parameter: not `UserManager<TUser>`
public class Address { public long Id { get; set; } }
public class WorkContext
{
    private readonly UserManager<User> _userManager;
    public async Task Guest(User user) { await _userManager.CreateAsync(user, "pw"); await _userManager.AddToRoleAsync(user, "guest"); }
}
"""


def test_an_identity_type_no_model_maps_reaches_the_table_named_after_it_as_a_guess():
    graph = _graph(UNMAPPED_ROLES, "CREATE TABLE Core_User (Id INT); CREATE TABLE Core_UserRole (Id INT);"
                                   " CREATE TABLE Core_Address (Id INT);")
    writes = _edges(graph, "Shop.WorkContext.Guest", "WRITES")
    assert set(writes) == {"sql:dbo.Core_User|TABLE", "sql:dbo.Core_UserRole|TABLE"}  # not the user's addresses
    assert writes["sql:dbo.Core_UserRole|TABLE"]["guess"] is True and writes["sql:dbo.Core_UserRole|TABLE"]["store"] == "UserRoles"
