"""Building, storing, reloading and incrementally updating an index (real model, FAISS, BM25)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragstream.cli import main
from ragstream.config import PROJECT_ROOT
from ragstream.errors import IndexLoadError, IndexingError
from ragstream.index import store
from ragstream.index.build import build_index, index_status, locate, repository_info
from ragstream.index.embeddings import Embedder
from ragstream.index.search_artifacts import read_bm25, read_faiss
from ragstream.retrieval.local_backend import LocalBackend
from tests.conftest import make_settings

SECRETS = ("hunter2hunter2", "sk-proj-Abc123Def456")


def load(settings, repo: Path) -> store.StoredIndex:
    return store.load_index(locate(repository_info(repo), settings))


def test_chunk_ids_are_graph_node_ids(built_sample):
    repo, settings, _ = built_sample
    stored = load(settings, repo)
    graph = stored.graph()
    chunks = stored.chunks()
    assert chunks and all(c.node_id in graph for c in chunks)
    assert len({c.id for c in chunks}) == len(chunks)
    kinds = {c.kind for c in chunks}
    assert {"MODULE", "CLASS", "METHOD", "FUNCTION", "FILE", "TABLE", "PROCEDURE", "TYPE"} <= kinds
    assert not any(graph.nodes[c.node_id]["kind"] in ("EXTERNAL", "NAMESPACE", "COLUMN") for c in chunks)


def test_chunk_text_elides_children_and_carries_a_context_header(built_sample):
    repo, settings, _ = built_sample
    chunks = {c.id: c for c in load(settings, repo).chunks()}
    service = chunks["py:billing.service.InvoiceService|CLASS"]
    assert "def record_payment(self, invoice_id: int, amount: Decimal) -> Decimal ..." in service.text
    assert "self._validate(amount)" not in service.text  # that body lives in the method's chunk
    method = chunks["py:billing.service.InvoiceService.record_payment|METHOD"]
    assert method.text.lstrip().startswith("def record_payment")
    assert (method.start_line, method.end_line) == (16, 24)
    header = method.metadata["header"].splitlines()
    assert header[0] == "file: billing/service.py"  # line numbers are chunk fields, never embedded
    assert header[1] == "symbol: billing.service.InvoiceService.record_payment (method, python)"
    assert "defined in: billing.service.InvoiceService" in header
    # What is indexed names only neighbours of the same file, kind, language and labels ...
    assert "calls: InvoiceService._validate" in header
    assert "called by: AuditedInvoiceService.record_payment" in header
    assert method.embedding_text.startswith("file: billing/service.py\n")
    # ... while a caller allowed to see them all reads every one.
    fetched = LocalBackend(settings).fetch_chunks([method.id], "sample_repo", "default", None)[0]
    assert "calls: Invoice.balance, Invoice.mark_paid, InvoiceRepository.get, InvoiceRepository.save_payment, " \
           "InvoiceService._validate, util.log_event" in fetched.metadata["header"].splitlines()
    module = chunks["py:billing.util|MODULE"]
    assert module.text.startswith("import logging") and "[function log_event: own chunk]" in module.text


def test_parse_failure_degrades_to_text_chunks(built_sample):
    repo, settings, report = built_sample
    assert set(report.parse_failures) == {"billing/legacy.py"}
    assert "line 4: SyntaxError" in report.parse_failures["billing/legacy.py"]
    chunks = {c.id: c for c in load(settings, repo).chunks()}
    legacy = chunks["file:billing/legacy.py|FILE"]
    assert 'print "computing total"' in legacy.text and legacy.kind == "FILE"


def test_secrets_never_reach_any_artifact(built_sample):
    repo, settings, report = built_sample
    assert report.redactions == {"billing/cli.py": 2}
    stored = load(settings, repo)
    for path in stored.generation.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(s.encode() in data for s in SECRETS), path
    cli_chunk = next(c for c in stored.chunks() if c.id == "py:billing.cli|MODULE")
    assert 'API_KEY = "[REDACTED]"' in cli_chunk.text


def test_manifest_and_search_artifacts(built_sample):
    repo, settings, report = built_sample
    stored = load(settings, repo)
    m = stored.manifest
    assert m["format_version"] == store.FORMAT_VERSION
    assert m["repository"] == "sample_repo" and m["branch"] == "default" and m["active_index"] == "default"
    assert m["model"] == {"name": "sentence-transformers/all-MiniLM-L6-v2", "dimension": 384, "dtype": "bfloat16"}
    assert m["tokenizer"] == "cl100k_base"
    assert set(m["files"]) == {f for f in m["files"]} and "billing/service.py" in m["files"]
    assert m["counts"]["chunks"] == report.chunks == len(stored.chunks())
    faiss_index, window_rows = read_faiss(stored.faiss_path)
    assert faiss_index.d == 384 and faiss_index.ntotal == len(window_rows) >= report.chunks
    assert sorted(set(window_rows.tolist())) == list(range(report.chunks))  # every chunk has its windows
    bm25 = read_bm25(stored.bm25_dir)
    assert bm25.scores["num_docs"] == report.chunks


def test_long_definitions_split_on_line_boundaries(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    body = "\n".join(f"    total += compute_value_{i}(alpha, beta, gamma)" for i in range(60))
    (repo / "long.py").write_text(f"def long_function(alpha, beta, gamma):\n    total = 0\n{body}\n    return total\n")
    settings = make_settings(tmp_path / "data", chunks={"max_chunk_tokens": 120})
    build_index(repo, settings)
    chunks = [c for c in load(settings, repo).chunks() if c.node_id == "py:long.long_function|FUNCTION"]
    assert len(chunks) >= 4
    assert [c.id for c in chunks] == [f"py:long.long_function|FUNCTION#p{i}" for i in range(1, len(chunks) + 1)]
    assert all(c.metadata["parent_chunk"] == "py:long.long_function|FUNCTION" for c in chunks)
    assert [c.metadata["part"] for c in chunks] == list(range(1, len(chunks) + 1))
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 63
    assert all(a.end_line + 1 == b.start_line for a, b in zip(chunks, chunks[1:]))
    assert all(c.metadata["tokens"] <= 120 for c in chunks)
    assert f"part: 2 of {len(chunks)}" in chunks[1].metadata["header"]

    whole = LocalBackend(settings).fetch_texts(["py:long.long_function|FUNCTION"], "repo", "default", None)
    assert whole == {"py:long.long_function|FUNCTION": "\n".join(c.text for c in chunks)}


def test_incremental_reindex_only_redoes_the_changed_file(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    first = build_index(sample_repo, settings, embedder=Embedder())
    assert not first.incremental and first.embedded_new >= first.chunks and first.embedded_cached == 0

    unchanged = Embedder()
    again = build_index(sample_repo, settings, embedder=unchanged)
    assert again.incremental and again.reparsed == 0 and unchanged.texts_embedded == 0

    # One new line in the first method shifts every definition below it in the file.
    service = sample_repo / "billing" / "service.py"
    service.write_text(service.read_text().replace(
        "        self.repository = repository\n",
        "        self.repository = repository\n        self.audit_trail: list[str] = []\n"))
    _, changes = index_status(sample_repo, settings)
    assert changes.changed == ["billing/service.py"] and changes.stale == 1
    counting = Embedder()
    report = build_index(sample_repo, settings, embedder=counting)
    assert report.changes.changed == ["billing/service.py"]
    assert report.reparsed == 1
    # Only the method whose code changed is embedded again; the moved ones come from the cache.
    assert counting.texts_embedded == report.embedded_new == 1
    assert report.embedding_backends == {"onnx-fp32": 1}  # a small job: no torch start-up
    chunks = {c.id: c for c in load(settings, sample_repo).chunks()}
    assert "audit_trail" in chunks["py:billing.service.InvoiceService.__init__|METHOD"].text
    moved = chunks["py:billing.service.InvoiceService.record_payment|METHOD"]
    assert (moved.start_line, moved.end_line) == (17, 25)


def test_incremental_reindex_relinks_edges_into_deleted_and_added_files(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings)
    (sample_repo / "billing" / "util.py").unlink()
    report = build_index(sample_repo, settings)
    assert report.changes.deleted == ["billing/util.py"] and report.reparsed == 0
    graph = load(settings, sample_repo).graph()
    assert "py:billing.util.log_event|FUNCTION" not in graph
    caller = "py:billing.service.InvoiceService.record_payment|METHOD"
    assert graph.has_edge(caller, "ext:billing.util.log_event|EXTERNAL", key="CALLS")

    (sample_repo / "billing" / "util.py").write_text("def log_event(message):\n    return message\n")
    report = build_index(sample_repo, settings)
    assert report.changes.added == ["billing/util.py"] and report.reparsed == 1
    graph = load(settings, sample_repo).graph()
    assert graph.has_edge(caller, "py:billing.util.log_event|FUNCTION", key="CALLS")
    assert "ext:billing.util.log_event|EXTERNAL" not in graph


@pytest.mark.parametrize("damage, message", [
    (lambda gen: (gen / store.CHUNKS).write_text((gen / store.CHUNKS).read_text()[:100]), "partial or corrupt"),
    (lambda gen: (gen / store.MANIFEST).write_text("{not json"), "manifest is missing or corrupt"),
    (lambda gen: (gen / store.MANIFEST).write_text(json.dumps(
        {**json.loads((gen / store.MANIFEST).read_text()), "format_version": 999})), "format version 999"),
    (lambda gen: (gen.parent / store.CURRENT).write_text("gen-gone"), "never finished"),
])
def test_corrupt_index_fails_clearly_and_rebuilds(tmp_path: Path, damage, message):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def f():\n    return 1\n")
    settings = make_settings(tmp_path / "data")
    build_index(repo, settings)
    location = locate(repository_info(repo), settings)
    damage(store.current_generation(location))
    with pytest.raises(IndexLoadError) as error:
        store.load_index(location)
    assert message in str(error.value)
    assert "ragstream index" in str(error.value) and "--rebuild" in str(error.value)
    report = build_index(repo, settings)  # the next build starts over instead of failing
    assert not report.incremental and report.previous_index_problem
    assert store.load_index(location).manifest["counts"]["chunks"] == report.chunks


def test_cli_builds_and_summarises(sample_repo: Path, tmp_path: Path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    assert main(["--config", str(config), "index", str(sample_repo), "--name", "demo"]) == 0
    out = capsys.readouterr().out
    assert "full build" in out and "nodes by kind" in out and "edges by type" in out
    assert "MAPS_TO" in out and "FOREIGN_KEY" in out
    assert "parse failed, indexed as text: billing/legacy.py" in out
    assert "time per phase: walk" in out
    # does the C# reach the SQL (`index.sql_coverage`): said at the end of the build and by --status
    coverage = next(line for line in out.splitlines() if line.startswith("C# -> SQL: "))
    assert "procedures have a C# caller" in coverage and "warning:" not in out
    assert (tmp_path / "data" / "indexes" / "sample_repo" / "demo" / store.CURRENT).is_file()
    assert main(["--config", str(config), "index", "--status", str(sample_repo), "--name", "demo"]) == 0
    status = capsys.readouterr().out
    assert "0 stale file(s)" in status and coverage in status


RELATIONS = {"INHERITS", "IMPLEMENTS", "REFERENCES", "FOREIGN_KEY", "READS", "WRITES", "MAPS_TO"}


def test_one_graph_links_python_sql_and_csharp(built_sample):
    repo, settings, _ = built_sample
    graph = load(settings, repo).graph()
    relations = {(u, k, v) for u, v, k in graph.edges(keys=True) if k in RELATIONS
                 and graph.nodes[u].get("kind") != "PROPERTY"}
    # each scalar property of an entity is stored in the column of its name (ef_columns); the
    # navigations `Invoice.Customer`, `Invoice.Lines` and `Customer.Invoices` in none
    columns = {(tuple(graph.nodes[u]["name"].rsplit(".", 2)[-2:]), v) for u, v, k in graph.edges(keys=True)
               if k == "MAPS_TO" and graph.nodes[u].get("kind") == "PROPERTY" and graph.nodes[v].get("kind") == "COLUMN"}
    assert sorted((".".join(prop), column) for prop, column in columns) == [
        ("Customer.CustomerId", "sql:dbo.Customers.CustomerId|COLUMN"), ("Customer.Email", "sql:dbo.Customers.Email|COLUMN"),
        ("Customer.Name", "sql:dbo.Customers.Name|COLUMN"), ("Invoice.CustomerId", "sql:dbo.Invoices.CustomerId|COLUMN"),
        ("Invoice.InvoiceId", "sql:dbo.Invoices.InvoiceId|COLUMN"), ("Invoice.IssuedAt", "sql:dbo.Invoices.IssuedAt|COLUMN"),
        ("Invoice.Status", "sql:dbo.Invoices.Status|COLUMN"), ("Invoice.Total", "sql:dbo.Invoices.Total|COLUMN"),
        ("InvoiceLine.Description", "sql:dbo.InvoiceLines.Description|COLUMN"),
        ("InvoiceLine.InvoiceId", "sql:dbo.InvoiceLines.InvoiceId|COLUMN"),
        ("InvoiceLine.InvoiceLineId", "sql:dbo.InvoiceLines.InvoiceLineId|COLUMN"),
    ]  # not `Amount()`, a method beside the `Amount` column
    # each DbSet (`=> Set<Customer>()` or `{ get; set; }`) is its context's handle on its entity's table
    assert {(u, v) for u, v, k in graph.edges(keys=True) if k == "MAPS_TO" and graph.nodes[v].get("kind") == "TABLE"
            and graph.nodes[u].get("kind") == "PROPERTY"} == {
        ("cs:Billing.Data.BillingContext.Customers|PROPERTY", "sql:dbo.Customers|TABLE"),
        ("cs:Billing.Data.BillingContext.Invoices|PROPERTY", "sql:dbo.Invoices|TABLE"),
        ("cs:Billing.Data.BillingContext.InvoiceLines|PROPERTY", "sql:dbo.InvoiceLines|TABLE")}
    assert relations == {
        # C# inheritance; the interface base becomes IMPLEMENTS once resolved
        ("cs:Billing.Services.InvoiceService|TYPE", "INHERITS", "cs:Billing.Services.ServiceBase|TYPE"),
        ("cs:Billing.Services.InvoiceService|TYPE", "IMPLEMENTS", "cs:Billing.Services.IInvoiceService|TYPE"),
        ("cs:Billing.Data.BillingContext|TYPE", "INHERITS", "ext:DbContext|EXTERNAL"),
        # EF: the DbContext's entities, and each entity mapped to its SQL table (cross-language)
        ("cs:Billing.Data.BillingContext|TYPE", "REFERENCES", "cs:Billing.Models.Customer|TYPE"),
        ("cs:Billing.Data.BillingContext|TYPE", "REFERENCES", "cs:Billing.Models.Invoice|TYPE"),
        ("cs:Billing.Data.BillingContext|TYPE", "REFERENCES", "cs:Billing.Models.InvoiceLine|TYPE"),
        ("cs:Billing.Models.Customer|TYPE", "MAPS_TO", "sql:dbo.Customers|TABLE"),
        ("cs:Billing.Models.Invoice|TYPE", "MAPS_TO", "sql:dbo.Invoices|TABLE"),
        ("cs:Billing.Models.InvoiceLine|TYPE", "MAPS_TO", "sql:dbo.InvoiceLines|TABLE"),
        # the entities OnModelCreating's `Entity<T>()` calls configure (ef_configured)
        ("cs:Billing.Data.BillingContext.OnModelCreating|METHOD", "REFERENCES", "cs:Billing.Models.Invoice|TYPE"),
        ("cs:Billing.Data.BillingContext.OnModelCreating|METHOD", "REFERENCES", "cs:Billing.Models.InvoiceLine|TYPE"),
        # ... and the tables those entities map to (ef_graph: the configuring code reaches its tables)
        ("cs:Billing.Data.BillingContext.OnModelCreating|METHOD", "REFERENCES", "sql:dbo.Invoices|TABLE"),
        ("cs:Billing.Data.BillingContext.OnModelCreating|METHOD", "REFERENCES", "sql:dbo.InvoiceLines|TABLE"),
        # inline SQL in C# (Dapper, ADO.NET, EF raw SQL, a const string) reads and writes tables
        ("cs:Billing.Services.InvoiceService.RecordPayment|METHOD", "WRITES", "sql:dbo.Payments|TABLE"),
        ("cs:Billing.Services.InvoiceService.RecordPayment|METHOD", "WRITES", "sql:dbo.Invoices|TABLE"),
        ("cs:Billing.Services.InvoiceService.GetOpenInvoices|METHOD", "READS", "sql:dbo.Invoices|TABLE"),
        ("cs:Billing.Services.InvoiceService.GetCustomerBalance|METHOD", "READS", "sql:dbo.Invoices|TABLE"),
        ("cs:Billing.Services.InvoiceService.GetCustomerBalance|METHOD", "READS", "sql:dbo.Customers|TABLE"),
        # SQL schema: foreign keys (inline, table-level, ALTER TABLE), views and procedures
        ("sql:dbo.Invoices|TABLE", "FOREIGN_KEY", "sql:dbo.Customers|TABLE"),
        ("sql:dbo.InvoiceLines|TABLE", "FOREIGN_KEY", "sql:dbo.Invoices|TABLE"),
        ("sql:dbo.Payments|TABLE", "FOREIGN_KEY", "sql:dbo.Invoices|TABLE"),
        ("sql:dbo.vw_OpenInvoices|VIEW", "READS", "sql:dbo.Invoices|TABLE"),
        ("sql:dbo.vw_OpenInvoices|VIEW", "READS", "sql:dbo.Customers|TABLE"),
        ("sql:dbo.usp_RecordPayment|PROCEDURE", "READS", "sql:dbo.Invoices|TABLE"),
        ("sql:dbo.usp_RecordPayment|PROCEDURE", "READS", "sql:dbo.Payments|TABLE"),
        ("sql:dbo.usp_RecordPayment|PROCEDURE", "WRITES", "sql:dbo.Invoices|TABLE"),
        ("sql:dbo.usp_RecordPayment|PROCEDURE", "WRITES", "sql:dbo.Payments|TABLE"),
        ("sql:dbo.usp_CreateInvoice|PROCEDURE", "WRITES", "sql:dbo.Invoices|TABLE"),
        # schema evolution: the script whose ALTER TABLE adds Payments' foreign key shaped it
        ("file:db/schema.sql|FILE", "REFERENCES", "sql:dbo.Payments|TABLE"),
        ("cs:Billing.Controllers.InvoicesController|TYPE", "INHERITS", "ext:ControllerBase|EXTERNAL"),
        ("sql:dbo.usp_GetCustomerInvoices|PROCEDURE", "READS", "sql:dbo.Invoices|TABLE"),
        ("sql:dbo.usp_GetCustomerInvoices|PROCEDURE", "READS", "sql:dbo.Customers|TABLE"),
        ("sql:dbo.usp_GetCustomerInvoices|PROCEDURE", "READS", "sql:dbo.Payments|TABLE"),
        ("sql:dbo.usp_LogAudit|PROCEDURE", "WRITES", "ext:dbo.AuditLog|EXTERNAL"),  # not in the repo
        # PostgreSQL: an unqualified table name finds the one table of that name
        ("sql:reporting.refresh_monthly_totals|FUNCTION", "READS", "sql:dbo.Invoices|TABLE"),
        ("sql:reporting.refresh_monthly_totals|FUNCTION", "WRITES", "sql:reporting.monthly_totals|TABLE"),
        # Python
        ("py:billing.models.Customer|CLASS", "INHERITS", "py:billing.models.Entity|CLASS"),
        ("py:billing.models.Invoice|CLASS", "INHERITS", "py:billing.models.Entity|CLASS"),
        ("py:billing.service.AuditedInvoiceService|CLASS", "INHERITS", "py:billing.service.InvoiceService|CLASS"),
    }
    assert graph.has_edge("sql:dbo.usp_RecordPayment|PROCEDURE", "sql:dbo.usp_LogAudit|PROCEDURE", key="CALLS")
    assert graph.has_edge("cs:Billing.Services.InvoiceService.RecordPayment|METHOD",
                          "cs:Billing.Services.ServiceBase.Log|METHOD", key="CALLS")
    kinds = {}
    for node, kind in graph.nodes(data="kind"):
        kinds.setdefault(kind, set()).add(node)
    assert kinds["TABLE"] == {"sql:dbo.Customers|TABLE", "sql:dbo.Invoices|TABLE", "sql:dbo.InvoiceLines|TABLE",
                              "sql:dbo.Payments|TABLE", "sql:reporting.monthly_totals|TABLE"}
    assert kinds["PROCEDURE"] == {"sql:dbo.usp_RecordPayment|PROCEDURE", "sql:dbo.usp_GetCustomerInvoices|PROCEDURE",
                                  "sql:dbo.usp_LogAudit|PROCEDURE", "sql:dbo.usp_CreateInvoice|PROCEDURE"}
    assert kinds["FILE"] == {f"file:{p}|FILE" for p in (
        "README.md", "billing/legacy.py", "db/procedures.sql", "db/reporting_pg.sql", "db/schema.sql",
        "src/Billing/Data/BillingContext.cs", "src/Billing/Models/Customer.cs", "src/Billing/Models/Invoice.cs",
        "src/Billing/Models/InvoiceLine.cs", "src/Billing/Models/Payment.cs",
        "src/Billing/Services/IInvoiceService.cs", "src/Billing/Services/InvoiceService.cs",
        "src/Billing/Services/ServiceBase.cs", "src/Billing/Controllers/InvoicesController.cs",
        "src/Billing/Data/InvoiceRepository.cs")}
    assert "sql:dbo.Invoices.CustomerId|COLUMN" in kinds["COLUMN"]
    assert graph.has_edge("sql:dbo.Invoices|TABLE", "sql:dbo.Invoices.CustomerId|COLUMN", key="DEFINES")


def test_headers_never_name_neighbours_with_other_access(tmp_path: Path):
    """Regression: a public chunk's header named a caller only the hr group may see."""
    repo = tmp_path / "repo"
    (repo / "hr").mkdir(parents=True)
    (repo / "util.py").write_text("def round_money(x):\n    return round(x, 2)\n")
    (repo / "hr" / "payroll.py").write_text(
        "from util import round_money\n\ndef compute_executive_bonus(s):\n    return round_money(s * 0.3)\n")
    restricted = make_settings(tmp_path / "data", acl={"rules": [{"paths": ["hr/**"], "acl_tags": ["hr"]}]})
    build_index(repo, restricted)
    chunks = {c.id: c for c in load(restricted, repo).chunks()}
    public = chunks["py:util.round_money|FUNCTION"]
    assert "compute_executive_bonus" not in public.embedding_text and public.metadata["acl_tags"] == ["public"]
    assert chunks["py:hr.payroll.compute_executive_bonus|FUNCTION"].metadata["acl_tags"] == ["hr"]
    # Fetched, the header is the caller's: hr sees who calls it, public does not.
    backend = LocalBackend(restricted)
    for tags, named in ((["public"], False), (["public", "hr"], True)):
        fetched = backend.fetch_chunks([public.id], "repo", "default", {"acl_tags_any": tags})[0]
        assert ("called by: payroll.compute_executive_bonus" in fetched.metadata["header"]) is named, tags


