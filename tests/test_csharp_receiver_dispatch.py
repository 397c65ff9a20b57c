"""Dispatch bounded by the receiver's declared type: a call on a field typed as one repository
(or as the interface it implements) reaching a generic base's virtual member runs an override of
that repository's own line (its descendants', or an inherited one), never a sibling repository's;
so for `this` calls; two receivers on one edge admit both lines, and a receiver typed as the base
itself admits every override. Each with the edge it must not make."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

REPOSITORIES = """
namespace Shop.Data;
public interface IRepository<T> { void Save(T item); }
public interface ITagRepository : IRepository<Tag> { }
public abstract class BaseRepository<T> : IRepository<T>
{
    public virtual void Save(T item) { }
    public virtual void Delete(T item) { }
}
public class TagRepository : BaseRepository<Tag>, ITagRepository
{
    public override void Save(Tag item) { }
    public void Purge(Tag item) { Delete(item); }
}
public class CachedTagRepository : TagRepository
{
    public override void Save(Tag item) { }
    public override void Delete(Tag item) { }
}
public class UserRepository : BaseRepository<User>
{
    public override void Save(User item) { }
    public override void Delete(User item) { }
}
public class OrderRepository : BaseRepository<Order>
{
    public override void Save(Order item) { }
}
public class Tag { }
public class User { }
public class Order { }
"""

SERVICE = """
namespace Shop.Services;
using Shop.Data;
public class TagService
{
    private readonly TagRepository _tags;
    private readonly ITagRepository _tagStore;
    private readonly UserRepository _users;
    private readonly OrderRepository _orders;
    private readonly BaseRepository<Order> _anyOrders;
    public void SaveTag(Tag tag) { _tags.Save(tag); }
    public void DeleteTag(Tag tag) { _tags.Delete(tag); }
    public void StoreTag(Tag tag) { _tagStore.Save(tag); }
    public void DeleteBoth(Tag tag, Order order) { _tags.Delete(tag); _orders.Delete(order); }
    public void DeleteAny(Tag tag, Order order) { _tags.Delete(tag); _anyOrders.Delete(order); }
}
"""

BASE_SAVE = "cs:Shop.Data.BaseRepository.Save|METHOD"
BASE_DELETE = "cs:Shop.Data.BaseRepository.Delete|METHOD"
TAG_SAVE = "cs:Shop.Data.TagRepository.Save|METHOD"
CACHED_SAVE = "cs:Shop.Data.CachedTagRepository.Save|METHOD"
CACHED_DELETE = "cs:Shop.Data.CachedTagRepository.Delete|METHOD"
USER_SAVE = "cs:Shop.Data.UserRepository.Save|METHOD"
USER_DELETE = "cs:Shop.Data.UserRepository.Delete|METHOD"
ORDER_SAVE = "cs:Shop.Data.OrderRepository.Save|METHOD"


def _calls(source: str) -> dict[str, dict]:
    graph: nx.MultiDiGraph = build_graph([parse_csharp("Repositories.cs", REPOSITORIES),
                                          parse_csharp("TagService.cs", SERVICE)])[0]
    return {target: data for _, target, key, data in graph.out_edges(source, keys=True, data=True) if key == "CALLS"}


def test_a_call_on_one_repository_runs_its_own_line_not_a_sibling_repository_s_override() -> None:
    calls = _calls("cs:Shop.Services.TagService.DeleteTag|METHOD")
    assert calls["cs:Shop.Data.BaseRepository.Delete|METHOD"]["receiver_type"] == "cs:Shop.Data.TagRepository|TYPE"
    assert calls[CACHED_DELETE]["resolution"] == "dispatch"  # the object may be the cached subclass
    assert USER_DELETE not in calls  # a sibling's override: never runs on a TagRepository


def test_an_interface_receiver_runs_its_implementers_methods_and_what_they_inherit_only() -> None:
    calls = _calls("cs:Shop.Services.TagService.StoreTag|METHOD")
    assert calls["cs:Shop.Data.IRepository.Save|METHOD"]["receiver_type"] == "cs:Shop.Data.ITagRepository|TYPE"
    for method in (TAG_SAVE, CACHED_SAVE, BASE_SAVE):  # BaseRepository.Save: what an implementer inherits
        assert calls[method]["resolution"] == "dispatch"
    assert USER_SAVE not in calls and ORDER_SAVE not in calls


def test_a_this_call_of_an_inherited_member_runs_the_own_line_only() -> None:
    calls = _calls("cs:Shop.Data.TagRepository.Purge|METHOD")
    assert calls[CACHED_DELETE]["resolution"] == "dispatch"
    assert USER_DELETE not in calls


def test_two_receivers_on_one_edge_admit_both_lines_and_no_third() -> None:
    calls = _calls("cs:Shop.Services.TagService.DeleteBoth|METHOD")
    assert calls[BASE_DELETE]["receiver_types"] == ["cs:Shop.Data.OrderRepository|TYPE", "cs:Shop.Data.TagRepository|TYPE"]
    assert calls[CACHED_DELETE]["resolution"] == "dispatch"
    assert USER_DELETE not in calls  # neither receiver's line


def test_a_receiver_typed_as_the_base_itself_admits_every_override() -> None:
    calls = _calls("cs:Shop.Services.TagService.DeleteAny|METHOD")
    assert calls[BASE_DELETE]["receiver_open"] is True
    assert {CACHED_DELETE, USER_DELETE} <= set(calls)


def test_an_edge_of_two_receivers_binds_this_to_neither() -> None:
    """`_tags.Delete(tag); _orders.Delete(order);`: the dispatch edge to the cached tag repository's
    override is on the tag line, but the edge stands for both calls, so it names no single receiver
    (a walk would bind `this` to the first call's type); one receiver's edge keeps it."""
    both = _calls("cs:Shop.Services.TagService.DeleteBoth|METHOD")
    assert "receiver_type" not in both[CACHED_DELETE]
    one = _calls("cs:Shop.Services.TagService.DeleteTag|METHOD")
    assert one[CACHED_DELETE]["receiver_type"] == "cs:Shop.Data.TagRepository|TYPE"
