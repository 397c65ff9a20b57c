"""Messages in shapes beyond MediatR's plain `Send(new X())`: one made by a library's generic converter
and then sent (`var cmd = _mapper.Map<Cmd>(model); _mediator.Send(cmd)`, dispatched to the handler of the
converter's type argument as the guess it is: `messages.converted_to`), and a handler that takes the
bus's context before the message (DotNetCqs); with the dispatches that must not happen."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

PAGE = """
using AutoMapper; using MediatR;
namespace Wiki.Pages;
public class EditArticleCommand : IRequest<CommandResult> { public string Slug { get; set; } }
public class GetArticleQuery : IRequest<ArticleEdit> { }
public class CommandResult { }
public class EditArticleCommandHandler : IRequestHandler<EditArticleCommand, CommandResult>
{
    public Task<CommandResult> Handle(EditArticleCommand request, CancellationToken token) { return null; }
}
public class GetArticleHandler : IRequestHandler<GetArticleQuery, ArticleEdit>
{
    public Task<ArticleEdit> Handle(GetArticleQuery request, CancellationToken token) { return null; }
}
public class ArticleEdit { public string Slug { get; set; } public EditArticleCommand ToCommand() { return null; } }
public class EditModel
{
    private readonly IMapper _mapper; private readonly IMediator _mediator;
    public ArticleEdit Article { get; set; }
    public async Task Held() { var cmd = _mapper.Map<EditArticleCommand>(Article); await _mediator.Send(cmd); }
    public async Task Inline() { await _mediator.Send(_mapper.Map<EditArticleCommand>(Article)); }
    public async Task Declared() { await _mediator.Send(Article.ToCommand()); }
    public async Task Typed() { await _mediator.Send(new GetArticleQuery()); }
    public async Task NoHandler() { var edit = _mapper.Map<ArticleEdit>(Article); await _mediator.Send(edit); }
    public async Task TwoArguments() { var cmd = _mapper.Map<ArticleEdit, EditArticleCommand>(Article); await _mediator.Send(cmd); }
}
"""

HANDLER = "cs:Wiki.Pages.EditArticleCommandHandler.Handle|METHOD"


def _dispatches(method: str) -> dict[str, dict]:
    graph, _ = build_graph([parse_csharp("Pages/Edit.cs", PAGE)])
    source = f"cs:Wiki.Pages.EditModel.{method}|METHOD"
    return {target: data for _, target, key, data in graph.out_edges(source, keys=True, data=True)
            if key == "CALLS" and data.get("via") == "message"}


def test_a_message_made_by_a_library_converter_reaches_its_handler_as_a_guess() -> None:
    for method in ("Held", "Inline"):
        sent = _dispatches(method)
        assert set(sent) == {HANDLER}, method
        assert sent[HANDLER]["guess"] is True and sent[HANDLER]["message_from"] == "type_argument"


def test_a_declared_or_written_message_is_no_guess() -> None:
    declared = _dispatches("Declared")
    assert set(declared) == {HANDLER} and "guess" not in declared[HANDLER]
    typed = _dispatches("Typed")
    assert set(typed) == {"cs:Wiki.Pages.GetArticleHandler.Handle|METHOD"} and "guess" not in next(iter(typed.values()))


def test_a_converted_value_with_no_handler_or_two_type_arguments_is_sent_nowhere() -> None:
    assert _dispatches("NoHandler") == {}
    assert _dispatches("TwoArguments") == {}


def test_the_converter_call_itself_dispatches_nothing() -> None:
    graph: nx.MultiDiGraph = build_graph([parse_csharp("Pages/Edit.cs", PAGE)])[0]
    assert not [target for _, target, data in graph.out_edges("cs:Wiki.Pages.EditModel.Held|METHOD", data=True)
                if data.get("member") == "Map"]


BUS = """
using DotNetCqs;
namespace Errors.App;
public class IncidentClosed { public int IncidentId { get; set; } }
public class IncidentClosedHandler : IMessageHandler<IncidentClosed>
{
    public Task HandleAsync(IMessageContext context, IncidentClosed message) => Task.CompletedTask;
}
public class Comparer : IComparer<IncidentClosed>
{
    public int Compare(IncidentClosed x, IncidentClosed y) => 0;
}
public class Auditor : IMessageHandler<IncidentClosed>
{
    public Task HandleAsync(string note, IncidentClosed message) => Task.CompletedTask;
}
public class CloseIncidentHandler
{
    public async Task HandleAsync(IMessageContext context, int id) { await context.SendAsync(new IncidentClosed { IncidentId = id }); }
}
"""


def test_a_handler_taking_the_bus_context_first_handles_the_message_it_takes_second():
    """DotNetCqs' `HandleAsync(IMessageContext context, IncidentClosed message)`: the message second,
    after the context; a method taking it second after anything else (`(string note, X message)`), or
    twice (`Compare(X, X)`), handles nothing."""
    graph, _ = build_graph([parse_csharp("App/Incidents.cs", BUS)])
    sent = {target for _, target, key, data in graph.out_edges("cs:Errors.App.CloseIncidentHandler.HandleAsync|METHOD",
                                                                keys=True, data=True)
            if key == "CALLS" and data.get("via") == "message"}
    assert sent == {"cs:Errors.App.IncidentClosedHandler.HandleAsync|METHOD"}


CONSUMERS = """
using MassTransit;
namespace Shop.Events;
public class BasketCheckedOut { public string UserName { get; set; } }
public class OrderShipped { }
public class BasketCheckedOutConsumer : IConsumer<BasketCheckedOut>
{
    public Task Consume(ConsumeContext<BasketCheckedOut> context) => Task.CompletedTask;
}
public class ShippedConsumer : IConsumer<OrderShipped>
{
    public Task Consume(ConsumeContext<OrderShipped> context) => Task.CompletedTask;
}
public class Pairs : IConsumer<BasketCheckedOut>
{
    public Task Consume(ConsumeContext<BasketCheckedOut, OrderShipped> context) => Task.CompletedTask;
}
public class Checkout
{
    private readonly IPublishEndpoint _publish;
    public async Task Run(string user) { await _publish.Publish(new BasketCheckedOut { UserName = user }); }
}
"""


def test_a_consumer_taking_the_bus_context_of_the_message_consumes_it():
    """MassTransit's `Consume(ConsumeContext<BasketCheckedOut> context)`: the context carries the
    message; the consumer of another message, and a context of two types, take nothing sent here."""
    graph, _ = build_graph([parse_csharp("Shop/Events.cs", CONSUMERS)])
    sent = {target for _, target, key, data in graph.out_edges("cs:Shop.Events.Checkout.Run|METHOD", keys=True, data=True)
            if key == "CALLS" and data.get("via") == "message"}
    assert sent == {"cs:Shop.Events.BasketCheckedOutConsumer.Consume|METHOD"}
