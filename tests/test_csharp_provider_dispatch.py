"""The provider model: a call on an abstract base with several overrides (`dispatch`: each a guess
naming its candidates, one override a firm edge) and a call through a package's static facade to
the repository's overrides of the provider base it fronts (`facades`); each with the edge it must
not make (an unrelated subclass's override, an overload with other parameters, a facade whose name
does not front the base)."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

PROVIDERS = """
namespace Blog.Providers;
public abstract class BlogProvider
{
    public abstract void InsertPost(Post post);
    public abstract void InsertPost(Post post, bool draft);
    public abstract void DeletePost(Post post);
}
public class DbBlogProvider : BlogProvider
{
    public override void InsertPost(Post post) { }
    public override void InsertPost(Post post, bool draft) { }
    public override void DeletePost(Post post) { }
}
public class XmlBlogProvider : BlogProvider
{
    public override void InsertPost(Post post) { }
    public override void InsertPost(Post post, bool draft) { }
}
public abstract class FeedProvider
{
    public abstract void InsertPost(Post post);
}
public class RssFeedProvider : FeedProvider
{
    public override void InsertPost(Post post) { }
}
public class Post { }
public static class BlogService
{
    private static BlogProvider Provider { get; set; }
    public static void InsertPost(Post post) { Provider.InsertPost(post); }
    public static void DeletePost(Post post) { Provider.DeletePost(post); }
}
"""

MEMBERSHIP = """
using System.Web.Security;
namespace Blog.Providers;
public class DbMembershipProvider : MembershipProvider
{
    public override bool ValidateUser(string username, string password) { return true; }
    public override bool ValidateUser(string username) { return true; }
    public bool UnlockUser(string username, string password) { return true; }
}
public class DbRoleProvider : RoleProvider
{
    public override string[] GetRolesForUser(string username) { return new string[0]; }
    public override bool ValidateUser(string username, string password) { return true; }
}
public class CachedProfileProvider : ProfileProvider
{
    public override bool ValidateUser(string username, string password) { return true; }
}
"""

SECURITY = """
using System.Web;
using System.Web.Security;
namespace Blog;
public static class Security
{
    public static bool AuthenticateUser(string username, string password)
    {
        return Membership.ValidateUser(username, password) && Membership.UnlockUser(username, password);
    }
    public static string[] CurrentRoles() { return Roles.GetRolesForUser(); }
    public static void Forget(string key) { Cache.ValidateUser(key, key); }
}
"""


def _calls(graph: nx.MultiDiGraph, source: str) -> dict[str, dict]:
    return {target: data for _, target, key, data in graph.out_edges(source, keys=True, data=True) if key == "CALLS"}


def _graph(*sources: tuple[str, str]) -> nx.MultiDiGraph:
    return build_graph([parse_csharp(path, text) for path, text in sources])[0]


DB_INSERT = "cs:Blog.Providers.DbBlogProvider.InsertPost(Post)|METHOD"
XML_INSERT = "cs:Blog.Providers.XmlBlogProvider.InsertPost(Post)|METHOD"


def test_an_abstract_member_with_several_overrides_links_each_as_a_guess_naming_them_all() -> None:
    calls = _calls(_graph(("Providers.cs", PROVIDERS)), "cs:Blog.Providers.BlogService.InsertPost|METHOD")
    for override in (DB_INSERT, XML_INSERT):
        assert calls[override]["resolution"] == "dispatch" and calls[override]["guess"] is True
        assert calls[override]["candidates"] == [DB_INSERT, XML_INSERT]
    # an unrelated base's override of the same name, and the overload taking other parameters
    assert "cs:Blog.Providers.RssFeedProvider.InsertPost|METHOD" not in calls
    assert "cs:Blog.Providers.DbBlogProvider.InsertPost(Post,bool)|METHOD" not in calls
    assert "cs:Blog.Providers.XmlBlogProvider.InsertPost(Post,bool)|METHOD" not in calls


def test_an_abstract_member_with_one_override_is_a_firm_edge() -> None:
    calls = _calls(_graph(("Providers.cs", PROVIDERS)), "cs:Blog.Providers.BlogService.DeletePost|METHOD")
    edge = calls["cs:Blog.Providers.DbBlogProvider.DeletePost|METHOD"]
    assert edge["resolution"] == "dispatch" and "guess" not in edge and "candidates" not in edge


AUTHENTICATE = "cs:Blog.Security.AuthenticateUser|METHOD"


def test_a_package_facade_reaches_the_override_of_the_provider_base_it_fronts() -> None:
    graph = _graph(("Membership.cs", MEMBERSHIP), ("Security.cs", SECURITY))
    calls = _calls(graph, AUTHENTICATE)
    validate = "cs:Blog.Providers.DbMembershipProvider.ValidateUser(string,string)|METHOD"
    assert calls[validate] == {"type": "CALLS", "line": 9, "resolution": "inferred", "via": "facade", "guess": True,
                               "facade": "Membership", "base": "MembershipProvider", "candidates": [validate]}
    # not the overload with other parameters, not a method that overrides nothing, not the
    # overrides of a base the facade does not front (`RoleProvider`, `ProfileProvider`)
    assert "cs:Blog.Providers.DbMembershipProvider.ValidateUser(string)|METHOD" not in calls
    assert "cs:Blog.Providers.DbMembershipProvider.UnlockUser|METHOD" not in calls
    assert "cs:Blog.Providers.DbRoleProvider.ValidateUser|METHOD" not in calls
    assert "cs:Blog.Providers.CachedProfileProvider.ValidateUser|METHOD" not in calls


def test_a_plural_facade_whose_overload_fills_the_arguments_reaches_every_override() -> None:
    calls = _calls(_graph(("Membership.cs", MEMBERSHIP), ("Security.cs", SECURITY)), "cs:Blog.Security.CurrentRoles|METHOD")
    assert calls["cs:Blog.Providers.DbRoleProvider.GetRolesForUser|METHOD"]["base"] == "RoleProvider"


def test_a_package_type_whose_name_fronts_no_base_links_nothing() -> None:
    calls = _calls(_graph(("Membership.cs", MEMBERSHIP), ("Security.cs", SECURITY)), "cs:Blog.Security.Forget|METHOD")
    assert not any(data.get("via") == "facade" for data in calls.values())


WRITER = """
using System.IO;
namespace Shop.Logging;
public class AuditWriter : StreamWriter
{
    public AuditWriter(Stream s) : base(s) { }
    public override void Write(string value) { }
}
"""

EXPORTER = """
using System.IO;
namespace Shop.Export;
public class Exporter
{
    public void Export(byte[] bytes) { Stream.Write(bytes, 0, bytes.Length); }
    public void Copy(Stream output, string text) { output.Write(text); }
    public void Log(string text) { Stream.Write(text); }
}
"""


def test_an_instance_call_or_one_passing_more_arguments_than_the_override_takes_links_no_facade() -> None:
    graph = _graph(("Writer.cs", WRITER), ("Exporter.cs", EXPORTER))
    write = "cs:Shop.Logging.AuditWriter.Write|METHOD"
    assert _calls(graph, "cs:Shop.Export.Exporter.Log|METHOD")[write]["via"] == "facade"  # a static call that fits
    # `output` is a stream: its own `Write` runs, whatever the facade pairing says
    assert write not in _calls(graph, "cs:Shop.Export.Exporter.Copy|METHOD")
    # three arguments: not what a `Write(string)` override takes, nor one the facade could fill
    assert write not in _calls(graph, "cs:Shop.Export.Exporter.Export|METHOD")


def test_a_facade_and_a_base_guessed_only_in_the_files_own_namespace_link_nothing() -> None:
    reports = """
