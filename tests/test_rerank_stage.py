"""Stage 4, rerank: rescoring and the gate (empty, duplicate, off-topic), on the fixture index."""
from __future__ import annotations

import pytest

from ragstream.errors import PipelineError
from ragstream.retrieval.rerankers import keyword_coverage
from ragstream.stages import rerank
from ragstream.super_prompt import SuperPrompt

SETTINGS = {"N2_RERANK_TOP_K": 20, "gate_duplicate_jaccard": 0.9, "keyword_semantic_weight": 0.7,
            "keyword_keyword_weight": 0.3}


def state(query: str, hits: list[tuple[str, float]]) -> SuperPrompt:
    return SuperPrompt(repository="sample_repo", branch="default", retrieval_query=query,
                       retrieval_filters={"acl_tags_any": ["public", "dba"]},
                       retrieval_hits=[{"id": i, "score": s, "rank": r, "sources": {}}
                                       for r, (i, s) in enumerate(hits, start=1)])


def test_rescoring_lifts_chunks_that_name_the_query(acl_backend):
    # Close retrieval scores: the one naming the query's keywords goes first (0.97 against 0.7).
    sp = state("save_payment", [("py:billing.models.Invoice.balance|METHOD", 0.52),
                                ("py:billing.repository.InvoiceRepository.save_payment|METHOD", 0.50),
                                ("py:billing.models.Invoice.mark_paid|METHOD", 0.10)])
    assert rerank.run(sp, acl_backend, None, {"id": "rerank"}, SETTINGS) == "ok"
    assert sp.retrieval_seed_nodes[0] == "py:billing.repository.InvoiceRepository.save_payment|METHOD"
    assert sp.views_by_stage["rerank"] == sp.retrieval_seed_nodes
    assert sp.extras["gate"]["path"] == "deterministic"


def test_a_keyword_few_candidates_hold_outweighs_one_all_of_them_hold():
    # "pytest" is in every candidate, "approx" in one: holding "approx" alone is worth more than
    # holding "pytest" and "raises", which half the candidates share.
    candidates = [{"pytest", "approx"}, {"pytest", "raises"}, {"pytest", "raises"}, {"pytest"}]
    coverage = keyword_coverage({"pytest", "raises", "approx"}, candidates)
    assert coverage[0] > coverage[1] == coverage[2] > coverage[3] > 0
    assert keyword_coverage({"pytest", "raises", "approx"}, [{"pytest", "raises", "approx"}]) == [1.0]
    assert keyword_coverage(set(), candidates) == [0.0] * 4


def test_the_gate_drops_off_topic_and_missing_with_reasons(acl_backend):
    sp = state("payment invoice", [
        ("py:billing.service.InvoiceService.record_payment|METHOD", 0.9),
        ("py:billing.util.log_event|FUNCTION", 0.1),  # names neither word, scores below the median
        ("py:billing.models.Invoice.mark_paid|METHOD", 0.5),
        ("py:no.such.thing|FUNCTION", 0.05),  # no text for this caller: empty
    ])
    rerank.run(sp, acl_backend, None, {"id": "rerank"}, SETTINGS)
    dropped = {d["id"]: d["reason"] for d in sp.extras["gate"]["dropped"]}
    assert dropped == {"py:billing.util.log_event|FUNCTION": "off_topic", "py:no.such.thing|FUNCTION": "empty"}
    assert set(sp.retrieval_seed_nodes) == {"py:billing.service.InvoiceService.record_payment|METHOD",
                                            "py:billing.models.Invoice.mark_paid|METHOD"}


def test_duplicates_are_dropped_in_favour_of_the_higher_one(acl_backend):
    # A split chunk's node id and its only part carry the same text: one is a duplicate.
    sp = state("record payment", [("py:billing.service.InvoiceService.record_payment|METHOD", 0.9),
                                  ("py:billing.service.InvoiceService.record_payment|METHOD", 0.8)])
    rerank.run(sp, acl_backend, None, {"id": "rerank"}, SETTINGS)
    assert sp.extras["gate"]["dropped"] == [{"id": "py:billing.service.InvoiceService.record_payment|METHOD",
                                             "reason": "duplicate of py:billing.service.InvoiceService.record_payment|METHOD"}]


