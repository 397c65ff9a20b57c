"""The evaluation harness: metrics on hand-computed cases, the mirror checkout, and whole runs."""
from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ragstream.errors import ConfigError
from ragstream.eval.checkout import checkout_files, mirror_path
from ragstream.eval.harness import EvalOptions, qualified_in_module, run_eval
from ragstream.eval.metrics import aggregate, question_metrics
from ragstream.eval.questions import Question, load_questions
from ragstream.eval.report import prediction_lines, recall_curves, summarize

from conftest import SAMPLE_REPO, make_settings

SCORE_PY = Path("/work/shared/eval/score.py")


# --- metrics ---------------------------------------------------------------------------------

def test_file_metrics_by_hand():
    m = question_metrics(["a.py", "b.py"], [], ["x.py", "a.py", "x.py", "y.py", "z.py", "w.py", "b.py"], [])
    # deduplicated: x a y z w b -> a at rank 2, b at rank 6
    assert m == {"file_R@1": 0.0, "file_R@5": 0.5, "file_R@10": 1.0, "file_MRR": 0.5}


def test_function_metrics_by_hand_and_path_forms():
    m = question_metrics(["./pkg/m.py"], ["pkg/m.py::C.f", "pkg/m.py::g"],
                         ["pkg/m.py"], ["pkg/m.py::g", *[f"pkg/m.py::h{i}" for i in range(7)], "./pkg/m.py::C.f"])
    assert m["file_R@1"] == 1.0 and m["file_MRR"] == 1.0
    assert m["func_R@5"] == 0.5 and m["func_R@10"] == 1.0


def test_nothing_found_scores_zero():
    assert question_metrics(["a.py"], ["a.py::f"], [], []) == {
        "file_R@1": 0.0, "file_R@5": 0.0, "file_R@10": 0.0, "file_MRR": 0.0, "func_R@5": 0.0, "func_R@10": 0.0}


def test_micro_and_macro_averages_by_hand():
    one = {"file_R@1": 1.0, "file_R@5": 1.0, "file_R@10": 1.0, "file_MRR": 1.0, "func_R@5": 1.0, "func_R@10": 1.0}
    zero = {"file_R@1": 0.0, "file_R@5": 0.0, "file_R@10": 0.0, "file_MRR": 0.0}  # no gold functions
    table = aggregate([("big", one), ("big", zero), ("big", zero), ("small", one)])
    assert table["big"]["file_R@5"] == pytest.approx(1 / 3) and table["big"]["func_R@5"] == 1.0
    assert table["micro"]["file_R@5"] == 0.5 and table["micro"]["n"] == 4 and table["micro"]["n_fn"] == 2
    assert table["macro"]["file_R@5"] == pytest.approx((1 / 3 + 1) / 2)
    assert table["macro"]["func_R@10"] == 1.0


def test_qualified_names_inside_the_module():
    assert qualified_in_module("pkg.mod.Class.method", "pkg.mod") == "Class.method"
    assert qualified_in_module("pkg.function", "pkg") == "function"


def test_classes_are_ranked_as_functions_only_when_asked():
    from ragstream.eval.harness import WITH_CLASSES, ranked_files_and_functions
    from ragstream.index.model import Chunk

    chunks = [Chunk(f"py:pkg.m.{name}|{kind}", "pkg/m.py", 1, 2, kind, f"pkg.m.{name}", "", {"language": "python"})
              for name, kind in (("C", "CLASS"), ("C.f", "METHOD"), ("g", "FUNCTION"))]
    assert ranked_files_and_functions(chunks, {"pkg/m.py": "pkg.m"}) == (["pkg/m.py"], ["pkg/m.py::C.f", "pkg/m.py::g"])
    assert ranked_files_and_functions(chunks, {"pkg/m.py": "pkg.m"}, WITH_CLASSES)[1] == [
        "pkg/m.py::C", "pkg/m.py::C.f", "pkg/m.py::g"]


def test_recall_curve_by_hand():
    rows = [{"id": "q", "config": "c", "ranked_files": ["x.py", "a.py", "b.py"], "ranked_functions": []}]
    curve = recall_curves(rows, {"q": (["a.py", "b.py"], [])}, "c", "files")
    assert curve[:3] == [0.0, 0.5, 1.0] and curve[-1] == 1.0
    assert recall_curves(rows, {"q": (["a.py"], [])}, "c", "functions") == []


def test_a_bad_questions_line_is_named(tmp_path: Path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "a", "repo": "o/n", "query": "q", "gold_files": ["a.py"]}\n{"id": "b"}\n')
    with pytest.raises(ConfigError, match="lacks repo, query, gold_files") as info:
        load_questions(path)
    assert info.value.where == f"{path}:2"


