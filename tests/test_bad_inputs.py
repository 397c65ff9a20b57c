"""The bad-input matrix: pipelines, configs, repositories, questions and command-line arguments,
each through the real CLI (`main`, output captured). Every case must end in a clear error: a
non-zero exit, no traceback, and a message naming what was wrong and where (file, step, key,
option). A few good inputs run through the same harness so that it cannot pass by failing
everything.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ragstream.cli import main
from ragstream.config import PROJECT_ROOT

QUESTION = "How is a payment recorded on an invoice?"


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the real CLI; argparse's usage errors exit through SystemExit."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_clear_error(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2, f"exit {code}; stdout: {out[-500:]}; stderr: {err[-500:]}"
    assert "Traceback" not in out + err
    for fragment in fragments:
        assert fragment in err, f"{fragment!r} not in: {err}"


@pytest.fixture
def config(acl_backend, tmp_path) -> Path:
    """A config file whose data folder holds the indexed sample repository."""
    path = tmp_path / "good.yaml"
    path.write_text(f"index:\n  data_dir: {acl_backend.settings.index.data_dir}\n")
    return path


# --- pipelines ---------------------------------------------------------------------------------

SETTINGS = [  # (key, YAML value, what the message says)
    ("top_k", '"eight"', "must be an int, got str"), ("top_k", "3.7", "must be an int, got float"),
    ("top_k", "true", "must be an int, got bool"), ("top_k", "0", "must be >= 1"), ("top_k", "-5", "must be >= 1"),
    ("top_k", "1e12", "must be an int, got str"), ("top_k", "1.0e+12", "must be an int, got float"),
    ("top_k", "99999999999", "must be <= 1000"), ("top_k", "null", "must be an int, got NoneType"),
    ("top_k", "[3]", "must be an int, got list"),
    ("max_depth", "true", "must be an int, got bool"), ("max_depth", "-1", "must be >= 0"),
    ("max_depth", "99999999999", "must be <= 20"), ("max_depth", "2.5", "must be an int"),
    ("max_depth", "two", "must be an int, got str"),
    ("max_nodes", "0", "must be >= 1"), ("max_nodes", "1.0e+21", "must be an int, got float"),
    ("max_nodes", "1e21", "must be an int, got str"), ("max_nodes", "1000000000", "must be <= 100000"),
    ("max_context_tokens", "0", "must be >= 1"), ("max_context_tokens", "-1", "must be >= 1"),
    ("max_context_tokens", "3.5", "must be an int"), ("max_context_tokens", "10000000000", "must be <= 2000000"),
    ("prioritization_mode", "random", "must be one of ['seed_first'"), ("prioritization_mode", "3", "must be one of"),
    ("layout", "grid", "must be one of ['tree', 'flat']"),
    ("N0_QUERY_PIECES", "0", "must be >= 1"), ("N0_QUERY_PIECES", "100", "must be <= 64"),
    ("N1_RETR_MAX_CANDIDATES", "0", "must be >= 1"), ("logavgexp_tau", "0", "must be > 0"),
    ("logavgexp_tau", "-1", "must be > 0"), ("logavgexp_tau", "hot", "must be a number, got str"),
    ("logavgexp_tau", ".nan", "must be a finite number"), ("N2_RERANK_TOP_K", "0", "must be >= 1"),
    ("N3_FINAL_SELECTION_MAX", "0", "must be >= 1"), ("N3_FINAL_SELECTION_MAX", "5000", "must be <= 1000"),
    ("gate_duplicate_jaccard", "1.5", "must be <= 1"), ("gate_duplicate_jaccard", "-0.1", "must be >= 0"),
    ("gate_candidate_chars", "0", "must be >= 1"), ("max_history_tokens", "-1", "must be >= 1"),
    ("max_attachment_tokens", "0", "must be >= 1"), ("answer_max_citations", "0", "must be >= 1"),
    ("answer_max_citations", "1000", "must be <= 100"), ("answer_best_lines", "0", "must be >= 1"),
    ("route_short_question_words", "0", "must be >= 1"), ("entry_tests_share", "2", "must be <= 1"),
    ("tests_penalty", "-1", "must be >= 0"), ("mixed_domain_share", "1.5", "must be <= 1"),
    ("max_turn_loops", "-1", "must be >= 0"), ("max_turn_loops", "11", "must be <= 10"),
    ("max_turn_loops", "true", "must be an int, got bool"), ("history_summary_share", "1", "must be <= 0.99"),
    ("max_question_chars", "0", "must be >= 1"), ("keyword_semantic_weight", "-0.5", "must be >= 0"),
    ("keyword_keyword_weight", ".inf", "must be a finite number"),
]
RETRIEVE = "  - id: retrieve\n    action: retrieve\n    on_ok: rerank\n    on_no_entry_points: relate\n"
FETCH = "  - id: fetch_texts\n    action: fetch_node_texts\n    next: history\n"
STEPS = [  # (id, the child's steps, where, what)
    ("retrieve top_k 0", RETRIEVE + "    top_k: 0\n", "step retrieve: top_k", "must be >= 1"),
    ("retrieve top_k str", RETRIEVE + "    top_k: ten\n", "step retrieve", "parameter top_k must be int"),
    ("retrieve top_k float", RETRIEVE + "    top_k: 2.5\n", "step retrieve", "parameter top_k must be int"),
    ("retrieve top_k bool", RETRIEVE + "    top_k: true\n", "step retrieve", "parameter top_k must be int"),
    ("retrieve top_k huge", RETRIEVE + "    top_k: 5000\n", "step retrieve: top_k", "must be <= 1000"),
    ("retrieve mode", RETRIEVE + "    mode: fuzzy\n", "step retrieve: mode", "must be one of ['semantic'"),
    ("retrieve rerank", RETRIEVE + "    rerank: magic\n", "step retrieve: rerank", "must be one of ['none'"),
    ("fetch budget 0", FETCH + "    budget_tokens: 0\n", "step fetch_texts: budget_tokens", "must be >= 1"),
    ("fetch budget negative", FETCH + "    budget_tokens: -3\n", "step fetch_texts: budget_tokens", "must be >= 1"),
    ("fetch max_chars 0", FETCH + "    max_chars: 0\n", "step fetch_texts: max_chars", "must be >= 1"),
    ("fetch priority", FETCH + "    prioritization_mode: x\n", "step fetch_texts: prioritization_mode",
     "must be one of"),
    ("unknown parameter", RETRIEVE + "    topk: 3\n", "step retrieve", "unknown parameter 'topk'"),
    ("unknown action", "  - id: retrieve\n    action: search\n    next: rerank\n", "step retrieve",
     "unknown action 'search'"),
    ("unknown target", "  - id: retrieve\n    action: retrieve\n    next: nowhere\n", "step retrieve",
     "transition to unknown step 'nowhere'"),
    ("next and branches", RETRIEVE + "    next: rerank\n", "step retrieve", "either `next` or `on_<outcome>`"),
    ("unknown outcome", RETRIEVE + "    on_maybe: rerank\n", "step retrieve", "has no outcome 'maybe'"),
    ("expand names a missing key", "  - id: expand\n    action: expand\n    max_depth_from_settings: depth\n"
     "    max_nodes_from_settings: max_nodes\n    edge_allowlist_from_settings: edge_allowlist\n    next: fetch_texts\n",
     "step expand", "names 'depth', which the merged settings do not have"),
    ("step without id", "  - action: retrieve\n", "steps[0]", "string `id`"),
]
FILES = [  # (id, the file's bytes, what the message says)
    ("binary", bytes(range(256)) * 4, "not a text file"),
    ("invalid YAML", b"settings: [1, 2\n", "invalid YAML"),
    ("a list", b"- 1\n- 2\n", "top level must be a mapping"),
    ("settings a list", b"extends: base\nsettings: [1]\n", "settings must be a mapping"),
    ("steps a mapping", b"extends: base\nsteps: {a: 1}\n", "steps must be a list"),
    ("unknown top-level key", b"extends: base\nstages: []\n", "unknown top-level key(s) ['stages']"),
    ("extends a missing parent", b"extends: nowhere\n", "no pipeline file nowhere.yaml"),
    ("extends a number", b"extends: 5\n", "extends must be a pipeline name"),
    ("extends itself", b"extends: child\n", "inheritance cycle"),
    ("empty", b"", "entry_step_id None names no step"),
    ("entry step unknown", b"extends: base\nsettings:\n  entry_step_id: start\n", "names no step"),
]


def pipeline_file(tmp_path: Path, content: str | bytes) -> Path:
    shutil.copy(PROJECT_ROOT / "pipelines" / "base.yaml", tmp_path / "base.yaml")
    child = tmp_path / "child.yaml"
    child.write_bytes(content if isinstance(content, bytes) else content.encode())
    return child


@pytest.mark.parametrize("key, value, what", SETTINGS, ids=[f"{k}={v}" for k, v, _ in SETTINGS])
def test_a_bad_pipeline_setting_names_file_and_key(config, tmp_path, capsys, key, value, what):
    child = pipeline_file(tmp_path, f"extends: base\nsettings:\n  {key}: {value}\n")
    result = run_cli(["--config", str(config), "ask", QUESTION, "--llm", "none", "--pipeline", str(child)], capsys)
    assert_clear_error(*result, "error (pipeline)", f"{child}: settings.{key}", what)


@pytest.mark.parametrize("steps, where, what", [s[1:] for s in STEPS], ids=[s[0] for s in STEPS])
def test_a_bad_pipeline_step_names_file_step_and_parameter(config, tmp_path, capsys, steps, where, what):
    child = pipeline_file(tmp_path, "extends: base\nsteps:\n" + steps)
    result = run_cli(["--config", str(config), "ask", QUESTION, "--llm", "none", "--pipeline", str(child)], capsys)
    assert_clear_error(*result, "error (pipeline)", f"{child}: {where}", what)


@pytest.mark.parametrize("content, what", [f[1:] for f in FILES], ids=[f[0] for f in FILES])
def test_a_bad_pipeline_file_names_the_file(config, tmp_path, capsys, content, what):
    child = pipeline_file(tmp_path, content)
    result = run_cli(["--config", str(config), "ask", QUESTION, "--llm", "none", "--pipeline", str(child)], capsys)
    assert_clear_error(*result, "error (pipeline)", "child.yaml", what)


def test_a_typo_in_a_pipeline_setting_is_warned(config, tmp_path, capsys):
    child = pipeline_file(tmp_path, "extends: base\nsettings:\n  top_kk: 3\n")
    code, out, err = run_cli(["--config", str(config), "ask", QUESTION, "--llm", "none", "--pipeline", str(child)],
                             capsys)
    assert code == 0 and f"warning: {child}: settings.top_kk is read by no stage" in err


# --- configs -----------------------------------------------------------------------------------

CONFIGS = [  # (the file's text, the dotted key, what the message says)
    ("chunks:\n  max_chunk_tokens: 0\n", "chunks.max_chunk_tokens", "must be >= 1"),
    ("chunks:\n  max_chunk_tokens: 3.5\n", "chunks.max_chunk_tokens", "expected int"),
    ("chunks:\n  max_chunk_tokens: true\n", "chunks.max_chunk_tokens", "expected int"),
    ("chunks:\n  max_chunk_tokens: many\n", "chunks.max_chunk_tokens", "expected int"),
    ("chunks:\n  max_chunk_tokens: 1000000000\n", "chunks.max_chunk_tokens", "must be <= 100000"),
    ("index:\n  max_file_bytes: -1\n", "index.max_file_bytes", "must be >= 1"),
    ("index:\n  max_file_bytes: 1000000000000\n", "index.max_file_bytes", "must be <= 1000000000"),
    ("index:\n  languages:\n    .py: cobol\n", "index.languages", "'cobol' is not one of"),
    ("index:\n  ignore: [1, 2]\n", "index.ignore", "expected list[str]"),
    ("embedding:\n  batch_size: 0\n", "embedding.batch_size", "must be >= 1"),
    ("embedding:\n  batch_size: 100000\n", "embedding.batch_size", "must be <= 4096"),
    ("tokens:\n  encoding: gpt2\n", "tokens.encoding", "'gpt2' is not one of"),
    ("retrieval:\n  rrf_k: 0\n", "retrieval.rrf_k", "must be >= 1"),
    ("retrieval:\n  widen_factor: 1000\n", "retrieval.widen_factor", "must be <= 100"),
    ("retrieval:\n  semantic_weight: -1\n", "retrieval.semantic_weight", "must be >= 0"),
    ("retrieval:\n  keyword_keyword_weight: x\n", "retrieval.keyword_keyword_weight", "expected float"),
    ("retrieval:\n  bm25_weight: .inf\n", "retrieval.bm25_weight", "must be a finite number"),
    ("llm:\n  timeout_seconds: 0\n", "llm.timeout_seconds", "must be > 0"),
    ("llm:\n  timeout_seconds: -1\n", "llm.timeout_seconds", "must be > 0"),
    ("llm:\n  first_token_seconds: 0\n", "llm.first_token_seconds", "must be > 0"),
    ("llm:\n  turn_seconds: 1000000000\n", "llm.turn_seconds", "must be <= 86400"),
    ("llm:\n  max_retries: 100\n", "llm.max_retries", "must be <= 10"),
    ("llm:\n  max_retries: -1\n", "llm.max_retries", "must be >= 0"),
    ("llm:\n  max_retries: 2.5\n", "llm.max_retries", "expected int"),
    ("llm:\n  backoff_seconds: -1\n", "llm.backoff_seconds", "must be >= 0"),
    ("llm:\n  temperature: 5\n", "llm.temperature", "must be <= 2"),
    ("llm:\n  seed: x\n", "llm.seed", "expected int"),
    ("llm:\n  provider: anthropic\n", "llm.provider", "'anthropic' is not one of"),
    ("llm:\n  roles: {writer: x}\n", "llm.roles", "unknown role(s) ['writer']"),
    ("llm:\n  max_reply_tokens: -1\n", "llm.max_reply_tokens", "must be >= 0"),
    ("limits:\n  N0_QUERY_PIECES: 0\n", "limits.N0_QUERY_PIECES", "must be >= 1"),
    ("limits:\n  max_turn_loops: 99\n", "limits.max_turn_loops", "must be <= 10"),
    ("limits:\n  history_summary_share: 1\n", "limits.history_summary_share", "must be <= 0.99"),
    ("limits:\n  max_question_chars: 0\n", "limits.max_question_chars", "must be >= 1"),
    ("limits:\n  gate_duplicate_jaccard: 2\n", "limits.gate_duplicate_jaccard", "must be <= 1"),
    ("limits:\n  top_k: 3\n", "limits", "unknown setting(s) ['top_k']"),
    ("retrievel:\n  rrf_k: 3\n", "<root>", "unknown setting(s) ['retrievel']"),
    ("llm: 5\n", "llm", "expected a mapping"),
]
CONFIG_FILES = [  # (id, the file's bytes, what the message says)
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe" * 50, "not a text file"),
    ("invalid YAML", b"index: [1, 2\n", "invalid YAML"),
    ("a list", b"- 1\n", "top level must be a mapping"),
    ("latin-1 text", "index:\n  data_dir: d\u00e9j\u00e0\n".encode("latin-1"), "not a text file"),
]


@pytest.mark.parametrize("text, key, what", CONFIGS, ids=[c[1] + ":" + c[0].split(":")[-1].strip() for c in CONFIGS])
def test_a_bad_config_value_names_file_and_key(tmp_path, capsys, text, key, what):
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    result = run_cli(["--config", str(path), "ask", QUESTION], capsys)
    assert_clear_error(*result, "error (config)", f"{path}: {key}", what)


@pytest.mark.parametrize("content, what", [c[1:] for c in CONFIG_FILES], ids=[c[0] for c in CONFIG_FILES])
def test_a_bad_config_file_names_the_file(tmp_path, capsys, content, what):
    path = tmp_path / "mine.yaml"
    path.write_bytes(content)
    result = run_cli(["--config", str(path), "search", "x"], capsys)
    assert_clear_error(*result, "error (config)", str(path), what)


@pytest.mark.parametrize("name, what", [("missing.yaml", "configuration file not found"),
                                        ("a_folder.yaml", "configuration file not found")])
def test_a_config_path_that_is_no_file(tmp_path, capsys, name, what):
    (tmp_path / "a_folder.yaml").mkdir()
    result = run_cli(["--config", str(tmp_path / name), "index", str(tmp_path)], capsys)
    assert_clear_error(*result, "error (config)", name, what)


# --- repositories ------------------------------------------------------------------------------

def test_a_repository_that_is_missing_a_file_or_empty(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    (tmp_path / "empty").mkdir()
    for path, what in ((tmp_path / "nowhere", "path does not exist"), (config, "path is not a directory"),
                       (tmp_path / "empty", "nothing to index")):
        for extra in ([], ["--dry-run"]) if what != "nothing to index" else ([],):
            result = run_cli(["--config", str(config), "index", str(path), *extra], capsys)
            assert_clear_error(*result, "error (index)", str(path), what)


def as_unprivileged(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The CLI in a process that file permissions apply to (root drops the capabilities that
    bypass them; anyone else is bound by them already)."""
    command = [sys.executable, "-m", "ragstream", *argv]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be made to apply")
        command = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", *command]
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_an_unreadable_folder_is_skipped_with_a_warning_naming_it(tmp_path):
    repo = tmp_path / "repo"
    for folder in ("ok", "locked", "no_entry"):
        (repo / folder).mkdir(parents=True)
        (repo / folder / "m.py").write_text("def f():\n    return 1\n")
    (repo / "locked").chmod(0)
    (repo / "no_entry").chmod(0o644)  # listable, but nothing in it can be opened
    config = tmp_path / "c.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    try:
        done = as_unprivileged(["--config", str(config), "index", str(repo)], tmp_path)
        dry = as_unprivileged(["--config", str(config), "index", "--dry-run", str(repo)], tmp_path)
    finally:
        (repo / "locked").chmod(0o755)
        (repo / "no_entry").chmod(0o755)
    assert done.returncode == 0 and "Traceback" not in done.stderr + done.stdout
    output = " ".join((done.stdout + done.stderr).split())
    assert "warning: skipped an unreadable folder: locked/" in output and "no_entry/" in output
    assert "1 files" in output  # ok/m.py
    assert dry.returncode == 0 and "skip   locked/  (unreadable: Permission denied" in dry.stdout


