"""FluentNHibernate automapping (`index/csharp/nh_automapping`, `ef`'s automapping overrides): the
classes a configuration's `ShouldMap` or an `AutoMap` chain accepts map to tables of their names,
overrides name other tables, discriminated subclasses share their base's table; and what must not
map: an ignored layer supertype, an abstract class not included, a class outside the root, a
configuration whose namespace names nothing of the repository."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

ENTITIES = """
namespace Cms.Entities;
public abstract class SystemEntity { public virtual int Id { get; set; } }
public abstract class SiteEntity : SystemEntity { public virtual int SiteId { get; set; } }
public class FormPosting : SiteEntity { public virtual string Data { get; set; } }
public class LoginAttempt : SystemEntity { public virtual string Email { get; set; } }
public class LegacyMessageTemplate : SiteEntity { public virtual string Body { get; set; } }
public abstract class Webpage : SiteEntity { public virtual string Url { get; set; } }
public class TextPage : Webpage { public virtual string Text { get; set; } }
public abstract class Draft : SiteEntity { }
public class PageModel { public string Url { get; set; } }
public static class EntityHelpers { }
"""

CONFIGURATION = """
using System;
using FluentNHibernate.Automapping;
using Cms.Entities;
namespace Cms.Db;
public class CmsMappingConfiguration : DefaultAutomappingConfiguration
{
    public override bool ShouldMap(Type type) => type.IsSubclassOf(typeof(SystemEntity)) && base.ShouldMap(type);
    public override bool ShouldMap(FluentNHibernate.Member member) => member.CanWrite;
    public override bool IsDiscriminated(Type type) => ShouldMap(type) && ShouldMap(type.BaseType);
}
public class Configurator
{
    public AutoPersistenceModel Model(Assembly[] assemblies) =>
        AutoMap.Assemblies(new CmsMappingConfiguration(), assemblies)
            .IgnoreBase<SystemEntity>()
            .IgnoreBase<SiteEntity>()
            .IncludeBase<Webpage>();
}
"""

OVERRIDE = """
using FluentNHibernate.Automapping;
using FluentNHibernate.Automapping.Alterations;
using Cms.Entities;
namespace Cms.Db.Overrides;
public class LegacyMessageTemplateOverride : IAutoMappingOverride<LegacyMessageTemplate>
{
    public void Override(AutoMapping<LegacyMessageTemplate> mapping)
    {
        mapping.Table("MessageTemplate");
        mapping.Map(x => x.Body).Length(4000);
    }
}
public class WebpageOverride : IAutoMappingOverride<Webpage>
{
    public void Override(AutoMapping<Webpage> mapping)
    {
        mapping.DiscriminateSubClassesOnColumn("WebpageType");
        mapping.HasManyToMany(webpage => webpage.Tags).Table("WebpageTags");
    }
}
"""

SERVICE = """
using NHibernate;
using Cms.Entities;
namespace Cms.Services;
public class LoginLog
{
    private readonly ISession _session;
    public LoginLog(ISession session) { _session = session; }
    public void Failed(string email) => _session.Save(new LoginAttempt { Email = email });
    public FormPosting Posting(int id) => _session.Get<FormPosting>(id);
}
"""


def build(files: dict[str, str]) -> nx.MultiDiGraph:
    graph, _ = build_graph([parse_csharp(path, text) for path, text in files.items()])
    return graph


def tables(graph: nx.MultiDiGraph, entity: str) -> dict[str, dict]:
    return {graph.nodes[target]["name"]: data for _, target, data in graph.out_edges(f"cs:Cms.Entities.{entity}|TYPE", data=True)
            if data["type"] == "MAPS_TO"}


def test_automapped_classes_map_to_tables_of_their_names() -> None:
    graph = build({"Entities.cs": ENTITIES, "Db/Configuration.cs": CONFIGURATION, "Db/Overrides.cs": OVERRIDE})
    posting = tables(graph, "FormPosting")
    assert list(posting) == ["dbo.FormPosting"]
    assert posting["dbo.FormPosting"]["via"] == "automapping"
    assert posting["dbo.FormPosting"]["guess"] is True and posting["dbo.FormPosting"]["mapping"] == "by_convention"
    assert posting["dbo.FormPosting"]["mapped_by"] == "cs:Cms.Db.CmsMappingConfiguration|TYPE"
    assert graph.nodes["sql:dbo.FormPosting|TABLE"]["kind"] == "TABLE"
    assert list(tables(graph, "LoginAttempt")) == ["dbo.LoginAttempt"]
    # the included abstract base is a table, and its discriminated subclass shares it
    assert list(tables(graph, "Webpage")) == ["dbo.Webpage"]
    assert list(tables(graph, "TextPage")) == ["dbo.Webpage"]
    assert tables(graph, "TextPage")["dbo.Webpage"]["via"] == "tph"


def test_an_override_names_the_table_and_the_convention_gives_way() -> None:
    graph = build({"Entities.cs": ENTITIES, "Db/Configuration.cs": CONFIGURATION, "Db/Overrides.cs": OVERRIDE})
    mapped = tables(graph, "LegacyMessageTemplate")
    assert list(mapped) == ["dbo.MessageTemplate"]
    assert mapped["dbo.MessageTemplate"]["via"] == "automapping_override"
    assert "guess" not in mapped["dbo.MessageTemplate"]
    override = "cs:Cms.Db.Overrides.LegacyMessageTemplateOverride.Override|METHOD"
    assert graph.has_edge(override, "sql:dbo.MessageTemplate|TABLE", key="REFERENCES")


def test_layer_supertypes_abstract_and_foreign_classes_map_nowhere() -> None:
    graph = build({"Entities.cs": ENTITIES, "Db/Configuration.cs": CONFIGURATION})
    for entity in ("SystemEntity", "SiteEntity", "Draft", "PageModel", "EntityHelpers"):
        assert tables(graph, entity) == {}, entity
    assert "sql:dbo.SystemEntity|TABLE" not in graph and "sql:dbo.PageModel|TABLE" not in graph


def test_without_discrimination_a_subclass_keeps_a_table_of_its_own() -> None:
    joined = CONFIGURATION.replace(
        "    public override bool IsDiscriminated(Type type) => ShouldMap(type) && ShouldMap(type.BaseType);\n", "")
    graph = build({"Entities.cs": ENTITIES, "Db/Configuration.cs": joined})
    assert list(tables(graph, "TextPage")) == ["dbo.TextPage"]
    assert tables(graph, "Webpage")["dbo.Webpage"]["inheritance"] == "tpt"


def test_a_namespace_predicate_on_the_automap_chain_selects_the_entities() -> None:
    chain = """
