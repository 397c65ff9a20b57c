"""The retrieval backend's contract: requests, modes, RRF, filters, rerankers, fetch_texts."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ragstream.cli import main
from ragstream.errors import ConfigError, IndexLoadError, RetrievalError
from ragstream.index import store
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.fusion import fuse, ranks_of
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.stages.search_nodes import parse_router_payload, search_nodes
from ragstream.retrieval.types import SearchRequest
from ragstream.super_prompt import SuperPrompt
from tests.conftest import make_settings
from ragstream.eval.synthetic_index import Row, write_synthetic_index

def request(query="record a payment", mode="semantic", top_k=5, **kw):
    kw.setdefault("repository", "sample_repo")
    kw.setdefault("branch", "default")
    return SearchRequest(mode, query, top_k, **kw)


# --- requests -------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, where, message", [
    ({"search_type": "fuzzy"}, "search_type", "unknown search_type 'fuzzy'"),
    ({"query": "  "}, "query", "query is empty"),
    ({"top_k": 0}, "top_k", "top_k must be an int >= 1"),
    ({"top_k": True}, "top_k", "top_k must be an int >= 1"),
    ({"top_k": "5"}, "top_k", "top_k must be an int >= 1"),
    ({"rerank": "magic"}, "rerank", "unknown rerank 'magic'"),
    ({"search_type": "bm25", "rerank": "keyword_rerank"}, "rerank", "works on semantic search only"),
    ({"search_type": "hybrid", "rerank": "cross_encoder"}, "rerank", "works on semantic search only"),
    ({"repository": ""}, "repository", "repository is missing or empty"),
    ({"branch": None}, "branch", "branch is missing or empty"),
    ({"retrieval_filters": {"acl_tag": ["x"]}}, "retrieval_filters", "unknown filter(s) ['acl_tag']"),
    ({"retrieval_filters": {"kinds": "FUNCTION"}}, "retrieval_filters.kinds", "must be a list of strings"),
])
def test_bad_requests_fail_fast_naming_the_field(kwargs, where, message):
    fields = {"search_type": "semantic", "query": "q", "top_k": 3, "repository": "r", "branch": "b", **kwargs}
    with pytest.raises(RetrievalError) as error:
        SearchRequest(**fields)
    assert error.value.where == where and message in str(error.value)


def test_scope_must_match_the_index(acl_backend):
    with pytest.raises(RetrievalError, match="holds branch 'default', not 'main'"):
        acl_backend.search(request(branch="main", active_index="default"))
    with pytest.raises(IndexLoadError, match="no such index"):
        acl_backend.search(request(repository="other_repo"))
    with pytest.raises(RetrievalError, match="branch is missing"):
        acl_backend.fetch_texts(["x"], "sample_repo", "", None)


# --- modes and fusion -----------------------------------------------------------------------

def rrf(semantic: list[str], bm25: list[str], rrf_k: int = 60):
    """Plain RRF of a semantic and a bm25 ranking, equally weighted."""
    return fuse({"semantic": ranks_of(semantic), "bm25": ranks_of(bm25)}, rrf_k)


def test_rrf_scores_by_hand():
    fused = rrf(["a", "b", "c"], ["c", "a", "d"], rrf_k=60)
    assert [cid for cid, _, _ in fused] == ["a", "c", "b", "d"]
    scores = {cid: score for cid, score, _ in fused}
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["b"] == pytest.approx(1 / 62) and scores["d"] == pytest.approx(1 / 63)
    assert fused[0][2] == {"semantic": 1, "bm25": 2}


def test_rrf_ties_go_to_the_lower_semantic_rank_then_id():
    # x and y: 1/61 + 1/62 each; x is semantic #1.
    assert [c for c, _, _ in rrf(["x", "y"], ["y", "x"], rrf_k=60)] == ["x", "y"]
    # p only semantic #1, q only bm25 #1: equal scores, p has a semantic rank.
    assert [c for c, _, _ in rrf(["p"], ["q"])] == ["p", "q"]
    # same score from mirrored ranks among ids missing from semantic -> bm25 rank, then id.
    assert [c for c, _, _ in rrf([], ["m", "n"])] == ["m", "n"]


@pytest.mark.parametrize("rrf_k", [0, -1, True, 1.5])
def test_rrf_k_must_be_a_positive_int(rrf_k):
    with pytest.raises(RetrievalError, match="rrf_k must be an int >= 1"):
        rrf(["a"], ["b"], rrf_k=rrf_k)


def test_modes_find_the_payment_code(acl_backend):
    for mode in ("semantic", "bm25", "hybrid"):
        hits = acl_backend.search(request("record_payment invoice amount", mode, top_k=5)).hits
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
        assert any("record_payment" in h.id or "RecordPayment" in h.id for h in hits), mode
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
    hybrid = acl_backend.search(request("record_payment invoice amount", "hybrid", top_k=5)).hits
    assert all(set(h.sources) <= {"semantic", "bm25", "mentions"} and h.sources for h in hybrid)


def test_results_are_deterministic(acl_backend):
    for mode in ("semantic", "bm25", "hybrid"):
        first = acl_backend.search(request("customer balance", mode, top_k=8)).hits
        assert acl_backend.search(request("customer balance", mode, top_k=8)).hits == first


# --- security filters -----------------------------------------------------------------------

def test_acl_tags_come_from_the_index_policy(acl_backend):
    dba = acl_backend.search(request("invoices table", "bm25", 50, retrieval_filters={"acl_tags_any": ["dba"]})).hits
    assert dba and all(h.id.startswith(("sql:", "file:db/")) for h in dba)
    public = acl_backend.search(request("invoices table", "bm25", 50, retrieval_filters={"acl_tags_any": ["public"]})).hits
    assert public and not any(h.id.startswith(("sql:", "file:db/")) for h in public)
    nobody = acl_backend.search(request("invoices", "hybrid", 50, retrieval_filters={"acl_tags_any": []}))
    assert nobody.hits == [] and nobody.debug["visible_rows"] == 0


@pytest.mark.parametrize("filters, allowed", [
    ({"classification_labels_all": ["confidential"]}, lambda i: i.startswith(("sql:", "file:db/"))),
    ({"paths_include": ["billing/"]}, lambda i: i.startswith(("py:billing", "file:billing/"))),
    # anchored: an exclusion matches in any case, and a bare `billing/` would take src/Billing/ too
    ({"paths_exclude": ["/billing/", "db/"]}, lambda i: not i.startswith(("py:", "sql:", "file:billing/", "file:db/"))),
    ({"paths_exclude": ["billing/"]}, lambda i: not i.startswith(("py:billing", "file:billing/", "cs:Billing",
                                                                  "file:src/Billing/"))),
    ({"kinds": ["METHOD"]}, lambda i: i.endswith("|METHOD")),
    ({"languages": ["csharp"]}, lambda i: i.startswith(("cs:", "file:src/"))),
    ({"kinds": ["TABLE"], "acl_tags_any": ["public"]}, lambda i: False),
])
def test_every_mode_and_fetch_respect_filters(acl_backend, filters, allowed):
    for mode in ("semantic", "bm25", "hybrid"):
        response = acl_backend.search(request("invoice payment customer table", mode, 20, retrieval_filters=filters))
        assert all(allowed(h.id) for h in response.hits), (mode, [h.id for h in response.hits])
    everything = acl_backend.search(request("invoice payment customer table", "semantic", 500)).hits
    texts = acl_backend.fetch_texts([h.id for h in everything] + ["py:no.such|FUNCTION"], "sample_repo",
                                    "default", filters)
    assert set(texts) == {h.id for h in everything if allowed(h.id)}


def test_filtered_search_fills_top_k_when_one_percent_is_visible(tmp_path: Path):
    rows = [Row(f"py:m.f{i}|FUNCTION", f"def f{i}(): return compute_total({i})",
                acl_tags=("rare",) if i % 100 == 7 else ("public",)) for i in range(3000)]
    write_synthetic_index(tmp_path / "data", rows)
    backend = LocalBackend(make_settings(tmp_path / "data"))
    for mode in ("semantic", "bm25", "hybrid"):
        hits = backend.search(SearchRequest(mode, "compute total", 10, "synth", "main",
                                            {"acl_tags_any": ["rare"]})).hits
        assert len(hits) == 10 and all(int(h.id.split(".f")[1].split("|")[0]) % 100 == 7 for h in hits), mode


def test_hybrid_first_hits_do_not_depend_on_how_many_are_asked(tmp_path: Path):
    # RRF over sources ranked to different depths orders the same chunks differently; a fixed
    # fusion depth makes a short request the prefix of a long one (the pipeline's retrieve, which
    # asks N1 candidates, and a plain search agree on what comes first).
    rows = [Row(f"py:m.f{i}|FUNCTION", f"def f{i}(): return {'compute total ' * (i % 7)}{'tax rate ' * (i % 5)}"
                f"ledger_{i % 13}") for i in range(300)]
    write_synthetic_index(tmp_path / "data", rows)
    backend = LocalBackend(make_settings(tmp_path / "data"))
    for query in ("compute total", "tax rate ledger_3", "total tax", "ledger_7 compute"):
        longest = [h.id for h in backend.search(SearchRequest("hybrid", query, 100, "synth", "main")).hits]
        for top_k in (3, 8, 40):
            assert [h.id for h in backend.search(SearchRequest("hybrid", query, top_k, "synth", "main")).hits] == \
                longest[:top_k], (query, top_k)

def test_filters_can_only_be_narrowed():
    base = RetrievalFilters.parse({"acl_tags_any": ["public", "dev"], "paths_exclude": ["secret/"]})
    extra = RetrievalFilters.parse({"acl_tags_any": ["dev", "admin"], "paths_exclude": ["tmp/"], "kinds": ["METHOD"]})
    merged = base.narrowed_by(extra)
    assert merged.allows(["dev"], [], "src/a.py", "METHOD", "python")
    assert not merged.allows(["admin"], [], "src/a.py", "METHOD", "python")  # never widened to admin
    assert not merged.allows(["public"], [], "src/a.py", "METHOD", "python")  # extra requires dev/admin
    assert not merged.allows(["dev"], [], "secret/a.py", "METHOD", "python")
    assert not merged.allows(["dev"], [], "tmp/a.py", "METHOD", "python")
    assert not merged.allows(["dev"], [], "src/a.py", "FUNCTION", "python")


def test_a_router_payload_cannot_lift_a_negated_glob(acl_backend):
    """Regression: merging glob lists dropped the caller's `!db/**` and leaked every table."""
    sp = state(retrieval_filters={"paths_include": ["**", "!db/**"]})
    payload = '{"query": "invoice table", "filters": {"paths_include": ["**"]}}'
    search_nodes(sp, acl_backend, {"id": "r", "top_k": 50}, {}, query=payload, parse_query=True)
    assert sp.retrieval_seed_nodes and not any(i.startswith(("sql:", "file:db/")) for i in sp.retrieval_seed_nodes)