def test_a_failed_first_build_leaves_nothing_behind(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "image.png").write_bytes(b"\x89PNG")
    settings = make_settings(tmp_path / "data")
    with pytest.raises(IndexingError, match="nothing to index"):
        build_index(repo, settings)
    assert not locate(repository_info(repo), settings).index_dir.exists()


def test_a_long_running_backend_follows_a_reindex(sample_repo: Path, tmp_path: Path):

    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings)
    backend = LocalBackend(settings)
    node = "py:billing.util.log_event|FUNCTION"
    assert "getLogger" in backend.fetch_texts([node], "sample_repo", "default", None)[node]
    util = sample_repo / "billing" / "util.py"
    util.write_text(util.read_text().replace("getLogger", "getChild"))
    build_index(sample_repo, settings)  # publishes a new generation, deletes the old one
    assert "getChild" in backend.fetch_texts([node], "sample_repo", "default", None)[node]
    assert node in backend.graph("sample_repo", "default", None)


def test_another_index_of_the_same_repository_reuses_parses_and_vectors(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    first = build_index(sample_repo, settings, name="commit-a")
    (sample_repo / "billing" / "util.py").write_text("def log_event(message):\n    return message.upper()\n")
    counting = Embedder()
    second = build_index(sample_repo, settings, name="commit-b", embedder=counting)
    assert not second.incremental and first.reparsed == first.files
    # Only the changed file is parsed; only the chunks whose text it changed are embedded.
    assert second.reparsed == 1
    assert 0 < counting.texts_embedded == second.embedded_new < second.chunks // 4


def test_keyword_text_keeps_the_own_name_and_drops_neighbour_lists():
    from ragstream.index.chunks import keyword_text
    from ragstream.index.model import Chunk

    header = ("file: billing/service.py\nsymbol: billing.service.InvoiceService.record_payment (method, python)\n"
              "calls: InvoiceRepository.save_payment, util.log_event\ncalled by: cli.main")
    chunk = Chunk("py:billing.service.InvoiceService.record_payment|METHOD", "billing/service.py", 16, 25, "METHOD",
                  "billing.service.InvoiceService.record_payment", "def record_payment(self): ...", {"header": header})
    text = keyword_text(chunk)
    assert "save_payment" not in text and "cli.main" not in text
    assert text.startswith("file: billing/service.py\nsymbol:") and text.endswith("def record_payment(self): ...\nrecord_payment")


def test_a_chunk_longer_than_the_model_window_is_also_embedded_as_windows(tmp_path: Path):
    from ragstream.index.embedding_windows import code_windows, model_tokenizer, window_texts

    body = "\n".join(f"    total_{i} = compute_amount_{i}(invoice, ledger)  # step {i}" for i in range(60))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "long.py").write_text(f"def long_function(invoice, ledger):\n{body}\n    return total_59\n\n"
                                  "def short_function():\n    return 1\n")
    settings = make_settings(tmp_path / "data", chunks={"max_chunk_tokens": 4000})  # one chunk, not parts
    report = build_index(repo, settings)
    chunks = load(settings, repo).chunks()
    texts, rows = window_texts(chunks, settings.embedding.window_tokens)
    long_row = next(i for i, c in enumerate(chunks) if c.id == "py:long.long_function|FUNCTION")
    short_row = next(i for i, c in enumerate(chunks) if c.id == "py:long.short_function|FUNCTION")
    windows = [t for t, r in zip(texts, rows) if r == long_row]
    assert windows[0] == chunks[long_row].embedding_text and len(windows) >= 3
    assert [t for t, r in zip(texts, rows) if r == short_row] == [chunks[short_row].embedding_text]
    tokenizer = model_tokenizer()
    assert all(len(tokenizer.encode(w).ids) <= settings.embedding.window_tokens for w in windows[1:])
    assert "compute_amount_59" in windows[-1] and windows[-1].startswith("file: long.py\nsymbol: long.long_function")
    assert windows[1:] == _windows_read_off_the_whole_text(chunks[long_row], settings.embedding.window_tokens)
    assert windows[1:] == code_windows(chunks[long_row], settings.embedding.window_tokens)
    assert report.embedded_new == len(texts)  # every window is a vector in the index


