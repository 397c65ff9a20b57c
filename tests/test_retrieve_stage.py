"""Stage 3, retrieve: query pieces, LogAvgExp aggregation, domain-aware searches, the check."""
from __future__ import annotations

import math

import pytest

from ragstream.errors import PipelineError
from ragstream.stages import retrieve
from ragstream.super_prompt import SuperPrompt

SETTINGS = {"top_k": 8, "N0_QUERY_PIECES": 4, "N1_RETR_MAX_CANDIDATES": 40, "logavgexp_tau": 9,
            "entry_tests_share": 0.7, "tests_penalty": 0.5, "generated_penalty": 0.5, "mixed_domain_share": 0.25}


def state(query: str, concepts=(), domain="code", mode="hybrid") -> SuperPrompt:
    return SuperPrompt(repository="sample_repo", branch="default", retrieval_query=query, retrieval_mode=mode,
                       concepts=list(concepts), domain=domain,
                       retrieval_filters={"acl_tags_any": ["public", "dba"]})


def test_log_avg_exp_by_hand():
    assert retrieve.log_avg_exp([1.0, 1.0], 2, 9) == pytest.approx(1.0)
    # found by one piece of two: penalised by tau * log(1/2) against being found by both
    assert retrieve.log_avg_exp([1.0], 2, 9) == pytest.approx(9 * math.log(math.exp(1 / 9) / 2))
    assert retrieve.log_avg_exp([1.0, 0.0], 2, 9) > retrieve.log_avg_exp([1.0], 2, 9)


def test_decompose_keeps_the_query_then_identifiers():
    question = "how does save_payment reach InvoiceRepository"
    concepts = ["save_payment", "InvoiceRepository", "reach", "Payments"]
    assert retrieve.decompose(question, concepts, limit=4, mode="bm25") == [question, "save_payment", "InvoiceRepository"]
    assert len(retrieve.decompose("q", ["a_b", "c_d", "e_f", "g_h"], limit=2, mode="semantic")) == 2


def test_a_hybrid_search_is_one_piece():
    # the backend's hybrid search fuses the identifiers the question names itself
    assert retrieve.decompose("how does save_payment work", ["save_payment"], limit=4, mode="hybrid") == [
        "how does save_payment work"]


def test_pieces_and_sources_are_recorded(acl_backend):
    sp = state("where does record_payment call save_payment", ["record_payment", "save_payment"], mode="bm25")
    assert retrieve.run(sp, acl_backend, {"id": "retrieve"}, SETTINGS) == "ok"
    attempt = sp.extras["retrieve"]["attempts"][0]
    assert attempt["pieces"] == ["where does record_payment call save_payment", "record_payment", "save_payment"]
    # every candidate (up to N1) is kept for rerank; the best top_k are the seeds
    seeds = [h["id"] for h in sp.retrieval_hits[:8]]
    assert 8 < len(sp.retrieval_hits) <= SETTINGS["N1_RETR_MAX_CANDIDATES"]
    assert sp.retrieval_seed_nodes == seeds and sp.views_by_stage == {"retrieve": seeds}
    both = [h for h in sp.retrieval_hits if len(h["sources"]) >= 2]
    assert both and sp.retrieval_hits[0] in both  # agreement between pieces ranks first


def test_mixed_questions_search_each_domain(acl_backend):
    sp = state("which procedures write the payments table used by InvoiceService", ["InvoiceService"], "mixed")
    retrieve.run(sp, acl_backend, {"id": "retrieve"}, SETTINGS)
    seeds = sp.retrieval_seed_nodes
    assert any(s.startswith("sql:") for s in seeds) and any(s.startswith(("py:", "cs:")) for s in seeds)


def test_no_entry_points_after_two_reformulations(acl_backend):
    sp = state("zzqx wobble", mode="bm25")
    assert retrieve.run(sp, acl_backend, {"id": "retrieve"}, SETTINGS) == "no_entry_points"
    attempts = sp.extras["retrieve"]["attempts"]
    assert [a["mode"] for a in attempts] == ["bm25", "bm25", "hybrid"] and all(a["problems"] for a in attempts)
    assert sp.retrieval_seed_nodes == []


def test_a_db_question_without_database_hits_is_reformulated(acl_backend):
    public_only = state("invoice table columns", ["invoice"], "db", mode="bm25")
    # the schema is hidden from this caller, and so is the C# (its EF entities are database evidence)
    public_only.retrieval_filters = {"acl_tags_any": ["public"], "languages": ["python"]}
    assert retrieve.run(public_only, acl_backend, {"id": "retrieve"}, SETTINGS) == "ok"
    attempts = public_only.extras["retrieve"]["attempts"]
    assert len(attempts) == 3 and all(a["problems"] == ["no database object among the hits"] for a in attempts)
    # every reformulation was tried; the first search's code hits are kept, and the trace says so
    assert public_only.extras["retrieve"]["warnings"] == [
        "kept the first search's hits: no database object among the hits"]
    assert len(public_only.retrieval_hits) == attempts[0]["hits"] and all(
        h["id"].startswith("py:") or h["id"].startswith("file:") for h in public_only.retrieval_hits)
    with_entities = state("invoice table columns", ["invoice"], "db", mode="bm25")
    with_entities.retrieval_filters = {"acl_tags_any": ["public"]}  # the EF entity Invoice is visible
    assert retrieve.run(with_entities, acl_backend, {"id": "retrieve"}, SETTINGS) == "ok"