@pytest.mark.parametrize("filters, message", [
    ({"kinds": 5}, "must be a list of strings, got 5"),
    ({"kinds": {"METHOD": 1}}, "must be a list of strings"),
    ({"paths_include": ["!"]}, "invalid path glob"),
])
def test_malformed_filters_are_errors(filters, message):
    with pytest.raises(RetrievalError, match=message):
        RetrievalFilters.parse(filters)


# --- BM25 artifact missing ------------------------------------------------------------------

def test_missing_bm25_fails_fast_or_falls_back(tmp_path: Path):
    location = write_synthetic_index(tmp_path / "data", [Row(f"py:m.f{i}|FUNCTION", f"def f{i}(): pass") for i in range(5)])
    shutil.rmtree(store.current_generation(location) / store.BM25_DIR)
    strict = LocalBackend(make_settings(tmp_path / "data"))
    with pytest.raises(RetrievalError) as error:
        strict.search(SearchRequest("hybrid", "f1", 3, "synth", "main"))
    assert "no BM25 files" in str(error.value) and "retrieval.bm25_missing" in str(error.value)
    lenient = LocalBackend(make_settings(tmp_path / "data", retrieval={"bm25_missing": "semantic"}))
    response = lenient.search(SearchRequest("bm25", "f1", 3, "synth", "main"))
    assert response.debug["fallback"] == "bm25 -> semantic: the BM25 files are missing"
    assert len(response.hits) == 3