def _windows_read_off_the_whole_text(chunk, window_tokens: int) -> list[str]:
    """The oracle: windows cut by each code line's word pieces as one encoding of the chunk's whole
    text places them (by their offsets), not by counting lines apart as the index does."""
    import numpy as np

    from ragstream.index.chunks import line_groups
    from ragstream.index.embedding_windows import MIN_CODE_TOKENS, model_tokenizer, short_header

    tokenizer = model_tokenizer()
    lines = chunk.text.split("\n")
    code_start = len(chunk.embedding_text) - len(chunk.text)
    line_starts = np.cumsum([0] + [len(line) + 1 for line in lines[:-1]])
    starts = [start - code_start for start, end in tokenizer.encode(chunk.embedding_text).offsets
              if end > start and start >= code_start]
    costs = np.bincount(np.searchsorted(line_starts, starts, side="right") - 1, minlength=len(lines)) + 1
    header = short_header(chunk)
    budget = max(MIN_CODE_TOKENS, window_tokens - len(tokenizer.encode(header).ids))
    return [f"{header}\n" + "\n".join(group) for group in line_groups(lines, costs.tolist(), budget)]


def test_a_text_has_the_word_pieces_of_its_lines_whatever_they_hold():
    # Windows are cut by each line's word pieces, counted line by line (once per distinct line,
    # the files' lines while the graph is built): that equals one encoding of the whole text only
    # if no word piece spans a newline, whatever the line holds.
    from ragstream.index.embedding_windows import SPECIAL_TOKENS, LinePieces, code_windows, model_tokenizer
    from ragstream.index.model import Chunk

    lines = ["def résumé_naïve(x):\r", "\tcafé = '東京タワー' + x  # ünïcödé", "", "    " + "y" * 150,
             "    return {'a': [1, 2.5e-3]}\u00a0\u200b", "\x00\x07 control", "  # ---- ====", "end"] * 12
    chunk = Chunk("py:m.f|FUNCTION", "m.py", 1, len(lines), "FUNCTION", "m.f", "\n".join(lines),
                  {"header": "file: m.py\nsymbol: m.f\ncalls: g, h"})
    whole = model_tokenizer().encode(chunk.embedding_text).ids
    counted = LinePieces(["\n".join(lines[:5])])  # some lines counted ahead, the rest when asked
    assert len(whole) == SPECIAL_TOKENS + sum(counted.of(chunk.embedding_text.split("\n"))) > 240
    assert code_windows(chunk, 240, counted) == _windows_read_off_the_whole_text(chunk, 240)


