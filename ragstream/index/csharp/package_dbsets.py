"""The table behind a DbSet that only a package's context declares.

`DbContext.Clients` on an IdentityServer4 `ConfigurationDbContext`, `_db.RoleClaims` on an ASP.NET
Identity `IdentityDbContext<...>`: the context's base (or the interface it is constrained to)
comes from a package, so no property of the repository says which entity `Clients` holds. EF Core
tells the table anyway: "by convention, each entity type will be set up to map to a database table
with the same name as the DbSet property that exposes the entity"
(https://learn.microsoft.com/ef/core/modeling/entity-types#table-name), and ASP.NET Core Identity's
`IdentityDbContext` maps its sets to the `AspNet...` tables unless the model renames them
(https://learn.microsoft.com/aspnet/core/security/authentication/customize-identity-model#default-model-configuration).
So a member no repository type declares, reached on a receiver whose type is a DbContext (its name
or a base's ends in `DbContext`, or the indexer marked it `ef_role="dbcontext"`), is the one table
of the repository named like the member (any schema), else Identity's default table for it: a
guess (`data_access` marks the edge `via="dbset_name"`).
"""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.call_resolution import ancestors, receiver_types
from ragstream.index.symbols import SymbolTable

# ASP.NET Core Identity's sets and the tables its model maps them to by default.
IDENTITY_TABLES = {
    "Users": "AspNetUsers", "Roles": "AspNetRoles", "UserRoles": "AspNetUserRoles",
    "UserClaims": "AspNetUserClaims", "UserLogins": "AspNetUserLogins", "RoleClaims": "AspNetRoleClaims",
    "UserTokens": "AspNetUserTokens", "UserPasskeys": "AspNetUserPasskeys",
}


def on_context(graph: nx.MultiDiGraph, symbols: SymbolTable, member: dict) -> bool:
    """A member (`{"receiver": ..., "member": "Clients"}`) that may be a package context's DbSet:
    capitalised, on a receiver whose type is or derives from an EF DbContext (or a package's
    context interface, `IConfigurationDbContext`). The caller has found no repository property."""
    if not member.get("member", "")[:1].isupper():
        return False
    guesses = receiver_types(graph, symbols, member["receiver"])
    found = [node.id for node in (symbols.find("csharp", g, ("TYPE",)) for g in guesses) if node]
    if not found:  # a package's context only (`where TContext : IdentityDbContext<TUser>`)
        return any(g.rsplit(".", 1)[-1].endswith("DbContext") for g in guesses)
    family = {found[0], *ancestors(graph, found[0])}
    return any((graph.nodes[t].get("attrs") or {}).get("ef_role") == "dbcontext"
               or graph.nodes[t].get("name", "").rsplit(".", 1)[-1].endswith("DbContext") for t in family)


def tables_by_short_name(graph: nx.MultiDiGraph) -> dict[str, list[str]]:
    """Lower-cased table name without its schema -> the TABLE nodes so named."""
    found: dict[str, list[str]] = {}
    for node, data in graph.nodes(data=True):
        if data.get("kind") == "TABLE":
            found.setdefault(data.get("name", "").rsplit(".", 1)[-1].lower(), []).append(node)
    return found


def dbset_tables(tables: dict[str, list[str]], member: str) -> list[str]:
    """The one table named like the member, else Identity's default table for it; [] when none
    or several (under different schemas) are."""
    for name in (member, IDENTITY_TABLES.get(member)):
        named = sorted(tables.get(name.lower(), [])) if name else []
        if len(named) == 1:
            return named
    return []
