"""The workbench with language models: a real scripted OpenAI-compatible server on 127.0.0.1
plays the router and the answering model; everything else runs for real."""
from __future__ import annotations

import pytest
import yaml
from test_ui import ask_in_auto_mode, asked, open_app, press, stage_buttons, stage_panels

from ragstream.config import LLM_ROLES
from ragstream.ui import CONFIG_ENV

FOLLOW_UP = "[Requesting data on:] the Payments table and who writes it"
ANSWER = "[Answer:] Payments rows are written by usp_RecordPayment (db/procedures.sql)."


@pytest.fixture
def model_session(server, built_sample, tmp_path, monkeypatch):
    """A new browser session whose settings have the router and the answer played by models."""
    server.queues.clear()
    server.fallback.clear()
    server.requests.clear()
    _, settings, _ = built_sample
    roles = {role: role if role in ("router", "answer") else "none" for role in LLM_ROLES}
    config = {"index": {"data_dir": settings.index.data_dir},
              "llm": {"provider": "openai", "base_url": server.base_url, "backoff_seconds": 0.01, "roles": roles}}
    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    monkeypatch.setenv(CONFIG_ENV, str(path))
    return open_app


def test_manual_mode_shows_the_model_path_and_steps_through_a_follow_up(model_session, server):
    server.queue("router", "[BM25:] record payment")
    server.queue("answer", FOLLOW_UP, ANSWER)
    at = asked(model_session())
    for stage in ("normalize", "route", "retrieve", "rerank", "expand", "condense", "build_prompt", "answer"):
        press(at, stage)
    at.session_state["manual:panel:route"] = True  # opened as a user would: only open panels are drawn
    at.run()
    route_panel = next(e for e in at.expander if e.label.startswith("2 Route"))
    assert "model path" in route_panel.label and route_panel.code[0].value == "[BM25:] record payment"
    assert any("router → `router`" in c.value for c in route_panel.caption)
    assert "deterministic path (no model)" in stage_panels(at)[0]  # normalize has no model here
    # The model asked for more data: the pipeline went back to retrieve, which is next, not a re-run.
    session = at.session_state["manual:session"]
    assert session.state.stage == "retrieve" and session.state.retrieval_query == "the Payments table and who writes it"
    assert [s for s, enabled in stage_buttons(at).items() if enabled] == [
        "normalize", "route", "retrieve", "rerank", "expand", "condense", "build_prompt", "answer"]
    for stage in ("retrieve", "rerank", "expand", "condense", "build_prompt", "answer"):
        press(at, stage)
    session = at.session_state["manual:session"]
    assert session.state.stage == "" and session.ran.count("retrieve") == 2 and session.ran[-1] == "persist"
    assert session.state.answer == ANSWER.removeprefix("[Answer:] ")
    assert any("follow-up 1: the model asked for data on" in c.value for c in at.caption)


def test_auto_mode_streams_the_model_answer_and_lists_the_calls(model_session, server):
    server.always("router", "[HYBRID:] record a payment")
    server.queue("answer", ANSWER)
    at = ask_in_auto_mode(model_session(), "How is a payment recorded?")
    [turn] = at.session_state["auto:asked"]
    assert turn.state.answer == ANSWER.removeprefix("[Answer:] ") == at.chat_message[1].markdown[0].value
    assert server.requests_for("answer")[0]["stream"] is True
    trace = at.chat_message[1].dataframe[0].value
    assert "answer: answer" in list(trace["models"]) and "router: router" in list(trace["models"])
    models = at.sidebar.expander[-1].dataframe[0].value
    assert dict(zip(models["role"], models["model"]))["answer"] == "answer"
    assert dict(zip(models["role"], models["model"]))["gate"] == "deterministic path"


def test_auto_mode_shows_the_model_s_follow_up_requests_in_the_turn(model_session, server):
    server.always("router", "[HYBRID:] record a payment")
    server.queue("answer", FOLLOW_UP, ANSWER)
    at = ask_in_auto_mode(model_session(), "How is a payment recorded?")
    [turn] = at.session_state["auto:asked"]
    assert turn.error is None and turn.state.answer == ANSWER.removeprefix("[Answer:] ")
    [expander] = [e for e in at.chat_message[1].expander if e.label.startswith("turn 1")]
    captions = [c.value for c in expander.caption]
    assert "follow-up 1: the model asked for data on “the Payments table and who writes it”" in captions
    assert turn.state.history_of_stages.count("retrieve") == 2  # the loop went back to retrieve
