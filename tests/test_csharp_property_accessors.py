"""Property accessors are methods (C# spec, "Accessors"): the calls a get accessor makes are the
PROPERTY's (`methods.accessor_bodies`), and reading a property whose getter has code calls it
(`property_reads`). Each form with the edge it must make and the one it must not (an
auto-property, a same-named property of another type, an assignment, `nameof`)."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

REPOSITORY = """
namespace Cms.Repositories;
public class ParamRepository
{
    public string GetByKey(string key) { return key; }
    public void Save(string key, string value) { }
}
"""

CONFIG = """
using Cms.Repositories;
namespace Cms;
public class Config
{
    private readonly ParamRepository _repo;
    public Config(ParamRepository repo) { _repo = repo; }
    public int PageRevisions { get => GetParam("PageRevisions"); set => SetParam("PageRevisions", value); }
    public int PostRevisions { get { return GetParam("PostRevisions"); } }
    public string Title => _repo.GetByKey("Title");
    public int Twice => PageRevisions * 2;
    public string Name { get; set; }
    public string Created { get; } = Stamp();
    public int GetParam(string key) { return int.Parse(_repo.GetByKey(key)); }
    public void SetParam(string key, int value) { _repo.Save(key, value.ToString()); }
    public static string Stamp() { return ""; }
    public int Limit() { return PageRevisions + 1; }
}
public class Other
{
    public int PageRevisions => Compute();
    public int Compute() { return 1; }
}
"""

SERVICE = """
using Cms.Repositories;
namespace Cms.Services;
public abstract class ServiceBase
{
    protected Config Current => new Config(null);
    protected string Label => Format();
    private string Format() { return ""; }
}
public class PageService : ServiceBase
{
    private readonly ParamRepository _repo;
    public void Save()
    {
        using (var config = new Config(_repo)) { Keep(config.PageRevisions); }
    }
    public string Named(Config config) { return config.Name + nameof(config.Title); }
    public void Assign(Config config) { config.PageRevisions = 5; }
    public string Labelled() { return Label; }
    public int Twice(Config config) { return config.Twice; }
    private void Keep(int count) { }
}
"""


def graph() -> nx.MultiDiGraph:
    files = {"src/ParamRepository.cs": REPOSITORY, "src/Config.cs": CONFIG, "src/PageService.cs": SERVICE}
    return build_graph([parse_csharp(path, text) for path, text in files.items()])[0]


def calls(graph: nx.MultiDiGraph, source: str) -> dict[str, dict]:
    return {target: data for _, target, key, data in graph.out_edges(source, keys=True, data=True) if key == "CALLS"}


def test_getter_calls_are_the_propertys_in_every_form():
    built = graph()
    assert calls(built, "cs:Cms.Config.PageRevisions|PROPERTY")["cs:Cms.Config.GetParam|METHOD"]["accessor"] == "get"
    assert calls(built, "cs:Cms.Config.PageRevisions|PROPERTY")["cs:Cms.Config.SetParam|METHOD"]["accessor"] == "set"
    assert "cs:Cms.Config.GetParam|METHOD" in calls(built, "cs:Cms.Config.PostRevisions|PROPERTY")  # get { return }
    title = calls(built, "cs:Cms.Config.Title|PROPERTY")  # expression-bodied
    assert title["cs:Cms.Repositories.ParamRepository.GetByKey|METHOD"]["accessor"] == "get"


def test_an_initializer_and_an_auto_property_have_no_getter_calls():
    built = graph()
    assert not calls(built, "cs:Cms.Config.Created|PROPERTY")  # `{ get; } = Stamp();` runs once, on construction
    assert not calls(built, "cs:Cms.Config.Name|PROPERTY")


def test_reading_a_computed_property_calls_it_through_to_the_repository():
    built = graph()
    read = calls(built, "cs:Cms.Services.PageService.Save|METHOD")["cs:Cms.Config.PageRevisions|PROPERTY"]
    assert (read["via"], read["resolution"], read["member"]) == ("property_get", "static", "PageRevisions")
    assert nx.has_path(built, "cs:Cms.Services.PageService.Save|METHOD",
                       "cs:Cms.Repositories.ParamRepository.GetByKey|METHOD")
    # the same name on another type is not the one read
    assert "cs:Cms.Other.PageRevisions|PROPERTY" not in calls(built, "cs:Cms.Services.PageService.Save|METHOD")
    # a bare name in the declaring type reads it too
    assert calls(built, "cs:Cms.Config.Limit|METHOD")["cs:Cms.Config.PageRevisions|PROPERTY"]["via"] == "property_get"


def test_a_getter_reading_another_computed_property_is_computed():
    built = graph()
    twice = calls(built, "cs:Cms.Config.Twice|PROPERTY")["cs:Cms.Config.PageRevisions|PROPERTY"]
    assert (twice["via"], twice["accessor"]) == ("property_get", "get")
    assert "cs:Cms.Config.Twice|PROPERTY" in calls(built, "cs:Cms.Services.PageService.Twice|METHOD")


def test_a_base_classs_computed_property_read_by_a_subclass():
    built = graph()
    assert calls(built, "cs:Cms.Services.PageService.Labelled|METHOD")[
        "cs:Cms.Services.ServiceBase.Label|PROPERTY"]["via"] == "property_get"


def test_no_edge_for_an_auto_property_an_assignment_or_nameof():
    built = graph()
    named = calls(built, "cs:Cms.Services.PageService.Named|METHOD")
    assert "cs:Cms.Config.Name|PROPERTY" not in named  # auto-property: runs nothing
    assert "cs:Cms.Config.Title|PROPERTY" not in named  # nameof(config.Title) reads nothing
    assigned = calls(built, "cs:Cms.Services.PageService.Assign|METHOD")
    assert not any(data.get("via") == "property_get" for data in assigned.values())  # a set, not a get