def test_semantic_search_finds_long_chunks_by_their_tails(tmp_path: Path):
    # Four functions share their first 250+ word pieces; only their last line differs, far past
    # what the model reads of a text: only a window over the tail can tell them apart.
    filler = "\n".join(f"    value_{i} = int(value_{i - 1} if {i} else 0) + {i}" for i in range(1, 40))
    tails = {"step_a": "send_invoice_email_to_customer(batch.customer, smtp_server)",
             "step_b": "write_ledger_rows_to_database(batch.rows, connection)",
             "step_c": "render_sales_chart_as_png(batch.totals, figure_path)",
             "step_d": "compress_archive_of_old_log_files(log_folder)"}
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "steps.py").write_text("".join(f"def {name}(batch):\n    value_0 = 0\n{filler}\n    {tail}\n\n\n"
                                           for name, tail in tails.items()))
    settings = make_settings(tmp_path / "data", chunks={"max_chunk_tokens": 4000})
    build_index(repo, settings)
    from ragstream.retrieval.filters import RetrievalFilters
    from ragstream.retrieval.types import SearchRequest

    backend = LocalBackend(settings)
    for name, question in [("step_a", "email the invoice to the customer over smtp"),
                           ("step_b", "store ledger rows in the database"),
                           ("step_c", "draw the sales chart into a png image"),
                           ("step_d", "compress old log files into an archive")]:
        hits = backend.search(SearchRequest("semantic", question, 1, "repo", "default", RetrievalFilters())).hits
        assert [h.id for h in hits] == [f"py:steps.{name}|FUNCTION"], question