# --- rerankers ------------------------------------------------------------------------------

def test_keyword_rerank_only_reorders_widened_candidates(acl_backend):
    top_k = 3
    candidates = {h.id for h in acl_backend.search(request("log payment event", top_k=top_k * 6)).hits}
    response = acl_backend.search(request("log payment event", top_k=top_k, rerank="keyword_rerank"))
    assert len(response.hits) == top_k and {h.id for h in response.hits} <= candidates
    assert response.debug["rerank_candidates"] == len(candidates)


def test_cross_encoder_without_a_model_names_the_setting_and_fallback(acl_backend):
    with pytest.raises(ConfigError) as error:
        acl_backend.search(request(rerank="cross_encoder"))
    assert error.value.where == "retrieval.cross_encoder_model" and "keyword_rerank" in str(error.value)


def test_cross_encoder_from_a_local_folder(tmp_path: Path, acl_backend):
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from ragstream import offline

    folder = tmp_path / "tiny-cross-encoder"
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, num_labels=1)
    BertForSequenceClassification(config).save_pretrained(folder)  # random weights, real code path
    AutoTokenizer.from_pretrained(offline.embedding_model_path()).save_pretrained(folder)
    backend = LocalBackend(make_settings(Path(acl_backend.settings.index.data_dir),
                                         retrieval={"cross_encoder_model": str(folder)}))
    candidates = {h.id for h in backend.search(request("invoice", top_k=12)).hits}
    hits = backend.search(request("invoice", top_k=2, rerank="cross_encoder")).hits
    assert len(hits) == 2 and {h.id for h in hits} <= candidates