# --- mirror checkout -------------------------------------------------------------------------

def _git(where: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(where), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def mirrors(tmp_path: Path) -> tuple[Path, list[str]]:
    """`<mirrors>/acme+shop/repo`: a bare clone of a two-commit repository; returns (mirrors, commits)."""
    work = tmp_path / "work"
    shutil.copytree(SAMPLE_REPO / "billing", work / "billing")
    (work / "tests").mkdir()
    (work / "tests" / "test_service.py").write_text("def test_pay():\n    assert True\n")
    (work / "NOTES.txt").write_text("not python\n")
    _git(tmp_path, "init", "-q", str(work))
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    (work / "billing" / "legacy.py").unlink()
    util = work / "billing" / "util.py"
    util.write_text(util.read_text() + "\n\ndef log_error(message: str) -> None:\n    log_event('error: ' + message)\n")
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two")
    commits = _git(work, "rev-list", "--reverse", "HEAD").split()
    _git(tmp_path, "clone", "-q", "--bare", str(work), str(tmp_path / "mirrors" / "acme+shop" / "repo"))
    return tmp_path / "mirrors", commits


def test_checkout_writes_exactly_the_python_files_of_each_commit(mirrors, tmp_path: Path):
    root, (first, second) = mirrors
    mirror = mirror_path(root, "acme/shop")
    tree = checkout_files(mirror, first, tmp_path / "wt" / "acme+shop")
    files = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py"))
    assert "billing/legacy.py" in files and "tests/test_service.py" in files
    assert not (tree / "NOTES.txt").exists()
    assert _git(tree, "rev-parse", "HEAD") == first

    tree = checkout_files(mirror, second, tmp_path / "wt" / "acme+shop")
    assert not (tree / "billing" / "legacy.py").exists()  # deleted in the second commit
    assert "log_error" in (tree / "billing" / "util.py").read_text()
    assert _git(tree, "rev-parse", "HEAD") == second


def test_a_mirror_kept_as_a_clones_git_directory_is_found(mirrors, tmp_path: Path):
    root, (first, _) = mirrors
    bare = root / "acme+shop" / "repo"
    kept = tmp_path / "other" / "acme+shop" / "repo"
    kept.mkdir(parents=True)
    shutil.copytree(bare, kept / ".git")  # a clone's git directory, its files not checked out
    mirror = mirror_path(tmp_path / "other", "acme/shop")
    assert mirror == kept / ".git"
    tree = checkout_files(mirror, first, tmp_path / "wt2" / "acme+shop")
    assert _git(tree, "rev-parse", "HEAD") == first


def test_a_missing_mirror_is_named(tmp_path: Path):
    with pytest.raises(ConfigError, match="no bare git mirror of acme/none") as info:
        mirror_path(tmp_path, "acme/none")
    assert info.value.where == str(tmp_path / "acme+none" / "repo")


@pytest.mark.slow
def test_eval_over_mirrors_reuses_parses_and_vectors_across_commits(mirrors, tmp_path: Path):
    root, (first, second) = mirrors
    questions = [
        Question("q1", "acme/shop", first, "old total of legacy items", ("billing/legacy.py",),
                 ("billing/legacy.py::old_total",), "dev", "2020-01-01"),
        Question("q2", "acme/shop", second, "log an error message", ("billing/util.py",),
                 ("billing/util.py::log_error",), "dev", "2020-02-01"),
    ]
    settings = make_settings(tmp_path / "data")
    run = run_eval(questions, settings, EvalOptions(["bm25"], tmp_path / "data", mirrors=root, top_k=20))
    one, two = run.builds
    assert (one["index"], two["index"]) == (first[:12], second[:12])
    assert one["reparsed"] == one["files"] and two["reparsed"] == 1  # only util.py changed (legacy.py went)
    assert 0 < two["embedded_new"] < one["embedded_new"] // 2
    assert all(not p.startswith("tests/") for r in run.rows for p in r["ranked_files"])  # the eval's test rule
    by_id = {r["id"]: r for r in run.rows}
    assert by_id["q1"]["gold_file_ranks"] == {"billing/legacy.py": 1}
    assert by_id["q2"]["gold_function_ranks"]["billing/util.py::log_error"] == 1


# --- a whole run on the fixture repository -------------------------------------------------

QUESTIONS = [
    {"id": "pay", "repo": "acme/sample", "base_commit": "", "split": "dev",
     "query": "Recording a payment against an invoice fails validation when the amount is negative",
     "gold_files": ["billing/service.py"],
     "gold_functions": ["billing/service.py::InvoiceService.record_payment",
                        "billing/service.py::InvoiceService._validate"]},
    {"id": "balance", "repo": "acme/sample", "base_commit": "", "split": "dev",
     "query": "Invoice.balance is wrong after mark_paid", "gold_files": ["billing/models.py"],
     "gold_functions": ["billing/models.py::Invoice.balance"]},
    {"id": "other", "repo": "acme/sample", "base_commit": "", "split": "heldout",
     "query": "anything", "gold_files": ["billing/cli.py"], "gold_functions": []},
]
CONFIGS = "bm25,semantic,hybrid,hybrid+rerank,hybrid+graph,pipeline:base,ask:base"


@pytest.fixture(scope="module")
def fixture_eval(tmp_path_factory):
    from ragstream.cli import main

    root = tmp_path_factory.mktemp("eval")
    repo = root / "sample_repo"
    shutil.copytree(SAMPLE_REPO, repo)
    questions = root / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    out = root / "out"
    code = main(["eval", str(questions), "--repo", str(repo), "--split", "dev", "--configs", CONFIGS,
                 "--out", str(out), "--data-dir", str(root / "data"), "--predictions", str(root / "pred.jsonl")])
    assert code == 0
    return root, out, questions


def test_eval_writes_ranks_tables_plot_and_predictions(fixture_eval):
    root, out, _ = fixture_eval
    rows = [json.loads(line) for line in (out / "ranks.jsonl").read_text().splitlines()]
    assert {(r["id"], r["config"]) for r in rows} == {(q, c) for q in ("pay", "balance") for c in CONFIGS.split(",")}
    for row in rows:
        assert row["ranked_files"] and len(row["ranked_files"]) <= 50
        assert all("::" in f for f in row["ranked_functions"])
    bm25 = {r["id"]: r for r in rows if r["config"] == "bm25"}
    assert bm25["pay"]["gold_file_ranks"]["billing/service.py"] <= 3
    assert bm25["balance"]["gold_function_ranks"]["billing/models.py::Invoice.balance"] <= 5
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) == set(CONFIGS.split(",")) and summary["bm25"]["micro"]["n"] == 2
    markdown = (out / "comparison.md").read_text()
    assert "| hybrid+graph | 2 | 2 |" in markdown and "## pipeline:base: per repository" in markdown
    assert (out / "recall.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    predictions = [json.loads(line) for line in (root / "pred.jsonl").read_text().splitlines()]
    assert len(predictions) == len(rows)
    assert set(predictions[0]) == {"id", "config", "ranked_files", "ranked_functions"}


def test_ask_ranks_what_the_whole_pipeline_cites_and_gives_as_context(fixture_eval, tmp_path: Path):
    """`ask:base` scores what `ragstream ask` hands over: a "who calls" question is answered from
    the graph, so both callers come right after the subject, whatever the search ranked."""
    root, _, _ = fixture_eval
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps({
        "id": "callers", "repo": "acme/sample", "base_commit": "", "split": "dev",
        "query": "Which functions call InvoiceService._validate?", "gold_files": ["billing/service.py"],
        "gold_functions": ["billing/service.py::InvoiceService.record_payment",
                           "billing/service.py::AuditedInvoiceService.record_payment"]}) + "\n")
    run = run_eval(load_questions(questions), make_settings(root / "data"),
                   EvalOptions(["ask:base"], root / "data", repo=root / "sample_repo", existing_indexes=True))
    (row,) = run.rows
    assert row["config"] == "ask:base" and run.builds == []
    assert row["ranked_functions"][0] == "billing/service.py::InvoiceService._validate"
    assert set(row["gold_function_ranks"].values()) == {2, 3}


