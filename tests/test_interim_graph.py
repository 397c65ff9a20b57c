"""A Python edit re-indexed warm (`index --watch`) is published twice: first with the interim
graph (`index/graph_interim.py`) -- the edit's chunks, BM25 and symbols current, the graph the
previous build's with the edited file's own definitions, marked as updating -- then linked and
published exact (`tests/test_code_edit_equals_full.py` compares that one with a full build).
Here: what the interim generation holds and says, in search, the controller, the index list, the
MCP tools' results and `index --status`; and that an interim generation a build left behind is
linked by the next build, never taken as up to date."""
from __future__ import annotations

import html
import shutil
from pathlib import Path

import pytest

from ragstream import catalog
from ragstream.controller import Controller, resolve_scope, search
from ragstream.index import store, warm_state
from ragstream.index.build import Silent, build_index, locate, repository_info
from ragstream.index.graph_mark import GRAPH_UPDATE
from ragstream.mcp.service import CallScope, ServerOptions, Service
from tests.conftest import make_settings
from tests.test_code_edit_equals_full import FILES, python_calls, write_repo
from tests.test_replay import snapshot

EDITED = "shop/report.py"
# a function added whose body calls into another module: askable at once, its call linked after
NEW_TEXT = FILES[EDITED] + "\n\ndef audit_refunds():\n    return make()\n"


class Interrupted(Exception):
    """Stands for the process being killed once the interim generation is live."""


class AtFirstPublication(Silent):
    """Looks at the live index when the build first publishes (the interim generation): what
    `record` keeps of it and of a keyword search for `query`; with `stop`, ends the build there,
    as a kill at that moment would."""

    query = "audit_refunds"

    def __init__(self, settings, repo: Path, stop: bool = False):
        self.settings, self.repo, self.stop = settings, repo, stop
        self.seen: dict | None = None

    def published(self, vectors: dict) -> None:
        if self.seen is not None:
            return
        stored = store.load_index(locate(repository_info(self.repo), self.settings))
        _, response, _ = search(self.settings, resolve_scope(self.settings), "bm25", self.query, 5)
        self.seen = self.record(stored, response, stored.graph())
        if self.stop:
            raise Interrupted

    def record(self, stored, response, graph) -> dict:
        return {"manifest": stored.manifest, "hits": [h.id for h in response.hits],
                "warnings": response.debug.get("warnings", []), "calls": python_calls(self.settings, self.repo),
                "nodes": {data["name"] for _, data in graph.nodes(data=True)}, "graph_attrs": graph.graph}


def edited_repo(tmp_path: Path):
    repo = tmp_path / "repo"
    write_repo(repo, FILES)
    settings = make_settings(tmp_path / "data")
    build_index(repo, settings, fill=False)
    (repo / EDITED).write_text(NEW_TEXT, encoding="utf-8")
    return repo, settings


def test_an_edit_is_askable_first_with_the_graph_marked_then_linked(tmp_path: Path):
    repo, settings = edited_repo(tmp_path)
    first = AtFirstPublication(settings, repo)
    report = build_index(repo, settings, fill=False, changed=[EDITED], progress=first)
    seen = first.seen
    assert seen is not None and report.graph_deferred == [EDITED] and report.askable_seconds is not None
    # the interim generation: the edit's chunk is searchable, its definition in the graph, its call not yet
    assert seen["manifest"][GRAPH_UPDATE]["files"] == [EDITED] and seen["graph_attrs"][GRAPH_UPDATE]["files"] == [EDITED]
    assert any("audit_refunds" in hit for hit in seen["hits"])
    assert any(w.startswith("graph: updating, 1 file(s) changed since it was linked (shop/report.py)")
               for w in seen["warnings"])
    assert any(name.endswith("audit_refunds") for name in seen["nodes"])
    assert ("audit_refunds", "factory.make") not in seen["calls"]
    # then the linked generation: the call drawn, no mark left anywhere
    stored = store.load_index(locate(repository_info(repo), settings))
    assert GRAPH_UPDATE not in stored.manifest and GRAPH_UPDATE not in stored.graph().graph
    assert ("audit_refunds", "factory.make") in python_calls(settings, repo)
    _, response, _ = search(settings, resolve_scope(settings), "bm25", "audit_refunds", 5)
    assert not any(w.startswith("graph:") for w in response.debug.get("warnings", []))