# --- command line ---------------------------------------------------------------------------

def test_cli_search_prints_ranked_rows(acl_backend, capsys):
    data = acl_backend.settings.index.data_dir
    config = Path(data).parent / "cli.yaml"
    config.write_text(f"index:\n  data_dir: {data}\n")
    assert main(["--config", str(config), "search", "record payment", "--mode", "bm25", "--top-k", "3",
                 "--filter", "acl_tags_any=public", "--filter", "kinds=METHOD,FUNCTION"]) == 0
    out = capsys.readouterr().out
    assert "bm25 search" in out and "visible_rows" in out and "bm25 #1" in out
    assert main(["--config", str(config), "search", "x", "--filter", "kinds"]) == 2
    assert "expected KEY=V1,V2" in capsys.readouterr().err


# --- search_nodes ---------------------------------------------------------------------------

def state(**kw) -> SuperPrompt:
    fields = {"repository": "sample_repo", "branch": "default", "retrieval_mode": "hybrid",
              "retrieval_query": "record payment on an invoice", "retrieval_filters": {"acl_tags_any": ["public"]}}
    return SuperPrompt(**{**fields, **kw})


def test_search_nodes_clears_then_writes_ids_in_rank_order(acl_backend):
    sp = state(graph_seed_nodes=["old"], node_texts=[{"id": "old", "text": "stale"}], S_CTX_MD="stale",
               base_context_chunks=[], views_by_stage={"retrieve": ["old"]}, graph_debug={"reason": "ok"})
    search_nodes(sp, acl_backend, {"id": "retrieve", "top_k": 4}, {})
    assert sp.graph_seed_nodes == [] and sp.node_texts == [] and sp.S_CTX_MD == "" and sp.graph_debug == {}
    assert sp.views_by_stage == {}
    assert sp.retrieval_seed_nodes == [h["id"] for h in sp.retrieval_hits]
    assert [h["rank"] for h in sp.retrieval_hits] == [1, 2, 3, 4]
    assert all(set(h) == {"id", "score", "rank", "sources"} for h in sp.retrieval_hits)  # never text
    assert sp.retrieval_filters == {"acl_tags_any": ["public"]}


def test_search_nodes_top_k_from_step_or_settings(acl_backend):
    sp = state()
    assert len(search_nodes(sp, acl_backend, {"id": "r"}, {"top_k": 2}).retrieval_hits) == 2
    assert len(search_nodes(sp, acl_backend, {"id": "r", "top_k": 3}, {"top_k": 2}).retrieval_hits) == 3
    with pytest.raises(RetrievalError) as error:
        search_nodes(sp, acl_backend, {"id": "retrieve_1"}, {})
    assert error.value.where == "step retrieve_1: top_k"


@pytest.mark.parametrize("fields, where", [
    ({"repository": ""}, "repository"), ({"branch": ""}, "branch"),
    ({"retrieval_query": "  "}, "search_nodes.query"), ({"retrieval_mode": ""}, "step r: mode"),
])
def test_search_nodes_requires_scope_query_and_mode(acl_backend, fields, where):
    with pytest.raises(RetrievalError) as error:
        search_nodes(state(**fields), acl_backend, {"id": "r", "top_k": 3}, {})
    assert error.value.where == where