def test_reused_rows_are_not_recomputed(fixture_eval, tmp_path: Path):
    root, out, questions = fixture_eval
    settings = make_settings(root / "data")
    qs = load_questions(questions, "dev")
    run = run_eval(qs, settings, EvalOptions(["bm25"], root / "data", repo=root / "sample_repo",
                                             reuse=(out / "ranks.jsonl",)))
    assert run.builds == [] and len(run.rows) == 2

    again = run_eval(qs, settings, EvalOptions(["bm25"], root / "data", repo=root / "sample_repo",
                                               existing_indexes=True))
    assert again.builds == [] and [r["ranked_files"] for r in again.rows] == [
        r["ranked_files"] for r in run.rows]


def test_reusing_the_out_folders_own_ranks_keeps_and_rescores_them(fixture_eval, tmp_path: Path):
    """`--reuse OUT/ranks.jsonl --out OUT` once emptied the file before reading it. Reused rows
    keep their ranked lists and are scored against the gold as it is now."""
    from ragstream.cli import main

    root, out, _ = fixture_eval
    again = tmp_path / "out"
    shutil.copytree(out, again)
    before = {(r["id"], r["config"]): r for r in map(json.loads, (again / "ranks.jsonl").read_text().splitlines())}
    moved = [dict(q, gold_files=["billing/cli.py"]) if q["id"] == "balance" else q for q in QUESTIONS]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in moved))
    code = main(["eval", str(questions), "--repo", str(root / "sample_repo"), "--split", "dev", "--configs", "bm25",
                 "--reuse", str(again / "ranks.jsonl"), "--out", str(again), "--data-dir", str(root / "data")])
    assert code == 0
    rows = {r["id"]: r for r in map(json.loads, (again / "ranks.jsonl").read_text().splitlines())}
    assert set(rows) == {"pay", "balance"} and (again / "builds.jsonl").read_text() == ""
    assert not list(again.glob("*.partial"))
    for qid, row in rows.items():
        assert row["ranked_files"] == before[qid, "bm25"]["ranked_files"]
    assert rows["pay"]["metrics"] == before["pay", "bm25"]["metrics"]
    cli_rank = rows["balance"]["ranked_files"].index("billing/cli.py") + 1 if (
        "billing/cli.py" in rows["balance"]["ranked_files"]) else None
    assert rows["balance"]["gold_file_ranks"] == {"billing/cli.py": cli_rank}
    assert rows["balance"]["metrics"]["file_MRR"] == (1 / cli_rank if cli_rank else 0.0)


