"""Graph expansion, node texts under a budget, context rendering and the offline graph view."""
from __future__ import annotations

import re
from pathlib import Path

import networkx as nx
import pytest

from ragstream.cli import main
from ragstream.errors import PipelineError
from ragstream.graph.node_texts import declarations_of
from ragstream.graph.expansion import ExpansionLimits, expand_dependency_tree, limits_from_settings
from ragstream.graph.node_texts import Budget, budget_from, fetch_node_texts, prioritise, resolved_mode
from ragstream.graph.render import render_context_blocks
from ragstream.graph.view import graph_html, layout
from ragstream.index.build import build_index
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.types import SearchRequest
from ragstream.token_count import token_counter
from tests.conftest import make_settings

ALL_BOTH = {t: "both" for t in ("CALLS", "INHERITS", "IMPLEMENTS", "REFERENCES", "FOREIGN_KEY",
                                "READS", "WRITES", "MAPS_TO")}
NO_FILTERS = RetrievalFilters()
SCOPE = {"repository": "sample_repo", "branch": "default", "retrieval_filters": NO_FILTERS}


@pytest.fixture(scope="module")
def graph(acl_backend):
    return acl_backend.graph("sample_repo", "default", None)


def expand(graph, seeds, depth=1, nodes=100, edges=None, filters=NO_FILTERS):
    return expand_dependency_tree(graph, seeds, filters, ExpansionLimits(depth, nodes, edges or ALL_BOTH))


# --- expansion ------------------------------------------------------------------------------

def test_table_seed_reaches_keys_procedures_and_the_csharp_entity(graph):
    result = expand(graph, ["sql:dbo.Invoices|TABLE"])
    assert set(result.nodes) == {
        "sql:dbo.Invoices|TABLE",
        "sql:dbo.Customers|TABLE", "sql:dbo.InvoiceLines|TABLE", "sql:dbo.Payments|TABLE",  # foreign keys
        "sql:dbo.vw_OpenInvoices|VIEW", "sql:dbo.usp_RecordPayment|PROCEDURE",
        "sql:dbo.usp_GetCustomerInvoices|PROCEDURE", "sql:reporting.refresh_monthly_totals|FUNCTION",
        "sql:dbo.usp_CreateInvoice|PROCEDURE",
        "cs:Billing.Models.Invoice|TYPE",  # MAPS_TO from the EF entity
        "cs:Billing.Data.BillingContext.Invoices|PROPERTY",  # MAPS_TO from the DbSet code reaches it through
        "cs:Billing.Data.BillingContext.OnModelCreating|METHOD",  # configures Invoice: REFERENCES its table
        "cs:Billing.Services.InvoiceService.RecordPayment|METHOD",  # inline SQL
        "cs:Billing.Services.InvoiceService.GetOpenInvoices|METHOD",
        "cs:Billing.Services.InvoiceService.GetCustomerBalance|METHOD",
    }
    assert result.seeds == ["sql:dbo.Invoices|TABLE"] and result.depth["sql:dbo.Customers|TABLE"] == 1
    assert result.parent["cs:Billing.Models.Invoice|TYPE"] == "sql:dbo.Invoices|TABLE"
    assert {"from_id": "cs:Billing.Models.Invoice|TYPE", "to_id": "sql:dbo.Invoices|TABLE",
            "edge_type": "MAPS_TO"} in result.edges
    assert result.debug == {"seed_count": 1, "expanded_count": 14, "edges_count": len(result.edges),
                            "truncated": False, "reason": "ok"}


def test_function_seed_reaches_callers_and_callees(graph):
    seed = "py:billing.service.InvoiceService.record_payment|METHOD"
    result = expand(graph, [seed], edges={"CALLS": "both"})
    assert set(result.nodes) - {seed} == {
        "py:billing.service.AuditedInvoiceService.record_payment|METHOD",  # callers
        "py:billing.cli.main|FUNCTION",
        "py:billing.repository.InvoiceRepository.get|METHOD", "py:billing.repository.InvoiceRepository.save_payment|METHOD",
        "py:billing.service.InvoiceService._validate|METHOD", "py:billing.util.log_event|FUNCTION",
        "py:billing.models.Invoice.balance|METHOD", "py:billing.models.Invoice.mark_paid|METHOD",
    }  # no EXTERNAL node although record_payment calls some
    callers_only = expand(graph, [seed], edges={"CALLS": "in"})
    assert set(callers_only.nodes) == {seed, "py:billing.service.AuditedInvoiceService.record_payment|METHOD",
                                       "py:billing.cli.main|FUNCTION"}


