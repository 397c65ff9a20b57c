"""Razor views (.cshtml, .razor) through the walker, parse_source and build_graph against small
C# fixtures: each construct's edge, and the edges a view must not get."""
from __future__ import annotations

import networkx as nx
import pytest

from ragstream.index.chunks import build_chunks
from ragstream.index.graph_build import build_graph
from ragstream.index.parse import parse_source
from ragstream.index.walk import walk_repository
from ragstream.token_count import token_counter
from tests.conftest import make_settings

CSHARP = {
    "Shop/Controllers/InvoicesController.cs": """
namespace Shop.Controllers;
public class InvoicesController : Controller
{
    public IActionResult Index() => View();
    public IActionResult Edit(int id) => View();
    public Task<IActionResult> SaveAsync() => null;
    public IActionResult Print() => View();
}
""",
    "Shop/Models/Invoice.cs": "namespace Shop.Models;\npublic class Invoice { }\n",
    "Shop/Services/IInvoiceService.cs": "namespace Shop.Services;\npublic interface IInvoiceService { }\n",
    "Shop/Reports/Reports.cs": "namespace Shop.Reports;\npublic class Reports { public void Archive() { } }\n",
    "Shop/Pages/Invoices/Edit.cshtml.cs": """
namespace Shop.Pages.Invoices;
public class EditModel : PageModel
{
    public void OnGet() { }
    public Task OnPostSaveAsync() => null;
    public void OnGetExport() { }
}
""",
    "Shop/Pages/Invoices/List.cshtml.cs": """
namespace Shop.Pages.Invoices;
public class ListModel : PageModel { public void OnPostSave() { } }
""",
    "Shop/Components/Counter.razor.cs": """
namespace Shop.Components;
public partial class Counter { private void Save() { } }
""",
    "Shop/Components/Widget.cs": "namespace Shop.Components;\npublic class Widget { public void Increment() { } }\n",
}

VIEWS = {
    "Shop/Views/Invoices/Edit.cshtml": """@using Shop.Models
@model Invoice
@inject IInvoiceService Invoices
<h1>Edit invoice</h1>
<form asp-action="Edit" method="post"></form>
<a asp-action="Index" asp-controller="Invoices">Back</a>
@Html.ActionLink("Print it", "Print", new { id = Model.Id })
@using (Html.BeginForm("Save", "Invoices")) { }
<a href="@Url.Action("Edit", "Invoices")">again</a>
<a asp-action="Archive" asp-controller="Missing">archive</a>
@Html.Partial("_Row", Model)
""",
    "Shop/Views/Shared/_Row.cshtml": "<tr><td>@Model</td></tr>\n",
    "Shop/Views/Shared/_Layout.cshtml": '<a asp-action="Archive">home</a>\n',
    "Shop/Pages/Invoices/Edit.cshtml": """@page
@model EditModel
<form method="post" asp-page-handler="Save"><button>Save</button></form>
<a asp-page-handler="Export">csv</a>
<a asp-page="/Invoices/List">all</a>
""",
    "Shop/Pages/Invoices/List.cshtml": '@page\n@model ListModel\n<form method="post" asp-page-handler="Save"></form>\n',
    "Shop/Components/Counter.razor": """@implements IDisposable
@inherits ComponentBase
<button @onclick="Increment">+1</button>
<button @onclick="@(() => Save())">save</button>
<button @onclick:preventDefault="true">x</button>
@code {
    private int count;
    private void Increment() { count++; }
    public void Dispose() { }
}
""",
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory) -> nx.MultiDiGraph:
    root = tmp_path_factory.mktemp("repo")
    for rel, text in {**CSHARP, **VIEWS}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    walked = walk_repository(root, make_settings(root / "data").index)
    assert {f.path for f in walked.files if f.language == "razor"} == set(VIEWS)
    built, _ = build_graph([parse_source(f, None, "tsql") for f in walked.files])
    return built


def out_edges(graph: nx.MultiDiGraph, view: str, edge_type: str) -> dict[str, dict]:
    return {target: data for _, target, key, data in graph.out_edges(f"file:{view}|FILE", keys=True, data=True)
            if key == edge_type}


def method(name: str) -> str:
    return f"cs:{name}|METHOD"


def test_a_view_is_a_text_file_node_with_its_markup_chunked():
    from ragstream.index.razor.parser import parse_razor

    parsed = parse_razor("Shop/Views/Invoices/Edit.cshtml", VIEWS["Shop/Views/Invoices/Edit.cshtml"])
    assert [(n.kind, n.language) for n in parsed.nodes] == [("FILE", "razor")]
    graph, _ = build_graph([parsed])
    chunks = build_chunks(graph, {parsed.path: VIEWS[parsed.path]}, token_counter(), 400, 8)
    assert [c.id for c in chunks] == ["file:Shop/Views/Invoices/Edit.cshtml|FILE"]
    assert "<h1>Edit invoice</h1>" in chunks[0].text


