"""`ragstream eval`: index each question's commit, rank files and functions under every
configuration, score them, and write ranks, predictions, tables and a plot.

Questions are grouped by repository and commit and taken in commit-date order, so each index
build differs little from the one before: parses and vectors come from the repository's caches.
Test files are left out of every evaluation index (the question set's rule: they are never
gold), by adding ignore patterns to the index settings of the evaluation only.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from ragstream.config import Settings
from ragstream.controller import Controller, Scope
from ragstream.errors import ConfigError, QuestionError
from ragstream.eval.commit_index import EVAL_BRANCH, IndexSource, commit_index
from ragstream.eval.configs import ASK_PREFIX, Ranker, check_configs
from ragstream.eval.metrics import RANKED_MAX, first_ranks, norm_function, norm_path, question_metrics
from ragstream.eval.questions import Question
from ragstream.index import store
from ragstream.index.embeddings import Embedder
from ragstream.index.python.parser import module_names

# The question set's rule for test files (never gold, never indexed): any file under a tests/
# or test/ folder, a top-level testing/, or named test_*.py, *_test.py or conftest.py.
TEST_FILE_PATTERNS = ["tests/", "test/", "/testing/", "test_*.py", "*_test.py", "conftest.py"]
FUNCTION_KINDS = ("FUNCTION", "METHOD")
WITH_CLASSES = (*FUNCTION_KINDS, "CLASS")  # the question set's gold also names classes (a changed class-level line)


@dataclass(frozen=True)
class EvalOptions:
    configs: list[str]
    data_dir: Path  # evaluation indexes (never inside a work tree)
    repo: Path | None = None  # one repository for every question
    mirrors: Path | None = None  # or bare mirrors, <owner>+<name>/repo, one checkout per commit
    worktrees: Path | None = None  # scratch checkouts (default: <data_dir>/worktrees)
    top_k: int = 100  # candidates each search returns
    reuse: tuple[Path, ...] = ()  # earlier ranks files: (question, config) pairs found there are not redone
    existing_indexes: bool = False  # use a commit's index as it is when there is one (no checkout, no build)
    function_kinds: tuple[str, ...] = FUNCTION_KINDS  # node kinds ranked as "functions"

    @property
    def source(self) -> IndexSource:
        return IndexSource(self.data_dir, self.repo, self.mirrors, self.worktrees, self.existing_indexes)


@dataclass
class EvalRun:
    rows: list[dict[str, Any]] = field(default_factory=list)  # one per question (and configuration)
    builds: list[dict[str, Any]] = field(default_factory=list)  # one per index built

    def add_row(self, row: dict[str, Any], on_row: Callable[[dict[str, Any]], None] | None) -> None:
        self.rows.append(row)
        if on_row:
            on_row(row)

    def add_build(self, build: dict[str, Any], on_build: Callable[[dict[str, Any]], None] | None) -> None:
        self.builds.append(build)
        if on_build:
            on_build(build)


def eval_settings(settings: Settings, data_dir: Path) -> Settings:
    """The settings with the evaluation's data folder and test files left out of the index."""
    ignore = list(dict.fromkeys([*settings.index.ignore, *TEST_FILE_PATTERNS]))
    return replace(settings, index=replace(settings.index, data_dir=str(data_dir), ignore=ignore))


def run_eval(questions: list[Question], settings: Settings, options: EvalOptions,
             on_row: Callable[[dict[str, Any]], None] | None = None,
             on_build: Callable[[dict[str, Any]], None] | None = None) -> EvalRun:
    """Every question under every configuration; `on_row` hears each ranks row as it is made
    (reused rows included), `on_build` each index build."""
    options.source.check()
    check_configs(options.configs)
    settings = eval_settings(settings, options.data_dir)
    check_asked(questions, options.configs, settings)
    reused = _reused_rows(options.reuse)
    run = EvalRun()
    embedder = Embedder(settings.embedding.dtype, settings.embedding.batch_size, settings.embedding.onnx_below)
    for (repo, commit), group in _groups(questions, options.repo is not None):
        todo = [(q, c) for q in group for c in options.configs if (q.id, c) not in reused]
        for question in group:
            for config in options.configs:
                if (question.id, config) in reused:
                    run.add_row(_rescored(reused[question.id, config], question), on_row)
        if not todo:
            continue
        location = commit_index(options.source, repo, commit, settings, embedder,
                                on_build=lambda build: run.add_build(build, on_build))
        scope = Scope(location.repository, EVAL_BRANCH, location.active_index)
        modules = module_names(_python_paths(location))
        with Controller(settings) as controller:  # closed per commit: it may have started a local model
            ranker = Ranker(controller, scope, options.top_k)
            for question, config in todo:
                run.add_row(_rank_question(ranker, question, config, commit, modules, options.function_kinds),
                      on_row)
    return run