@pytest.mark.parametrize("payload", [
    '{"query": "invoice payment", "filters": {"kinds": ["METHOD"]}}',
    "{query: 'invoice payment', filters: {kinds: [METHOD]}}",
])
def test_router_payload_filters_only_narrow(acl_backend, payload):
    sp = search_nodes(state(), acl_backend, {"id": "r", "top_k": 10}, {}, query=payload, parse_query=True)
    assert sp.retrieval_seed_nodes and all(i.endswith("|METHOD") for i in sp.retrieval_seed_nodes)
    # A payload asking for the dba tag cannot widen a public-only caller: it sees nothing.
    widen = '{"query": "invoices table", "filters": {"acl_tags_any": ["dba"]}}'
    assert search_nodes(state(), acl_backend, {"id": "r", "top_k": 10}, {}, query=widen,
                        parse_query=True).retrieval_seed_nodes == []
    assert parse_router_payload("plain words").query == "plain words"
    with pytest.raises(RetrievalError, match="mapping with `query`"):
        parse_router_payload('{"q": "x"}')


def test_one_backend_serves_several_indexes(tmp_path: Path):
    data = tmp_path / "data"
    write_synthetic_index(data, [Row("py:a.alpha|FUNCTION", "alpha ledger")], repository="repo_a")
    write_synthetic_index(data, [Row("py:b.beta|FUNCTION", "beta ledger")], repository="repo_b", branch="dev")
    backend = LocalBackend(make_settings(data))
    assert [h.id for h in backend.search(SearchRequest("bm25", "ledger", 5, "repo_a", "main")).hits] == ["py:a.alpha|FUNCTION"]
    assert [h.id for h in backend.search(SearchRequest("bm25", "ledger", 5, "repo_b", "dev")).hits] == ["py:b.beta|FUNCTION"]
    assert backend.fetch_texts(["py:a.alpha|FUNCTION"], "repo_b", "dev", None) == {}  # other scope


def test_fetch_chunks_visible_unique_and_whole(acl_backend):
    ids = ["py:billing.util.log_event|FUNCTION", "sql:dbo.Invoices|TABLE", "py:billing.util.log_event|FUNCTION"]
    public = acl_backend.fetch_chunks(ids, "sample_repo", "default", {"acl_tags_any": ["public"]})
    assert [c.id for c in public] == ["py:billing.util.log_event|FUNCTION"]
    everyone = acl_backend.fetch_chunks(ids, "sample_repo", "default", None)
    assert [c.id for c in everyone] == ids[:2] and everyone[1].path == "db/schema.sql"


# --- mentions and file evidence ---------------------------------------------------------------

def test_weighted_fusion_by_hand():
    from ragstream.retrieval.fusion import fuse

    fused = fuse({"semantic": {"a": 1, "b": 2}, "bm25": {"b": 1}, "mentions": {"c": 1, "a": 1}}, rrf_k=10,
                 weights={"mentions": 2.0})
    scores = {cid: score for cid, score, _ in fused}
    assert scores["a"] == pytest.approx(1 / 11 + 2 / 11) and scores["b"] == pytest.approx(1 / 12 + 1 / 11)
    assert scores["c"] == pytest.approx(2 / 11)
    assert [cid for cid, _, _ in fused] == ["a", "c", "b"]


def test_file_evidence_lifts_the_hits_of_a_file_many_hits_point_to():
    from ragstream.retrieval.fusion import with_file_evidence

    fused = [("lone", 1.0, {}), ("f1", 0.9, {}), ("f2", 0.8, {}), ("f3", 0.7, {})]
    path = {"lone": "a.py", "f1": "b.py", "f2": "b.py", "f3": "b.py"}.get
    lifted = with_file_evidence(fused, path, 0.5, per_file=2)
    assert [cid for cid, _, _ in lifted] == ["f1", "f2", "f3", "lone"]
    assert [score for _, score, _ in lifted] == pytest.approx([0.9 + 0.5 * 1.7, 0.8 + 0.5 * 1.7, 0.7 + 0.5 * 1.7, 1.5])
    assert with_file_evidence(fused, path, 0.0, per_file=2) == fused
    # the parts of one split function are one piece of evidence, not two
    node = {"lone": "a", "f1": "f", "f2": "f", "f3": "g"}.get
    parts = with_file_evidence(fused, path, 0.5, per_file=2, node_of=node)
    assert [score for _, score, _ in parts] == pytest.approx([0.9 + 0.5 * 1.6, 0.8 + 0.5 * 1.6, 0.7 + 0.5 * 1.6, 1.5])


