"""The compact forms a build writes for a cold process (`index/compact_forms.py`): the lazy graph,
the chunk table and the mentions table answer exactly as graph.json, chunks.jsonl and a symbol
table made from the chunks do -- on real indexes, under filters -- and an index built before
them still loads and answers the same."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import orjson
import pytest

from ragstream.controller import Controller, Scope
from ragstream.errors import RagstreamError
from ragstream.index import compact_graph, mention_table, store
from ragstream.index.build import build_index
from ragstream.index.chunk_table import FOLDER as CHUNK_TABLE, AccessColumns, read_chunk_table
from ragstream.index.compact_graph import CompactGraph, read_compact_graph
from ragstream.index.mention_table import MentionTable
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.mentions import SymbolTable
from ragstream.retrieval.visibility import Visibility
from tests.conftest import ACL_RULES, SELF_INDEX_IGNORE, make_settings

COMPACT = (compact_graph.FOLDER, CHUNK_TABLE, mention_table.FOLDER)
FILTERS: list[dict[str, list[str]]] = [
    {}, {"acl_tags_any": ["public"]}, {"paths_exclude": ["db/**"]}, {"languages": ["python"]},
    {"kinds": ["METHOD", "TABLE", "PROCEDURE"]}, {"paths_include": ["src/**", "db/procedures.sql"]},
    {"acl_tags_any": []},
]
QUESTIONS = [
    "Which procedures write to the Invoices table?",
    "Which tables have a foreign key to the Invoices table?",
    "What breaks if I rename the Status column of the Invoices table?",
    "How is an invoice created and saved, from the controller down to the tables?",
    "How is a payment recorded?",
    "Which C# class are rows of the Invoices table mapped to?",
    "Who calls InvoiceService.record_payment?",
    "Where is `balance` used?",
    "What does billing.service.InvoiceService._validate do and who calls it?",
    "which code writes invoice lines",
]


def live_generation(data_dir: Path) -> Path:
    (index_dir,) = [p for p in (data_dir / "indexes").glob("*/*") if (p / store.CURRENT).is_file()]
    return index_dir / (index_dir / store.CURRENT).read_text().strip()


def as_built_before(data_dir: Path) -> None:
    """Make the live index look like one built before the compact forms: no such files, and a
    manifest that does not vouch for them."""
    generation = live_generation(data_dir)
    for folder in COMPACT:
        shutil.rmtree(generation / folder)
    manifest = orjson.loads((generation / store.MANIFEST).read_bytes())
    manifest["artifacts"] = {name: size for name, size in manifest["artifacts"].items()
                             if not name.startswith(tuple(f"{f}/" for f in COMPACT))}
    store.write_json(generation / store.MANIFEST, manifest)


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    """The sample repository indexed once (ACL rules: db/ for `dba` only), and a copy of that
    index made to look built before the compact forms: (settings with them, settings without)."""
    root = tmp_path_factory.mktemp("compact")
    repo = root / "sample_repo"
    shutil.copytree(Path(__file__).parent / "fixtures" / "sample_repo", repo)
    new = make_settings(root / "new", acl={"rules": ACL_RULES})
    build_index(repo, new)
    shutil.copytree(root / "new", root / "old")
    old = make_settings(root / "old", acl={"rules": ACL_RULES})
    as_built_before(root / "old")
    return new, old


def same_graph(compact: nx.MultiDiGraph, reference: nx.MultiDiGraph) -> None:
    """Equal, order included: nodes, attributes, successors and predecessors with their keys."""
    assert list(compact) == list(reference)
    assert compact.graph == reference.graph
    for node in reference:
        assert compact.nodes[node] == reference.nodes[node], node
        for side in ("succ", "pred"):
            got, want = getattr(compact, side)[node], getattr(reference, side)[node]
            assert [(n, list(keys.items())) for n, keys in got.items()] == \
                   [(n, list(keys.items())) for n, keys in want.items()], (node, side)
    assert list(compact.edges(keys=True, data=True)) == list(reference.edges(keys=True, data=True))


def test_the_compact_graph_is_graph_json_node_for_node_and_edge_for_edge(twins):
    generation = live_generation(Path(twins[0].index.data_dir))
    reference = store.StoredIndex(None, generation, {}).graph()  # type: ignore[arg-type]
    compact = read_compact_graph(generation / compact_graph.FOLDER)
    assert isinstance(compact, CompactGraph) and reference.number_of_edges() > 100
    same_graph(compact, reference)


def test_a_scan_of_every_node_reads_them_all_at_once_and_equals_a_node_by_node_read(twins):
    generation = live_generation(Path(twins[0].index.data_dir))
    one_by_one = read_compact_graph(generation / compact_graph.FOLDER)
    whole = read_compact_graph(generation / compact_graph.FOLDER)
    assert one_by_one is not None and whole is not None
    by_node = [(n, one_by_one.nodes[n]) for n in one_by_one]
    assert list(whole.nodes(data=True)) == by_node
    assert nx.utils.graphs_equal(whole, one_by_one)


def test_node_link_data_quirks_are_kept(tmp_path: Path):
    """What graph.json loses or changes, the compact form loses and changes alike: a node's `id`
    attribute, an edge's `source`/`target`/`key` attributes, tuples read back as lists, integer
    keys of an attribute's dict as strings; nodes only an edge names; parallel edges by key."""
    graph = nx.MultiDiGraph(code_root="src")
    graph.add_node("a", id="x", kind="FUNCTION", name="pkg.a", span=(1, 2), counts={3: "three"})
    graph.add_node("b", kind="TABLE", name="dbo.B")
    graph.add_edge("a", "b", key="READS", type="READS", source="s", line=4, guess=True)
    graph.add_edge("a", "b", key="WRITES", type="WRITES", key_attr=1.0)
    graph.add_edge("b", "a", key="CALLS", type="CALLS", target=None)
    graph.add_edge("c", "a", key=7, type="CALLS")  # c exists only through its edge; an int key
    path = tmp_path / "graph.json"
    store.write_graph(path, graph)
    reference = nx.node_link_graph(orjson.loads(path.read_bytes()), directed=True, multigraph=True, edges="edges")
    compact_graph.write_compact_graph(tmp_path / "compact", graph)
    compact = read_compact_graph(tmp_path / "compact")
    assert compact is not None
    same_graph(compact, reference)
    assert compact.nodes["a"] == {"kind": "FUNCTION", "name": "pkg.a", "span": [1, 2], "counts": {"3": "three"}}
    assert compact.named("a") == ["a"] and compact.named("b") == ["b"] and compact.named("c") == []


