"""The command line for machines and pipes: `--index NAME` alone finds its repository, piped
tables keep every id whole, and `--json` prints one parseable document."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragstream.cli import main

QUESTION = "how is a payment recorded"


@pytest.fixture(scope="module")
def two_repositories(built_sample, tmp_path_factory) -> Path:
    """A data folder with the sample's index and a second repository beside it (another index
    name): a config file pointing at it."""
    _, settings, _ = built_sample
    root = tmp_path_factory.mktemp("cli")
    data = root / "data"
    shutil.copytree(settings.index.data_dir, data)
    (data / "indexes" / "zz_other_repo" / "nightly").mkdir(parents=True)
    config = root / "cli.yaml"
    config.write_text(f"index:\n  data_dir: {data}\n")
    return config


def test_index_alone_finds_its_repository_and_json_keeps_ids_whole(two_repositories, capsys):
    assert main(["--config", str(two_repositories), "search", QUESTION, "--index", "default", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["repository"] == "sample_repo" and result["index"] == "default" and result["hits"]
    assert all("…" not in hit["id"] and hit["path_lines"] for hit in result["hits"])


def test_an_index_name_in_two_repositories_is_an_error_listing_both(two_repositories, capsys):
    (Path(two_repositories).parent / "data" / "indexes" / "zz_other_repo" / "default").mkdir()
    try:
        assert main(["--config", str(two_repositories), "search", QUESTION, "--index", "default"]) == 2
        err = capsys.readouterr().err
        assert "sample_repo/default" in err and "zz_other_repo/default" in err and "--repository" in err
        assert main(["--config", str(two_repositories), "search", QUESTION, "--index", "nope"]) == 2
        assert "no index named 'nope'" in capsys.readouterr().err
    finally:
        (Path(two_repositories).parent / "data" / "indexes" / "zz_other_repo" / "default").rmdir()


def test_piped_tables_are_plain_lines_with_whole_ids(two_repositories, capsys):
    assert main(["--config", str(two_repositories), "search", QUESTION, "--index", "default", "--top-k", "5"]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    rows = [line.split("\t") for line in out.splitlines() if "\t" in line]
    assert rows[0] == ["rank", "score", "id", "path:lines", "sources"] and len(rows) == 6
    assert all("|" in row[2] and ":" in row[3] for row in rows[1:])  # `lang:qualified.name|KIND`, `path:a-b`


def test_ask_and_expand_print_json(two_repositories, capsys):
    assert main(["--config", str(two_repositories), "ask", QUESTION, "--index", "default", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["answer"] and answer["citations"] and answer["path"] == "deterministic"
    assert [s["step"] for s in answer["steps"]][-1] == "persist" and answer["trace"] and answer["budget"]["prompt"]
    assert main(["--config", str(two_repositories), "expand", QUESTION, "--index", "default", "--json"]) == 0
    expanded = json.loads(capsys.readouterr().out)
    assert any(node["seed"] for node in expanded["nodes"]) and expanded["edges"] and expanded["budget"]["used"] > 0


def test_ask_session_resolves_a_follow_up_on_the_command_line(two_repositories, capsys):
    base = ["--config", str(two_repositories), "ask", "--index", "default", "--json"]
    assert main([*base[:3], "What does log_event do?", *base[3:], "--session", "new"]) == 0
    captured = capsys.readouterr()
    session = json.loads(captured.out)["session"]["session"]
    assert main([*base[:3], "and who calls it?", *base[3:], "--session", session]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["follow_up"]["subjects"] == ["py:billing.util.log_event|FUNCTION"]
    assert answer["retrieval_mode"] != "direct" and "(callers)" in answer["answer"]


def test_with_two_repositories_the_one_holding_the_current_directory_is_asked(two_repositories, built_sample,
                                                                              capsys, monkeypatch):
    repo, _, _ = built_sample
    monkeypatch.chdir(repo / "billing")  # inside the sample's checkout, as git finds its repository
    assert main(["--config", str(two_repositories), "search", QUESTION, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["repository"] == "sample_repo"
    assert "index: sample_repo / default" in captured.err and "--repository" in captured.err  # says which
    monkeypatch.chdir(Path(two_repositories).parent)  # in no indexed checkout: an error that says how to choose
    assert main(["--config", str(two_repositories), "search", QUESTION]) == 2
    err = capsys.readouterr().err
    assert "cannot choose a repository: found sample_repo, zz_other_repo" in err
    assert "--repository NAME, or run the command inside its checkout" in err