def test_ef_only_code_is_database_evidence(tmp_path_factory):
    backend = backend_over(tmp_path_factory.mktemp("ef_only"), {
        "Shop/ShopContext.cs": "using Microsoft.EntityFrameworkCore;\nnamespace Shop;\n"
                               "public class ShopContext : DbContext { public DbSet<Order> Orders { get; set; } }\n",
        "Shop/Order.cs": "namespace Shop;\npublic class Order { public int Id { get; set; } public decimal Total { get; set; } }\n",
        "Shop/OrderService.cs": "namespace Shop;\npublic class OrderService {\n  private readonly ShopContext _db;\n"
                                "  public void Save(Order order) { _db.Orders.Add(order); _db.SaveChanges(); }\n}\n"})
    sp = SuperPrompt(repository="repo", branch="default", retrieval_query="how is an order saved to the database table",
                     retrieval_mode="bm25", concepts=["order", "saved"], domain="db")
    assert retrieve.run(sp, backend, {"id": "retrieve"}, SETTINGS) == "ok"
    assert not sp.extras["retrieve"]["attempts"][0]["problems"]


def test_n_constants_are_required(acl_backend):
    with pytest.raises(PipelineError) as error:
        retrieve.run(state("x"), acl_backend, {"id": "r"}, {k: v for k, v in SETTINGS.items() if k != "logavgexp_tau"})
    assert error.value.where == "step r: logavgexp_tau"


def test_domain_searches_count_toward_n0(acl_backend):
    sp = state("which table does the InvoiceService class write payments to", ["InvoiceService"], "mixed")
    retrieve.run(sp, acl_backend, {"id": "retrieve"}, {**SETTINGS, "N0_QUERY_PIECES": 3})
    attempt = sp.extras["retrieve"]["attempts"][0]
    assert len(attempt["pieces"]) + len(attempt["domain_searches"]) == 3


@pytest.mark.parametrize("question, about", [
    ("How are settings merged?", False), ("Which tests cover merging settings?", True),
    ("what does test_merge_settings check", True), ("Where is the latest config read?", False),
    ("Show an example of a fixture", True)])
def test_a_question_is_about_tests_when_it_says_so(question, about):
    assert retrieve.about_tests(question) is about


def backend_over(root, files: dict[str, str]):
    """A local backend over a repository of `files` (path -> text) indexed under `root`."""
    from conftest import make_settings

    from ragstream.index.build import build_index
    from ragstream.retrieval.local_backend import LocalBackend

    for path, text in files.items():
        (root / "repo" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "repo" / path).write_text(text)
    settings = make_settings(root / "data")
    build_index(root / "repo", settings)
    return LocalBackend(settings)


def asked(question: str, mode: str) -> SuperPrompt:
    return SuperPrompt(repository="repo", branch="default", question_raw=question, retrieval_query=question,
                       retrieval_mode=mode)


@pytest.fixture(scope="module")
def tested_backend(tmp_path_factory):
    """A two-file repository whose test repeats every word of the function it tests."""
    return backend_over(tmp_path_factory.mktemp("tested"), {
        "pkg/merge.py":
            'def merge_settings(base, override):\n    """Merge two settings mappings."""\n'
            "    return {**base, **override}\n",
        "tests/test_merge.py":
            "from pkg.merge import merge_settings\n\n\ndef test_merged_settings():\n"
            '    """Merged settings: merge settings mappings, merge the override settings."""\n'
            '    assert merge_settings({"a": 1}, {"a": 2}) == {"a": 2}\n'})


def test_tests_rank_below_the_code_unless_the_question_is_about_tests(tested_backend):
    def first_hit(question: str, tests_penalty: float) -> str:
        sp = asked(question, "bm25")
        retrieve.run(sp, tested_backend, {"id": "retrieve"}, {**SETTINGS, "tests_penalty": tests_penalty})
        demoted = sp.extras["retrieve"]["attempts"][0]["tests_demoted"]
        assert (demoted > 0) == bool(tests_penalty and not retrieve.about_tests(question))  # the trace says so
        return sp.retrieval_hits[0]["id"]

    implementation, test = "py:pkg.merge.merge_settings|FUNCTION", "py:tests.test_merge.test_merged_settings|FUNCTION"
    assert first_hit("how are settings merged", 0.0) == test  # the test repeats the words: it wins undemoted
    assert first_hit("how are settings merged", 0.5) == implementation
    assert first_hit("which test checks merged settings", 0.5) == test


