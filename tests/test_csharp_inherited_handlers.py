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