def left_behind(tmp_path: Path):
    """(repo, settings, location) of an index whose interim generation a killed build left live."""
    repo, settings = edited_repo(tmp_path)
    with pytest.raises(Interrupted):
        build_index(repo, settings, fill=False, changed=[EDITED], progress=AtFirstPublication(settings, repo, stop=True))
    return repo, settings, locate(repository_info(repo), settings)


class AnsweredAtFirstPublication(Silent):
    """Answers from the interim generation when it goes live: the relations, an expand state
    and the MCP tools, all made before the linked generation replaces it."""

    def __init__(self, controller: Controller):
        self.controller, self.made = controller, False

    def published(self, vectors: dict) -> None:
        if self.made:
            return
        self.made = True
        scope, pipeline = resolve_scope(self.controller.settings), self.controller.pipeline("base")
        self.answer = self.controller.relations(AUDIT, "callees", scope, pipeline)
        self.state, _ = self.controller.expand_seeds([AUDIT], scope, pipeline)
        service = Service(self.controller, ServerOptions())
        self.tools = [service.relations(CallScope(), AUDIT, "callees", "base", 4000).graph,
                      service.expand(CallScope(), [AUDIT], None, "base", {}, None, 4000).graph,
                      service.fetch(CallScope(), [AUDIT], 4000, 4000).graph]


AUDIT = "py:shop.report.audit_refunds|FUNCTION"


def test_an_answer_keeps_the_note_of_the_graph_it_was_made_from_after_the_link(tmp_path: Path):
    """review10 finding 1: the note was read again after the work, from whatever graph was live
    by then; an answer made from the interim graph came back unmarked once the link published."""
    from ragstream.graph.view import graph_html
    from ragstream.index.graph_mark import graph_note_of

    repo, settings = edited_repo(tmp_path)
    with Controller(settings) as controller:
        early = AnsweredAtFirstPublication(controller)
        build_index(repo, settings, fill=False, changed=[EDITED], progress=early)
        scope = resolve_scope(settings)
        assert controller.neighbourhood(AUDIT, scope)["graph"] is None  # the linked graph is live now
        assert early.answer["items"] == []  # made from the interim graph: its call not linked then ...
        assert (early.answer["graph"] or "").startswith("graph: updating, 1 file(s)")  # ... and it says so
        assert all((note or "").startswith("graph: updating") for note in early.tools)
        note = graph_note_of(early.state)
        assert (note or "").startswith("graph: updating, 1 file(s) changed since it was linked (shop/report.py)")
        # the drawing of that state says so too (the graph page, `expand --html`), whatever is live
        assert html.escape(note) in graph_html(controller.graph(early.state), early.state)
        linked = controller.relations(AUDIT, "callees", scope, controller.pipeline("base"))
        assert [i["id"] for i in linked["items"]] == ["py:shop.factory.make|FUNCTION"] and linked["graph"] is None
        assert graph_note_of(controller.expand_seeds([AUDIT], scope, controller.pipeline("base"))[0]) is None


def settings_file(tmp_path: Path) -> Path:
    config = tmp_path / "settings.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n", encoding="utf-8")
    return config


def test_the_mcp_node_resource_carries_the_mark(tmp_path: Path):
    """review10 finding 2: `ragstream://node/{id}` (read through the SDK's client) served an
    interim graph's edges unmarked."""
    import json
    import sys
    from urllib.parse import quote

    import anyio
    from mcp import Client, StdioServerParameters

    _, settings, _ = left_behind(tmp_path)
    config = settings_file(tmp_path)
    with Controller(settings) as controller:
        filtered = controller.neighbourhood(AUDIT, resolve_scope(settings).with_filters({"paths_include": ["shop/**"]}))
    assert filtered["graph"].startswith("graph: updating, files changed") and EDITED not in filtered["graph"]

    async def node() -> dict:
        command = [sys.executable, "-m", "ragstream", "--config", str(config), "mcp"]
        async with Client(StdioServerParameters(command=command[0], args=command[1:]),
                          read_timeout_seconds=120) as client:
            return json.loads((await client.read_resource(f"ragstream://node/{quote(AUDIT, safe='')}"))
                              .contents[0].text)

    served = anyio.run(node)
    assert served["id"] == AUDIT and served["graph"].startswith("graph: updating, 1 file(s) changed")