def test_model_and_inject_reference_their_types(graph):
    refs = out_edges(graph, "Shop/Views/Invoices/Edit.cshtml", "REFERENCES")
    assert refs["cs:Shop.Models.Invoice|TYPE"]["via"] == "@model"
    assert refs["cs:Shop.Models.Invoice|TYPE"]["resolution"] == "static"  # through @using
    injected = refs["cs:Shop.Services.IInvoiceService|TYPE"]
    assert (injected["via"], injected["resolution"], injected["guess"]) == ("@inject", "by_name", True)


def test_razor_pages_model_resolves_through_the_folder_namespace(graph):
    refs = out_edges(graph, "Shop/Pages/Invoices/Edit.cshtml", "REFERENCES")
    assert refs["cs:Shop.Pages.Invoices.EditModel|TYPE"]["resolution"] == "static"
    assert refs["file:Shop/Pages/Invoices/List.cshtml|FILE"]["via"] == "asp-page"
    assert refs["file:Shop/Pages/Invoices/Edit.cshtml.cs|FILE"]["via"] == "code-behind"


def test_page_handlers_call_the_page_models_methods(graph):
    calls = out_edges(graph, "Shop/Pages/Invoices/Edit.cshtml", "CALLS")
    assert set(calls) == {method("Shop.Pages.Invoices.EditModel.OnPostSaveAsync"),
                          method("Shop.Pages.Invoices.EditModel.OnGetExport")}
    assert calls[method("Shop.Pages.Invoices.EditModel.OnPostSaveAsync")]["via"] == "asp-page-handler"
    # never another page's handler of the same name
    assert set(out_edges(graph, "Shop/Pages/Invoices/List.cshtml", "CALLS")) == {
        method("Shop.Pages.Invoices.ListModel.OnPostSave")}


def test_mvc_actions_call_the_controller(graph):
    calls = out_edges(graph, "Shop/Views/Invoices/Edit.cshtml", "CALLS")
    controller = "Shop.Controllers.InvoicesController"
    assert set(calls) == {method(f"{controller}.{name}") for name in ("Edit", "Index", "Print", "SaveAsync")}
    assert calls[method(f"{controller}.Index")]["via"] == "asp-action"
    assert "guess" not in calls[method(f"{controller}.Index")]
    assert calls[method(f"{controller}.SaveAsync")]["via"] == "Html.BeginForm"
    by_folder = calls[method(f"{controller}.Print")]  # ActionLink without a controller
    assert (by_folder["via"], by_folder["guess"], by_folder["controller_from"]) == ("Html.ActionLink", True, "folder")
    # asp-controller="Missing": no edge to the unrelated Reports.Archive, not even a guess
    assert method("Shop.Reports.Reports.Archive") not in calls
    assert not out_edges(graph, "Shop/Views/Shared/_Layout.cshtml", "CALLS")  # Shared has no controller


def test_partial_views_reference_the_shared_view(graph):
    refs = out_edges(graph, "Shop/Views/Invoices/Edit.cshtml", "REFERENCES")
    assert refs["file:Shop/Views/Shared/_Row.cshtml|FILE"]["via"] == "partial"


def test_blazor_handlers_call_the_code_behind_not_a_same_named_method(graph):
    view = "Shop/Components/Counter.razor"
    calls = out_edges(graph, view, "CALLS")
    assert set(calls) == {method("Shop.Components.Counter.Save")}
    assert calls[method("Shop.Components.Counter.Save")]["via"] == "@onclick"
    # Increment is declared in the file's own @code block: no edge to Widget.Increment
    assert out_edges(graph, view, "INHERITS")["ext:ComponentBase|EXTERNAL"]["via"] == "@inherits"
    assert out_edges(graph, view, "IMPLEMENTS")["ext:IDisposable|EXTERNAL"]["via"] == "@implements"


def test_generic_models_name_each_type_and_keywords_none():
    from ragstream.index.razor.parser import parse_razor

    parsed = parse_razor("V/Index.cshtml", "@model List<Tuple<string, IEnumerable<Shop.Models.Invoice>>>\n")
    assert [r.target for r in parsed.references if r.attrs["via"] == "@model"] == [
        "List", "Tuple", "IEnumerable", "Shop.Models.Invoice"]
    injected = parse_razor("C/Counter.razor", "@inject ILogger<Counter> Log\n").references
    assert [r.target for r in injected if r.attrs["via"] == "@inject"] == ["ILogger"]  # not itself

