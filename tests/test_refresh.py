"""A re-index with nothing changed returns after the walk and publishes nothing; whatever the
build depends on besides the files (settings, parser version, commit) still rebuilds."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstream.cli import main
from ragstream.index import build, store
from ragstream.index.build import build_index, fill_index, locate, repository_info
from ragstream.index.embeddings import Embedder
from tests.conftest import make_settings


def live_generation(settings, repo: Path) -> Path | None:
    return store.current_generation(locate(repository_info(repo), settings))


def test_nothing_changed_publishes_nothing(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    first = build_index(sample_repo, settings, fill=False)
    generation = live_generation(settings, sample_repo)
    counting = Embedder()
    again = build_index(sample_repo, settings, embedder=counting, fill=False)
    assert again.unchanged and again.incremental and again.changes.stale == 0
    assert live_generation(settings, sample_repo) == generation
    assert set(again.seconds) == {"walk"} and again.reparsed == 0 and counting.texts_embedded == 0
    assert (again.files, again.chunks, again.nodes_by_kind, again.edges_by_type, again.stage) == \
        (first.files, first.chunks, first.nodes_by_kind, first.edges_by_type, first.stage)


@pytest.mark.parametrize("change", ["one-line edit", "setting", "parser version", "skipped file", "rebuild"])
def test_anything_the_index_depends_on_rebuilds(sample_repo: Path, tmp_path: Path, monkeypatch, change: str):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    generation = live_generation(settings, sample_repo)
    rebuild = change == "rebuild"
    if change == "one-line edit":
        util = sample_repo / "billing" / "util.py"
        util.write_text(util.read_text() + "\nREFRESH_MARKER = 1\n")
    elif change == "setting":
        settings = make_settings(tmp_path / "data", chunks={"max_chunk_tokens": 90})
    elif change == "parser version":
        monkeypatch.setattr(build, "PARSER_VERSION", build.PARSER_VERSION + 1)
    elif change == "skipped file":
        (sample_repo / ".env").write_text("TOKEN=x\n")  # never read, but counted among the skipped
    report = build_index(sample_repo, settings, rebuild=rebuild, fill=False)
    assert not report.unchanged and "parse" in report.seconds
    assert live_generation(settings, sample_repo) != generation
    if change == "parser version":
        assert report.reparsed == report.files  # no cached parse of another parser version is reused


def test_an_index_of_an_older_format_without_a_build_key_is_rebuilt_once(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    manifest_path = live_generation(settings, sample_repo) / store.MANIFEST
    manifest = store.load_index(locate(repository_info(sample_repo), settings)).manifest
    del manifest["build_key"]
    store.write_json(manifest_path, manifest)
    assert not build_index(sample_repo, settings, fill=False).unchanged
    assert build_index(sample_repo, settings, fill=False).unchanged


def test_nothing_changed_resumes_an_unfinished_fill(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    keyword = build_index(sample_repo, settings, fill=False)
    assert keyword.stage != "complete"
    assert build_index(sample_repo, settings, fill=False).stage == keyword.stage  # nothing filled
    counting = Embedder()
    resumed = build_index(sample_repo, settings, embedder=counting)
    assert resumed.unchanged and resumed.stage == "complete"
    assert counting.texts_embedded == resumed.embedded_new > 0


def test_the_cli_says_unchanged(sample_repo: Path, tmp_path: Path, capsys):
    config = tmp_path / "settings.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    assert main(["--config", str(config), "index", str(sample_repo), "--wait"]) == 0
    capsys.readouterr()
    assert main(["--config", str(config), "index", str(sample_repo)]) == 0
    out = capsys.readouterr().out
    assert "unchanged sample_repo @ default" in " ".join(out.split()) and "nothing to rebuild" in out


def test_a_fill_whose_index_was_replaced_while_its_model_loaded_leaves_the_filling(
        sample_repo: Path, tmp_path: Path, monkeypatch):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    util = sample_repo / "billing" / "util.py"

    def edit_and_reindex(embedder: Embedder, backend: str) -> None:  # an edit lands while the model loads
        util.write_text(util.read_text() + "\nWHILE_LOADING = 1\n")
        build_index(sample_repo, settings, fill=False)  # not blocked: the fill holds no lock yet

    monkeypatch.setattr(Embedder, "warm", edit_and_reindex)
    counting = Embedder()
    stale = fill_index(sample_repo, settings, embedder=counting)
    assert counting.texts_embedded == 0 and stale.stage != "complete"  # the new index's own fill fills it
    monkeypatch.undo()
    assert fill_index(sample_repo, settings).stage == "complete"


def test_a_followed_build_with_nothing_to_do_still_says_the_index_can_be_asked(sample_repo: Path, tmp_path: Path,
                                                                                capsys):
    config = tmp_path / "settings.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    assert main(["--config", str(config), "index", str(sample_repo), "--events"]) == 0
    capsys.readouterr()
    assert main(["--config", str(config), "index", str(sample_repo), "--events"]) == 0  # what the workbench runs
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["event"] for e in events] == ["published", "summary"]
    assert events[0]["vectors"]["stage"] == "complete" and events[1]["seconds"].keys() == {"walk"}
