"""A receiver named by a field or property the method's file does not declare, looked up over
the whole declaration of its type (`member_fields`): a field of another part of a partial type
(`_procedures.InsertEntry(..)`, also `this._procedures`), a protected field of a base in another
file, one typed by the base's type parameter (bound by the subclass's base list), one typed by a
constrained type parameter (`where TStore : IStore`), a capitalised field of a base, a base's
property typed by its type parameter, an enclosing type's private field. And the
edges it must not make: a base's private field is not the subclass's, a field of a library type
is no interface family's guess, a name no member has stays unknown."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

PROCEDURES = '''namespace Data {
public class StoredProcedures {
    public int InsertEntry(string title) { return 1; }
    public void DeleteEntry(int id) { }
}
public interface ILog { void Write(string m); }
public class FileLog : ILog { public void Write(string m) { } }
public class Outer {
    private static StoredProcedures _shared;
    private class Inner { public void Go() { _shared.DeleteEntry(3); } }
}
}'''

# the field is declared in one part; the methods calling on it are in another file
PART_FIELDS = '''using NLog;
namespace Data { public partial class Provider : ProviderBase<Store, Cache> {
    private StoredProcedures _procedures = new StoredProcedures();
    private Logger _logger;
} }'''

PART_METHODS = '''namespace Data { public partial class Provider {
    public int Create(string title) { return _procedures.InsertEntry(title); }
    public void Delete(int id) { this._procedures.DeleteEntry(id); }
    public void LogIt() { _logger.Write("x"); }
    public void Unknown() { _nothing.Write("x"); }
    public void Shadowed(StoredProcedures _procedures) { _procedures.DeleteEntry(1); }
} }'''

BASE = '''namespace Data {
public interface IStore { void Save(); }
public class Store : IStore { public void Save() { } }
public class Cache { public void Clear() { } }
public class OtherCache { public void Clear() { } }
public abstract class ProviderBase<TStore, TCache> where TStore : IStore {
    protected TStore _store;
    protected TCache _cache;
    protected StoredProcedures Procedures;
    protected TCache Current { get; set; }
    private ILog _secret;
    protected void Flush() { _store.Save(); }
}
} '''

SUBCLASS = '''namespace Data { public partial class Provider {
    public void Save() { _store.Save(); }
    public void Clear() { _cache.Clear(); }
    public void Named() { Procedures.DeleteEntry(2); }
    public void Reset() { Current.Clear(); }
    public void Secret() { _secret.Write("x"); }
} }'''


def graph_of(cs: dict[str, str]) -> nx.MultiDiGraph:
    graph, _ = build_graph([parse_csharp(path, text) for path, text in cs.items()])
    return graph


GRAPH = graph_of({"Procedures.cs": PROCEDURES, "Provider.Fields.cs": PART_FIELDS, "Provider.cs": PART_METHODS,
                  "ProviderBase.cs": BASE, "Provider.Sub.cs": SUBCLASS})


def calls_of(method: str) -> dict[str, dict]:
    return {target: data for source, target, key, data in GRAPH.edges(keys=True, data=True)
            if source == f"cs:Data.{method}|METHOD" and key == "CALLS"}


def test_a_field_of_another_part_types_the_receiver() -> None:
    edge = calls_of("Provider.Create")["cs:Data.StoredProcedures.InsertEntry|METHOD"]
    assert edge["resolution"] == "static"
    assert "cs:Data.StoredProcedures.DeleteEntry|METHOD" in calls_of("Provider.Delete")


def test_a_parameter_hides_the_field() -> None:
    assert "cs:Data.StoredProcedures.DeleteEntry|METHOD" in calls_of("Provider.Shadowed")


def test_a_field_of_a_library_type_is_no_interface_family_guess() -> None:
    # `ILog.Write` is the one interface method named Write: an unknown receiver would guess it
    assert calls_of("Provider.LogIt") == {}


def test_a_name_no_member_has_keeps_the_unknown_receivers_guess() -> None:
    assert calls_of("Provider.Unknown")["cs:Data.ILog.Write|METHOD"]["resolution"] == "by_name"


def test_a_base_field_typed_by_a_type_parameter_is_bound_by_the_base_list() -> None:
    assert set(calls_of("Provider.Save")) == {"cs:Data.Store.Save|METHOD"}
    assert set(calls_of("Provider.Clear")) == {"cs:Data.Cache.Clear|METHOD"}  # not OtherCache's


def test_a_base_property_typed_by_a_type_parameter_is_bound_too() -> None:
    assert set(calls_of("Provider.Reset")) == {"cs:Data.Cache.Clear|METHOD"}


def test_a_nested_type_sees_its_enclosing_types_private_field() -> None:
    assert "cs:Data.StoredProcedures.DeleteEntry|METHOD" in calls_of("Outer.Inner.Go")


def test_an_unbound_type_parameter_is_read_as_its_constraint() -> None:
    assert calls_of("ProviderBase.Flush")["cs:Data.IStore.Save|METHOD"]["resolution"] == "static"


def test_a_capitalised_field_of_a_base() -> None:
    assert "cs:Data.StoredProcedures.DeleteEntry|METHOD" in calls_of("Provider.Named")


def test_a_private_field_of_a_base_is_not_the_subclasss() -> None:
    # only the unknown receiver's guess, not a call typed by the base's private `ILog _secret`
    assert calls_of("Provider.Secret")["cs:Data.ILog.Write|METHOD"]["resolution"] == "by_name"


def test_fields_are_recorded_on_the_file_of_their_part() -> None:
    parsed = parse_csharp("Provider.Fields.cs", PART_FIELDS)
    fields = parsed.nodes[0].attrs["member_fields"]["cs:Data.Provider|TYPE"]
    assert fields["_procedures"][0] == "StoredProcedures" and fields["_procedures"][2] is True
    base = parse_csharp("ProviderBase.cs", BASE).nodes[0].attrs["member_fields"]["cs:Data.ProviderBase|TYPE"]
    assert "_secret" not in base  # private, not partial: no other file sees it
    assert base["_store"][1][0].endswith("IStore")  # constrained: its constraint's guesses


def test_an_inherited_field_hides_the_enclosing_types_one() -> None:
    # C# looks a simple name up in the type and its whole base chain before the enclosing type
    graph = graph_of({"Outer.cs": '''namespace Data { public partial class Holder {
        private static StoredProcedures _store;
        public class Inner : Mid { public void Go() { _store.Clear(); } }
    } }''', "Mid.cs": "namespace Data { public class Mid : Bottom { } }",
        "Bottom.cs": "namespace Data { public class Bottom { protected Cache _store; } }",
        "Procedures.cs": PROCEDURES, "ProviderBase.cs": BASE})
    calls = {target for source, target, key in graph.edges(keys=True)
             if source == "cs:Data.Holder.Inner.Go|METHOD" and key == "CALLS"}
    assert calls == {"cs:Data.Cache.Clear|METHOD"}


def test_a_local_bound_by_a_query_a_catch_or_a_deconstruction_is_no_field_of_another_part() -> None:
    graph = graph_of({"Procedures.cs": PROCEDURES, "Provider.Fields.cs": PART_FIELDS, "Provider.cs": '''
        using System.Linq;
        namespace Data { public partial class Provider {
            public void Query(List<FileLog> all) { var q = from _procedures in all select _procedures.Write("q"); }
            public void Caught() { try { } catch (LogException _procedures) { _procedures.Write("c"); } }
            public void Split((FileLog, int) t) { var (_procedures, n) = t; _procedures.Write("s"); }
        }
        public class LogException : System.Exception { public void Write(string m) { } } }'''})

    def calls(method: str) -> set[str]:
        return {target for source, target, key in graph.edges(keys=True)
                if source == f"cs:Data.Provider.{method}|METHOD" and key == "CALLS"}

    for method in ("Query", "Caught", "Split"):  # never the other part's `StoredProcedures _procedures`
        assert not any("StoredProcedures" in target for target in calls(method)), method
    assert calls("Caught") == {"cs:Data.LogException.Write|METHOD"}  # the catch variable's declared type