namespace Shop.Web;
public class CustomReport : ReportViewer { public override void Refresh() { } }
"""
    home = """
namespace Shop.Web;
public class Home { public void Go() { Report.Refresh(); } }
"""
    calls = _calls(_graph(("Reports.cs", reports), ("Home.cs", home)), "cs:Shop.Web.Home.Go|METHOD")
    assert "cs:Shop.Web.CustomReport.Refresh|METHOD" not in calls
    # the same pair through a using both files share is linked
    imported = _graph(("Reports.cs", "using Acme.Reporting;\n" + reports), ("Home.cs", "using Acme.Reporting;\n" + home))
    assert _calls(imported, "cs:Shop.Web.Home.Go|METHOD")["cs:Shop.Web.CustomReport.Refresh|METHOD"]["via"] == "facade"


STORES = """
namespace Shop.Data;
public interface IStore { void Save(Order order); void Load(Order order); }
public class SqlStore : IStore { public void Save(Order order) { } public void Load(Order order) { } }
public class FileStore : IStore { public void Save(Order order) { } }
public class Cache { public virtual void Put(Order order) { } }
public class RedisCache : Cache { public override void Put(Order order) { } }
public class Order { }
public class OrderService
{
    private IStore _store;
    private Cache _cache;
    public void Place(Order order) { _store.Save(order); _store.Load(order); _cache.Put(order); }
}
"""


def test_an_interface_member_with_several_implementations_or_a_virtual_body_with_an_override_is_a_guess() -> None:
    calls = _calls(_graph(("Stores.cs", STORES)), "cs:Shop.Data.OrderService.Place|METHOD")
    saves = ["cs:Shop.Data.FileStore.Save|METHOD", "cs:Shop.Data.SqlStore.Save|METHOD"]
    for save in saves:
        assert calls[save]["guess"] is True and calls[save]["candidates"] == saves
    # one implementation: firm; a virtual member's own body may run beside its one override: a guess
    assert "guess" not in calls["cs:Shop.Data.SqlStore.Load|METHOD"]
    assert calls["cs:Shop.Data.RedisCache.Put|METHOD"]["guess"] is True


def test_a_call_with_many_implementations_names_the_first_eight_and_counts_them_all() -> None:
    many = "\n".join(f"public class Store{i} : IStore {{ public void Save(Order o) {{ }} public void Load(Order o) {{ }} }}"
                     for i in range(12))
    calls = _calls(_graph(("Stores.cs", STORES), ("Many.cs", "namespace Shop.Data;\n" + many)),
                   "cs:Shop.Data.OrderService.Place|METHOD")
    edge = calls["cs:Shop.Data.Store0.Save|METHOD"]
    assert len(edge["candidates"]) == 8 and edge["candidate_count"] == 14
