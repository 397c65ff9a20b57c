"""The tables an ASP.NET Core Identity manager call reads and writes.

`UserManager<TUser>`, `RoleManager<TRole>` and `SignInManager<TUser>` persist through Identity's
stores (`UserStore`, `RoleStore`): each public method runs the store operations its name says and,
for a change, `UpdateUserAsync` (the user's row: its concurrency and security stamps). So
`AddToRoleAsync(user, role)` writes the user-role link table and the users table and reads the
roles table, `AddClaimAsync` writes the user-claims table, `FindByEmailAsync` reads the users table
— never the collections the application's user type holds (`AppUser.Bookmarks`), which the
stores do not load or save (https://learn.microsoft.com/aspnet/core/security/authentication/identity-custom-storage-providers,
and `UserManager<TUser>`'s source). A method `IDENTITY_VERBS` does not list reads the manager's own
table when its name asks (`Find*`, `Get*`, `Is*`, `Check*`, ...), writes it when its name changes
(`Set*`, `Update*`, ...), and touches nothing otherwise (a sign-in manager's other methods: cookies).

Each store part is a table: the manager's own (`Users` for a user manager, `Roles` for a role
manager) is its type argument's table; another is the table of the repository's type deriving
from Identity's class for it (`AppUserRole : IdentityUserRole<int>`; with no mapping, the one table
named after it, `Core_UserRole`, a guess), else the repository's table named like Identity's set or
its default table (`UserRoles`, `AspNetUserRoles`; `package_dbsets`, a guess).
"""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.package_dbsets import dbset_tables, tables_by_short_name

# The managers and the store part their type argument is.
MANAGERS = {"UserManager": "Users", "SignInManager": "Users", "RoleManager": "Roles"}

_R, _W = "READS", "WRITES"
_USER_CHANGE = ((_W, "Users"),)

# (manager, method without `Async`) -> the (edge, store part) each call makes; the one table of verbs.
IDENTITY_VERBS: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {
    **{("UserManager", m): ((_W, "UserRoles"), (_R, "Roles"), *_USER_CHANGE)
       for m in ("AddToRole", "AddToRoles", "RemoveFromRole", "RemoveFromRoles")},
    **{("UserManager", m): ((_W, "UserClaims"), *_USER_CHANGE)
       for m in ("AddClaim", "AddClaims", "ReplaceClaim", "RemoveClaim", "RemoveClaims")},
    **{("UserManager", m): ((_W, "UserLogins"), *_USER_CHANGE) for m in ("AddLogin", "RemoveLogin")},
    **{("UserManager", m): ((_W, "UserTokens"), *_USER_CHANGE)
       for m in ("SetAuthenticationToken", "RemoveAuthenticationToken", "ResetAuthenticatorKey",
                 "GenerateNewTwoFactorRecoveryCodes", "RedeemTwoFactorRecoveryCode")},
    **{("UserManager", m): ((_W, "UserPasskeys"), *_USER_CHANGE) for m in ("AddOrUpdatePasskey", "RemovePasskey")},
    **{("UserManager", m): ((_R, "UserPasskeys"),) for m in ("GetPasskeys", "GetPasskey")},
    ("UserManager", "FindByPasskeyId"): ((_R, "Users"), (_R, "UserPasskeys")),
    # tokens the default providers derive from the user's stamp in memory: no table
    **{("UserManager", m): () for m in ("GenerateEmailConfirmationToken", "GeneratePasswordResetToken",
                                        "GenerateTwoFactorToken", "GenerateUserToken", "GenerateChangeEmailToken",
                                        "GenerateChangePhoneNumberToken", "VerifyUserToken", "VerifyTwoFactorToken")},
    ("UserManager", "GetRoles"): ((_R, "UserRoles"), (_R, "Roles")),
    ("UserManager", "IsInRole"): ((_R, "UserRoles"), (_R, "Roles")),
    ("UserManager", "GetUsersInRole"): ((_R, "Users"), (_R, "UserRoles"), (_R, "Roles")),
    ("UserManager", "GetClaims"): ((_R, "UserClaims"),),
    ("UserManager", "GetUsersForClaim"): ((_R, "Users"), (_R, "UserClaims")),
    ("UserManager", "GetLogins"): ((_R, "UserLogins"),),
    ("UserManager", "FindByLogin"): ((_R, "Users"), (_R, "UserLogins")),
    ("UserManager", "GetAuthenticationToken"): ((_R, "UserTokens"),),
    ("UserManager", "GetAuthenticatorKey"): ((_R, "UserTokens"),),
    ("UserManager", "CountRecoveryCodes"): ((_R, "UserTokens"),),
    # a sign-in reads the user; a password check counts failures and lockout on the user's row
    **{("SignInManager", m): ((_R, "Users"), *_USER_CHANGE)
       for m in ("PasswordSignIn", "CheckPasswordSignIn", "TwoFactorSignIn", "TwoFactorAuthenticatorSignIn",
                 "TwoFactorRecoveryCodeSignIn")},
    ("SignInManager", "ExternalLoginSignIn"): ((_R, "Users"), (_R, "UserLogins")),
    ("SignInManager", "UpdateExternalAuthenticationTokens"): ((_W, "UserTokens"), *_USER_CHANGE),
    **{("SignInManager", m): ((_R, "Users"),) for m in ("SignIn", "RefreshSignIn", "SignInWithClaims", "ValidateSecurityStamp")},
    ("SignInManager", "GetTwoFactorAuthenticationUser"): ((_R, "Users"),),
    **{("RoleManager", m): ((_W, "RoleClaims"), (_W, "Roles")) for m in ("AddClaim", "RemoveClaim")},
    ("RoleManager", "GetClaims"): ((_R, "RoleClaims"),),
}
# The name says a read or a change of the manager's own row (methods the table does not list).
_READ_PREFIXES = ("Find", "Get", "Is", "Check", "Has", "Verify", "RoleExists", "Count")
_WRITE_PREFIXES = ("Create", "Update", "Delete", "Set", "Add", "Remove", "Change", "Reset", "Confirm",
                   "AccessFailed", "Replace")

