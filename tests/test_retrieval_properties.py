"""Property: whatever the index, filters and query, nothing outside the filters ever comes out."""
from __future__ import annotations

from pathlib import Path

import pathspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragstream.index import store
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.types import SearchRequest
from tests.conftest import make_settings
from ragstream.eval.synthetic_index import Row, write_synthetic_index

WORDS = ["invoice", "payment", "customer", "total", "refund", "ledger", "tax", "audit"]
PATHS = ["src/a.py", "src/b/c.py", "db/schema.sql", "docs/readme.md", "secret/keys.py"]
KINDS = ["FUNCTION", "METHOD", "CLASS", "TABLE"]
LANGUAGES = ["python", "sql", "text"]
TAGS = ["public", "dev", "dba"]
LABELS = ["internal", "confidential"]
BACKENDS = ["local", "milvus"]


def subsets(values):
    return st.lists(st.sampled_from(values), unique=True).map(tuple)


rows_strategy = st.lists(
    st.builds(lambda words, path, kind, language, tags, labels: (words, path, kind, language, tags, labels),
              st.lists(st.sampled_from(WORDS), min_size=1, max_size=5), st.sampled_from(PATHS),
              st.sampled_from(KINDS), st.sampled_from(LANGUAGES), subsets(TAGS), subsets(LABELS)),
    min_size=1, max_size=40)
filters_strategy = st.fixed_dictionaries({}, optional={
    "acl_tags_any": st.lists(st.sampled_from(TAGS), unique=True),
    "classification_labels_all": st.lists(st.sampled_from(LABELS), unique=True),
    "paths_include": st.lists(st.sampled_from(["src/", "db/", "*.md", "secret/", "**", "!src/b/", "!db/**"]),
                              unique=True),
    "paths_exclude": st.lists(st.sampled_from(["src/b/", "secret/", "*.sql"]), unique=True),
    "kinds": st.lists(st.sampled_from(KINDS), unique=True),
    "languages": st.lists(st.sampled_from(LANGUAGES), unique=True),
})


def allowed(row: Row, filters: dict) -> bool:
    """The filter semantics, written out plainly as the test's oracle."""
    def matches(globs):
        return pathspec.GitIgnoreSpec.from_lines(globs).match_file(row.path)

    def included(globs):  # a `!glob` in an include list always narrows, wherever it stands
        negated = [g[1:] for g in globs if g.startswith("!")]
        return matches([g for g in globs if not g.startswith("!")]) and not (negated and matches(negated))
    return all([
        "acl_tags_any" not in filters or bool(set(row.acl_tags) & set(filters["acl_tags_any"])),
        "classification_labels_all" not in filters  # an empty allowlist allows nothing, as every other
        or bool(filters["classification_labels_all"]) and set(filters["classification_labels_all"]) <= set(row.labels),
        "paths_include" not in filters or included(filters["paths_include"]),
        not filters.get("paths_exclude") or not matches(filters["paths_exclude"]),
        "kinds" not in filters or row.kind in filters["kinds"],
        "languages" not in filters or row.language in filters["languages"],
    ])


@pytest.fixture(scope="module")
def milvus_client(tmp_path_factory):
    """One Milvus Lite (in-process gRPC server) for the module: each example publishes a new
    generation of the same index, so the alias switch is exercised every time."""
    from ragstream.retrieval.milvus_store import connect

    return connect(str(tmp_path_factory.mktemp("milvus") / "props.db"))


def backend_for(backend_kind: str, data: Path, client):
    """The backend under test over the synthetic index just written to `data`."""
    settings = make_settings(data)
    if backend_kind == "local":
        return LocalBackend(settings)
    from ragstream.retrieval.milvus_backend import MilvusBackend
    from ragstream.retrieval.milvus_store import publish

    publish(client, store.IndexLocation(data, "synth", "main"))
    return MilvusBackend(settings, client=client)


examples = given(raw_rows=rows_strategy, filters=filters_strategy, extra=filters_strategy,
                 query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
                 mode=st.sampled_from(["semantic", "bm25", "hybrid"]), top_k=st.integers(1, 12),
                 seed=st.integers(0, 99))
PROPERTY = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("backend_kind", BACKENDS)
@settings(max_examples=40, **PROPERTY)
@examples
def test_no_hit_text_or_debug_entry_outside_the_filters(tmp_path_factory, milvus_client, backend_kind, raw_rows,
                                                        filters, extra, query, mode, top_k, seed):
    check_nothing_outside_the_filters(tmp_path_factory, milvus_client, backend_kind, raw_rows, filters, extra, query,
                                      mode, top_k, seed)


@pytest.mark.slow
@pytest.mark.parametrize("backend_kind", BACKENDS)
@settings(max_examples=1000, **PROPERTY)
@examples
def test_no_hit_text_or_debug_entry_outside_the_filters_1000_cases(tmp_path_factory, milvus_client, backend_kind,
                                                                   raw_rows, filters, extra, query, mode, top_k, seed):
    check_nothing_outside_the_filters(tmp_path_factory, milvus_client, backend_kind, raw_rows, filters, extra, query,
                                      mode, top_k, seed)


def check_nothing_outside_the_filters(tmp_path_factory, client, backend_kind, raw_rows, filters, extra, query, mode,
                                      top_k, seed):
    rows = [Row(f"py:m.f{i}|{kind}", " ".join(words), path, kind, language, tags, labels)
            for i, (words, path, kind, language, tags, labels) in enumerate(raw_rows)]
    data = tmp_path_factory.mktemp("prop")
    write_synthetic_index(data, rows, seed=seed)
    backend = backend_for(backend_kind, data, client)
    # The caller's filters narrowed by a second set (as a router payload does): both must hold.
    visible = {r.id for r in rows if allowed(r, filters) and allowed(r, extra)}
    narrowed = RetrievalFilters.parse(filters).narrowed_by(RetrievalFilters.parse(extra))
    search = SearchRequest(mode, " ".join(query), top_k, "synth", "main", narrowed)

    response = backend.search(search)
    assert {h.id for h in response.hits} <= visible
    assert len(response.hits) <= top_k
    if mode == "semantic":
        assert len(response.hits) == min(top_k, len(visible))  # filtering never starves top_k
    assert not any("py:m." in str(value) for value in response.debug.values())
    assert response.debug["visible_rows"] == len(visible)
    assert backend.search(search).hits == response.hits  # deterministic
    if backend_kind == "milvus":  # the same ranking as the local backend over the same index
        assert [h.id for h in response.hits] == [h.id for h in LocalBackend(backend.settings).search(search).hits]
    texts = backend.fetch_texts([r.id for r in rows], "synth", "main", narrowed)
    assert set(texts) == visible
    # The one-item predicate (used on graph nodes) agrees with the vectorised mask.
    parsed = search.retrieval_filters
    assert {r.id for r in rows if parsed.allows(r.acl_tags, r.labels, r.path, r.kind, r.language)} == visible
