"""Type arguments through generic base classes (`base_bindings`, `relations.table_paths`): a
generic base controller sends a generic command whose generic handler writes through the
repository of a type parameter; each subclass's base list binds that parameter, so the handler
writes the subclass's table, and a walk from the subclass reaches it; a sibling subclass never
reaches another's table, and the base alone reaches none."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.relations import table_paths
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

APPLICATION = """
using MediatR;
namespace Shop.Application;
public interface IRepositoryAsync<T, in TId> where T : class { Task<T> AddAsync(T entity); }
public interface IUnitOfWork<TId> { IRepositoryAsync<TEntity, TId> Repository<TEntity>() where TEntity : class; }
public class AddNoteCommand<TId, TEntity, TNote> : IRequest<int> where TNote : class { public TNote Note { get; set; } }
public class AddNoteCommandHandler<TId, TEntity, TNote> : IRequestHandler<AddNoteCommand<TId, TEntity, TNote>, int>
    where TNote : class
{
    private readonly IUnitOfWork<TId> _unitOfWork;
    public async Task<int> Handle(AddNoteCommand<TId, TEntity, TNote> command, CancellationToken token)
    {
        await _unitOfWork.Repository<TNote>().AddAsync(command.Note);
        return 1;
    }
}
"""

SERVER = """
using MediatR;
using Shop.Application;
using Shop.Domain;
namespace Shop.Server;
public abstract class NotesController<TId, TEntity, TNote> : ControllerBase where TNote : class
{
    private IMediator _mediator;
    public virtual async Task<IActionResult> Post(AddNoteCommand<TId, TEntity, TNote> command)
    {
        return Ok(await _mediator.Send(command));
    }
}
public class OrderNotesController : NotesController<int, Order, OrderNote>
{
    public override Task<IActionResult> Post(AddNoteCommand<int, Order, OrderNote> command) { return base.Post(command); }
}
public class CustomerNotesController : NotesController<int, Customer, CustomerNote>
{
    public override Task<IActionResult> Post(AddNoteCommand<int, Customer, CustomerNote> command) { return base.Post(command); }
}
"""

DOMAIN = """
using Microsoft.EntityFrameworkCore;
namespace Shop.Domain;
public class Order { public int Id { get; set; } }
public class Customer { public int Id { get; set; } }
public class OrderNote { public int Id { get; set; } }
public class CustomerNote { public int Id { get; set; } }
public class ShopContext : DbContext
{
    public DbSet<OrderNote> OrderNotes { get; set; }
    public DbSet<CustomerNote> CustomerNotes { get; set; }
}
"""

SCHEMA = """
CREATE TABLE dbo.OrderNotes (Id INT PRIMARY KEY);
CREATE TABLE dbo.CustomerNotes (Id INT PRIMARY KEY);
"""

HANDLE = "cs:Shop.Application.AddNoteCommandHandler.Handle|METHOD"
BASE_POST = "cs:Shop.Server.NotesController.Post|METHOD"
ORDER_POST = "cs:Shop.Server.OrderNotesController.Post|METHOD"
CUSTOMER_POST = "cs:Shop.Server.CustomerNotesController.Post|METHOD"
ORDER_NOTES, CUSTOMER_NOTES = "sql:dbo.OrderNotes|TABLE", "sql:dbo.CustomerNotes|TABLE"


def _graph() -> nx.MultiDiGraph:
    return build_graph([parse_csharp("Application.cs", APPLICATION), parse_csharp("Server.cs", SERVER),
                        parse_csharp("Domain.cs", DOMAIN), parse_sql("schema.sql", SCHEMA, "tsql")])[0]


def _tables(graph: nx.MultiDiGraph, entry: str) -> set[str]:
    return {path.nodes[-1] for path in table_paths(graph, [entry])}


def test_the_handler_writes_each_table_a_subclass_binds_marked_with_how() -> None:
    graph = _graph()
    writes = {target: data for _, target, key, data in graph.out_edges(HANDLE, keys=True, data=True) if key == "WRITES"}
    assert set(writes) == {ORDER_NOTES, CUSTOMER_NOTES}
    order = writes[ORDER_NOTES]
    assert order["via"] == "type_argument" and order["binding"] == "base_list" and order["walk_bound"]
    assert order["parameter"] == "TNote" and order["member"] == "AddAsync"
    assert order["bound_by"] == ["cs:Shop.Server.OrderNotesController|TYPE"]
    assert order["entity"] == "cs:Shop.Domain.OrderNote|TYPE"


def test_a_walk_from_a_subclass_reaches_its_own_table_through_the_base_and_the_handler() -> None:
    graph = _graph()
    paths = table_paths(graph, [ORDER_POST])
    to_orders = [path for path in paths if path.nodes[-1] == ORDER_NOTES]
    assert to_orders and to_orders[0].nodes[:3] == (ORDER_POST, BASE_POST, HANDLE)
    assert _tables(graph, ORDER_POST) == {ORDER_NOTES}  # never the sibling's table
    assert _tables(graph, CUSTOMER_POST) == {CUSTOMER_NOTES}


def test_the_base_alone_reaches_no_concrete_table() -> None:
    graph = _graph()
    assert _tables(graph, BASE_POST) == set()
    assert _tables(graph, HANDLE) == set()


def test_a_base_list_with_a_built_in_type_argument_keeps_every_position() -> None:
    graph = _graph()
    bases = graph.nodes["cs:Shop.Server.OrderNotesController|TYPE"]["attrs"]["generic_bases"]
    assert [arguments[-1] for arguments in bases[0]["arguments"]] == ["int", "Order", "OrderNote"]


SERVICE = """
using MediatR;
using Shop.Application;
using Shop.Domain;
namespace Shop.Jobs;
public class NightlyNotes
{
    private IMediator _mediator;
    public Task Run() { return _mediator.Send(new AddNoteCommand<int, Order, OrderNote>()); }
}
"""


def test_a_sender_writing_concrete_type_arguments_binds_the_handler_for_its_walk_only() -> None:
    graph = build_graph([parse_csharp("Application.cs", APPLICATION), parse_csharp("Jobs.cs", SERVICE),
                         parse_csharp("Domain.cs", DOMAIN), parse_sql("schema.sql", SCHEMA, "tsql")])[0]
    writes = {target: data for _, target, key, data in graph.out_edges(HANDLE, keys=True, data=True) if key == "WRITES"}
    assert set(writes) == {ORDER_NOTES}
    assert writes[ORDER_NOTES]["bound_by"] == ["cs:Shop.Jobs.NightlyNotes|TYPE"]
    assert _tables(graph, "cs:Shop.Jobs.NightlyNotes.Run|METHOD") == {ORDER_NOTES}
    assert _tables(graph, HANDLE) == set()  # the handler alone binds nothing


def test_a_type_met_deep_in_one_chain_still_binds_when_met_shallower_later() -> None:
    """What a type binds is remembered per depth: `G0.Save` (its bases walked first, at depth) must
    not leave `G5` bound to nothing for `G5.Keep`, one base below the concrete subclass's."""
    chain = "\n".join(f"public class G{i}<T> : G{i - 1}<T> where T : class {{ }}" for i in range(1, 7) if i != 5)
    code = f"""using Microsoft.EntityFrameworkCore;
namespace Shop;
public interface IRepositoryAsync<T, in TId> where T : class {{ Task<T> AddAsync(T entity); }}
public interface IUnitOfWork<TId> {{ IRepositoryAsync<TEntity, TId> Repository<TEntity>() where TEntity : class; }}
public class G0<T> where T : class {{ protected IUnitOfWork<int> _uow; public void Save(T e) {{ _uow.Repository<T>().AddAsync(e); }} }}
{chain}
public class G5<T> : G4<T> where T : class {{ private IUnitOfWork<int> _w; public void Keep(T e) {{ _w.Repository<T>().AddAsync(e); }} }}
public class Concrete : G6<Order> {{ }}
public class Order {{ public int Id {{ get; set; }} }}
public class ShopContext : DbContext {{ public DbSet<Order> Orders {{ get; set; }} }}
"""
    graph = build_graph([parse_csharp("G.cs", code), parse_sql("s.sql", "CREATE TABLE dbo.Orders (Id INT PRIMARY KEY);", "tsql")])[0]
    bound = [(s, t, data.get("bound_by")) for s, t, key, data in graph.edges(keys=True, data=True)
             if data.get("binding") == "base_list"]
    assert ("cs:Shop.G5.Keep|METHOD", "sql:dbo.Orders|TABLE", ["cs:Shop.Concrete|TYPE"]) in bound