using FluentNHibernate.Automapping;
using Cms.Entities;
namespace Cms.Db;
public static class Mappings
{
    public static AutoPersistenceModel Model() =>
        AutoMap.AssemblyOf<PageModel>().Where(t => t.Namespace == "Cms.Entities");
}
"""
    graph = build({"Entities.cs": ENTITIES, "Db/Mappings.cs": chain})
    assert list(tables(graph, "PageModel")) == ["dbo.PageModel"]
    assert tables(graph, "SystemEntity") == {} and tables(graph, "EntityHelpers") == {}
    elsewhere = chain.replace('"Cms.Entities"', '"Other.Entities"')
    assert tables(build({"Entities.cs": ENTITIES, "Db/Mappings.cs": elsewhere}), "PageModel") == {}


def test_session_calls_reach_the_automapped_tables() -> None:
    graph = build({"Entities.cs": ENTITIES, "Db/Configuration.cs": CONFIGURATION, "Services/LoginLog.cs": SERVICE})
    writes = {t for _, t, d in graph.out_edges("cs:Cms.Services.LoginLog.Failed|METHOD", data=True) if d["type"] == "WRITES"}
    reads = {t for _, t, d in graph.out_edges("cs:Cms.Services.LoginLog.Posting|METHOD", data=True) if d["type"] == "READS"}
    assert writes == {"sql:dbo.LoginAttempt|TABLE"}
    assert reads == {"sql:dbo.FormPosting|TABLE"}


def test_a_table_named_on_a_relation_is_not_the_entitys_and_an_override_discriminates() -> None:
    joined = CONFIGURATION.replace(
        "    public override bool IsDiscriminated(Type type) => ShouldMap(type) && ShouldMap(type.BaseType);\n", "")
    graph = build({"Entities.cs": ENTITIES, "Db/Configuration.cs": joined, "Db/Overrides.cs": OVERRIDE})
    assert list(tables(graph, "Webpage")) == ["dbo.Webpage"]  # not the many-to-many's `WebpageTags`
    assert tables(graph, "Webpage")["dbo.Webpage"]["inheritance"] == "tph"
    assert list(tables(graph, "TextPage")) == ["dbo.Webpage"]
