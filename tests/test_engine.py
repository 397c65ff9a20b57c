"""One engine, two modes: stepping and running give the same state; writes are checked."""
from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import pytest
import yaml

from ragstream.controller import Controller, Scope
from ragstream.errors import PipelineError
from ragstream.pipeline.engine import Engine
from ragstream.pipeline.loader import load_pipeline
from ragstream.pipeline.registry import REGISTRY as ACTIONS

SCOPE = Scope("sample_repo", "default", None, {"acl_tags_any": ["public", "dba"]})


@pytest.fixture(scope="module")
def controller(acl_backend):
    return Controller(acl_backend.settings)


def serialised(sp) -> str:
    """The state as JSON with the timings taken out."""
    data = asdict(sp)
    for entry in data["trace"]:
        entry.pop("seconds")
    return json.dumps(data, sort_keys=True, default=str)


def test_step_by_step_equals_run_and_runs_repeat(controller):
    pipeline = controller.pipeline("db")
    auto, results = controller.run("which procedures write the payments table", SCOPE, pipeline)
    again, _ = controller.run("which procedures write the payments table", SCOPE, pipeline)
    engine = Engine(pipeline, controller.runtime)
    manual = engine.start(controller.new_state("which procedures write the payments table", SCOPE))
    while manual.stage:
        engine.step(manual)
    assert serialised(auto) == serialised(manual) == serialised(again)
    assert [r.step for r in results] == auto.history_of_stages == [
        "normalize", "history", "route", "retrieve", "rerank", "relate", "expand", "fetch_texts", "condense",
        "build_prompt", "answer", "persist"]
    assert auto.stage == "" and auto.node_texts and auto.graph_expanded_nodes[0] in auto.retrieval_seed_nodes
    assert [t["outcome"] for t in auto.trace][:4] == ["ok", "ok", "ok", "ok"]
    assert all(t["path"] == "deterministic" for t in auto.trace)


def test_nothing_visible_routes_direct_to_an_honest_answer(controller):
    hidden = Scope("sample_repo", "default", None, {"acl_tags_any": []})  # sees nothing
    sp, results = controller.run("invoices", hidden, controller.pipeline("base"))
    assert [(r.step, r.outcome) for r in results] == [("normalize", "ok"), ("history", "ok"), ("route", "direct"),
                                                      ("condense", "ok"), ("build_prompt", "ok"),
                                                      ("answer", "no_evidence"), ("persist", "ok")]
    assert sp.retrieval_mode == "direct" and sp.retrieval_seed_nodes == [] and sp.stage == ""
    assert "nothing to quote" in sp.answer and "your retrieval filters are set and may hide" in sp.answer


def test_no_entry_points_leads_to_an_honest_answer(controller):
    public = Scope("sample_repo", "default", None, {"acl_tags_any": ["public"]})
    sp, results = controller.run("Where is the zzqx wobble frobnicated?", public,
                                 controller.pipeline("base"))
    outcomes = dict((r.step, r.outcome) for r in results)
    assert outcomes["retrieve"] == "no_entry_points" and results[-2].step == "answer"
    assert sp.answer.startswith("> **Not written by a model.**") and "nothing to quote" in sp.answer


def test_a_database_question_whose_database_is_hidden_gets_the_code_and_a_warning(controller):
    public = Scope("sample_repo", "default", None, {"acl_tags_any": ["public"]})  # db/ is hidden
    sp, results = controller.run("Which stored procedure records a payment?", public, controller.pipeline("base"))
    assert dict((r.step, r.outcome) for r in results)["retrieve"] == "ok"
    retrieve = next(e for e in sp.trace if e["step"] == "retrieve")
    assert retrieve["warnings"] == ["kept the first search's hits: no database object among the hits"]
    assert "usp_RecordPayment" not in sp.to_json() and "procedures.sql" not in sp.to_json()