# Identity's entity classes, by store part: a repository type deriving from one stands for that part.
IDENTITY_BASES = {"Users": "IdentityUser", "Roles": "IdentityRole", "UserRoles": "IdentityUserRole",
                  "UserClaims": "IdentityUserClaim", "UserLogins": "IdentityUserLogin",
                  "UserTokens": "IdentityUserToken", "RoleClaims": "IdentityRoleClaim",
                  "UserPasskeys": "IdentityUserPasskey"}


def identity_accesses(manager: str, member: str) -> tuple[tuple[str, str], ...]:
    """(edge type, store part) of each table access a call of `manager.member` makes; () for none."""
    name = member.removesuffix("Async")
    listed = IDENTITY_VERBS.get((manager, name))
    if listed is not None:
        return listed
    own = MANAGERS[manager]
    if manager == "SignInManager":  # the rest of a sign-in is cookies and schemes: no table
        return ()
    if name.startswith(_READ_PREFIXES):
        return ((_R, own),)
    return ((_W, own),) if name.startswith(_WRITE_PREFIXES) else ()


class IdentityTables:
    """Store part -> tables, for one graph: the manager's type argument for its own part, else the
    repository's types deriving from Identity's class for the part (their mapped tables, else the
    one table named after them, `by_name`, a guess), else the table named like Identity's set."""

    def __init__(self, graph: nx.MultiDiGraph, by_name: dict[str, list[str]]):
        self.graph = graph
        self.by_name = by_name  # lower-case entity name -> the one table named after it
        self._derived: dict[str, list[str]] | None = None
        self._names: dict[str, list[str]] | None = None

    def tables(self, part: str, own_part: str, entity_tables: list[str]) -> tuple[list[str], bool]:
        """The part's tables, and whether they were found by name only (a guess)."""
        if part == own_part and entity_tables:
            return entity_tables, False
        if self._derived is None:
            self._derived = _derived_types(self.graph)
            self._names = tables_by_short_name(self.graph)
        derived = self._derived.get(part, [])
        mapped = sorted({t for d in derived for t in _mapped_tables(self.graph, d)})
        if mapped:
            return mapped, False
        named = sorted({t for d in derived for t in self.by_name.get(_short(self.graph, d), [])})
        return named or dbset_tables(self._names or {}, part), True


def _derived_types(graph: nx.MultiDiGraph) -> dict[str, list[str]]:
    """Store part -> the repository's types deriving from Identity's class for it
    (`AppUserRole : IdentityUserRole<int>`)."""
    part_of = {base: part for part, base in IDENTITY_BASES.items()}
    found: dict[str, list[str]] = {}
    for node, data in graph.nodes(data=True):
        if data.get("kind") != "TYPE":
            continue
        bases = [b.get("name", "") for b in (data.get("attrs") or {}).get("generic_bases") or []]
        bases += [graph.nodes[t].get("name", "") for _, t, key in graph.out_edges(node, keys=True) if key == "INHERITS"]
        for part in {part_of[short] for b in bases if (short := b.rsplit(".", 1)[-1]) in part_of}:
            found.setdefault(part, []).append(node)
    return found


def _mapped_tables(graph: nx.MultiDiGraph, entity: str) -> list[str]:
    return [t for _, t, key in graph.out_edges(entity, keys=True)
            if key == "MAPS_TO" and graph.nodes[t].get("kind") in ("TABLE", "VIEW")]


def _short(graph: nx.MultiDiGraph, node: str) -> str:
    return graph.nodes[node].get("name", "").rsplit(".", 1)[-1].lower()