def test_an_unreadable_repository_root_is_a_clear_error(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("x = 1\n")
    repo.chmod(0o311)  # entered, never listed
    try:
        done = as_unprivileged(["index", "--dry-run", str(repo)], tmp_path)
    finally:
        repo.chmod(0o755)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"error (index): {repo}: cannot read the repository's root folder: Permission denied" in done.stderr


# --- questions ---------------------------------------------------------------------------------

QUESTIONS = [  # (id, the question, what the message says)
    ("empty", "", "the question is empty"),
    ("spaces", "   ", "the question is empty"),
    ("whitespace", "\n\t \r\n", "the question is empty"),
    ("100,000 characters", "why " * 25_000, "the question has 100,000 characters; the limit is 20,000"),
    ("one over the limit", "x" * 20_001, "the question has 20,001 characters; the limit is 20,000"),
]


@pytest.mark.parametrize("command", ["ask", "expand"])
@pytest.mark.parametrize("question, what", [q[1:] for q in QUESTIONS], ids=[q[0] for q in QUESTIONS])
def test_a_question_that_cannot_be_asked(config, capsys, command, question, what):
    result = run_cli(["--config", str(config), command, question, *(["--llm", "none"] if command == "ask" else [])],
                     capsys)
    assert_clear_error(*result, "error (question)", "question: ", what)


def test_the_question_limit_is_configurable_and_named(config, tmp_path, capsys):
    small = tmp_path / "small.yaml"
    small.write_text(config.read_text() + "limits:\n  max_question_chars: 50\n")
    result = run_cli(["--config", str(small), "ask", "y" * 51, "--llm", "none"], capsys)
    assert_clear_error(*result, "error (question)", "the limit is 50", "limits.max_question_chars")
    child = pipeline_file(tmp_path, "extends: base\nsettings:\n  max_question_chars: 10\n")
    result = run_cli(["--config", str(config), "ask", "z" * 11, "--llm", "none", "--pipeline", str(child)], capsys)
    assert_clear_error(*result, "the limit is 10")
    code, out, _ = run_cli(["--config", str(small), "ask", "y" * 50, "--llm", "none"], capsys)
    assert code == 0 and "Not written by a model" in out  # at the limit is fine


@pytest.mark.parametrize("query", ["", "   "])
def test_search_refuses_an_empty_query(config, capsys, query):
    result = run_cli(["--config", str(config), "search", query], capsys)
    assert_clear_error(*result, "error (retrieval)", "query")


# --- command-line arguments --------------------------------------------------------------------

ARGUMENTS = [  # (argv after --config, what the message says)
    (["search", "x", "--top-k", "0"], "argument --top-k: must be >= 1, got 0"),
    (["search", "x", "--top-k", "-5"], "argument --top-k: must be >= 1, got -5"),
    (["search", "x", "--top-k", "abc"], "argument --top-k: must be an int, got 'abc'"),
    (["search", "x", "--top-k", "1.5"], "argument --top-k: must be an int, got '1.5'"),
    (["search", "x", "--top-k", "100000"], "argument --top-k: must be <= 1000"),
    (["expand", "x", "--top-k", "0"], "argument --top-k: must be >= 1"),
    (["expand", "x", "--max-context-tokens", "0"], "argument --max-context-tokens: must be >= 1"),
    (["expand", "x", "--max-context-tokens", "-1"], "argument --max-context-tokens: must be >= 1"),
    (["expand", "x", "--max-context-tokens", "lots"], "argument --max-context-tokens: must be an int"),
    (["ask", "x", "--top-k", "0"], "argument --top-k: must be >= 1"),
    (["ask", "x", "--top-k", "5000"], "argument --top-k: must be <= 1000"),
    (["ui", "--port", "0"], "argument --port: must be >= 1"),
    (["ui", "--port", "70000"], "argument --port: must be <= 65535"),
    (["ui", "--port", "http"], "argument --port: must be an int"),
    (["eval", "q.jsonl", "--top-k", "0"], "argument --top-k: must be >= 1"),
    (["search", "x", "--mode", "fuzzy"], "argument --mode: invalid choice: 'fuzzy'"),
    (["search", "x", "--rerank", "magic"], "argument --rerank: invalid choice: 'magic'"),
    (["ask", "x", "--llm", "gpt"], "argument --llm: invalid choice: 'gpt'"),
    (["index", ".", "--status", "--rebuild"], "argument --rebuild: not allowed with argument --status"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["index"], "the following arguments are required: path"),
    (["ask"], "the following arguments are required: query"),
    (["search", "x", "--filter", "nokey"], "expected KEY=V1,V2, got 'nokey'"),
    (["ask", QUESTION, "--llm", "none", "--pipeline", "nowhere"], "no pipeline file nowhere.yaml"),
    (["expand", QUESTION, "--pipeline", "nowhere"], "no pipeline file nowhere.yaml"),
    (["search", "x", "--repository", "nope"], "nope"),
    (["ask", QUESTION, "--llm", "none", "--index", "nope"], "nope"),
]


@pytest.mark.parametrize("argv, what", ARGUMENTS, ids=[" ".join(a[0])[:40] for a in ARGUMENTS])
def test_a_bad_argument_names_the_option(config, capsys, argv, what):
    code, out, err = run_cli(["--config", str(config), *argv], capsys)
    assert_clear_error(code, out, err, what)


# --- controls: the harness passes good input ----------------------------------------------------

def test_good_input_through_the_same_harness_succeeds(config, tmp_path, capsys):
    child = pipeline_file(tmp_path, "extends: base\nsettings:\n  top_k: 5\n  max_depth: 0\n  max_nodes: 100000\n")
    for argv in (["ask", QUESTION, "--llm", "none", "--pipeline", str(child)],
                 ["ask", QUESTION, "--llm", "none", "--top-k", "1000", "--max-context-tokens", "2000000"],
                 ["search", "payment", "--top-k", "3"],
                 ["expand", QUESTION, "--top-k", "1"]):
        code, out, err = run_cli(["--config", str(config), *argv], capsys)
        assert code == 0 and "Traceback" not in err and "error" not in err, (argv, err)


# --- issue 37: what someone outside the team tried ------------------------------------------

NOT_UTF8 = b"pay\xff\xfement".decode("utf-8", "surrogateescape")  # how Python hands such argv bytes over


def deep_yaml(levels: int, flow: bool) -> str:
    if flow:
        return "index:\n  ignore: " + "[" * levels + "]" * levels + "\n"
    return "index:\n" + "".join("  " * (depth + 1) + f"k{depth}:\n" for depth in range(levels)) + "  " * levels + " 1\n"


@pytest.mark.parametrize("flow", [True, False], ids=["flow", "block"])
def test_a_config_nested_20000_deep_names_the_file(tmp_path, capsys, flow):
    path = tmp_path / "deep.yaml"
    path.write_text(deep_yaml(20_000, flow))
    code, out, err = run_cli(["--config", str(path), "search", "x"], capsys)
    assert code == 2 and "Traceback" not in out + err and str(path) in err and "error (config)" in err
    assert "nested too deeply" in err or "invalid YAML" in err


@pytest.mark.parametrize("argv, what", [
    (["ask", NOT_UTF8, "--llm", "none"], "error (question): question: not valid UTF-8 text: byte 0xff at character 4"),
    (["expand", NOT_UTF8], "error (question): question: not valid UTF-8 text: byte 0xff"),
    (["search", NOT_UTF8, "--json"], "error (retrieval): query: not valid UTF-8 text: byte 0xff at character 4"),
    (["search", NOT_UTF8, "--mode", "semantic"], "error (retrieval): query: not valid UTF-8 text"),
], ids=["ask", "expand", "search --json", "search semantic"])
def test_a_question_that_is_not_utf8_is_refused(config, capsys, argv, what):
    assert_clear_error(*run_cli(["--config", str(config), *argv], capsys), what)


OUTPUTS = [  # (id, the command's argv, option, where it writes (a callable of tmp_path), what the message says)
    ("--save-state to a missing folder", ["ask", QUESTION, "--llm", "none"], "--save-state",
     lambda tmp: tmp / "missing" / "state.json", "its folder"),
    ("--save-state to a folder", ["ask", QUESTION, "--llm", "none"], "--save-state", lambda tmp: tmp,
     "is a folder; give a file name in it"),
    ("--save-state where nothing can be written", ["ask", QUESTION, "--llm", "none"], "--save-state",
     lambda tmp: Path("/proc/ragstream-state.json"), "cannot write in /proc"),
    ("--save-state under a file", ["ask", QUESTION, "--llm", "none"], "--save-state",
     lambda tmp: tmp / "good.yaml" / "state.json", "is not a folder"),
    ("--html to a missing folder", ["expand", QUESTION], "--html", lambda tmp: tmp / "missing" / "g.html",
     "does not exist"),
    ("--html to a folder", ["expand", QUESTION], "--html", lambda tmp: tmp, "is a folder"),
    ("--html where nothing can be written", ["expand", QUESTION], "--html", lambda tmp: Path("/proc/g.html"),
     "cannot write in /proc"),
]


@pytest.mark.parametrize("argv, option, target, what", [o[1:] for o in OUTPUTS], ids=[o[0] for o in OUTPUTS])
def test_an_output_file_that_cannot_be_written_is_refused_before_the_work(config, tmp_path, capsys, argv, option,
                                                                           target, what):
    path = target(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run_cli(["--config", str(config), *argv, option, str(path)], capsys)
    assert_clear_error(code, out, err, "error (output)", f"{option} {path}", what)
    assert out == "" and sorted(tmp_path.rglob("*")) == before  # refused before anything ran or was written


def test_a_state_file_is_written_whole(config, tmp_path, capsys):
    path = tmp_path / "state.json"
    path.write_text("previous")
    code, out, _ = run_cli(["--config", str(config), "ask", QUESTION, "--llm", "none", "--save-state", str(path)],
                           capsys)
    assert code == 0 and path.read_text(encoding="utf-8").startswith("{") and f"state written to {path}" in out
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


GLOBS = [  # (id, argv after the question, what the message says)
    ("paths_exclude character range", ["--filter", "paths_exclude=[z-a]"], "invalid path glob '[z-a]'"),
    ("paths_include character range", ["--filter", "paths_include=src/[9-0]*.cs"], "invalid path glob 'src/[9-0]*.cs'"),
    ("a negated character range", ["--filter", "paths_include=**,![z-a]"], "invalid path glob '[z-a]'"),
    ("a look-alike Cyrillic letter", ["--filter", "paths_exclude=b\u0456lling/**"],
     "U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I in 'b\u0456lling'"),
]


@pytest.mark.parametrize("command", ["search", "expand", "ask"])
@pytest.mark.parametrize("extra, what", [g[1:] for g in GLOBS], ids=[g[0] for g in GLOBS])
def test_a_filter_glob_that_cannot_be_used_names_the_filter(config, capsys, command, extra, what):
    argv = ["--config", str(config), command, QUESTION, *extra, *(["--llm", "none"] if command == "ask" else [])]
    assert_clear_error(*run_cli(argv, capsys), "error (retrieval): retrieval_filters.paths_", what)


SETTINGS_AT_LOAD = [  # (id, the config's text after data_dir, the key, what the message says)
    ("acl glob", "acl:\n  rules:\n    - paths: ['[z-a]']\n      acl_tags: [x]\n", "acl.rules[0].paths",
     "invalid path glob '[z-a]'"),
    ("acl paths a string", "acl:\n  rules:\n    - paths: 'db/**'\n      acl_tags: [x]\n", "acl.rules[0].paths",
     "must be a non-empty list of globs, got 'db/**'"),
    ("acl tags a string", "acl:\n  rules:\n    - paths: [db/**]\n      acl_tags: dba\n", "acl.rules[0].acl_tags",
     "must be a list of strings"),
    ("acl unknown key", "acl:\n  rules:\n    - paths: [db/**]\n      tags: [x]\n", "acl.rules[0]",
     "unknown key(s) ['tags']"),
    ("acl second rule", "acl:\n  rules:\n    - paths: [db/**]\n    - paths: ['a/[9-0]']\n", "acl.rules[1].paths",
     "invalid path glob"),
    ("ignore glob", "index:\n  ignore: ['[z-a]']\n", "index.ignore", "invalid path glob '[z-a]'"),
    ("max_files 0", "index:\n  max_files: 0\n", "index.max_files", "must be >= 1"),
]


@pytest.mark.parametrize("command", [["search", "payment"], ["index", "--dry-run", "{repo}"]], ids=["search", "index"])
@pytest.mark.parametrize("text, key, what", [s[1:] for s in SETTINGS_AT_LOAD], ids=[s[0] for s in SETTINGS_AT_LOAD])
def test_settings_fail_at_load_not_at_index_time(acl_backend, tmp_path, capsys, command, text, key, what):
    """The README: a bad setting fails at load time, naming the file and key -- also a command
    that never indexes (it used to load fine and fail only when an index was built)."""
    path = tmp_path / "mine.yaml"
    data = acl_backend.settings.index.data_dir
    path.write_text(f"index:\n  data_dir: {data}\n" + text.replace("index:\n", "", 1) if text.startswith("index:")
                    else f"index:\n  data_dir: {data}\n{text}")
    argv = [a.replace("{repo}", str(PROJECT_ROOT / "tests" / "fixtures" / "sample_repo")) for a in command]
    assert_clear_error(*run_cli(["--config", str(path), *argv], capsys), "error (config)", f"{path}: {key}", what)


@pytest.mark.parametrize("command", [["search", "payment"], ["ask", QUESTION, "--llm", "none"],
                                     ["index", "{repo}"], ["index", "--dry-run", "{repo}"]],
                         ids=["search", "ask", "index", "dry run"])
@pytest.mark.parametrize("under", [False, True], ids=["a file", "under a file"])
def test_a_data_dir_that_is_a_file_or_under_one(tmp_path, capsys, command, under):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    data_dir = blocker / "data" if under else blocker
    config = tmp_path / "c.yaml"
    config.write_text(f"index:\n  data_dir: {data_dir}\n")
    argv = [a.replace("{repo}", str(PROJECT_ROOT / "tests" / "fixtures" / "sample_repo")) for a in command]
    assert_clear_error(*run_cli(["--config", str(config), *argv], capsys), "error (config)", str(config),
                       ": index.data_dir: ", "is a file" if not under else f"is under {blocker}, which is a file")
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize("key, value", [("gold_files", "billing/service.py"), ("gold_functions", "a.py::f"),
                                        ("gold_files", {"a.py": 1}), ("gold_files", ["a.py", 3])])
def test_a_gold_list_that_is_not_a_list_names_the_question_and_field(tmp_path, capsys, key, value):
    """A string was iterated a character at a time and scored 0: a wrong success."""
    good = {"id": "q1", "repo": "o/n", "query": "q", "gold_files": ["a.py"]}
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": "q2", key: value}) + "\n")
    code, out, err = run_cli(["eval", str(questions), "--repo", str(tmp_path), "--out", str(tmp_path / "out")], capsys)
    assert_clear_error(code, out, err, "error (config)", f"{questions}:2 (question 'q2'): {key}",
                       f"{key} must be a list of strings, got {value!r}")
    assert not (tmp_path / "out").exists()


def test_eval_outputs_that_cannot_be_written_are_refused_before_the_run(tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "q1", "repo": "o/n", "query": "q", "gold_files": ["a.py"]}) + "\n")
    (tmp_path / "file").write_text("x")
    for extra, what in ((["--predictions", str(tmp_path / "missing" / "p.jsonl")], "--predictions"),
                        (["--out", str(tmp_path / "file" / "out")], "--out")):
        code, out, err = run_cli(["eval", str(questions), "--repo", str(tmp_path), *extra], capsys)
        assert_clear_error(code, out, err, "error (output)", what)