def test_only_the_top_n2_are_considered_and_nothing_left_is_an_outcome(acl_backend):
    hits = [(f"py:no.such.f{i}|FUNCTION", 1.0 - i / 100) for i in range(30)]
    sp = state("payment", hits)
    assert rerank.run(sp, acl_backend, None, {"id": "rerank"}, {**SETTINGS, "N2_RERANK_TOP_K": 5}) == "no_entry_points"
    reasons = [d["reason"] for d in sp.extras["gate"]["dropped"]]
    assert reasons.count("over N2_RERANK_TOP_K") == 25 and reasons.count("empty") == 5
    assert sp.retrieval_seed_nodes == []


def test_missing_settings_name_the_step(acl_backend):
    with pytest.raises(PipelineError) as error:
        rerank.run(state("x", []), acl_backend, None, {"id": "rr"}, {k: v for k, v in SETTINGS.items() if k != "N2_RERANK_TOP_K"})
    assert error.value.where == "step rr: N2_RERANK_TOP_K"


def test_rerank_keeps_as_many_seeds_as_retrieve_chose_and_a_gated_seed_leaves_its_place(acl_backend):
    # retrieve chose 2 seeds of 4 candidates; the gate drops the second seed (off topic, below the
    # median), so the best remaining candidate takes its place and the last is not a seed.
    sp = state("payment invoice", [
        ("py:billing.service.InvoiceService.record_payment|METHOD", 0.9),
        ("py:billing.util.log_event|FUNCTION", 0.1),
        ("py:billing.models.Invoice.mark_paid|METHOD", 0.5),
        ("py:billing.repository.InvoiceRepository.save_payment|METHOD", 0.05),
    ])
    sp.retrieval_seed_nodes = [h["id"] for h in sp.retrieval_hits[:2]]
    assert rerank.run(sp, acl_backend, None, {"id": "rerank"}, SETTINGS) == "ok"
    assert sp.retrieval_seed_nodes == ["py:billing.service.InvoiceService.record_payment|METHOD",
                                       "py:billing.models.Invoice.mark_paid|METHOD"]
    assert [c.id for c in sp.base_context_chunks] == sp.retrieval_seed_nodes
    dropped = {d["id"]: d["reason"] for d in sp.extras["gate"]["dropped"]}
    assert dropped == {"py:billing.util.log_event|FUNCTION": "off_topic",
                       "py:billing.repository.InvoiceRepository.save_payment|METHOD": "below the 2 seeds"}


@pytest.mark.parametrize("class_first", [True, False])
def test_a_class_whose_method_is_a_seed_leaves_its_place_to_the_next_candidate(acl_backend, class_first):
    # The class's text elides record_payment's body: a second view of the same code.
    owner, member = "py:billing.service.InvoiceService|CLASS", "py:billing.service.InvoiceService.record_payment|METHOD"
    other = "py:billing.models.Invoice.mark_paid|METHOD"
    first, second = (owner, member) if class_first else (member, owner)
    sp = state("invoice payment", [(first, 0.9), (second, 0.85), (other, 0.5)])
    sp.retrieval_seed_nodes = [first, second]  # retrieve chose two seeds
    rerank.run(sp, acl_backend, None, {"id": "rerank"}, SETTINGS)
    assert sp.retrieval_seed_nodes == [member, other]
    assert {"id": owner, "reason": f"outline of {member}"} in sp.extras["gate"]["dropped"]


def test_a_constructor_seed_does_not_push_out_its_class(acl_backend):
    # __init__ only wires the class: its outline says more, so both stay
    owner, init = "py:billing.service.InvoiceService|CLASS", "py:billing.service.InvoiceService.__init__|METHOD"
    sp = state("invoice service repository", [(owner, 0.9), (init, 0.85)])
    sp.retrieval_seed_nodes = [owner, init]
    rerank.run(sp, acl_backend, None, {"id": "rerank"}, SETTINGS)
    assert sp.retrieval_seed_nodes == [owner, init]
