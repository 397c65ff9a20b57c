"""A MediatR handler whose `Handle` is inherited from a generic base it closes
(`messages._inherited_handler`): the send reaches the base's `Handle` for the message the
subclass binds, and not for a message no subclass binds."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

HANDLERS = """
using MediatR;
namespace Tv.Streaming;
public record ProcessRequest(string Channel) : IRequest<string>;
public record GetStream(string Channel) : ProcessRequest(Channel);
public record GetPlaylist(string Channel) : ProcessRequest(Channel);
public abstract class ProcessHandler<T> : IRequestHandler<T, string> where T : ProcessRequest
{
    public Task<string> Handle(T request, CancellationToken cancellationToken) => GetProcess(request);
    protected abstract Task<string> GetProcess(T request);
}
public class GetStreamHandler : ProcessHandler<GetStream>
{
    protected override Task<string> GetProcess(GetStream request) => Task.FromResult(request.Channel);
}
"""

SENDER = """
using MediatR;
using Tv.Streaming;
namespace Tv.Web;
public class StreamController
{
    private readonly IMediator _mediator;
    public Task<string> Stream(string n) => _mediator.Send(new GetStream(n));
    public Task<string> Playlist(string n) => _mediator.Send(new GetPlaylist(n));
}
"""

BASE_HANDLE = "cs:Tv.Streaming.ProcessHandler.Handle|METHOD"


def _calls(graph: nx.MultiDiGraph, method: str) -> dict[str, dict]:
    return {t: d for _, t, d in graph.out_edges(f"cs:Tv.Web.StreamController.{method}|METHOD", data=True)
            if d["type"] == "CALLS"}


def test_a_send_reaches_the_handle_a_closed_subclass_inherits_from_its_generic_base() -> None:
    graph, _ = build_graph([parse_csharp("Handlers.cs", HANDLERS), parse_csharp("Sender.cs", SENDER)])
    sent = _calls(graph, "Stream")
    assert sent[BASE_HANDLE]["via"] == "message" and sent[BASE_HANDLE]["resolution"] == "dispatch"
    assert sent[BASE_HANDLE]["message"] == "cs:Tv.Streaming.GetStream|TYPE"
    # GetPlaylist derives from the constraint but no subclass binds it: no handler runs it
    assert BASE_HANDLE not in _calls(graph, "Playlist")



# Two subclasses, each with its table: the base's `GetProcess(request)` on `this` runs the override of
# the subclass the send's message binds, never the other's.
TWO = HANDLERS.replace("public class GetStreamHandler", """public class GetPlaylistHandler : ProcessHandler<GetPlaylist>
{
    private readonly TvContext _db;
    protected override Task<string> GetProcess(GetPlaylist request) { _db.Playlists.Add(new Playlist()); return null; }
}
public class Stream { } public class Playlist { }
public class TvContext : System.Data.Entity.DbContext
{
    public System.Data.Entity.DbSet<Stream> Streams { get; set; }
    public System.Data.Entity.DbSet<Playlist> Playlists { get; set; }
}
public class GetStreamHandler""").replace(
    "protected override Task<string> GetProcess(GetStream request) => Task.FromResult(request.Channel);",
    "private readonly TvContext _db;\n"
    "    protected override Task<string> GetProcess(GetStream request) { _db.Streams.Add(new Stream()); return null; }")


def test_the_send_binds_this_of_the_inherited_handle_to_the_subclass_of_its_message() -> None:
    from ragstream.graph.relations import table_paths
    from ragstream.index.sql.parser import parse_sql
    graph, _ = build_graph([parse_csharp("Handlers.cs", TWO), parse_csharp("Sender.cs", SENDER),
                            parse_sql("s.sql", "CREATE TABLE dbo.Streams (Id INT);\nCREATE TABLE dbo.Playlists (Id INT);\n",
                                      "tsql")])
    assert _calls(graph, "Stream")[BASE_HANDLE]["receiver_type"] == "cs:Tv.Streaming.GetStreamHandler|TYPE"
    # the base's own dispatch still reaches both overrides: it runs for either subclass
    handle = {t for _, t, d in graph.out_edges(BASE_HANDLE, data=True) if d["type"] == "CALLS"}
    assert {"cs:Tv.Streaming.GetStreamHandler.GetProcess|METHOD", "cs:Tv.Streaming.GetPlaylistHandler.GetProcess|METHOD"} <= handle
    for sender, table in (("Stream", "sql:dbo.Streams|TABLE"), ("Playlist", "sql:dbo.Playlists|TABLE")):
        paths = table_paths(graph, [f"cs:Tv.Web.StreamController.{sender}|METHOD"])
        assert {path.nodes[-1] for path in paths} == {table}
