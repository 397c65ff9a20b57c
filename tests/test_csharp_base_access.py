"""`base.Member(...)` (`index/graph_build._link_call`): to a package base's member, an EXTERNAL
`Base.Member` (C#'s base access runs the base class's member), so an MVC controller whose base
overrides `View` still reads as one that returns views (`graph/entry_faces`); to a repository
base's member, that method itself."""
from __future__ import annotations

from ragstream.graph.entry_faces import PAGE, entry_face
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

CODE = """
using Microsoft.AspNetCore.Mvc;
namespace App.Controllers
{
    public class BaseController : Controller
    {
        public override ViewResult View(object model) { Notify(); return base.View(model); }
        protected void Notify() { }
    }
    public class QuietController : BaseController { public void Hello() { base.Notify(); } }
    public class ClientsController : BaseController
    {
        [HttpPost]
        public IActionResult Client(int id) { return View(id); }
    }
}
"""


def test_a_base_access_to_a_package_base_is_that_bases_member_and_one_to_the_repositorys_its_method():
    graph, _ = build_graph([parse_csharp("Controllers.cs", CODE)])
    calls = {target: data for _, target, key, data in
             graph.out_edges("cs:App.Controllers.BaseController.View|METHOD", keys=True, data=True) if key == "CALLS"}
    assert calls["ext:Controller.View|EXTERNAL"]["via"] == "external_base"
    hello = {target: data for _, target, key, data in
             graph.out_edges("cs:App.Controllers.QuietController.Hello|METHOD", keys=True, data=True) if key == "CALLS"}
    assert set(hello) == {"cs:App.Controllers.BaseController.Notify|METHOD"}
    assert hello["cs:App.Controllers.BaseController.Notify|METHOD"]["resolution"] == "static"
    assert entry_face(graph, "cs:App.Controllers.ClientsController.Client|METHOD") == PAGE