# --- hangs: the walk ---------------------------------------------------------------------------

def test_special_files_in_the_repository_are_skipped_never_opened(tmp_path):
    """A FIFO blocked `index` forever (opening one waits for a writer); a socket is no text either."""
    import socket

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("def f():\n    return 1\n")
    os.mkfifo(repo / "pipe.py")
    os.mkfifo(repo / "notes.md")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(repo / "live.sql"))
    config = tmp_path / "c.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    try:
        runs = [subprocess.run([sys.executable, "-m", "ragstream", "--config", str(config), "index", *extra, str(repo)],
                               capture_output=True, text=True, timeout=120, env=env)
                for extra in (["--dry-run"], ["--wait"])]
    finally:
        sock.close()
    dry, built = runs
    assert dry.returncode == 0 and "Traceback" not in dry.stderr
    assert "skip   pipe.py  (special_file: a FIFO (named pipe): never opened)" in dry.stdout
    assert "skip   live.sql  (special_file: a socket: never opened)" in dry.stdout
    assert "1 file(s) would be indexed, 3 skipped" in dry.stdout
    assert built.returncode == 0 and "Traceback" not in built.stderr and "1 files" in built.stdout


@pytest.mark.parametrize("where", ["root", "home"])
def test_the_file_system_root_or_home_folder_is_refused_with_a_hint(tmp_path, capsys, monkeypatch, where):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    path = "/" if where == "root" else str(home)
    for extra in (["--dry-run"], []):
        code, out, err = run_cli(["index", *extra, path], capsys)
        assert_clear_error(code, out, err, "error (index)", "not a repository: refusing to walk all of it",
                           "hint: give the repository's own folder")


