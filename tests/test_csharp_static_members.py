"""Calls through a type's static members used as service locators or singletons, each typed as
declared (`call_resolution._type_of_chain`, `member_fields.accessed_member_type`): a static field
(`RepoFactory.Users.Save(u)`), a static readonly singleton field (`Settings.Instance.Load()`), a
property then a field (`Config.Current.Store.Open()`), a field declared on the holder's generic
base and bound by its base list, a public field of a typed value (`holder.Users.Save(u)`), the
null-forgiving `!` and `?.` on the way, and a call inside a lambda a constructor assigns. And
the edges they must not make: no sibling override as the call's target, no member of an unknown
name, no holder type the repository lacks, and no interface family guess for a field typed by a
library's type."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

REPOSITORIES = '''namespace App.Repos {
public class BaseRepo<T> { public virtual void Save(T item) { } public T GetByID(int id) => default; }
public class UserRepo : BaseRepo<User> { public User Authenticate(string name) => null; }
public class OrderRepo : BaseRepo<Order> { public override void Save(Order item) { } }
public class User { } public class Order { }
public interface ILog { void Write(string m); }
public class FileLog : ILog { public void Write(string m) { } }
public class Store { public void Open() { } }
public class Holder<TRepo> { public static TRepo Shared; }
}'''

LOCATORS = '''using App.Repos; using NLog;
namespace App {
public static class RepoFactory {
    public static UserRepo Users = null!;
    public static OrderRepo Orders = null!;
    public static Logger Log;
}
public class Settings {
    public static readonly Settings Instance = new Settings();
    public Store Store = new Store();
    public void Load() { }
}
public class Config { public static Settings Current { get; } }
public class Locator : Holder<UserRepo> { }
public class UserHolder { public UserRepo Users; }
}'''

CALLERS = '''using App.Repos;
namespace App.Web {
public class AccountController {
    public void Create(User u) { RepoFactory.Users.Save(u); }
    public void SignIn(string n) { App.RepoFactory.Users.Authenticate(n); }
    public void Boot() { Settings.Instance.Load(); Config.Current.Store.Open(); }
    public void Shared(string n) { Locator.Shared.Authenticate(n); }
    public void Held(UserHolder holder, User u) { holder.Users.Save(u); }
    public void Forgiven(User u, UserRepo repo) { RepoFactory.Users!.Save(u); repo!.Authenticate("x"); }
    public void Conditional(string n) { RepoFactory.Users?.Authenticate(n); }
    public void Unknown(User u) { RepoFactory.Nothing.Save(u); Missing.Users.Save(u); }
    public void Logs() { RepoFactory.Log.Write("x"); }
}
public class CustomTagRepository {
    public System.Action<Order> Callback;
    public CustomTagRepository() { Callback = o => RepoFactory.Orders.Save(o); }
}
}'''


def _graph() -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in
             (("Repos.cs", REPOSITORIES), ("Locators.cs", LOCATORS), ("Callers.cs", CALLERS))]
    return build_graph(files)[0]


GRAPH = _graph()


def _calls(method: str) -> dict[str, dict]:
    """CALLS targets of a caller -> the edge's attributes, dispatch guesses left out."""
    return {target: data for _, target, data in GRAPH.out_edges(f"cs:App.Web.{method}|METHOD", data=True)
            if data["type"] == "CALLS" and data.get("resolution") != "dispatch"}


def test_a_static_field_types_the_call_as_declared() -> None:
    found = _calls("AccountController.Create")
    assert set(found) == {"cs:App.Repos.BaseRepo.Save|METHOD"}
    # the base's member, called on the field's own type: what binds the base's type parameter
    assert found["cs:App.Repos.BaseRepo.Save|METHOD"]["receiver_type"] == "cs:App.Repos.UserRepo|TYPE"
    assert set(_calls("AccountController.SignIn")) == {"cs:App.Repos.UserRepo.Authenticate|METHOD"}


def test_a_sibling_subclass_override_is_not_the_static_fields_target() -> None:
    assert "cs:App.Repos.OrderRepo.Save|METHOD" not in _calls("AccountController.Create")


def test_a_static_readonly_singleton_and_a_property_then_field_chain() -> None:
    assert set(_calls("AccountController.Boot")) == {"cs:App.Settings.Load|METHOD", "cs:App.Repos.Store.Open|METHOD"}


def test_a_static_field_of_a_generic_base_is_bound_by_the_base_list() -> None:
    assert set(_calls("AccountController.Shared")) == {"cs:App.Repos.UserRepo.Authenticate|METHOD"}


def test_a_public_field_of_a_typed_value() -> None:
    assert set(_calls("AccountController.Held")) == {"cs:App.Repos.BaseRepo.Save|METHOD"}


def test_null_forgiving_and_conditional_access_keep_the_receivers_type() -> None:
    assert set(_calls("AccountController.Forgiven")) == {"cs:App.Repos.BaseRepo.Save|METHOD",
                                                         "cs:App.Repos.UserRepo.Authenticate|METHOD"}
    assert set(_calls("AccountController.Conditional")) == {"cs:App.Repos.UserRepo.Authenticate|METHOD"}


def test_a_call_in_a_lambda_a_constructor_assigns() -> None:
    found = _calls("CustomTagRepository.CustomTagRepository")
    assert "cs:App.Repos.OrderRepo.Save|METHOD" in found


def test_no_edge_for_an_unknown_member_or_holder_nor_by_name() -> None:
    assert _calls("AccountController.Unknown") == {}


def test_a_static_field_of_a_library_type_is_no_interface_family_guess() -> None:
    assert "cs:App.Repos.ILog.Write|METHOD" not in _calls("AccountController.Logs")
    assert "cs:App.Repos.FileLog.Write|METHOD" not in _calls("AccountController.Logs")


QUALIFIED = {
    "DbUtil.cs": "namespace btnet { public class DbUtil { public static int execute_nonquery(string sql) => 0; "
                 "public static Settings Config; } public class Settings { public void Load() { } } }",
    "Bug.cs": """namespace btnet { public class Bug {
    public static void delete_bug(int id) { btnet.DbUtil.execute_nonquery("delete from bugs"); }
    public static void load() { btnet.DbUtil.Config.Load(); } } }
namespace Other.Web { public class Page1 {
    public void Go() { btnet.Bug.delete_bug(1); }
    public void Unknown() { nowhere.Thing.run(); } } }""",
}


def test_a_type_named_with_its_namespace_is_the_calls_receiver() -> None:
    """`btnet.DbUtil.execute_nonquery(sql)` and `btnet.Bug.delete_bug(1)` from another namespace: the
    parser can only read `btnet` as a name the file does not declare; the resolver reads the written
    path as a type's qualified name (then its static members, `btnet.DbUtil.Config.Load()`); a path
    naming no type links nothing."""
    graph = build_graph([parse_csharp(path, text) for path, text in QUALIFIED.items()])[0]

    def called(method: str) -> set[str]:
        return {t for _, t, k in graph.out_edges(method, keys=True) if k == "CALLS"}
    assert "cs:btnet.DbUtil.execute_nonquery|METHOD" in called("cs:btnet.Bug.delete_bug|METHOD")
    assert "cs:btnet.Settings.Load|METHOD" in called("cs:btnet.Bug.load|METHOD")
    assert called("cs:Other.Web.Page1.Go|METHOD") == {"cs:btnet.Bug.delete_bug|METHOD"}
    assert called("cs:Other.Web.Page1.Unknown|METHOD") == set()
