"""Where a type is wired in (`index/csharp/registrations`): the registration calls that name a
type by a generic type argument or a `typeof`, also inside the lambda of an outer registration;
what they must not make (a data call's type argument, a type the repository does not declare)."""
from __future__ import annotations

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

SOURCES = {
    "src/App/Parts.cs": """
namespace Shop.App;
public class AuditInterceptor : SaveChangesInterceptor { }
public class ValidationBehaviour<TRequest, TResponse> : IPipelineBehavior<TRequest, TResponse> { }
public class CachingBehavior<TRequest, TResponse> : IPipelineBehavior<TRequest, TResponse> { }
public class Order { }
""",
    "src/App/Wiring.cs": """
namespace Shop.App;
public static class Wiring
{
    public static void AddInfrastructure(IServiceCollection services)
    {
        services.AddScoped<ISaveChangesInterceptor, AuditInterceptor>();
        services.AddMediatR(cfg => { cfg.AddOpenBehavior(typeof(ValidationBehaviour<,>)); });
        services.AddMediator(options => { options.PipelineBehaviors = [typeof(CachingBehavior<,>)]; });
    }
    public static void Query(ShopContext db) { db.Set<Order>().Add(new Order()); var t = typeof(Order); }
    public static void AddHandlers(IServiceCollection services)
    {
        services.AddMediatR(cfg => cfg.RegisterServicesFromAssembly(typeof(Order).Assembly));
    }
}
""",
}


def _registered(graph, method: str) -> dict[str, dict]:
    return {target: data for _, target, key, data in graph.out_edges(f"cs:Shop.App.Wiring.{method}|METHOD", keys=True, data=True)
            if key == "REFERENCES" and data.get("via") == "registration"}


def test_each_registered_type_is_referenced_by_the_method_that_registers_it():
    graph = build_graph([parse_csharp(path, text) for path, text in SOURCES.items()])[0]
    registered = _registered(graph, "AddInfrastructure")
    assert set(registered) == {"cs:Shop.App.AuditInterceptor|TYPE", "cs:Shop.App.ValidationBehaviour|TYPE",
                               "cs:Shop.App.CachingBehavior|TYPE"}  # not the framework's ISaveChangesInterceptor
    assert registered["cs:Shop.App.ValidationBehaviour|TYPE"]["registered_by"] == "AddOpenBehavior"  # the inner call
    assert registered["cs:Shop.App.CachingBehavior|TYPE"]["registered_by"] == "AddMediator"
    assert registered["cs:Shop.App.AuditInterceptor|TYPE"]["line"] == 7
    # a data call's type argument and a typeof outside any registration register nothing
    assert _registered(graph, "Query") == {}
    # a type that only says which assembly to scan is not registered
    assert _registered(graph, "AddHandlers") == {}


def test_expansion_does_not_walk_from_a_registered_type_to_the_start_up_code():
    """The start-up method names every service: a walk around one of them does not go there."""
    from ragstream.graph.expansion import ExpansionLimits, expand_dependency_tree
    from ragstream.retrieval.filters import RetrievalFilters

    graph = build_graph([parse_csharp(path, text) for path, text in SOURCES.items()])[0]
    limits = ExpansionLimits(max_depth=2, max_nodes=50, edges={"REFERENCES": "both", "DEFINES": "both"})
    reached = expand_dependency_tree(graph, ["cs:Shop.App.AuditInterceptor|TYPE"], RetrievalFilters(), limits).nodes
    assert "cs:Shop.App.Wiring.AddInfrastructure|METHOD" not in reached
