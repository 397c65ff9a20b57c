"""Stage 2, route: the strict prefix protocol and the rule-based router."""
from __future__ import annotations

import pytest

from ragstream.errors import ProtocolError
from ragstream.llm.protocol import RoutePlan, parse_route
from ragstream.stages import route
from ragstream.super_prompt import SuperPrompt


@pytest.mark.parametrize("line, plan", [
    ("[SEMANTIC:] how are payments recorded", RoutePlan("semantic", "none", "how are payments recorded")),
    ("[SEMANTIC_RERANK:] payments", RoutePlan("semantic", "keyword_rerank", "payments")),
    ("  [BM25:] record_payment  ", RoutePlan("bm25", "none", "record_payment")),
    ("[HYBRID:] where is X", RoutePlan("hybrid", "none", "where is X")),
    ("[DIRECT:] a greeting", RoutePlan("direct", "none", "a greeting")),
])
def test_valid_lines(line, plan):
    assert parse_route(line) == plan


@pytest.mark.parametrize("line, message", [
    ("record_payment", "no routing prefix"),
    ("Sure! [BM25:] record_payment", "no routing prefix"),
    ("[FUZZY:] record_payment", "unknown routing prefix [FUZZY:]"),
    ("[bm25:] record_payment", "no routing prefix"),
    ("[BM25:]   ", "[BM25:] needs a query"),
    ("[BM25:] a\n[HYBRID:] b", "exactly one line"),
])
def test_protocol_errors(line, message):
    with pytest.raises(ProtocolError) as error:
        parse_route(line)
    assert message in str(error.value) and error.value.where == "route"


ROUTE_LIMITS = {"route_short_question_words": 4, "route_lookup_max_words": 40}


@pytest.mark.parametrize("question, prefix", [
    ('why does "invalid literal for int" appear', "[BM25:] invalid literal for int"),
    ("ValueError: a payment must be positive when I pay", "[BM25:]"),
    ("InvoiceService.record_payment", "[BM25:] InvoiceService.record_payment"),
    ("where does record_payment update the invoice status", "[HYBRID:]"),
    ("how are payments applied to invoices", "[HYBRID:]"),
    # an issue report: prose with a quote and a traceback names code, it is not one lookup
    ('Paying "0.00" fails. ' + "When I record a payment on an open invoice " * 5
     + 'Traceback (most recent call last):\n  File "billing/service.py", line 12\nValueError: bad amount',
     "[HYBRID:] Paying"),
])
def test_rules(question, prefix):
    line, reasons = route.rule_route(question, True, 4, 40)
    assert line.startswith(prefix) and reasons
    parse_route(line)  # the rules speak the protocol


def test_no_overlap_is_direct():
    line, reasons = route.rule_route("zzqx wobble", False, 4, 40)
    assert parse_route(line).mode == "direct" and reasons == ["no overlap with the index vocabulary"]


def test_the_stage_writes_the_plan_and_the_raw_line(acl_backend):
    sp = SuperPrompt(question_raw="where does record_payment update the invoice status",
                     repository="sample_repo", branch="default", retrieval_filters={"acl_tags_any": ["public"]})
    assert route.run(sp, acl_backend, None, {"id": "route"}, ROUTE_LIMITS) == "ok"
    assert (sp.retrieval_mode, sp.rerank) == ("hybrid", "none")
    assert sp.retrieval_query == "where does record_payment update the invoice status"
    assert sp.extras["route"]["line"].startswith("[HYBRID:] ") and sp.extras["route"]["path"] == "deterministic"
    # A question only hidden chunks could answer is DIRECT for this caller.
    hidden = SuperPrompt(question_raw="NOCOUNT", repository="sample_repo", branch="default",
                         retrieval_filters={"acl_tags_any": ["public"]})
    assert route.run(hidden, acl_backend, None, {"id": "route"}, ROUTE_LIMITS) == "direct"


def test_apostrophes_are_not_quotes():
    line, _ = route.rule_route("Why doesn't the loader's cache refresh after a reindex?", True, 4, 40)
    assert line == "[HYBRID:] Why doesn't the loader's cache refresh after a reindex?"
