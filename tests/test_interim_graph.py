"""A Python edit re-indexed warm (`index --watch`) is published twice: first with the interim
graph (`index/graph_interim.py`) -- the edit's chunks, BM25 and symbols current, the graph the
previous build's with the edited file's own definitions, marked as updating -- then linked and
published exact (`tests/test_code_edit_equals_full.py` compares that one with a full build).
Here: what the interim generation holds and says, in search, the controller, the index list, the
MCP tools' results and `index --status`; and that an interim generation a build left behind is
linked by the next build, never taken as up to date."""
from __future__ import annotations

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
    """Looks at the live index when the build first publishes (the interim generation); with
    `stop`, ends the build there, as a kill at that moment would."""

    def __init__(self, settings, repo: Path, stop: bool = False):
        self.settings, self.repo, self.stop = settings, repo, stop
        self.seen: dict | None = None

    def published(self, vectors: dict) -> None:
        if self.seen is not None:
            return
        stored = store.load_index(locate(repository_info(self.repo), self.settings))
        scope = resolve_scope(self.settings)
        _, response, _ = search(self.settings, scope, "bm25", "audit_refunds", 5)
        graph = stored.graph()
        self.seen = {"manifest": stored.manifest, "hits": [h.id for h in response.hits],
                     "warnings": response.debug.get("warnings", []), "calls": python_calls(self.settings, self.repo),
                     "nodes": {data["name"] for _, data in graph.nodes(data=True)}, "graph_attrs": graph.graph}
        if self.stop:
            raise Interrupted


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


def test_an_interim_generation_left_behind_says_so_everywhere_and_is_linked_next(tmp_path: Path):
    repo, settings = edited_repo(tmp_path)
    with pytest.raises(Interrupted):
        build_index(repo, settings, fill=False, changed=[EDITED], progress=AtFirstPublication(settings, repo, stop=True))
    location = locate(repository_info(repo), settings)
    assert store.load_index(location).manifest[GRAPH_UPDATE]["files"] == [EDITED]
    # every front end's reading of it says the graph is updating
    summary = next(s for s in catalog.list_indexes(settings) if s.index == location.active_index)
    assert summary.stale == 0 and summary.graph_note and summary.graph_note.startswith("graph: updating")
    assert catalog.build_wanted(settings, repo, None) is False  # not up to date: the graph is to be linked
    with Controller(settings) as controller:
        scope = resolve_scope(settings)
        assert (controller.graph_note(scope) or "").startswith("graph: updating, 1 file(s)")
        filtered = (controller.graph_note(scope.with_filters({"paths_include": ["shop/**"]})) or "")
        assert filtered.startswith("graph: updating, files changed") and EDITED not in filtered  # nothing named
        service = Service(controller, ServerOptions())
        call = CallScope()
        assert service.index_status(call).graph == summary.graph_note
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

    repo, settings = edited_repo(tmp_path)
    with pytest.raises(Interrupted):
        build_index(repo, settings, fill=False, changed=[EDITED], progress=AtFirstPublication(settings, repo, stop=True))
    config = tmp_path / "settings.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n", encoding="utf-8")
    assert main(["--config", str(config), "index", str(repo), "--status"]) == 0
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
    interim = interim_graph(before, warm.linked.records)
    assert interim is not None and interim.changed == [path]
    label_access(interim.graph, acl_policy(settings.acl))
    whole, patched = graph_text(interim.graph), patched_text(interim.graph, kept, interim.redo)
    assert patched.graph_json() == whole.graph_json()
    for name in ("node_items", "edge_texts", "keys", "rows_of_path"):
        assert getattr(patched, name) == getattr(whole, name), name
    for name in ("source", "target", "edge_key"):
        assert (getattr(patched, name) == getattr(whole, name)).all(), name
