"""The whole pipeline with the bundled SmolLM2-135M behind ragstream's own local server: every
role's reply follows its protocol (the grammars and schemas see to it). Answer quality is not
what this checks: a 135M model is a demo."""
from __future__ import annotations

import pytest

from conftest import ACL_RULES, make_settings
from ragstream.config import LLM_ROLES
from ragstream.controller import Controller, Scope
from ragstream.llm.protocol import MARKERS

SCOPE = Scope("sample_repo", "default", None, {"acl_tags_any": ["public", "dba"]})


@pytest.mark.slow
def test_every_stage_runs_its_model_path_on_the_local_demo_model(acl_backend):
    # Small budgets: one thread reads ~100 prompt tokens a second.
    settings = make_settings(acl_backend.settings.index.data_dir, acl={"rules": ACL_RULES},
                             llm={"provider": "local", "max_reply_tokens": 320},
                             limits={"N2_RERANK_TOP_K": 6, "N3_FINAL_SELECTION_MAX": 4, "max_turn_loops": 1})
    with Controller(settings) as controller:
        pipeline = controller.pipeline("base", {"max_context_tokens": 700})
        session = controller.history.create_session("local e2e")
        pieces: list[str] = []
        sp, results = controller.run("How is a payment recorded on an invoice?", SCOPE, pipeline,
                                     session_id=session, on_token=pieces.append)
    calls = [call for entry in sp.trace for call in entry["llm_calls"]]
    assert {"router", "shaper", "gate", "format", "answer"} <= {c["role"] for c in calls} <= set(LLM_ROLES)
    paths = {entry["step"]: entry["path"] for entry in sp.trace}
    # constrained roles never fall back: the server enforces their protocol (a reply cut off at
    # max_reply_tokens may need the one retry)
    assert paths["route"] == paths["rerank"] == paths["normalize"] == "model", sp.trace
    assert not [w for entry in sp.trace for w in entry["warnings"] if "malformed twice" in w]
    assert sp.extras["route"]["line"].startswith(tuple(MARKERS))
    assert set(sp.retrieval_seed_nodes) <= {h["id"] for h in sp.retrieval_hits}
    assert results[-1].step == "persist" and sp.answer and not any(m in sp.answer for m in MARKERS)
    answered = [e for e in sp.trace if e["step"] == "answer"][-1]["path"] == "model"
    assert answered or sp.extras["loop"]["decision"].startswith("loops exhausted")
    if answered:
        assert "".join(pieces) == sp.answer  # streamed, markers removed
    assert all(c["completion_tokens"] > 0 and c["seconds"] > 0 for c in calls)
    assert controller.history.turns(session)[-1].answer == sp.answer