def test_no_entry_points_is_an_outcome(controller, tmp_path: Path):
    (tmp_path / "plain.yaml").write_text(yaml.safe_dump({
        "settings": {"entry_step_id": "retrieve", "top_k": 3},
        "steps": [{"id": "retrieve", "action": "retrieve", "mode": "bm25"}]}))
    sp, results = controller.run("zzqx wobble", SCOPE, load_pipeline("plain", tmp_path,
                                                                     defaults=vars(controller.settings.limits)))
    assert [(r.step, r.outcome) for r in results] == [("retrieve", "no_entry_points")]
    assert sp.retrieval_seed_nodes == [] and sp.stage == ""


def test_an_undeclared_write_fails_loudly(controller):
    def sneaky(sp, runtime, step, settings):
        sp.answer = "made up"
        return "ok"
    actions = {**ACTIONS, "normalize": replace(ACTIONS["normalize"], run=sneaky, writes=frozenset({"retrieval_hits"}))}
    engine = Engine(controller.pipeline("base"), controller.runtime, actions)
    sp = engine.start(controller.new_state("q", SCOPE))
    before = sp.to_json()
    with pytest.raises(PipelineError) as error:
        engine.step(sp)
    assert "wrote fields it does not declare: ['answer']" in str(error.value)
    assert error.value.where.endswith("base.yaml: step normalize")
    assert sp.to_json() == before  # nothing of the failed step is kept; a retry fails again
    with pytest.raises(PipelineError):
        engine.step(sp)


def test_an_undeclared_read_fails_loudly(controller):
    def curious(sp, runtime, step, settings):
        return "ok" if sp.node_texts is not None else "ok"  # normalize declares no read of node_texts
    actions = {**ACTIONS, "normalize": replace(ACTIONS["normalize"], run=curious)}
    engine = Engine(controller.pipeline("base"), controller.runtime, actions)
    sp = engine.start(controller.new_state("q", SCOPE))
    before = sp.to_json()
    with pytest.raises(PipelineError) as error:
        engine.step(sp)
    assert "read fields it does not declare: ['node_texts']" in str(error.value)
    assert error.value.where.endswith("base.yaml: step normalize")
    assert sp.to_json() == before


def test_every_action_is_declared_once_in_its_stage_module():
    from ragstream.pipeline.registry import STAGE_MODULES
    from ragstream.stages.action import STAGES

    declared = [action for module in STAGE_MODULES for action in module.ACTIONS]
    assert sorted(a.name for a in declared) == sorted(ACTIONS) and len(declared) == len(ACTIONS)
    assert all(a.stage in STAGES and "ok" in a.outcomes for a in declared)


def test_a_question_is_checked_once_per_turn(controller):
    from ragstream.errors import QuestionError
    from ragstream.question import Question, check_question

    pipeline = controller.pipeline("base")
    question = controller.check_question("invoice", pipeline)
    assert isinstance(question, Question) and question == "invoice"
    assert check_question(question, question.limit) is question  # handed on, it is not checked again
    with pytest.raises(QuestionError):
        check_question(question, 3)  # under another limit it is
    sp, _ = controller.run(question, SCOPE, pipeline)
    assert type(sp.question_raw) is str and sp.question_raw == "invoice"


def test_finished_states_and_guardless_loops(controller, tmp_path: Path):
    sp, _ = controller.run("invoice", SCOPE, controller.pipeline("base"))
    with pytest.raises(PipelineError, match="the pipeline has finished"):
        Engine(controller.pipeline("base"), controller.runtime).step(sp)
    (tmp_path / "loop.yaml").write_text(yaml.safe_dump({
        "settings": {"entry_step_id": "fetch", "max_context_tokens": 100},
        "steps": [{"id": "fetch", "action": "fetch_node_texts", "next": "fetch"}]}))
    engine = Engine(load_pipeline("loop", tmp_path), controller.runtime)
    state = engine.start(controller.new_state("q", SCOPE))
    with pytest.raises(PipelineError, match="a loop without a guard"):
        engine.run(state)


def test_settings_overrides_reach_the_steps(controller):
    small = controller.pipeline("base", {"top_k": 2, "max_context_tokens": 200})
    sp, _ = controller.run("invoice payment", SCOPE, small)
    assert len(sp.retrieval_seed_nodes) == 2 and sp.budget["node_texts"]["budget"] == 140