def test_files_parsed_by_worker_processes_make_the_same_index(sample_repo: Path, tmp_path: Path, monkeypatch):
    # Parse workers are forked only where it pays and is safe; forced here, the index -- its
    # parse records, graph, chunks and BM25 -- must be the one parsing in place makes.
    import os

    from ragstream.index import parse, workers

    parsers = tmp_path / "parsers"
    parsers.mkdir()
    parse_source = parse.parse_source

    def noted(*args):  # forked workers inherit it
        (parsers / str(os.getpid())).touch()
        return parse_source(*args)

    def artifacts(data: str) -> dict[str, bytes]:
        settings = make_settings(tmp_path / data)
        build_index(sample_repo, settings, fill=False)
        live = store.current_generation(locate(repository_info(sample_repo), settings))
        return {p.relative_to(live).as_posix(): p.read_bytes() for p in sorted(live.rglob("*"))
                if p.is_file() and p.name != store.MANIFEST}

    monkeypatch.setattr(parse, "parse_source", noted)
    monkeypatch.setattr(workers, "worker_count", lambda jobs, per_worker: 2)
    pooled = artifacts("pooled")
    assert {p.name for p in parsers.iterdir()} - {str(os.getpid())}, "no file was parsed by a worker"
    monkeypatch.setattr(workers, "worker_count", lambda jobs, per_worker: 1)
    assert artifacts("in-place") == pooled and len(pooled) >= 4