def test_depth_nodes_and_edge_types_limit_the_walk(graph):
    seed = "sql:dbo.Invoices|TABLE"
    assert expand(graph, [seed], depth=0).nodes == [seed]
    keys_only = expand(graph, [seed], depth=3, edges={"FOREIGN_KEY": "both"})
    assert all(n.endswith("|TABLE") for n in keys_only.nodes) and len(keys_only.nodes) == 4
    deep = expand(graph, [seed], depth=2)
    assert max(deep.depth.values()) == 2
    cut = expand(graph, [seed], depth=2, nodes=5)
    assert len(cut.nodes) == 5 and cut.debug["truncated"] and cut.debug["reason"] == "limit_reached"
    # personalised PageRank keeps nodes close to the seed: all kept ones are direct neighbours
    assert all(cut.depth[n] == 1 for n in cut.nodes[1:])
    assert cut.edges and all(e["from_id"] in cut.nodes and e["to_id"] in cut.nodes for e in cut.edges)


def test_hidden_nodes_are_neither_returned_nor_walked_through(graph):
    public = RetrievalFilters.parse({"acl_tags_any": ["public"]})
    assert expand(graph, ["sql:dbo.Invoices|TABLE"], filters=public).debug["reason"] == "no_seeds"
    entity = "cs:Billing.Models.Invoice|TYPE"
    result = expand(graph, [entity], depth=3, edges={"MAPS_TO": "both", "FOREIGN_KEY": "both"}, filters=public)
    assert result.nodes == [entity]  # the table is dba-only, and so is everything behind it
    everyone = expand(graph, [entity], depth=3, edges={"MAPS_TO": "both", "FOREIGN_KEY": "both"})
    assert "sql:dbo.Customers|TABLE" in everyone.nodes


def test_no_seeds_and_unknown_seeds(graph):
    assert expand(graph, []).debug == {"seed_count": 0, "expanded_count": 0, "edges_count": 0,
                                       "truncated": False, "reason": "no_seeds"}
    assert expand(graph, ["py:not.there|FUNCTION"]).debug["reason"] == "no_seeds"


@pytest.mark.parametrize("params, settings, where, message", [
    ({"max_nodes_from_settings": "n", "edge_allowlist_from_settings": "e"}, {"n": 5, "e": []},
     "step x: max_depth_from_settings", "is missing"),
    ({"max_depth_from_settings": "d", "max_nodes_from_settings": "n", "edge_allowlist_from_settings": "e"},
     {"d": 1, "n": 5}, "step x: edge_allowlist_from_settings", "settings have no key 'e'"),
    ({"max_depth_from_settings": "d", "max_nodes_from_settings": "n", "edge_allowlist_from_settings": "e"},
     {"d": -1, "n": 5, "e": []}, "step x: d", "max_depth must be an int >= 0"),
    ({"max_depth_from_settings": "d", "max_nodes_from_settings": "n", "edge_allowlist_from_settings": "e"},
     {"d": 1, "n": 0, "e": []}, "step x: n", "max_nodes must be an int >= 1"),
    ({"max_depth_from_settings": "d", "max_nodes_from_settings": "n", "edge_allowlist_from_settings": "e"},
     {"d": 1, "n": 5, "e": {"CALLS": "sideways"}}, "step x: e", "CALLS: sideways is invalid"),
])
def test_limits_come_only_from_settings(params, settings, where, message):
    with pytest.raises(PipelineError) as error:
        limits_from_settings(params, settings, "x")
    assert error.value.where == where and message in str(error.value)


# --- node texts -----------------------------------------------------------------------------