def test_state_json_round_trip_is_lossless(controller):
    from ragstream.index.model import Chunk
    from ragstream.super_prompt import SuperPrompt

    sp, _ = controller.run("record payment", SCOPE, controller.pipeline("code"))
    sp.base_context_chunks = [Chunk("py:a.f|FUNCTION", "a.py", 1, 3, "FUNCTION", "a.f", "def f(): ...",
                                    {"language": "python", "acl_tags": ["public"]})]
    again = SuperPrompt.from_json(sp.to_json())
    assert again == sp and again.to_json() == sp.to_json()
    with pytest.raises(PipelineError, match="unknown SuperPrompt field"):
        SuperPrompt.from_json('{"questionn": "typo"}')


def test_manual_mode_enforces_order_and_clears_downstream_on_rerun(controller):
    from ragstream.controller import ManualSession

    session = ManualSession(controller, controller.pipeline("base"), "where is record_payment", SCOPE)
    assert session.enabled == ["normalize"]
    refused = session.click("expand")  # not yet: errors come back as values for the UI
    assert refused.result is None and "not available now" in str(refused.error)
    steps = ["normalize", "history", "route", "retrieve", "rerank", "relate", "expand", "fetch_texts", "condense",
             "build_prompt", "answer", "persist"]
    for step in steps:
        assert session.click(step).error is None
    assert session.state.node_texts and session.enabled == steps
    done = serialised(session.state)

    rerun = session.click("retrieve")  # everything retrieve, expand and fetch wrote is cleared first
    assert rerun.error is None and rerun.result.step == "retrieve"
    assert session.state.retrieval_seed_nodes and session.state.graph_expanded_nodes == []
    assert session.state.node_texts == [] and session.state.budget == {} and session.state.answer == ""
    assert session.enabled == ["normalize", "history", "route", "retrieve", "rerank"]
    for step in steps[3:]:
        session.click(step)
    again = json.loads(serialised(session.state))
    first = json.loads(done)
    for key in ("history_of_stages", "trace"):  # append-only: the re-run is recorded
        again.pop(key), first.pop(key)
    assert again == first
    assert session.state.history_of_stages[-len(steps[3:]):] == steps[3:]


def test_every_stage_changes_only_what_it_declares_and_the_trace_says_what_it_did(controller):
    from ragstream.pipeline.registry import REGISTRY, STAGES

    sp, results = controller.run("Which stored procedure writes the Payments table used by InvoiceService?",
                                 SCOPE, controller.pipeline("base"))
    for result, entry in zip(results, sp.trace):
        writes = ACTIONS[result.action].writes
        assert set(result.changed) <= {w.split(".")[0] for w in writes}, result
        assert entry["stage"] in STAGES and entry["stage"] == REGISTRY[result.action].stage
        assert entry["path"] == "deterministic" and entry["warnings"] == []
    trace = {e["step"]: e for e in sp.trace}
    assert trace["route"]["decisions"]["extras.route"]["line"].startswith("[")
    assert trace["retrieve"]["counts"]["retrieval_seed_nodes"] == 8 < len(sp.retrieval_hits)
    assert "extras.gate" in trace["rerank"]["decisions"]
    ids = [c.id for c in sp.base_context_chunks]
    assert ids == sp.retrieval_seed_nodes and len(set(ids)) == len(ids)  # unique by id, reranked order
    # relate puts the objects the question names (the Payments table, InvoiceService) before the search's seeds
    named = sp.views_by_stage["relate"]
    assert "sql:dbo.Payments|TABLE" in named and sp.graph_seed_nodes[: len(named)] == named
    assert all(c.text for c in sp.base_context_chunks)


def test_not_english_is_a_warning_in_the_trace(controller):
    sp, _ = controller.run("Wie wird eine Zahlung (payment) verbucht?", SCOPE, controller.pipeline("base"),
                           is_english=False)
    assert sp.trace[0]["warnings"] == ["not translated: no model plays the translator; the question is used as written"]


def test_n1_caps_the_candidates(controller):
    wide = controller.pipeline("base", {"top_k": 100, "N1_RETR_MAX_CANDIDATES": 3})
    sp, _ = controller.run("invoice payment customer", SCOPE, wide)
    assert 0 < len(sp.retrieval_hits) <= 3