def test_the_same_files_make_the_same_index_in_every_process(sample_repo: Path, tmp_path: Path):
    # Python hashes strings differently in each process: nothing written may follow a set's order
    # (the call solver's sets, BM25's vocabulary, an interface's implementers), or two builds of
    # one commit would differ.
    import os
    import subprocess
    import sys

    gateways = "".join(f"    public class {name}Gateway : IPaymentGateway {{ public void Charge(decimal amount) {{ }} }}\n"
                       for name in ("Card", "Bank", "Wallet", "Voucher", "Invoice", "Crypto"))
    (sample_repo / "src" / "Payments.cs").write_text(
        "namespace Shop.Payments {\n    public interface IPaymentGateway { void Charge(decimal amount); }\n" + gateways
        + "    public class Checkout {\n        private readonly IPaymentGateway _gateway;\n"
        "        public Checkout(IPaymentGateway gateway) { _gateway = gateway; }\n"
        "        public void Pay(decimal amount) { _gateway.Charge(amount); }\n    }\n}\n", encoding="utf-8")

    script = ("import sys\nfrom ragstream.index.build import build_index\nfrom tests.conftest import make_settings\n"
              "from pathlib import Path\nbuild_index(sys.argv[1], make_settings(Path(sys.argv[2])), fill=False)\n")

    def artifacts(seed: str) -> dict[str, bytes]:
        data = tmp_path / f"seed{seed}"
        subprocess.run([sys.executable, "-c", script, str(sample_repo), str(data)], check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, cwd=Path(__file__).parent.parent)
        live = store.current_generation(locate(repository_info(sample_repo), make_settings(data)))
        return {p.relative_to(live).as_posix(): p.read_bytes() for p in sorted(live.rglob("*"))
                if p.is_file() and p.name != store.MANIFEST}

    first = artifacts("1")
    assert artifacts("2") == first and any(name.startswith("bm25") for name in first)