def test_prioritisation_orders():
    depth = {"g1": 1, "g2": 2, "g3": 1}
    seeds, graph_nodes = ["s1", "s2"], ["g2", "g1", "g3"]
    assert prioritise(seeds, graph_nodes, depth, "seed_first") == ["s1", "s2", "g1", "g3", "g2"]
    assert prioritise(seeds, graph_nodes, depth, "graph_first") == ["g1", "g3", "g2", "s1", "s2"]
    assert prioritise(seeds, graph_nodes, depth, "balanced") == ["s1", "g1", "s2", "g3", "g2"]
    assert prioritise(["s1", "s2", "s3"], ["g1"], depth, "balanced") == ["s1", "g1", "s2", "s3"]
    with pytest.raises(PipelineError, match="unknown prioritization_mode 'random'"):
        prioritise(seeds, graph_nodes, depth, "random")
    # auto: balanced when the graph answered the question, else the search's hits first
    assert resolved_mode("auto", graph_answered=True) == "balanced"
    assert resolved_mode("auto", graph_answered=False) == "seed_first"
    assert resolved_mode("graph_first", graph_answered=False) == "graph_first"
    with pytest.raises(PipelineError, match="choose one of"):
        prioritise(seeds, graph_nodes, depth, "auto")  # resolve it first


def test_budget_is_exact_atomic_and_scans_to_the_end(graph, acl_backend):
    result = expand(graph, ["sql:dbo.Invoices|TABLE"])
    counter = token_counter()
    texts = acl_backend.fetch_texts(result.nodes, **SCOPE)
    queue = prioritise(result.seeds, result.nodes[1:], result.depth, "balanced")
    costs = [counter.count(texts[n]) for n in queue if n in texts]
    ordered = [n for n in queue if n in texts]
    big = max(range(1, len(costs)), key=lambda i: costs[i])
    # Room for everything before the biggest one, plus one smaller snippet after it.
    after = next(i for i in range(big + 1, len(costs)) if costs[i] < costs[big])
    limit = sum(costs[:big]) + costs[after]
    kept, accounting = fetch_node_texts(result.nodes, result.seeds, result.depth, result.parent, acl_backend,
                                        SCOPE, Budget(limit, "tokens"), counter, "balanced")
    kept_ids = [k["id"] for k in kept]
    assert ordered[big] not in kept_ids and ordered[after] in kept_ids  # skipped, and the scan went on
    assert sum(k["tokens"] for k in kept) == accounting["used"] <= limit
    assert all(k["tokens"] == counter.count(k["text"]) for k in kept)
    assert {"id": ordered[big], "cost": costs[big]} in accounting["cut"]
    seed = kept[0]
    assert seed["id"] == "sql:dbo.Invoices|TABLE" and seed["is_seed"] and seed["parent_id"] is None
    graph_item = next(k for k in kept if not k["is_seed"])
    assert graph_item["parent_id"] == "sql:dbo.Invoices|TABLE" and graph_item["depth"] == 1
    assert result.nodes[0] == "sql:dbo.Invoices|TABLE"  # the id lists are never modified


def test_texts_respect_filters(graph, acl_backend):
    result = expand(graph, ["cs:Billing.Models.Invoice|TYPE"], edges={"MAPS_TO": "both"})
    public = {**SCOPE, "retrieval_filters": RetrievalFilters.parse({"acl_tags_any": ["public"]})}
    kept, accounting = fetch_node_texts(result.nodes, result.seeds, result.depth, result.parent, acl_backend,
                                        public, Budget(10_000, "tokens"), token_counter())
    assert [k["id"] for k in kept] == ["cs:Billing.Models.Invoice|TYPE"]
    assert accounting["without_text"] == ["sql:dbo.Invoices|TABLE"]


