"""`ask` on ragstream's own index: grounded extractive answers that cite the right files."""
from __future__ import annotations

import pytest

from ragstream.controller import Controller, Scope

QUESTIONS = [  # (question, the file the answer must cite)
    ("How are secrets redacted from indexed files?", "ragstream/redact/redactor.py"),
    ("Where is the gitignore handling when walking a repository?", "ragstream/index/walk.py"),
    ("How does reciprocal rank fusion combine semantic and bm25 results?", "ragstream/retrieval/fusion.py"),
    ("How is a new index generation published atomically?", "ragstream/index/store.py"),
    ("How does the engine check the fields a step writes?", "ragstream/pipeline/engine.py"),
    ("Which module exports the embedding model to ONNX?", "ragstream/index/onnx_model.py"),
    ("How are security filters turned into a mask over the index rows?", "ragstream/retrieval/visibility.py"),
    ("How does personalised PageRank limit graph expansion?", "ragstream/graph/expansion.py"),
    ("How are prompt headers mapped to body fields?", "ragstream/stages/normalize.py"),
    ("How are chunk texts split when they exceed the token limit?", "ragstream/index/chunks.py"),
    ("How are pipeline files merged when one extends another?", "ragstream/pipeline/loader.py"),
    # 'router' is not a word of route.py's identifiers: found since rerank picks its seeds from
    # the top N2 candidates, not the top 8
    pytest.param("How does the router choose between BM25 and hybrid search?", "ragstream/stages/route.py",
                 marks=pytest.mark.xfail(strict=False, reason=(
                     "borderline since the source grew (2026-11-28: MCP server, excerpts): the route module "
                     "is 7th of the final selection, past the 5 citations; the code before that day ranks "
                     "it the same on today's source, so the source moved, not the ranking"))),
]


@pytest.fixture(scope="module")
def self_controller(self_index):
    settings, report = self_index
    return Controller(settings), Scope(report.info.repository, report.info.branch, "self", {})


@pytest.mark.slow
@pytest.mark.parametrize("question, path", QUESTIONS)
def test_ask_cites_the_right_file_on_ragstreams_own_index(self_controller, question, path):
    controller, scope = self_controller
    sp, results = controller.run(question, scope, controller.pipeline("base"))
    assert results[-2].step == "answer" and f"`{path}:" in sp.answer, sp.answer[:1200]


@pytest.mark.slow
def test_hybrid_scales_down_exception_types_the_question_does_not_name(self_index):
    """The setting reaches the backend: an exception class the question only describes ranks
    lower at symptom_weight 0.5 than at 1; one it names stays near the top (its file's other
    exception types still lose some of their evidence)."""
    from dataclasses import replace

    from ragstream.retrieval.local_backend import LocalBackend
    from ragstream.retrieval.types import SearchRequest

    settings, report = self_index

    retrieval_error = "py:ragstream.errors.RetrievalError|CLASS"

    def search(question: str, weight: float):
        backend = LocalBackend(replace(settings, retrieval=replace(settings.retrieval, symptom_weight=weight)))
        return backend.search(SearchRequest("hybrid", question, 100, report.info.repository, report.info.branch,
                                            active_index="self"))

    def rank_of_retrieval_error(question: str, weight: float) -> int:
        return [hit.id for hit in search(question, weight).hits].index(retrieval_error) + 1

    described = "errors of the retrieval layer carry where and hint"
    assert rank_of_retrieval_error(described, 1.0) < rank_of_retrieval_error(described, 0.5)
    assert retrieval_error in search(described, 0.5).debug["symptoms_scaled"]  # the trace says what was scaled
    assert search(described, 1.0).debug["symptoms_scaled"] == []
    named = "where is RetrievalError defined"
    assert rank_of_retrieval_error(named, 0.5) <= 5
    assert retrieval_error not in search(named, 0.5).debug["symptoms_scaled"]