def test_views_walks_and_pagerank_over_the_compact_graph_equal_those_over_graph_json(twins):
    new, old = (LocalBackend(settings) for settings in twins)
    for filters in FILTERS:
        got = new.graph("sample_repo", "default", filters)
        want = old.graph("sample_repo", "default", filters)
        assert list(got.nodes(data=True)) == list(want.nodes(data=True)), filters
        assert list(got.edges(keys=True, data=True)) == list(want.edges(keys=True, data=True)), filters
        seeds = {n: 1.0 for n in list(want)[:5]}
        if seeds:
            assert nx.pagerank(got, personalization=seeds) == nx.pagerank(want, personalization=seeds)


def clean(value: Any) -> Any:
    """A state or reply without what differs between two runs: times."""
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items() if k not in ("seconds", "ms", "trace")}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


@pytest.mark.parametrize("filters", FILTERS[:5], ids=lambda f: ",".join(f) or "none")
def test_ask_relations_expand_and_search_answer_the_same_from_either_form(twins, filters):
    """The whole pipeline -- search, mentions, relate, expand, node texts, graph panels' data,
    the deterministic answer -- and the MCP-facing calls give the same results over the
    compact forms as over an index built before them."""
    results = []
    for settings in twins:
        controller = Controller(settings)
        scope = Scope("sample_repo", "default", "default", filters)
        pipeline = controller.pipeline("base")
        states = [clean(orjson.loads(controller.run(q, scope, pipeline)[0].to_json())) for q in QUESTIONS]
        searches = [clean(controller.search(scope, mode, q, 20)[1].__dict__) for mode in ("bm25", "hybrid", "semantic")
                    for q in QUESTIONS]
        relations = []
        for subject in ("py:billing.service.InvoiceService.record_payment|METHOD", "sql:dbo.Invoices|TABLE",
                        "record_payment", "Invoices"):
            for relation in ("callers", "callees", "reads", "writes", "impact", "tests", "flow"):
                try:
                    relations.append(controller.relations(subject, relation, scope, pipeline))
                except RagstreamError as exc:  # the same refusal either way
                    relations.append(repr(exc))
        expanded = clean(orjson.loads(controller.expand_seeds(
            ["py:billing.service.InvoiceService|CLASS", "sql:dbo.Invoices|TABLE"], scope, pipeline)[0].to_json()))
        results.append((states, searches, relations, expanded))
    assert results[0] == results[1]
    if not filters:  # the questions reached the graph: the comparison compared something
        assert any(state["graph_expanded_nodes"] for state in results[0][0])