def _chunk(symbol: str, path: str, kind: str = "FUNCTION"):
    from ragstream.index.model import Chunk

    return Chunk(f"py:{symbol}|{kind}", path, 1, 2, kind, symbol, "pass", {"language": "python"})


def test_mentions_of_dotted_names_identifiers_and_files():
    import numpy as np

    from ragstream.retrieval.mentions import SymbolTable, code_identifiers

    chunks = [_chunk("pvlib.temperature.fuentes", "pvlib/temperature.py"),
              _chunk("pvlib.temperature.sapm_cell", "pvlib/temperature.py"),
              _chunk("pvlib.irradiance.get_total", "pvlib/irradiance.py"),
              _chunk("pvlib.pvsystem.PVSystem.get_total", "pvlib/pvsystem.py", "METHOD"),
              _chunk("pvlib.iotools.read_tmy", "pvlib/iotools/tmy.py")]
    table = SymbolTable.build(chunks)
    everything = np.ones(len(chunks), dtype=bool)
    scores = table.scores("`temperature.fuentes` fails; see pvlib/iotools/tmy.py and get_total()", everything)
    assert scores[0] > scores[1] > 0  # the named function, then its file's other rows
    assert scores[4] > 0 and scores[2] == scores[3] > 0  # a named path; a shared identifier
    assert 1 not in table.scores("sapm cell", everything)  # prose is not a mention
    hidden = everything.copy()
    hidden[0] = False
    assert 0 not in table.scores("temperature.fuentes", hidden)  # filters hold
    assert code_identifiers("call `run` or get_total() on DecodeError, not Request or plain words") == [
        "run", "get_total"]  # an exception type is a symptom, not a location
    assert code_identifiers("print(str(e)) differs from len of e") == [
        "print", "str", "__str__"]  # a called builtin runs its argument's data-model method; prose `len` does not
    assert table.scores("pvlib.temperature.TemperatureError was raised", everything) == {}
    traceback = 'File "/usr/lib/site-packages/pvlib/iotools/tmy.py", line 12, in read_tmy\n  x = 1'
    assert code_identifiers(traceback) == ["read_tmy"]
    assert table.scores(traceback, everything)[4] > table.scores("see pvlib/iotools/tmy.py", everything)[4]


def test_mentions_of_csharp_and_sql_objects():
    import numpy as np

    from ragstream.retrieval.mentions import SymbolTable
    from ragstream.index.model import Chunk

    chunks = [Chunk("sql:dbo.spMergeUserBasedOnEmail|PROCEDURE", "Migrations/012.sql", 1, 9, "PROCEDURE",
                    "dbo.spMergeUserBasedOnEmail", "CREATE PROCEDURE ...", {"language": "sql"}),
              Chunk("cs:App.QueryController.Save|METHOD", "App/QueryController.cs", 1, 9, "METHOD",
                    "App.QueryController.Save", "public ActionResult Save()", {"language": "csharp"}),
              Chunk("file:Migrations/012.sql|FILE", "Migrations/012.sql", 1, 9, "FILE", "Migrations/012.sql",
                    "...", {"language": "sql"})]
    table = SymbolTable.build(chunks)
    everything = np.ones(len(chunks), dtype=bool)
    # SQL names ignore case; a file-level chunk is no symbol
    assert set(table.scores("which tables does SPMergeUserBasedOnEmail modify", everything)) == {0}
    assert set(table.scores("from QueryController.Save down to the tables", everything)) == {1}
    assert table.scores("from querycontroller.save down", everything) == {}  # C# names keep their case