def test_a_walk_past_max_files_stops_with_a_clear_error_after_showing_the_first(tmp_path):
    """A tree far larger than the repository meant: the dry run prints as it walks (at once, not
    after the whole walk) and stops at index.max_files, naming it."""
    repo = tmp_path / "huge"
    for folder in range(30):
        (repo / f"d{folder:02}").mkdir(parents=True)
        for file in range(20):
            (repo / f"d{folder:02}" / f"f{file}.py").write_text(f"X = {file}\n")
    config = tmp_path / "c.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n  max_files: 300\n")
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    for extra in (["--dry-run"], []):
        done = subprocess.run([sys.executable, "-m", "ragstream", "--config", str(config), "index", *extra, str(repo)],
                              capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert f"error (index): {repo}: more than 300 files under this folder (index.max_files)" in done.stderr
        assert "hint: index the repository's own folder" in done.stderr
        if extra:
            assert "index  d00/f0.py  [python]" in done.stdout  # shown before the walk was stopped
    assert not (tmp_path / "data" / "indexes").exists() or not any((tmp_path / "data" / "indexes").rglob("CURRENT"))


def test_a_dry_run_shows_its_first_line_within_a_second(tmp_path):
    """It used to print nothing until the whole walk was done (60 s and more on a large tree)."""
    import time

    repo = tmp_path / "big"
    for folder in range(60):
        (repo / f"d{folder:02}").mkdir(parents=True)
        for file in range(60):
            (repo / f"d{folder:02}" / f"f{file}.py").write_text("def f():\n    return 1\n" * 20)
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "ragstream", "index", "--dry-run", str(repo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    first_after = time.monotonic() - started
    proc.kill()
    proc.wait()
    assert first.startswith("index  d00/f0.py")
    started = time.monotonic()
    full = subprocess.run([sys.executable, "-m", "ragstream", "index", "--dry-run", str(repo)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300)
    whole = time.monotonic() - started
    assert full.returncode == 0 and "3600 file(s) would be indexed" in full.stdout
    print(f"first line after {first_after:.2f} s, the whole dry run {whole:.2f} s")
    # Both start the same way (imports, settings): the first line comes well before the walk ends.
    assert first_after < whole - 0.5, (first_after, whole)
