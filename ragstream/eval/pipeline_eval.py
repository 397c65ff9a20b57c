"""`ragstream eval` on gold-symbol questions: each question through a whole pipeline, as
`ragstream ask` runs it, with no language model (every stage on its deterministic path, so a
run is repeatable), kept as the ranked node ids its answer and context stand for.

Each (repository, commit) is indexed once, from the files under the folders its questions are
about (their `scope`); the Python sets' test-file rule applies here too.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ragstream.config import Settings
from ragstream.controller import Controller, Scope
from ragstream.eval.commit_index import EVAL_BRANCH, IndexSource, commit_index
from ragstream.eval.harness import EvalRun, eval_settings
from ragstream.eval.names import DEFAULT_PIPELINE
from ragstream.eval.ranked_nodes import ranked_nodes
from ragstream.eval.symbol_questions import SymbolQuestion
from ragstream.index.embeddings import Embedder
from ragstream.pipeline.loader import Pipeline

NO_MODEL = "none"


@dataclass(frozen=True)
class PipelineEvalOptions:
    source: IndexSource
    pipeline: str = DEFAULT_PIPELINE


def run_pipeline_eval(questions: list[SymbolQuestion], settings: Settings, options: PipelineEvalOptions,
                      on_row: Callable[[dict[str, Any]], None] | None = None,
                      on_build: Callable[[dict[str, Any]], None] | None = None) -> EvalRun:
    """One row per question (`on_row` hears each as it is made, `on_build` each index build)."""
    options.source.check()
    settings = eval_settings(settings, options.source.data_dir)
    settings = replace(settings, llm=replace(settings.llm, provider=NO_MODEL))
    run = EvalRun()
    embedder = Embedder(settings.embedding.dtype, settings.embedding.batch_size, settings.embedding.onnx_below)
    for (repo, commit), group in commit_groups(questions, options.source.repo is not None).items():
        location = commit_index(options.source, repo, commit, settings, embedder, scope_pathspecs(group),
                                on_build=lambda build: run.add_build(build, on_build))
        scope = Scope(location.repository, EVAL_BRANCH, location.active_index)
        with Controller(settings) as controller:
            pipeline = controller.pipeline(options.pipeline)
            for question in group:
                run.add_row(answer_row(controller, pipeline, scope, question, commit), on_row)
    return run


def answer_row(controller: Controller, pipeline: Pipeline, scope: Scope, question: SymbolQuestion,
               commit: str) -> dict[str, Any]:
    """The question run through `pipeline` in `scope`: its ranked nodes and how the run went."""
    started = time.perf_counter()
    sp, results = controller.run(question.query, scope, pipeline)
    return {"id": question.id, "repo": question.repo, "commit": commit, "kind": question.kind,
            "scope": list(question.scope), "pipeline": pipeline.name, "ranked_nodes": ranked_nodes(sp),
            "cited": len(sp.extras.get("answer", {}).get("citations", [])),
            "context": len(sp.final_selection_ids), "hits": len(sp.retrieval_hits),
            "steps": [f"{r.step}:{r.outcome}" for r in results],
            "seconds": round(time.perf_counter() - started, 3)}


def commit_groups(questions: list[SymbolQuestion], one_repository: bool
                  ) -> dict[tuple[str, str], list[SymbolQuestion]]:
    """Questions by (repository, commit), in the order they first appear (one group for --repo)."""
    groups: dict[tuple[str, str], list[SymbolQuestion]] = {}
    for q in questions:
        groups.setdefault(("", "") if one_repository else (q.repo, q.commit), []).append(q)
    return groups


def scope_pathspecs(questions: list[SymbolQuestion]) -> tuple[str, ...]:
    """Every folder the questions are about (each question names at least one)."""
    return tuple(dict.fromkeys(folder for q in questions for folder in q.scope))