def test_a_traceback_frame_pins_its_function_in_its_file():
    import numpy as np

    from ragstream.retrieval.mentions import SymbolTable, strength

    chunks = [_chunk("_pytest._io.saferepr._format_repr_exception", "src/_pytest/_io/saferepr.py"),
              _chunk("_pytest._io.saferepr.saferepr", "src/_pytest/_io/saferepr.py"),
              _chunk("_pytest.main._format_repr_exception", "src/_pytest/main.py"),
              _chunk("_pytest.other._format_repr_exception", "src/_pytest/other.py"),
              _chunk("_pytest.hooks.call", "src/_pytest/hooks.py")]
    table = SymbolTable.build(chunks)
    everything = np.ones(len(chunks), dtype=bool)
    # installed (no src/), and a Windows traceback of another checkout
    for frame in ['File "/usr/lib/python3.8/site-packages/_pytest/_io/saferepr.py", line 9, in _format_repr_exception',
                  r'File "C:\work\pytest\src\_pytest\_io\saferepr.py", line 9, in _format_repr_exception']:
        scores = table.scores(f"INTERNALERROR\n  {frame}\n    raise", everything)
        assert strength(scores[0]) == 1.0  # the frame's function, in the frame's file
        assert scores[0] > scores[1] > scores[2] == scores[3]  # its file's other rows; same name elsewhere
    # another library's frame shares only the file name: its function is then just an identifier
    scores = table.scores('File "/site-packages/pluggy/hooks.py", line 3, in call', everything)
    assert strength(scores[4]) < 1.0
    hidden = everything.copy()
    hidden[0] = False
    assert 0 not in table.scores(frame, hidden)  # filters hold


def test_a_named_package_names_its_own_modules_sharing_the_points():
    import numpy as np

    from ragstream.retrieval.mentions import SymbolTable

    chunks = [_chunk("sympy.printing.pretty", "sympy/printing/pretty/__init__.py", "MODULE"),
              _chunk("sympy.printing.pretty.pretty.PrettyPrinter._print_Pow", "sympy/printing/pretty/pretty.py",
                     "METHOD"),
              _chunk("sympy.printing.pretty.stringpict.prettyForm", "sympy/printing/pretty/stringpict.py", "CLASS"),
              _chunk("sympy.printing.pretty.tests.test_pretty.test_pow", "sympy/printing/pretty/tests/test_pretty.py"),
              _chunk("sympy.printing.str.StrPrinter._print_Pow", "sympy/printing/str.py", "METHOD")]
    table = SymbolTable.build(chunks)
    everything = np.ones(len(chunks), dtype=bool)
    scores = table.scores("I didn't notice this bug among others in printing.pretty.", everything)
    assert scores[0] > scores[1] == scores[2] > 0  # the package, then its two modules sharing its file points
    assert 3 not in scores and 4 not in scores  # a sub-package's module and another package's are not named
    hidden = everything.copy()
    hidden[1] = False
    assert 1 not in table.scores("printing.pretty", hidden)  # filters hold


def test_a_dotted_name_names_a_module_only_if_it_holds_the_next_segment():
    import numpy as np

    from ragstream.retrieval.mentions import SymbolTable
    from ragstream.index.model import Chunk

    module_text = "from .tools import (\n    pretty_print,\n    render as draw,\n)\nimport os.path\nLIMIT: int = 3\n"
    chunks = [_chunk("sympy.printing", "sympy/printing/__init__.py", "MODULE"),
              _chunk("sympy.printing.pretty.pretty.PrettyPrinter", "sympy/printing/pretty/pretty.py", "CLASS"),
              _chunk("sympy.interactive.printing.init_printing", "sympy/interactive/printing.py"),
              Chunk("py:sympy.interactive.printing|MODULE", "sympy/interactive/printing.py", 1, 6, "MODULE",
                    "sympy.interactive.printing", module_text, {"language": "python"}),
              _chunk("_pytest.python_api.raises", "src/_pytest/python_api.py")]
    table = SymbolTable.build(chunks)
    everything = np.ones(len(chunks), dtype=bool)
    scores = table.scores("a bug in printing.pretty", everything)
    assert scores[0] > 0  # the package sympy/printing holds a sub-package `pretty`
    assert 2 not in scores and 3 not in scores  # sympy/interactive/printing.py holds no `pretty`
    for held in ("init_printing", "pretty_print", "draw", "os", "LIMIT"):  # defined, imported or assigned
        assert table.scores(f"see printing.{held} here", everything).get(3, 0) > 0, held  # the file is named
    assert 3 not in table.scores("see printing.render here", everything)  # imported under another name
    assert table.scores("python_api.raises fails", everything)[4] > 0  # a src/ layout module holds its symbols