def check_asked(questions: list[Question], configs: list[str], settings: Settings) -> None:
    """Under an `ask:` configuration each question is asked as a user asks it: one that `ask`
    would refuse (over the length limit) is refused here, naming it, before any index is built."""
    names = [c[len(ASK_PREFIX):] for c in configs if c.startswith(ASK_PREFIX)]
    if not names:
        return
    with Controller(settings) as controller:
        for name in names:
            pipeline = controller.pipeline(name)
            for question in questions:
                try:
                    controller.check_question(question.query, pipeline)
                except QuestionError as exc:
                    raise QuestionError(exc.message, where=f"question {question.id} (ask:{name})",
                                        hint=exc.hint) from exc


def _rank_question(ranker: Ranker, question: Question, config: str, commit: str,
                   modules: dict[str, str], kinds: tuple[str, ...]) -> dict[str, Any]:
    started = time.perf_counter()
    ids = ranker.ranked_ids(config, question.query)
    s = ranker.scope
    chunks = ranker.controller.runtime.backend.fetch_chunks(ids, s.repository, s.branch, s.retrieval_filters,
                                                           s.active_index)
    files, functions = ranked_files_and_functions(chunks, modules, kinds)
    row = {"id": question.id, "repo": question.repo, "commit": commit, "config": config,
           "ranked_files": files[:RANKED_MAX], "ranked_functions": functions[:RANKED_MAX],
           "seconds": round(time.perf_counter() - started, 3)}
    return _rescored(row, question)


def _rescored(row: dict[str, Any], question: Question) -> dict[str, Any]:
    """The row with its gold ranks and metrics computed from its written lists (the lists
    score.py reads), so a reused row follows the current gold and metrics too."""
    files, functions = row["ranked_files"], row["ranked_functions"]
    return {**row,
            "gold_file_ranks": first_ranks([norm_path(f) for f in question.gold_files], files),
            "gold_function_ranks": first_ranks([norm_function(f) for f in question.gold_functions], functions),
            "metrics": question_metrics(question.gold_files, question.gold_functions, files, functions)}


def ranked_files_and_functions(chunks, modules: dict[str, str], kinds: tuple[str, ...] = FUNCTION_KINDS
                               ) -> tuple[list[str], list[str]]:
    """Files in order of their best chunk; Python nodes of `kinds` as `path::Qualified.name`."""
    files: dict[str, None] = {}
    functions: dict[str, None] = {}
    for chunk in chunks:
        files.setdefault(chunk.path)
        if chunk.kind in kinds and chunk.metadata.get("language") == "python":
            functions.setdefault(f"{chunk.path}::{qualified_in_module(chunk.symbol, modules.get(chunk.path))}")
    return list(files), list(functions)


def qualified_in_module(symbol: str, module: str | None) -> str:
    """`pkg.mod.Class.method` -> `Class.method` (the name inside its file)."""
    if module and symbol.startswith(module + "."):
        return symbol[len(module) + 1:]
    return symbol


def _python_paths(location: store.IndexLocation) -> list[str]:
    """The indexed Python files, whose dotted module names the parser gave their symbols."""
    stored = store.load_index(location, optional=(store.BM25_DIR + "/",))
    return [p for p in stored.manifest["files"] if p.endswith((".py", ".pyi"))]


def _groups(questions: list[Question], one_repository: bool) -> list[tuple[tuple[str, str], list[Question]]]:
    """Questions by (repository, commit), repositories in name order, commits by date."""
    groups: dict[tuple[str, str], list[Question]] = {}
    for q in questions:
        groups.setdefault(("", "") if one_repository else (q.repo, q.base_commit), []).append(q)
    return sorted(groups.items(), key=lambda item: (item[0][0], min(q.created_at for q in item[1]), item[0][1]))


def _reused_rows(paths: tuple[Path, ...]) -> dict[tuple[str, str], dict[str, Any]]:
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for path in paths:
        try:
            lines = path.read_bytes().splitlines()
        except OSError as exc:
            raise ConfigError(f"cannot read ranks to reuse: {exc.strerror}", where=str(path)) from exc
        for number, line in enumerate(lines, start=1):
            try:
                row = orjson.loads(line)
                rows[row["id"], row["config"]] = row
            except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
                raise ConfigError(f"not a ranks row: {exc}", where=f"{path}:{number}") from exc
    return rows