def test_the_chunk_table_reads_every_row_as_chunks_jsonl_does(twins):
    generation = live_generation(Path(twins[0].index.data_dir))
    chunks = store.StoredIndex(None, generation, {}).chunks()  # type: ignore[arg-type]
    table = read_chunk_table(generation)
    assert table is not None and len(table) == len(chunks) > 20
    assert table[len(chunks) - 1] == chunks[-1] and table[-1] == chunks[-1]  # read out of order first
    assert list(table) == chunks and table[2:5] == chunks[2:5]
    assert table.ids == [c.id for c in chunks] and table.nodes == [c.node_id for c in chunks]
    columns, made = table.columns, AccessColumns.of(chunks)
    assert columns.paths == made.paths and columns.path_ids.tolist() == made.path_ids.tolist()
    assert {k: v.tolist() for k, v in columns.rows.items()} == {k: v.tolist() for k, v in made.rows.items()}
    with pytest.raises(IndexError):
        table[len(chunks)]


def test_visibility_from_the_chunk_table_masks_exactly_as_from_the_chunks(twins):
    generation = live_generation(Path(twins[0].index.data_dir))
    chunks = store.StoredIndex(None, generation, {}).chunks()  # type: ignore[arg-type]
    table = read_chunk_table(generation)
    assert table is not None
    for filters in FILTERS + [{"classification_labels_all": ["confidential"]}, {"paths_exclude": ["billing/*.py"]}]:
        parsed = RetrievalFilters.parse(filters)
        mask = Visibility(table).mask(parsed)
        assert mask.tolist() == Visibility(chunks).mask(parsed).tolist(), filters
        # and each row as the graph's per-item rule sees it
        assert mask.tolist() == [parsed.allows(c.metadata.get("acl_tags", ()), c.metadata.get("classification_labels", ()),
                                               c.path, c.kind, c.metadata.get("language", "")) for c in chunks]


def mention_queries(chunks) -> list[str]:
    """Questions naming the index's own symbols, files and modules every way a mention can."""
    queries = []
    for chunk in chunks:
        parts = chunk.symbol.split(".")
        queries += [chunk.symbol, ".".join(parts[-2:]), f"`{parts[-1]}`", f"{parts[-1]}()", chunk.path,
                    f'File "/site-packages/{chunk.path}", line 3, in {parts[-1]}',
                    " ".join(chunk.path.removesuffix(".py").split("/")), chunk.symbol.upper(),
                    f"{'.'.join(parts[:-1])}.{parts[-1]}.attribute and str(x)"]
    return queries