def test_exception_type_definitions_are_symptoms_scaled_down():
    from ragstream.retrieval.fusion import scaled
    from ragstream.retrieval.symptoms import defines_symptom, question_words, symptom_types
    from ragstream.index.model import Chunk

    def cls(symbol: str, signature: str) -> Chunk:
        return Chunk(f"py:{symbol}|CLASS", "requests/exceptions.py", 1, 2, "CLASS", symbol, "pass",
                     {"language": "python", "signature": signature})

    chunks = {c.id: c for c in [
        cls("urllib3.exceptions.DecodeError", "class DecodeError(HTTPError)"),
        _chunk("urllib3.exceptions.PoolError.__init__", "urllib3/exceptions.py", "METHOD"),
        cls("requests.exceptions.RequestException", "class RequestException(IOError)"),
        cls("requests.exceptions.Timeout", "class Timeout(RequestException)"),  # named like no exception
        cls("requests.exceptions.ConnectTimeout", "class ConnectTimeout(exceptions.Timeout, metaclass=Meta)"),
        _chunk("requests.exceptions.Timeout.describe", "requests/exceptions.py", "METHOD"),
        cls("requests.models.Response", "class Response(Mapping, metaclass=ErrorMeta)"),
        _chunk("requests.adapters.HTTPAdapter.send", "requests/adapters.py", "METHOD"),
        _chunk("requests.models.raise_for_status_error", "requests/models.py")]}
    symptoms = symptom_types(list(chunks.values()))
    assert symptoms == {"urllib3.exceptions.DecodeError", "requests.exceptions.RequestException",
                        "requests.exceptions.Timeout", "requests.exceptions.ConnectTimeout"}
    assert [defines_symptom(c, symptoms | {"urllib3.exceptions.PoolError"}) for c in chunks.values()] == [
        True, True, True, True, True, True, False, False, False]
    fused = [(cid, score, {}) for cid, score in zip(chunks, [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5])]
    rescored = scaled(fused, lambda cid: 0.5 if defines_symptom(chunks[cid], symptoms) else 1.0)
    assert [cid.split("|")[0] for cid, _, _ in rescored[:4]] == [
        "py:urllib3.exceptions.PoolError.__init__", "py:requests.models.Response",
        "py:requests.adapters.HTTPAdapter.send", "py:requests.models.raise_for_status_error"]
    assert rescored[4][1] == pytest.approx(0.45)
    named = question_words("is Timeout raised by send()?")  # a type the question names is what it asks about
    assert not defines_symptom(chunks["py:requests.exceptions.Timeout|CLASS"], symptoms, named)
    assert not defines_symptom(chunks["py:requests.exceptions.Timeout.describe|METHOD"], symptoms, named)
    assert defines_symptom(chunks["py:requests.exceptions.ConnectTimeout|CLASS"], symptoms, named)


def test_boost_sources_score_by_strength():
    from ragstream.retrieval.fusion import fuse

    fused = fuse({"semantic": {"a": 1}, "bm25": {"b": 1}}, rrf_k=10, boosts={"mentions": {"b": 0.5, "c": 1.0}})
    scores = {cid: score for cid, score, _ in fused}
    assert scores == pytest.approx({"a": 1 / 11, "b": 1 / 11 + 0.5 / 11, "c": 1 / 11})
    assert [cid for cid, _, _ in fused] == ["b", "a", "c"]  # a's semantic rank breaks the a/c tie
    assert dict(fused[0][2]) == {"bm25": 1, "mentions": 2}


def test_two_threads_first_searches_load_the_index_once(acl_backend, monkeypatch):
    """The workbench serves every browser session from one backend: the first queries of two
    sessions, at once, must not load the index twice."""
    import threading

    from ragstream.retrieval import local_backend

    backend = LocalBackend(acl_backend.settings, acl_backend.embedder)
    loads, real_load = [], local_backend._load

    def counted(location, previous=None):
        loads.append(location)
        return real_load(location, previous)

    monkeypatch.setattr(local_backend, "_load", counted)
    results, start = [], threading.Barrier(2)

    def first_query():
        start.wait()
        results.append(backend.search(request(mode="bm25")).hits)

    threads = [threading.Thread(target=first_query) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1 and len(results) == 2 and results[0] == results[1]