def test_what_runs_while_workers_parse_has_ended_when_the_parse_does(sample_repo: Path, monkeypatch):
    from ragstream.index import parse, workers
    from ragstream.index.walk import walk_repository

    files = walk_repository(sample_repo, make_settings(sample_repo / "unused").index).files
    monkeypatch.setattr(workers, "worker_count", lambda jobs, per_worker: 2)
    ran = []

    def meanwhile():
        ran.append("loaded")
        raise ValueError("a warm-up that fails is left to the step that needs it")

    parsed = parse.parse_many([(f, None) for f in files], "auto", lambda: None, meanwhile)
    assert ran == ["loaded"] and [p.path for p, _ in parsed] == [f.path for f in files]


def test_no_parse_worker_is_forked_beside_another_thread_or_for_a_few_files():
    import threading

    from ragstream.index.parse import FILES_PER_WORKER
    from ragstream.index.workers import worker_count

    assert worker_count(FILES_PER_WORKER - 1, FILES_PER_WORKER) <= 1
    release = threading.Event()
    thread = threading.Thread(target=release.wait, args=(5,))
    thread.start()
    try:
        assert worker_count(100 * FILES_PER_WORKER, FILES_PER_WORKER) == 1  # a fork would copy locks the thread may hold
    finally:
        release.set()
        thread.join()