def test_a_long_node_enters_with_the_parts_the_search_hit(tmp_path):
    """An install script too long for the budget is not dropped: the part the search found goes in."""
    repo = tmp_path / "scripts_repo"
    (repo / "db").mkdir(parents=True)
    lines = [f"INSERT INTO dbo.Audit (Note) VALUES ('ordinary row number {n}');" for n in range(240)]
    lines[170] = "INSERT INTO dbo.Audit (Note) VALUES ('the zebracorn migration marker');"
    (repo / "db" / "install.sql").write_text("CREATE TABLE dbo.Audit (Note NVARCHAR(100));\nGO\n" + "\n".join(lines))
    settings = make_settings(tmp_path / "data", chunks={"max_chunk_tokens": 200})
    build_index(repo, settings)
    backend = LocalBackend(settings)
    scope = {"repository": "scripts_repo", "branch": "default", "retrieval_filters": NO_FILTERS}
    node = "file:db/install.sql|FILE"
    hits = backend.search(SearchRequest("bm25", "zebracorn migration marker", 3, "scripts_repo", "default")).hits
    part = next(h.id for h in hits if h.id.startswith(node + "#p"))
    counter = token_counter()
    whole = counter.count(backend.fetch_texts([node], **scope)[node])
    kept, accounting = fetch_node_texts([node], [node], {node: 0}, {}, backend, scope, Budget(whole // 2, "tokens"),
                                        counter, "seed_first", hit_parts={node: [part]})
    [item] = kept
    assert item["parts"] == [part] and "zebracorn" in item["text"]
    assert item["where"] == backend.locations([part], **scope)[part]
    assert accounting["used"] == item["tokens"] <= whole // 2
    assert accounting["partial"] == [{"id": node, "parts": [part], "whole_cost": whole}] and not accounting["cut"]
    assert "the parts the search found" in render_context_blocks(kept, backend.graph("scripts_repo", "default", None))
    # without the search's parts the node is cut, as before
    kept, accounting = fetch_node_texts([node], [node], {node: 0}, {}, backend, scope, Budget(whole // 2, "tokens"),
                                        counter, "seed_first")
    assert kept == [] and accounting["cut"] == [{"id": node, "cost": whole}]


def test_a_property_or_column_is_evidenced_by_its_declaration(graph, acl_backend):
    result = expand(graph, ["cs:Billing.Models.Invoice|TYPE"], depth=2, edges={"MAPS_TO": "both", "DEFINES": "both"})
    prop, column = "cs:Billing.Models.Invoice.Status|PROPERTY", "sql:dbo.Invoices.Status|COLUMN"
    assert {prop, column} <= set(result.nodes)
    declared = declarations_of(graph, result.nodes)
    assert declared[prop] == graph.nodes[prop]["signature"] and "Status" in declared[column]
    kept, accounting = fetch_node_texts(result.nodes, result.seeds, result.depth, result.parent, acl_backend, SCOPE,
                                        Budget(10_000, "tokens"), token_counter(), declarations=declared)
    items = {k["id"]: k for k in kept}
    assert items[prop]["text"] == declared[prop] and items[prop]["declaration"]
    assert prop not in accounting["without_text"]
    assert "its declaration" in render_context_blocks(kept, graph, layout="flat")
    # a caller who may not see db/ gets no column: the filtered graph declares nothing hidden
    public = acl_backend.graph("sample_repo", "default", RetrievalFilters.parse({"acl_tags_any": ["public"]}))
    assert column not in declarations_of(public, result.nodes)


@pytest.mark.parametrize("params, settings, expected", [
    ({"budget_tokens": 500}, {}, Budget(500, "tokens")),
    ({}, {"max_context_tokens": 1000}, Budget(700, "tokens")),
    ({"max_chars": 2000}, {}, Budget(2000, "chars")),
])
def test_budget_sources(params, settings, expected):
    assert budget_from(params, settings, "fetch") == expected


@pytest.mark.parametrize("params, settings, message", [
    ({"budget_tokens": 5, "max_chars": 10}, {}, "not both"),
    ({}, {}, "max_context_tokens must be a positive int, got None"),
    ({}, {"max_context_tokens": 0}, "max_context_tokens must be a positive int, got 0"),
    ({}, {"max_context_tokens": 1}, "must be a positive int, got 0"),  # floor(0.7) = 0
    ({"budget_tokens": -3}, {}, "must be a positive int, got -3"),
])
def test_budget_errors(params, settings, message):
    with pytest.raises(PipelineError, match=re.escape(message)):
        budget_from(params, settings, "fetch")


# --- rendering and view ---------------------------------------------------------------------

def test_render_flat_and_tree(graph, acl_backend):
    result = expand(graph, ["sql:dbo.Invoices|TABLE"], edges={"FOREIGN_KEY": "both", "MAPS_TO": "both"})
    kept, _ = fetch_node_texts(result.nodes, result.seeds, result.depth, result.parent, acl_backend, SCOPE,
                               Budget(10_000, "tokens"), token_counter())
    flat = render_context_blocks(kept, graph, layout="flat")
    tree = render_context_blocks(kept, graph, result.parent, layout="tree")
    for text in (flat, tree):
        assert all(k["id"] in text for k in kept)
        assert "`db/schema.sql:" in text and "```sql" in text
    assert tree.startswith("- **sql:dbo.Invoices|TABLE**")
    assert "\n  - **cs:Billing.Models.Invoice|TYPE** — `src/Billing/Models/Invoice.cs:" in tree
    assert "this MAPS_TO sql:dbo.Invoices|TABLE" in tree
    with pytest.raises(PipelineError, match="unknown layout"):
        render_context_blocks(kept, graph, layout="mindmap")


def test_tree_is_at_most_three_levels_deep():
    items = [{"id": f"n{i}", "text": "x", "is_seed": i == 0, "depth": i, "parent_id": f"n{i - 1}" if i else None,
              "tokens": 1} for i in range(6)]
    tree = render_context_blocks(items, nx.MultiDiGraph(), layout="tree")
    indents = {len(line) - len(line.lstrip()) for line in tree.splitlines() if line.lstrip().startswith("- **")}
    assert indents == {0, 2, 4}


def test_graph_html_is_self_contained(graph, acl_backend):
    from ragstream.super_prompt import SuperPrompt

    result = expand(graph, ["sql:dbo.Invoices|TABLE"])
    sp = SuperPrompt(graph_seed_nodes=result.seeds, graph_expanded_nodes=result.nodes, graph_edges=result.edges,
                     graph_debug={"depth": result.depth}, node_texts=[{"id": "sql:dbo.Invoices|TABLE"}])
    html = graph_html(graph, sp)
    assert "vis.Network" in html and "sql:dbo.Invoices|TABLE" in html
    assert not re.search(r"<script[^>]*\bsrc=", html, re.I)
    assert not re.search(r"<link[^>]*\bhref=", html, re.I)
    assert "cdn.jsdelivr" not in html and "node_modules" not in html  # what pyvis' template links
    assert '"borderDashes": [4, 3]' in html  # cut nodes look different from those in the context
    assert 'class="ragstream-legend"' in html and "★ seed" in html  # a legend over the drawing
    assert re.search(r'"label": "(?:\\u2605|★) Invoices"', html)  # a seed is starred, by its short name
    # laid out here, deterministically: the browser runs no physics on a redraw
    assert '"physics": {"enabled": false}' in html
    positions = layout(result.nodes, result.edges)
    assert set(positions) == set(result.nodes) and positions == layout(result.nodes, result.edges)
    assert f'"x": {positions["sql:dbo.Invoices|TABLE"][0]}' in html


def test_cli_expand(acl_backend, tmp_path: Path, capsys):
    config = tmp_path / "cli.yaml"
    config.write_text(f"index:\n  data_dir: {acl_backend.settings.index.data_dir}\n")
    out_html = tmp_path / "graph.html"
    assert main(["--config", str(config), "expand", "customer invoices balance", "--top-k", "2",
                 "--max-context-tokens", "430", "--html", str(out_html), "--show-context"]) == 0
    out = capsys.readouterr().out
    assert "step retrieve (retrieve): ok" in out and re.search(r"step expand \(expand\): (?:ok|limit_reached)", out)
    assert re.search(r"budget: \d+ of 301 tokens used", out) and "tokens]" in out and "- **" in out
    assert out_html.read_text().count("vis.Network") >= 1


# --- the actions on the state ---------------------------------------------------------------

def test_expand_and_fetch_actions_write_only_their_fields(acl_backend):
    from dataclasses import asdict

    from ragstream.stages.expand import expand_graph, fill_node_texts
    from ragstream.super_prompt import SuperPrompt

    sp = SuperPrompt(repository="sample_repo", branch="default", retrieval_filters={"acl_tags_any": ["public"]},
                     retrieval_seed_nodes=["py:billing.service.InvoiceService.record_payment|METHOD",
                                           "sql:dbo.Invoices|TABLE"])  # the table is hidden from this caller
    before = asdict(sp)
    settings = {"d": 1, "n": 20, "e": {"CALLS": "both"}, "max_context_tokens": 400}
    step = {"id": "expand", "max_depth_from_settings": "d", "max_nodes_from_settings": "n",
            "edge_allowlist_from_settings": "e"}
    assert expand_graph(sp, acl_backend, step, settings) == "ok"
    assert sp.graph_seed_nodes == ["py:billing.service.InvoiceService.record_payment|METHOD"]
    assert sp.graph_expanded_nodes[0] == sp.graph_seed_nodes[0] and len(sp.graph_expanded_nodes) == 9
    assert {"seed_count", "expanded_count", "edges_count", "truncated", "reason"} <= set(sp.graph_debug)
    assert fill_node_texts(sp, acl_backend, token_counter(), {"id": "fetch"}, settings) == "ok"
    assert sum(t["tokens"] for t in sp.node_texts) <= 280 and sp.budget["node_texts"]["budget"] == 280
    changed = {k for k, v in asdict(sp).items() if v != before[k]}
    assert changed == {"graph_seed_nodes", "graph_expanded_nodes", "graph_edges", "graph_debug", "node_texts", "budget"}


def test_a_constructor_seed_stands_for_its_type_once(acl_backend):
    from ragstream.stages.expand import expand_graph
    from ragstream.super_prompt import SuperPrompt

    ctor, service = "cs:Billing.Services.InvoiceService.InvoiceService|METHOD", "cs:Billing.Services.InvoiceService|TYPE"
    sp = SuperPrompt(repository="sample_repo", branch="default", retrieval_filters={"acl_tags_any": ["public"]},
                     views_by_stage={"relate": [service]}, retrieval_seed_nodes=[ctor])
    step = {"id": "expand", "max_depth_from_settings": "d", "max_nodes_from_settings": "n",
            "edge_allowlist_from_settings": "e"}
    expand_graph(sp, acl_backend, step, {"d": 0, "n": 20, "e": {"CALLS": "both"}})
    assert sp.graph_seed_nodes == [service]  # the constructor beside its type repeats it
    sp.views_by_stage = {}
    expand_graph(sp, acl_backend, step, {"d": 0, "n": 20, "e": {"CALLS": "both"}})
    assert sp.graph_seed_nodes == [service]  # alone, it is named by its type


def test_an_interface_member_beside_its_implementation_is_not_a_seed_again(acl_backend):
    from ragstream.stages.expand import expand_graph
    from ragstream.super_prompt import SuperPrompt

    declared = "cs:Billing.Services.IInvoiceService.RecordPayment|METHOD"
    code, other = "cs:Billing.Services.InvoiceService.RecordPayment|METHOD", "cs:Billing.Services.IInvoiceService.CreateInvoice|METHOD"
    sp = SuperPrompt(repository="sample_repo", branch="default", retrieval_filters={"acl_tags_any": ["public"]},
                     retrieval_seed_nodes=[declared, other, code])
    step = {"id": "expand", "max_depth_from_settings": "d", "max_nodes_from_settings": "n",
            "edge_allowlist_from_settings": "e"}
    expand_graph(sp, acl_backend, step, {"d": 0, "n": 20, "e": {"CALLS": "both"}})
    # its implementation is a seed; the other declaration's (`CreateInvoice`) is not
    assert sp.graph_seed_nodes == [other, code]
    sp.retrieval_seed_nodes = [declared]
    expand_graph(sp, acl_backend, step, {"d": 0, "n": 20, "e": {"CALLS": "both"}})
    assert sp.graph_seed_nodes == [declared]  # alone, the declaration is what was found


def test_the_backend_hands_out_only_visible_nodes(acl_backend):
    public = acl_backend.graph("sample_repo", "default", {"acl_tags_any": ["public"]})
    assert "py:billing.util.log_event|FUNCTION" in public and "sql:dbo.Invoices|TABLE" not in public
    assert not any(v.startswith("sql:") for _, v in public.edges())
    assert "ext:logging.getLogger|EXTERNAL" not in public  # no labels: hidden once labels are filtered


def test_a_library_name_only_hidden_code_uses_is_hidden_too(acl_backend):
    """Found by the leak property test: an EXTERNAL node stayed in the view once every node
    using it was excluded, so `dbo.AuditLog` (named only in db/) was still there to be found."""
    no_db = acl_backend.graph("sample_repo", "default", {"paths_exclude": ["db/**"]})
    assert "ext:dbo.AuditLog|EXTERNAL" not in no_db
    assert "ext:logging.getLogger|EXTERNAL" in no_db  # billing/util.py, visible, still uses it
    no_cli = acl_backend.graph("sample_repo", "default", {"paths_exclude": ["billing/cli.py"]})
    assert "ext:sqlite3.connect|EXTERNAL" not in no_cli and "ext:decimal.Decimal|EXTERNAL" in no_cli


def test_namespaces_are_not_walked_through(graph):
    """A namespace node is shared by every file declaring it: no path through it."""
    result = expand(graph, ["cs:Billing.Models.Payment|TYPE"], depth=3, edges={"DEFINES": "both"})
    assert result.nodes == ["cs:Billing.Models.Payment|TYPE"]


# --- graph re-ranking ---------------------------------------------------------------------------

def _chain_graph() -> nx.MultiDiGraph:
    """a -> b -> c calls, d alone; every node a visible FUNCTION."""
    g = nx.MultiDiGraph()
    for n in "abcd":
        g.add_node(n, kind="FUNCTION", path=f"{n}.py", language="python", acl={})
    for u, v in (("a", "b"), ("b", "c")):
        g.add_edge(u, v, key="CALLS", type="CALLS")
    return g


def test_graph_rerank_lifts_the_hits_the_best_hits_call_and_finds_unretrieved_neighbours():
    from ragstream.graph.ranking import graph_reranked

    limits = ExpansionLimits(max_depth=1, max_nodes=40, edges={"CALLS": "both"})
    hits = [("a", 1.0), ("d", 0.9), ("b", 0.1)]
    plain = graph_reranked(_chain_graph(), hits, RetrievalFilters(), limits, seeds=2, weight=0.0)
    assert [n for n, _ in plain] == ["a", "d", "b"]  # weight 0: the retrieval order
    ranked = dict(graph_reranked(_chain_graph(), hits, RetrievalFilters(), limits, seeds=2, weight=1.0))
    assert ranked["b"] > 0.0  # the last hit, lifted because the best hit calls it
    assert "c" not in ranked  # two hops from the seeds, beyond max_depth 1
    seeds_only = [("a", 1.0), ("d", 0.9)]
    found = dict(graph_reranked(_chain_graph(), seeds_only, RetrievalFilters(), limits, seeds=2, weight=1.0))
    assert found["b"] > 0.0  # no search found b; the best hit's call edge does
    hidden = graph_reranked(_chain_graph(), seeds_only, RetrievalFilters(paths_exclude=("b.py",)), limits, 2, 1.0)
    assert "b" not in dict(hidden)  # a hidden node is never walked to


def test_graph_rerank_splits_a_call_site_among_its_possible_callees():
    """`self.get_source()` in a base class reaches three overrides from one line, `helper()` one
    function from another: one call runs one override, so each weighs a third of the helper."""
    from ragstream.graph.ranking import graph_reranked

    g = nx.MultiDiGraph()
    for n in ("load", "helper", "o1", "o2", "o3"):
        g.add_node(n, kind="FUNCTION", path=f"{n}.py", language="python", acl={})
    for override in ("o1", "o2", "o3"):
        g.add_edge("load", override, key="CALLS", type="CALLS", line=10, resolution="dispatch")
    g.add_edge("load", "helper", key="CALLS", type="CALLS", line=11, resolution="static")
    limits = ExpansionLimits(max_depth=1, max_nodes=40, edges={"CALLS": "both"})
    ranked = dict(graph_reranked(g, [("load", 1.0)], RetrievalFilters(), limits, seeds=1, weight=1.0))
    assert ranked["helper"] > ranked["o1"] == ranked["o2"] == ranked["o3"] > 0.0


def test_graph_rerank_does_not_lift_a_module_for_what_it_calls_at_import():
    """A module that decorates or registers the three hits at import time calls each of them,
    once; the helper the best hit calls at run time says more about the question."""
    from ragstream.graph.ranking import graph_reranked

    g = nx.MultiDiGraph()
    g.add_node("m", kind="MODULE", path="m.py", language="python", acl={})
    for n in ("f1", "f2", "f3", "helper"):
        g.add_node(n, kind="FUNCTION", path="m.py", language="python", acl={})
    for line, f in enumerate(("f1", "f2", "f3"), start=1):
        g.add_edge("m", f, key="CALLS", type="CALLS", line=line, resolution="static")
    g.add_edge("f1", "helper", key="CALLS", type="CALLS", line=20, resolution="static")
    limits = ExpansionLimits(max_depth=1, max_nodes=40, edges={"CALLS": "both"})
    ranked = dict(graph_reranked(g, [("f1", 1.0), ("f2", 0.9), ("f3", 0.8)], RetrievalFilters(), limits,
                                 seeds=3, weight=1.0))
    assert ranked["helper"] > ranked.get("m", 0.0)


def test_reached_nodes_are_ordered_by_how_specifically_they_belong_to_the_seeds():
    """A helper only the seed calls comes before a hub every method calls, and a second overload
    (or a template-schema copy of a table) comes after the first of its name."""
    g = nx.MultiDiGraph()

    def node(node_id, name, kind="METHOD", language="csharp"):
        g.add_node(node_id, kind=kind, name=name, path="x.cs", language=language, acl={})

    node("seed", "App.Controller.Show")
    node("hub", "App.Db.Query(string)")
    node("hub2", "App.Db.Query(string,int)")
    node("helper", "App.Tracker.TrackView")
    node("t1", "dbo.Views", kind="TABLE", language="sql")
    node("t2", "$(Schema).Views", kind="TABLE", language="sql")
    for target in ("hub", "hub2", "helper", "t1", "t2"):
        g.add_edge("seed", target, key="CALLS" if target[0] != "t" else "WRITES")
    for i in range(20):  # everybody calls the data-access overloads
        node(f"other{i}", f"App.Other{i}.Run")
        g.add_edge(f"other{i}", "hub", key="CALLS")
        g.add_edge(f"other{i}", "hub2", key="CALLS")
    result = expand_dependency_tree(g, ["seed"], RetrievalFilters(), ExpansionLimits(
        max_depth=1, max_nodes=10, edges={"CALLS": "out", "WRITES": "out"}))
    assert result.nodes[:2] == ["seed", "helper"]
    order = result.nodes
    assert order.index("t1") < order.index("hub") < order.index("hub2")
    assert order.index("t1") < order.index("t2") and order.index("hub2") > order.index("t2")


def test_an_implementation_a_call_dispatched_to_goes_before_the_declaration_it_went_through():
    from ragstream.index.csharp.parser import parse_csharp
    from ragstream.index.graph_build import build_graph
    code = """
namespace Shop;
public interface IStore { void Save(int id); }
public class SqlStore : IStore { public void Save(int id) { } }
public class Service
{
    private readonly IStore _store;
    public Service(IStore store) { _store = store; }
    public void Run() { _store.Save(1); }
}
"""
    built, _ = build_graph([parse_csharp("Shop.cs", code)])
    declared, implemented = "cs:Shop.IStore.Save|METHOD", "cs:Shop.SqlStore.Save|METHOD"
    assert {d.get("via") for _, t, d in built.out_edges("cs:Shop.Service.Run|METHOD", data=True)
            if t == implemented} == {declared}  # the dispatched call says what it went through
    nodes = expand(built, ["cs:Shop.Service.Run|METHOD"], edges={"CALLS": "out"}).nodes
    assert nodes.index(implemented) < nodes.index(declared)
