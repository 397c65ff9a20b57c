"""`ragstream eval` on gold-symbol (.NET + SQL) questions: loading, the ranked list a pipeline
run stands for, and a whole run over a mirror of the fixture repository's C# and SQL."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ragstream.errors import ConfigError
from ragstream.eval.ranked_nodes import ranked_nodes
from ragstream.eval.symbol_questions import holds_symbol_questions, load_symbol_questions
from ragstream.super_prompt import SuperPrompt

from conftest import SAMPLE_REPO

SCORER = Path("/work/shared/eval/score_dotnet.py")
GOOD = {"id": "q1", "repo": "acme/shop", "commit": "abc", "scope": ["src/"], "query": "How?", "kind": "flow",
        "gold_files": ["src/A.cs"], "gold_symbols": ["src/A.cs::N.A.Run"], "gold_sql_objects": ["dbo.T"]}


def _jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_symbol_questions_load(tmp_path: Path):
    path = _jsonl(tmp_path / "q.jsonl", [GOOD, dict(GOOD, id="q2", kind="list", gold_sql_objects=[])])
    one, two = load_symbol_questions(path)
    assert holds_symbol_questions(path)
    assert (one.commit, one.scope, one.kind, one.gold_sql_objects) == ("abc", ("src/",), "flow", ("dbo.T",))
    assert two.gold_sql_objects == ()


@pytest.mark.parametrize(("bad", "message"), [
    ("{not json", "not valid JSON"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "scope"}), "lacks scope"),
    (json.dumps(dict(GOOD, kind="guess")), "unknown kind 'guess'"),
    (json.dumps(dict(GOOD, gold_symbols="src/A.cs::N.A.Run")), "gold_symbols must be a list"),
])
def test_a_bad_symbol_question_line_is_named(tmp_path: Path, bad: str, message: str):
    path = _jsonl(tmp_path / "q.jsonl", [GOOD, "", bad])
    with pytest.raises(ConfigError, match=message) as info:
        load_symbol_questions(path)
    assert info.value.where.startswith(f"{path}:3")


def test_the_python_sets_are_not_symbol_questions(tmp_path: Path):
    path = _jsonl(tmp_path / "q.jsonl", [{"id": "a", "repo": "o/n", "query": "q", "gold_files": ["a.py"]}])
    assert not holds_symbol_questions(path)


def test_ranked_nodes_cite_first_then_context_then_hits_as_node_ids():
    sp = SuperPrompt(
        extras={"answer": {"citations": ["sql:dbo.T|TABLE", "cs:N.A.Run|METHOD"]}},
        final_selection_ids=["cs:N.A.Run|METHOD", "cs:N.B|TYPE", "sql:dbo.T|TABLE"],
        retrieval_hits=[{"id": "cs:N.C.Go|METHOD#p2"}, {"id": "cs:N.B|TYPE"}, {"id": "cs:N.C.Go|METHOD#p1"},
                        {"id": "file:src/x.sql|FILE"}])
    assert ranked_nodes(sp) == ["sql:dbo.T|TABLE", "cs:N.A.Run|METHOD", "cs:N.B|TYPE", "cs:N.C.Go|METHOD",
                                "file:src/x.sql|FILE"]
    assert ranked_nodes(SuperPrompt()) == []


# --- a whole run: a mirror of the fixture, its C# and SQL folders checked out -----------------

CONTROLLER = "src/Billing/Controllers/InvoicesController.cs"


def _git(where: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.skipif(not SCORER.is_file(), reason="the shared .NET scorer is not on this machine")
def test_eval_runs_symbol_questions_through_the_pipeline(tmp_path: Path, capsys):
    from ragstream.cli import main

    work = tmp_path / "work"
    shutil.copytree(SAMPLE_REPO, work)
    _git(tmp_path, "init", "-q", str(work))
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "one")
    commit = _git(work, "rev-parse", "HEAD")
    _git(tmp_path, "clone", "-q", "--bare", str(work), str(tmp_path / "mirrors" / "acme+billing" / "repo"))
    common = {"repo": "acme/billing", "commit": commit, "scope": ["src/", "db/"]}
    questions = _jsonl(tmp_path / "q.jsonl", [
        dict(common, id="create", kind="flow",
             query="How is an invoice created, from the controller down to the tables?",
             gold_files=[CONTROLLER, "db/schema.sql"],
             gold_symbols=[f"{CONTROLLER}::Billing.Controllers.InvoicesController.Create"],
             gold_sql_objects=["dbo.Invoices"]),
        dict(common, id="pay", kind="list", query="Which procedures write to the Payments table?",
             gold_files=["db/procedures.sql"], gold_symbols=[], gold_sql_objects=["dbo.usp_RecordPayment"])])
    out = tmp_path / "out"
    code = main(["eval", str(questions), "--mirrors", str(tmp_path / "mirrors"), "--out", str(out),
                 "--data-dir", str(tmp_path / "data"), "--scorer", str(SCORER)])
    assert code == 0
    tree = tmp_path / "data" / "worktrees" / "acme+billing"
    assert (tree / "db" / "schema.sql").is_file() and not (tree / "billing").exists()  # the scope only
    builds = [json.loads(line) for line in (out / "builds.jsonl").read_text().splitlines()]
    assert len(builds) == 1  # one index for the commit's two questions
    predictions = {p["id"]: p for p in map(json.loads, (out / "predictions.jsonl").read_text().splitlines())}
    assert set(predictions) == {"create", "pay"} and predictions["pay"]["kind"] == "list"
    assert predictions["create"]["scope"] == ["src/", "db/"]
    for p in predictions.values():
        nodes = p["ranked_nodes"]
        assert nodes and len(nodes) == len(set(nodes)) and not any("#p" in n for n in nodes)
        assert not any(n.startswith("py:") for n in nodes)  # the Python folder is out of scope
    assert "dbo.usp_RecordPayment" in " ".join(predictions["pay"]["ranked_nodes"])
    scores = json.loads((out / "scores.json").read_text())
    assert set(scores["by_kind"]) == {"flow", "list"} and scores["micro"]["questions"] == 2
    assert scores["by_kind"]["list"]["sym@10"] == 1.0
    assert "| **overall** | 2 |" in (out / "scores.md").read_text()
    assert "MICRO" in capsys.readouterr().out


def test_a_missing_scorer_is_named_before_the_run(tmp_path: Path, capsys):
    from ragstream.cli import main

    questions = _jsonl(tmp_path / "q.jsonl", [GOOD])
    code = main(["eval", str(questions), "--mirrors", str(tmp_path), "--out", str(tmp_path / "out")])
    assert code == 2
    assert f"{tmp_path / 'score_dotnet.py'}: no scorer there" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