def test_expand_exports_carry_the_mark(tmp_path: Path, capsys):
    """review10 finding 4: `ragstream expand --json/--html` said it on stderr only."""
    import json

    from ragstream.cli import main

    left_behind(tmp_path)
    page = tmp_path / "out.html"
    assert main(["--config", str(settings_file(tmp_path)), "expand", "audit_refunds", "--html", str(page),
                 "--json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["graph"].startswith("graph: updating, 1 file(s) changed since it was linked (shop/report.py)")
    assert any("graph: updating" in warning for warning in exported["warnings"])
    assert html.escape(exported["graph"]) in page.read_text(encoding="utf-8")


def test_an_interim_generation_left_behind_says_so_everywhere_and_is_linked_next(tmp_path: Path):
    repo, settings, location = left_behind(tmp_path)
    assert store.load_index(location).manifest[GRAPH_UPDATE]["files"] == [EDITED]
    # every front end's reading of it says the graph is updating
    summary = next(s for s in catalog.list_indexes(settings) if s.index == location.active_index)
    note = summary.graph_note(filtered=False)
    assert summary.stale == 0 and note and note.startswith("graph: updating")
    assert catalog.build_wanted(settings, repo, None) is False  # not up to date: the graph is to be linked
    with Controller(settings) as controller:
        scope = resolve_scope(settings)
        assert (controller.neighbourhood(AUDIT, scope)["graph"] or "").startswith("graph: updating, 1 file(s)")
        filtered = controller.neighbourhood(AUDIT, scope.with_filters({"paths_include": ["shop/**"]}))["graph"] or ""
        assert filtered.startswith("graph: updating, files changed") and EDITED not in filtered  # nothing named
        service = Service(controller, ServerOptions())
        call = CallScope()
        assert service.index_status(call).graph == note
        assert (service.relations(call, "make", "callers", "base", 4000).graph or "").startswith("graph: updating")
    # a new process (no warm state) links it: not "nothing changed", and the same index as a full build
    warm_state.forget(location)
    report = build_index(repo, settings, fill=False)
    assert not report.unchanged and GRAPH_UPDATE not in store.load_index(location).manifest
    full = make_settings(tmp_path / "full")
    shutil.rmtree(tmp_path / "full", ignore_errors=True)
    build_index(repo, full, rebuild=True, fill=False)
    left, right = snapshot(settings, repo), snapshot(full, repo)
    for part in left:
        assert left[part] == right[part], part
    assert build_index(repo, settings, fill=False).unchanged  # and now it is up to date


def test_index_status_prints_the_graph_note(tmp_path: Path, capsys):
    from ragstream.cli import main

    repo, _, _ = left_behind(tmp_path)
    assert main(["--config", str(settings_file(tmp_path)), "index", str(repo), "--status"]) == 0
    assert "graph: updating, 1 file(s) changed since it was linked (shop/report.py)" in capsys.readouterr().out



@pytest.mark.parametrize("edit", ["a function added", "a function removed", "a function renamed",
                                  "a method added to a base class", "a class renamed"])
def test_the_interim_graphs_texts_are_patched_to_the_bytes_encoding_it_whole_gives(tmp_path: Path, edit: str):
    from ragstream.index.acl import acl_policy
    from ragstream.index.build import label_access
    from ragstream.index.graph_interim import interim_graph
    from ragstream.index.graph_text import graph_text, patched_text
    from tests.test_code_edit_equals_full import EDITS

    path, text, _, _ = EDITS[edit]
    repo = tmp_path / "repo"
    write_repo(repo, FILES)
    settings = make_settings(tmp_path / "data")
    build_index(repo, settings, fill=False)
    warm = warm_state.warm_state(locate(repository_info(repo), settings), start_over=False)
    before, kept = warm.linked, warm.graph_text
    assert before is not None and kept is not None and kept.graph is before.graph
    (repo / path).write_text(text, encoding="utf-8")
    build_index(repo, settings, fill=False, changed=[path])
    assert warm.linked is not None
    as_built = _both_ways(before.graph)
    interim = interim_graph(before, warm.linked.records)
    assert interim is not None and interim.changed == [path]
    assert _both_ways(before.graph) == as_built  # the graph it was made from is left as it was
    out_edges, in_edges = _both_ways(interim.graph)
    assert sorted(out_edges) == sorted(in_edges)  # every edge seen the same from both of its ends
    label_access(interim.graph, acl_policy(settings.acl))
    whole, patched = graph_text(interim.graph), patched_text(interim.graph, kept, interim.redo)
    assert patched.graph_json() == whole.graph_json()
    for name in ("node_items", "edge_texts", "keys", "rows_of_path"):
        assert getattr(patched, name) == getattr(whole, name), name
    for name in ("source", "target", "edge_key"):
        assert (getattr(patched, name) == getattr(whole, name)).all(), name


def test_the_sidebar_card_names_and_counts_nothing_under_security_filters(tmp_path: Path, monkeypatch):
    """review10 finding 3 (and review9's 13): the workbench's index card named the changed files,
    and counted the whole index's files and SQL coverage, whatever the session's filters were."""
    from streamlit.testing.v1 import AppTest

    from ragstream.config import PROJECT_ROOT
    from ragstream.ui import CONFIG_ENV

    left_behind(tmp_path)
    config = tmp_path / "ui.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n  watch_in_workbench: false\n", encoding="utf-8")
    monkeypatch.setenv(CONFIG_ENV, str(config))
    at = AppTest.from_file(str(PROJECT_ROOT / "ui_streamlit.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    card = [c.value for c in at.sidebar.caption]
    assert any("graph: updating, 1 file(s) changed since it was linked (shop/report.py)" in c for c in card)
    assert any(" files · " in c and " chunks · " in c for c in card)
    at.sidebar.text_input(key="filter:paths_include").input("shop/**").run()
    assert not at.exception, at.exception
    card = [c.value for c in at.sidebar.caption]
    assert any("graph: updating, files changed since it was linked" in c for c in card)
    assert not any(EDITED in c or " files · " in c or "C# -> SQL" in c for c in card), card
    assert any("counts withheld under your security filters" in c for c in card)


def test_the_pre_edit_generation_goes_once_the_linked_one_is_live(tmp_path: Path):
    """review10 finding 5: three generations stayed after every edit published twice. The interim
    one stays (a reader may have just loaded it); the one before the edit goes; a reader that held
    it follows the live one."""
    repo, settings = edited_repo(tmp_path)
    location = locate(repository_info(repo), settings)
    before = store.current_generation(location)
    with Controller(settings) as controller:
        scope = resolve_scope(settings)
        assert controller.search(scope, "bm25", "report", 5)[1].hits  # holds the pre-edit generation
        report = build_index(repo, settings, fill=False, changed=[EDITED])
        assert report.graph_deferred == [EDITED]
        gens = sorted(location.index_dir.glob("gen-*"))
        assert before is not None and not before.exists() and len(gens) == 2
        assert store.current_generation(location) in gens
        hits = [h.id for h in controller.search(scope, "bm25", "audit_refunds", 5)[1].hits]
        assert any("audit_refunds" in hit for hit in hits)


def test_patched_text_refuses_kept_edges_whose_ends_or_keys_differ():
    """review10 finding 8: the guard compared counts only, so an edge moved to another target (or
    given another key) was written with the old text."""
    import networkx as nx

    from ragstream.index.graph_text import graph_text, patched_text

    graph = nx.MultiDiGraph()
    for name in "abc":
        graph.add_node(name, kind="FUNCTION", path=f"{name}.py")
    graph.add_edge("a", "b", key="CALLS", resolution="static")
    graph.add_edge("a", "c", key="IMPORTS")
    before = graph_text(graph)
    assert patched_text(graph.copy(), before, ()).graph_json() == before.graph_json()
    retargeted, rekeyed = graph.copy(), graph.copy()
    retargeted.remove_edge("a", "b", key="CALLS")
    retargeted.add_edge("a", "c", key="CALLS", resolution="static")  # as many edges from a, one to another node
    rekeyed.remove_edge("a", "b", key="CALLS")
    rekeyed.add_edge("a", "b", key="REFERENCES")
    for changed in (retargeted, rekeyed):
        with pytest.raises(ValueError, match="the edges from 'a' are not the ones it had"):
            patched_text(changed, before, ())
    # the node whose edges changed is redone: then it is the whole encoding's bytes
    assert patched_text(retargeted, before, {"a"}).graph_json() == graph_text(retargeted).graph_json()


class GenerationsAtFirstPublication(Silent):
    """The generation folders on disk when the build first publishes (its interim generation)."""

    def __init__(self, location: store.IndexLocation):
        self.location = location
        self.seen: set[Path] | None = None

    def published(self, vectors: dict) -> None:
        if self.seen is None:
            self.seen = set(self.location.index_dir.glob("gen-*"))


def test_the_last_edits_interim_generation_is_swept_once_the_next_edit_is_askable(tmp_path: Path):
    """Removing a generation unlinks every file of it (tens of ms on a large tree): the next edit
    sweeps the last one's interim generation after its own first publication, not before; two
    generations are left after each edit. No fsync thread outlives a build (one would keep the
    next build's parse from forking its workers)."""
    import threading

    repo, settings = edited_repo(tmp_path)
    location = locate(repository_info(repo), settings)
    build_index(repo, settings, fill=False, changed=[EDITED])
    left = set(location.index_dir.glob("gen-*")) - {store.current_generation(location)}
    assert len(left) == 1  # the first edit's interim generation
    (repo / EDITED).write_text(NEW_TEXT + "\n\ndef audit_again():\n    return make()\n", encoding="utf-8")
    first = GenerationsAtFirstPublication(location)
    report = build_index(repo, settings, fill=False, changed=[EDITED], progress=first)
    assert report.graph_deferred == [EDITED]
    assert first.seen is not None and left <= first.seen  # still there when the edit was askable
    after = set(location.index_dir.glob("gen-*"))
    assert not left & after and len(after) == 2
    assert not [t for t in threading.enumerate() if t.name.startswith("ragstream-fsync")]


def _both_ways(graph) -> tuple[list, list]:
    """Every edge as its source's successors hold it and as its target's predecessors do, in order."""
    out_edges = [(u, v, key, repr(data)) for u, ends in graph._succ.items() for v, keys in ends.items()
                 for key, data in keys.items()]
    in_edges = [(u, v, key, repr(data)) for v, ends in graph._pred.items() for u, keys in ends.items()
                for key, data in keys.items()]
    return out_edges, in_edges


def test_an_edge_removed_from_the_interim_copy_goes_both_ways_and_not_from_the_original():
    """The copy shares each edge's key table between its two ends, as networkx does: removing one
    of two parallel edges (a class that inherits and calls another, its base removed) left the
    target's predecessors holding it when each end had a table of its own."""
    import networkx as nx

    from ragstream.index.graph_interim import _copied

    graph = nx.MultiDiGraph()
    graph.add_edge("B", "A", key="CALLS")
    graph.add_edge("B", "A", key="INHERITS")
    graph.add_edge("C", "A", key="CALLS")
    as_built = _both_ways(graph)
    copy = _copied(graph, {"A", "B"})
    copy.remove_edge("B", "A", key="INHERITS")
    assert list(copy.in_edges("A", keys=True)) == [("B", "A", "CALLS"), ("C", "A", "CALLS")]
    assert list(copy.out_edges("B", keys=True)) == [("B", "A", "CALLS")]
    assert _both_ways(graph) == as_built