def test_the_parts_of_one_long_node_are_one_entry_point():
    ranked = [(0.9, "py:m.f|FUNCTION#p2"), (0.8, "py:m.g|FUNCTION"), (0.7, "py:m.f|FUNCTION#p1"),
              (0.6, "py:m.h|FUNCTION#p1")]
    assert retrieve.best_part_per_node(ranked) == [(0.9, "py:m.f|FUNCTION#p2"), (0.8, "py:m.g|FUNCTION"),
                                                   (0.6, "py:m.h|FUNCTION#p1")]


@pytest.fixture(scope="module")
def erring_backend(tmp_path_factory):
    """A repository with an exception type and the function that raises it."""
    return backend_over(tmp_path_factory.mktemp("erring"), {
        "pkg/merge.py":
            'class MergeConflict(ValueError):\n    """Two settings files set one key to different values."""\n\n\n'
            'def merge_settings(base, override):\n    """Merge two settings files; a key set twice is a conflict."""\n'
            "    if set(base) & set(override):\n        raise MergeConflict(sorted(set(base) & set(override)))\n"
            "    return {**base, **override}\n"})


def test_the_trace_lists_the_exception_types_hybrid_search_scaled_down(erring_backend):
    def scaled(question: str) -> list[str]:
        sp = asked(question, "hybrid")
        retrieve.run(sp, erring_backend, {"id": "retrieve"}, SETTINGS)
        assert {h["id"] for h in sp.retrieval_hits} >= {"py:pkg.merge.MergeConflict|CLASS"}
        return sp.extras["retrieve"]["attempts"][0]["symptoms_scaled"]

    assert scaled("merging two settings files fails: a key set twice is a conflict") == [
        "py:pkg.merge.MergeConflict|CLASS"]
    assert scaled("where is MergeConflict raised") == []  # the type the question names is what it asks about


@pytest.fixture(scope="module")
def generated_backend(tmp_path_factory):
    """A LINQ to SQL designer file (`// <auto-generated>`) that repeats the words of the
    hand-written store beside it, and holds the only mapping of its table."""
    return backend_over(tmp_path_factory.mktemp("generated"), {
        "Data/FileStore.cs":
            "namespace Blog.Data {\n  public class FileStore {\n"
            "    /// <summary>Writes it to the database.</summary>\n"
            "    public void SaveStoredFile(StoredFile file) { Db.Insert(file); }\n  }\n}\n",
        "Data/FileStoreDb.cs":
            "//------------------------------------------------------------------------------\n"
            "// <auto-generated>\n//     This code was generated by a tool.\n// </auto-generated>\n"
            "//------------------------------------------------------------------------------\n"
            "namespace Blog.Data {\n"
            "  /// <summary>A stored file saved in the file store: each stored file is saved, stored files\n"
            "  /// of the file store, saved stored file, file store.</summary>\n"
            "  [global::System.Data.Linq.Mapping.TableAttribute(Name=\"dbo.be_FileStoreFiles\")]\n"
            "  public partial class StoredFile {\n"
            "    public string FileStoreFileName { get; set; }\n  }\n}\n",
        "Data/Setup.sql": "CREATE TABLE dbo.be_FileStoreFiles (FileStoreFileName NVARCHAR(255));\n"})


def test_generated_files_are_indexed_and_rank_after_hand_written_code(generated_backend):
    sp = asked("how is a stored file saved in the file store", "bm25")
    graph = generated_backend.graph("repo", "default", sp.retrieval_filters, sp.active_index)
    assert graph.graph["generated_files"] == ["Data/FileStoreDb.cs"]
    assert graph.nodes["file:Data/FileStoreDb.cs|FILE"]["attrs"]["generated"] == "<auto-generated"
    # its declarations and mapping are in the graph: they are answers
    assert graph.has_edge("cs:Blog.Data.StoredFile|TYPE", "sql:dbo.be_FileStoreFiles|TABLE", key="MAPS_TO")

    def ranked(generated_penalty: float) -> list[str]:
        question = asked("how is a stored file saved in the file store", "bm25")
        retrieve.run(question, generated_backend, {"id": "retrieve"}, {**SETTINGS, "generated_penalty": generated_penalty})
        return [hit["id"] for hit in question.retrieval_hits]

    undemoted, demoted = ranked(0.0), ranked(0.5)
    generated = ["cs:Blog.Data.StoredFile|TYPE", "file:Data/FileStoreDb.cs|FILE"]
    assert undemoted.index(generated[1]) == 1  # the generated words win a place undemoted
    # demoted: each is still found, lower than it was, and the hand-written code comes first
    assert all(demoted.index(cid) > undemoted.index(cid) for cid in generated)
    assert demoted[:2] == ["cs:Blog.Data.FileStore.SaveStoredFile|METHOD", "cs:Blog.Data.FileStore|TYPE"]