@pytest.mark.parametrize(("extra", "where"), [(["--repos", "nobody/none"], "--repos"),
                                              (["--configs", ""], "--configs")])
def test_an_eval_with_nothing_to_do_is_refused_before_it_writes(fixture_eval, tmp_path: Path, capsys, extra, where):
    from ragstream.cli import main

    root, _, questions = fixture_eval
    code = main(["eval", str(questions), "--repo", str(root / "sample_repo"), "--split", "dev",
                 "--out", str(tmp_path / "out"), "--data-dir", str(root / "data"), *extra])
    assert code == 2
    assert f"error (config): {where}: " in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_question_ask_would_refuse_is_refused_by_name_before_any_index_is_built(tmp_path: Path, capsys):
    from ragstream.cli import main

    config = tmp_path / "config.yaml"
    config.write_text("limits:\n  max_question_chars: 40\n")
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    code = main(["--config", str(config), "eval", str(questions), "--repo", str(SAMPLE_REPO), "--split", "dev",
                 "--configs", "hybrid,ask:base", "--out", str(tmp_path / "out"), "--data-dir", str(tmp_path / "data")])
    assert code == 2
    err = capsys.readouterr().err
    assert "question pay (ask:base): the question has 83 characters; the limit is 40" in err
    assert "limits.max_question_chars" in err
    assert not (tmp_path / "out").exists() and not (tmp_path / "data" / "indexes").exists()


@pytest.mark.skipif(not SCORE_PY.is_file(), reason="the shared scorer is not on this machine")
def test_our_scorer_agrees_with_score_py(fixture_eval, tmp_path: Path):
    root, out, questions = fixture_eval
    spec = importlib.util.spec_from_file_location("shared_score", SCORE_PY)
    score = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(score)
    gold = {q["id"]: q for q in QUESTIONS}
    rows = [json.loads(line) for line in (out / "ranks.jsonl").read_text().splitlines()]
    for config, ours in summarize(rows, CONFIGS.split(",")).items():
        pred = tmp_path / f"{config.replace(':', '_')}.jsonl"
        pred.write_bytes(prediction_lines([r for r in rows if r["config"] == config]))
        theirs = tmp_path / f"{config.replace(':', '_')}.json"
        score.main(["--gold", str(questions), "--pred", str(pred), "--split", "dev", "--json", str(theirs)])
        groups = json.loads(theirs.read_text())["groups"]
        for ours_name, theirs_name in (("acme/sample", "acme/sample"), ("micro", "micro (all instances)"),
                                       ("macro", "macro (mean of repo)")):
            for column in ("file_R@1", "file_R@5", "file_R@10", "file_MRR", "func_R@5", "func_R@10"):
                assert ours[ours_name][column] == pytest.approx(groups[theirs_name][column]), (config, column)
        for row in (r for r in rows if r["config"] == config):  # and question by question
            assert row["metrics"] == pytest.approx(
                {k: v for k, v in score.score_instance(gold[row["id"]], row).items() if k != "file_Acc@5"})