def same_mentions(chunks, stored: MentionTable) -> int:
    """Whether the stored table scores every query as a table made from the chunks; how many scored."""
    made, read = SymbolTable.build(chunks), SymbolTable.build(chunks, stored)
    half = np.zeros(len(chunks), dtype=bool)
    half[::2] = True
    named = 0
    for query in mention_queries(chunks):
        for visible in (np.ones(len(chunks), dtype=bool), half):
            scores = made.scores(query, visible)
            assert read.scores(query, visible) == scores, query
            named += bool(scores)
    return named


def test_the_stored_mentions_table_scores_as_one_made_from_the_chunks(twins):
    generation = live_generation(Path(twins[0].index.data_dir))
    chunks = store.StoredIndex(None, generation, {}).chunks()  # type: ignore[arg-type]
    stored = MentionTable.read(generation / mention_table.FOLDER)
    assert stored is not None and MentionTable.read(generation / "nothing") is None
    assert same_mentions(chunks, stored) > len(chunks)


def test_an_index_built_before_the_compact_forms_loads_from_its_files(twins):
    index = LocalBackend(twins[1]).store.index("sample_repo", "default", None)
    assert isinstance(index.chunks, list) and index.stored_mentions() is None
    graph = LocalBackend(twins[1]).store.graph(index)
    assert not isinstance(graph, CompactGraph) and graph.number_of_nodes() > 20
    fresh = LocalBackend(twins[0]).store.index("sample_repo", "default", None)
    assert not isinstance(fresh.chunks, list) and fresh.stored_mentions() is not None


def test_a_compact_file_cut_short_is_refused_with_the_rebuild_command(tmp_path: Path, twins):
    from ragstream.errors import IndexLoadError

    shutil.copytree(Path(twins[0].index.data_dir), tmp_path / "data")
    generation = live_generation(tmp_path / "data")
    names = generation / compact_graph.FOLDER / "names.json"
    names.write_bytes(names.read_bytes()[:10])
    with pytest.raises(IndexLoadError, match="partial or corrupt") as error:
        LocalBackend(make_settings(tmp_path / "data")).store.index("sample_repo", "default", None)
    assert "--rebuild" in (error.value.hint or "")


def test_a_hidden_node_is_not_found_by_name_through_a_filtered_compact_graph(twins):
    from ragstream.graph.named import find_named

    backend = LocalBackend(twins[0])
    question = "Which procedures write to the Invoices table? What do usp_RecordPayment and InvoiceService.record_payment do?"
    everything = [n.id for n in find_named(backend.graph("sample_repo", "default", {}), question)]
    assert "sql:dbo.Invoices|TABLE" in everything
    hidden = backend.graph("sample_repo", "default", {"acl_tags_any": ["public"]})
    found = [n.id for n in find_named(hidden, question)]
    assert found and not any(n.startswith("sql:") for n in found)


@pytest.mark.slow
def test_compact_forms_equal_the_files_on_ragstreams_own_index(tmp_path: Path):
    """A larger real graph (Python call resolution, dispatch, guesses): keyword-ready only."""
    from ragstream.config import PROJECT_ROOT

    settings = make_settings(tmp_path / "data", index={"ignore": SELF_INDEX_IGNORE})
    build_index(PROJECT_ROOT, settings, name="self", fill=False)
    generation = live_generation(tmp_path / "data")
    stored = store.StoredIndex(None, generation, {})  # type: ignore[arg-type]
    compact = read_compact_graph(generation / compact_graph.FOLDER)
    assert compact is not None
    same_graph(compact, stored.graph())
    chunks = stored.chunks()
    table = read_chunk_table(generation)
    assert table is not None and list(table) == chunks
    mentions = MentionTable.read(generation / mention_table.FOLDER)
    assert mentions is not None
    assert same_mentions(chunks, mentions) > len(chunks)