def test_the_index_commands_progress_bars_leave_the_build_free_to_fork(sample_repo: Path, tmp_path: Path):
    # Rich's refresh thread ran beside every `ragstream index` build, so no worker was ever
    # forked there: the walk, the parse and the call solve ran on one core. In a fresh process:
    # a test session's earlier tests may leave threads of their own, which rightly stop a fork.
    script = f"""
import json
from pathlib import Path
from ragstream.cli.index_commands import _RichProgress
from ragstream.index import workers
from ragstream.index.build import build_index
from tests.conftest import make_settings

forkable = {{}}

class Watching(_RichProgress):
    def start(self, phase, total):
        forkable[phase] = workers.can_fork()  # (the build's own threads run later in a phase)
        super().start(phase, total)

with Watching() as progress:
    build_index(Path({str(sample_repo)!r}), make_settings(Path({str(tmp_path / "data")!r})), fill=False,
                progress=progress)
print(json.dumps(forkable))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          cwd=PROJECT_ROOT, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    assert done.returncode == 0, done.stderr
    forkable = json.loads(done.stdout.strip().splitlines()[-1])
    assert forkable["walk"] and forkable["parse"]


def test_a_build_pauses_the_garbage_collector_and_gives_it_back_as_it_was():
    import gc
    import threading

    from ragstream.gc_pause import gc_paused

    assert gc.isenabled()
    started, release = threading.Event(), threading.Event()

    def other_build():
        with gc_paused():
            started.set()
            release.wait(5)

    thread = threading.Thread(target=other_build)
    thread.start()
    started.wait(5)
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other build still runs
    release.set()
    thread.join()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()


def test_objects_made_in_a_gc_pause_join_the_oldest_generation_and_its_cycles_are_still_collected():
    # Left young, the first collection after a build's pause walked everything the build made
    # (0.3 CPU s on astroid); promoted unvisited, they wait for a full pass, which still frees cycles.
    import gc
    import weakref

    from ragstream.gc_pause import gc_paused

    class Node:
        pass

    with gc_paused():
        kept = [[i] for i in range(1_000)]
        loop = Node()
        loop.me = loop  # garbage only a cycle collection frees
        gone = weakref.ref(loop)
        del loop
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(kept) in oldest and all(id(item) in oldest for item in kept)
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    assert gone() is not None  # no pass has met it yet
    gc.collect()
    assert gone() is None


def test_generated_code_nested_hundreds_deep_is_indexed_not_a_stopped_build(tmp_path: Path):
    # sympy's polys benchmarks sum hundreds of terms in one expression: its flow facts nested as
    # deep as the sum was long, past what JSON is written to, and the whole build stopped.
    from ragstream.index.python.parser import parse_python

    repo = tmp_path / "repo"
    repo.mkdir()
    terms = " + ".join(f"uk_{i}" for i in range(400))
    (repo / "bench.py").write_text(f"def system(uk_0):\n    return {terms}\n\ndef run():\n    return system(1)\n")
    chain = ".".join(["base"] + ["attr"] * 300)  # nothing to flatten: the file is kept as text, and says why
    (repo / "deep.py").write_text(f"def chain(base):\n    return {chain}\n")
    settings = make_settings(tmp_path / "data")
    report = build_index(repo, settings, fill=False)
    assert "bench.py" not in report.parse_failures
    assert "nests too deep to store" in report.parse_failures["deep.py"]
    graph = load(settings, repo).graph()
    assert graph.has_edge("py:bench.run|FUNCTION", "py:bench.system|FUNCTION", "CALLS")
    returns = next(r for r in parse_python("bench.py", (repo / "bench.py").read_text(), "bench").flow
                   if r["name"] == "bench.system")["returns"]
    assert returns[0][0] == "u" and len(returns[0][1]) == 400  # one flat union, not 399 nested ones


def test_a_file_over_the_size_limit_is_said_in_the_summary_and_the_manifest(tmp_path: Path, capsys):
    """A source file skipped for its size is named with its size and the setting, not only counted."""
    repo = tmp_path / "repo"
    (repo / "Data").mkdir(parents=True)
    (repo / "Data" / "Orders.cs").write_text("namespace Shop; public class Orders { public int Id { get; set; } }\n")
    seeder = "namespace Shop; public class Seeder { public string[] Rows = {" + '"row",' * 500 + "}; }\n"
    (repo / "Data" / "Seeder.cs").write_text(seeder)
    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n  max_file_bytes: 2000\n")
    assert main(["--config", str(config), "index", str(repo), "--name", "demo"]) == 0
    out = capsys.readouterr().out
    said = f"Data/Seeder.cs ({len(seeder)} bytes > index.max_file_bytes=2000)"
    assert f"warning: not indexed, too large: {said}; raise index.max_file_bytes" in " ".join(out.split())
    manifest = store.load_index(store.IndexLocation(tmp_path / "data", "repo", "demo")).manifest
    assert manifest["counts"]["too_large"] == [said]
    assert "Data/Orders.cs" in manifest["files"] and "Data/Seeder.cs" not in manifest["files"]


def test_a_file_read_in_the_windows_code_page_is_named_in_the_summary_and_the_manifest(tmp_path: Path, capsys):
    """A C# file that is no UTF-8 is indexed as the compiler reads it, and said so by name."""
    repo = tmp_path / "repo"
    (repo / "Core").mkdir(parents=True)
    (repo / "Core" / "Pages.cs").write_bytes("namespace Wiki; public static class Pages { // “§§(”\n"
                                             "    public static void ModifyPage() { } }\n".encode("cp1252"))
    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    assert main(["--config", str(config), "index", str(repo), "--name", "demo"]) == 0
    said = "Core/Pages.cs (windows-1252)"
    assert f"note: not UTF-8, read in a Windows code page: {said}" in " ".join(capsys.readouterr().out.split())
    stored = store.load_index(store.IndexLocation(tmp_path / "data", "repo", "demo"))
    assert stored.manifest["counts"]["decoded_by_fallback"] == [said]
    assert "cs:Wiki.Pages.ModifyPage|METHOD" in stored.graph()


def test_paths_with_brackets_are_printed_as_they_are(tmp_path: Path, capsys):
    """The summary names files as text, not Rich markup: `Views/[id].cs` keeps its brackets, and
    a path holding `[/]` (a closing tag to Rich) neither vanishes nor stops the command."""
    repo = tmp_path / "repo"
    for folder, name in (("Views", "[id].cs"), ("odd[", "]name.cs")):
        (repo / folder).mkdir(parents=True)
        (repo / folder / name).write_bytes("namespace Wiki; public static class Pages { // “§”\n"
                                           "    public static void Show() { } }\n".encode("cp1252"))
    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    assert main(["--config", str(config), "index", str(repo), "--name", "demo"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Views/[id].cs (windows-1252)" in out and "odd[/]name.cs (windows-1252)" in out
