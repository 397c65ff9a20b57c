"""The stages' model paths, through the engine, against a real scripted OpenAI-compatible server.

Each role gets its own model name (the role's name), so the server knows which stage asks and
each test scripts only the roles it is about; the others are set to `none` (deterministic).
"""
from __future__ import annotations

import json
import re

import pytest

from openai_server import Reply
from conftest import ACL_RULES, make_settings
from ragstream.cli import main
from ragstream.config import LLM_ROLES
from ragstream.controller import Controller, Scope
from ragstream.llm.protocol import ROUTES
from ragstream.token_count import token_counter

SCOPE = Scope("sample_repo", "default", None, {"acl_tags_any": ["public", "dba"]})
QUESTION = "How is a payment recorded on an invoice?"


@pytest.fixture
def models(server, acl_backend):
    """models(*roles, **settings) -> a Controller whose `roles` are played by scripted models."""
    server.queues.clear()
    server.fallback.clear()
    server.requests.clear()
    made: list[Controller] = []

    def build(*roles: str, **limits) -> Controller:
        llm = {"provider": "openai", "base_url": server.base_url, "backoff_seconds": 0.01,
               "roles": {role: (role if role in roles else "none") for role in LLM_ROLES}}
        settings = make_settings(acl_backend.settings.index.data_dir, acl={"rules": ACL_RULES}, llm=llm,
                                 limits=limits)
        made.append(Controller(settings))
        return made[-1]

    yield build
    for controller in made:
        controller.close()


def ask(controller: Controller, question: str = QUESTION, **kwargs):
    return controller.run(question, SCOPE, controller.pipeline("base"), **kwargs)


def entry(sp, step: str) -> dict:
    return next(e for e in sp.trace if e["step"] == step)


@pytest.mark.parametrize("prefix", list(ROUTES))
def test_every_router_prefix_sets_the_plan(models, server, prefix):
    server.queue("router", f"[{prefix}:] invoice payment")
    sp, _ = ask(models("router"))
    mode, rerank = ROUTES[prefix]
    assert (sp.retrieval_mode, sp.rerank) == (mode, rerank)
    route = entry(sp, "route")
    assert route["path"] == "model" and route["llm_calls"][0]["role"] == "router"
    assert sp.extras["route"]["line"] == f"[{prefix}:] invoice payment"
    request = server.requests_for("router")[0]["messages"]
    assert "Output contract" in request[0]["content"] and QUESTION in request[1]["content"]
    if prefix == "DIRECT":
        assert sp.retrieval_query == "" and "retrieve" not in sp.history_of_stages
    else:
        assert sp.retrieval_query == "invoice payment"


def test_a_malformed_router_reply_is_asked_again_with_the_error(models, server):
    server.queue("router", "I think hybrid search is best", "[BM25:] record_payment")
    sp, _ = ask(models("router"))
    assert sp.retrieval_mode == "bm25" and entry(sp, "route")["path"] == "model"
    retry = server.requests_for("router")[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "I think hybrid search is best"}
    assert "could not be parsed" in retry[-1]["content"] and "no routing prefix" in retry[-1]["content"]


def test_malformed_twice_falls_back_to_the_rules_and_says_so(models, server):
    server.queue("router", "hybrid please", "[FUZZY:] payment")
    sp, _ = ask(models("router"))
    route = entry(sp, "route")
    assert route["path"] == "deterministic (model fallback)" and len(route["llm_calls"]) == 2
    assert any("malformed twice" in w for w in route["warnings"])
    assert sp.extras["route"]["reasons"] != ["chosen by the router model"] and sp.retrieval_mode == "hybrid"


def test_a_model_that_cannot_be_reached_falls_back(models, server):
    server.always("router", Reply(status=503))
    sp, _ = ask(models("router"))
    route = entry(sp, "route")
    assert route["path"] == "deterministic (model fallback)" and route["llm_calls"] == []
    assert any("router model failed" in w and "HTTP 503" in w for w in route["warnings"])


def test_the_shaper_fills_closed_fields_and_clamps_what_is_outside(models, server):
    shape = {"intent": "how_implemented", "domain": "spaceship", "concepts": ["record_payment"],
             "synonyms": ["settle"], "system": "pirate", "audience": "newcomer", "tone": "concise",
             "depth": "deep", "confidence": "high"}
    server.queue("shaper", "```json\n" + json.dumps(shape) + "\n```")
    sp, _ = ask(models("shaper"), "Audience: architect\nTask: how is a payment recorded?")
    assert sp.intent == "how_implemented" and sp.domain == "code"  # the rules' domain stands
    assert sp.concepts[0] == "record_payment" and "settle" in sp.synonyms
    assert sp.body["audience"] == "architect"  # written by the user: kept
    assert (sp.body["tone"], sp.body["depth"], sp.body["system"]) == ("concise", "deep", "code_assistant")
    warnings = entry(sp, "normalize")["warnings"]
    assert any("domain='spaceship'" in w for w in warnings) and any("system='pirate'" in w for w in warnings)


def test_the_gate_drops_with_reasons_and_never_adds_an_id(models, server):
    controller = models("gate")
    plain, _ = ask(models())
    # the model reads the best rescored candidates, as many as retrieve chose seeds
    rescored = list(plain.extras["gate"]["scores"])
    seeds = len(plain.views_by_stage["retrieve"])
    candidates, unread = rescored[:seeds], rescored[seeds:]
    assert unread  # N2 = 20 candidates were rescored, 8 can be seeds
    decisions = [{"id": candidates[0], "decision": "keep"}, {"id": candidates[1], "decision": "drop_irrelevant",
                                                            "reason": "about logging"},
                 {"id": "py:evil.injected|FUNCTION", "decision": "keep"}]
    server.queue("gate", json.dumps({"decisions": decisions}))
    sp, _ = ask(controller)
    assert "py:evil.injected|FUNCTION" not in sp.retrieval_seed_nodes
    assert all("py:evil" not in c.id for c in sp.base_context_chunks)
    assert set(sp.retrieval_seed_nodes) <= set(candidates) and candidates[1] not in sp.retrieval_seed_nodes
    dropped = {d["id"]: d["reason"] for d in sp.extras["gate"]["dropped"]}
    assert dropped[candidates[1]] == "drop_irrelevant (model): about logging"
    assert any("not a candidate" in w for w in entry(sp, "rerank")["warnings"])
    prompt = server.requests_for("gate")[0]["messages"][1]["content"]
    assert all(f"### {c}" in prompt for c in candidates) and not any(f"### {c}\n" in prompt for c in unread)
    assert all(dropped[c] == f"past the {seeds} the gate model read" for c in unread)  # never seeds unread


def test_an_unknown_gate_decision_is_malformed(models, server):
    server.queue("gate", json.dumps({"decisions": [{"id": "x", "decision": "maybe"}]}), "not json")
    sp, _ = ask(models("gate"))
    rerank = entry(sp, "rerank")
    assert rerank["path"] == "deterministic (model fallback)" and len(rerank["llm_calls"]) == 2
    assert any("'maybe'" in w for w in rerank["warnings"]) and sp.retrieval_seed_nodes


def test_the_answer_request_has_the_blocks_in_order_within_budget(models, server):
    server.queue("format", "- Lead with the answer.\n- Cite file:lines.")
    server.queue("answer", "[Answer:] `record_payment` records it (billing/service.py).")
    controller = models("format", "answer")
    sp, _ = ask(controller)
    messages = server.requests_for("answer")[0]["messages"]
    assert messages[0]["content"] == sp.System_MD and "[Requesting data on:]" in messages[0]["content"]
    user = messages[1]["content"]
    order = [user.index(h) for h in ("## Question", "## Answer format", "## Evidence")]
    assert order == sorted(order) and "- Lead with the answer." in user
    assert sp.System_MD + "\n\n" + user == sp.prompt_ready
    budget = sp.budget["prompt"]
    assert budget["blocks"]["context"] <= budget["limits"]["context"] + 10  # "## Evidence" heading
    assert token_counter().count(sp.S_CTX_MD) <= sp.budget["context"]["limit"]
    assert sp.answer == "`record_payment` records it (billing/service.py)."
    assert entry(sp, "answer")["path"] == "model" and entry(sp, "build_prompt")["path"] == "model"


def test_markers_never_reach_the_user_even_streaming(models, server):
    server.queue("answer", "[Answer:] It is done in record_payment. [Answer:] Really.")
    pieces: list[str] = []
    sp, _ = ask(models("answer"), on_token=pieces.append)
    assert "".join(pieces) == sp.answer == "It is done in record_payment. Really."
    assert server.requests_for("answer")[0]["stream"] is True


def test_a_follow_up_request_searches_again_then_answers(models, server):
    server.queue("answer", "[Requesting data on:] the Payments table and who writes it",
                 "[Answer:] Payments rows are written by usp_RecordPayment (db/procedures.sql).")
    pieces: list[str] = []
    sp, results = ask(models("answer"), on_token=pieces.append)
    steps = [r.step for r in results]
    assert steps.count("retrieve") == 2 and steps.count("answer") == 2 and steps[-1] == "persist"
    assert sp.turn_loop_counter == 1 and sp.retrieval_query == "the Payments table and who writes it"
    assert "".join(pieces) == sp.answer  # the request itself was never shown
    first, second = (r["messages"][1]["content"] for r in server.requests_for("answer"))
    assert "## Data you asked for" in second and "the Payments table" in second
    assert sp.extras["loop"]["decision"] == "follow-up 1 of 2"
    # the evidence of the first prompt is carried into the second, beside what the request found
    earlier = sp.extras["loop"]["carried"]
    assert sum(f"**{node}**" in second for node in earlier) >= 6  # N3 (12) // 2 places are theirs
    assert "sql:dbo.Payments|TABLE" in second and "sql:dbo.Payments|TABLE" not in first


def test_past_max_turn_loops_it_finalises_honestly(models, server):
    server.always("answer", "[Requesting data on:] the Refunds service")
    sp, results = ask(models("answer", max_turn_loops=1))
    assert [r.step for r in results][-2:] == ["loop_guard", "persist"] and results[-2].outcome == "exhausted"
    assert len(server.requests_for("answer")) == 2 and sp.turn_loop_counter == 1
    assert "cannot answer" in sp.answer and "the Refunds service" in sp.answer and "Nothing was guessed" in sp.answer
    assert "[Requesting" not in sp.answer


def test_translation_in_and_out_follows_is_english(models, server):
    server.queue("translator", "How is a payment recorded?", "Die Zahlung wird in record_payment verbucht.")
    server.queue("answer", "[Answer:] The payment is recorded in record_payment.")
    sp, _ = ask(models("translator", "answer"), "Wie wird eine Zahlung verbucht?", is_english=False)
    assert sp.question_en == "How is a payment recorded?"
    assert sp.answer_en == "The payment is recorded in record_payment."
    assert sp.answer == "Die Zahlung wird in record_payment verbucht."
    into, out = server.requests_for("translator")
    assert "Translate into English" in into["messages"][1]["content"]
    assert "Wie wird eine Zahlung verbucht?" in out["messages"][1]["content"]
    english, _ = ask(models("translator", "answer"), QUESTION)
    assert len(server.requests_for("translator")) == 2  # English in: nothing translated


def _condensed_on_a_tight_budget(models, server, reply) -> tuple:
    """(state, ids condensed) of the question on a 300-token budget with the condenser scripted."""
    controller = models("condenser")
    pipeline = controller.pipeline("base", {"max_context_tokens": 300})
    plain, _ = models().run(QUESTION, SCOPE, pipeline)
    condensed = [c["id"] for c in plain.budget["context"]["cuts"] if c["reason"].startswith("condensed")]
    assert condensed, "a 300-token budget must force condensing on the fixture"
    server.always("condenser", reply)
    sp, _ = controller.run(QUESTION, SCOPE, pipeline)
    return sp, condensed


def test_a_condensation_that_loses_identifiers_is_refused(models, server):
    sp, condensed = _condensed_on_a_tight_budget(models, server, json.dumps({"text": "something short"}))
    assert any("dropped identifiers" in w for w in entry(sp, "condense")["warnings"])
    assert "something short" not in sp.S_CTX_MD and sp.budget["context"]["tokens"] <= 300


def test_a_condensation_that_keeps_identifiers_is_used(models, server):
    def keep_identifiers(request: dict) -> str:
        evidence = request["messages"][1]["content"].split("):\n", 1)[1]
        return json.dumps({"text": " ".join(sorted(set(re.findall(r"\w+", evidence))))})

    sp, condensed = _condensed_on_a_tight_budget(models, server, keep_identifiers)
    assert entry(sp, "condense")["path"] == "model" and entry(sp, "condense")["llm_calls"]
    assert any(c["reason"] == "condensed by the model: over max_context_tokens" for c in sp.budget["context"]["cuts"])
    assert sp.budget["context"]["tokens"] <= 300


def test_a_malformed_condensation_falls_back_to_the_extractive_cut(models, server):
    sp, condensed = _condensed_on_a_tight_budget(models, server, "{}")
    assert any("malformed twice" in w for w in entry(sp, "condense")["warnings"])
    assert all(c["reason"] != "condensed by the model: over max_context_tokens" for c in sp.budget["context"]["cuts"])
    assert sp.budget["context"]["tokens"] <= 300


def test_cli_ask_with_openai_base_url_streams_and_persists(models, server, acl_backend, tmp_path, monkeypatch, capsys):
    config = tmp_path / "cli.yaml"
    others = {role: "none" for role in LLM_ROLES if role != "answer"}  # only the answer is a model here
    config.write_text(f"index:\n  data_dir: {acl_backend.settings.index.data_dir}\n"
                      f"acl:\n  rules: {json.dumps(ACL_RULES)}\nllm:\n  roles: {json.dumps(others)}\n")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.always("m", "[Answer:] It is recorded by record_payment.")
    assert main(["--config", str(config), "ask", QUESTION, "--llm", "openai", "--model", "m", "--session", "new",
                 "--filter", "acl_tags_any=public,dba"]) == 0
    captured = capsys.readouterr()
    assert "It is recorded by record_payment." in captured.out and "[Answer:]" not in captured.out
    session = re.search(r"session (\w+)", captured.err).group(1)
    assert "answer m" in captured.out  # the trace lists the model calls
    controller = models()
    turns = controller.history.turns(session)
    assert len(turns) == 1 and turns[0].answer == "It is recorded by record_payment."
    server.always("m", "[Answer:] Same place as before.")
    # the same session under narrower filters is refused: the first answer saw dba-only code
    assert main(["--config", str(config), "ask", "and who calls it?", "--llm", "openai", "--model", "m",
                 "--session", session, "--filter", "acl_tags_any=public"]) == 2
    assert "runs under" in capsys.readouterr().err
    assert main(["--config", str(config), "ask", "and who calls it?", "--llm", "openai", "--model", "m",
                 "--session", session, "--filter", "acl_tags_any=public,dba"]) == 0
    second = [r for r in server.requests_for("m") if "who calls it" in r["messages"][-1]["content"]][-1]
    assert "## Recent conversation" in second["messages"][1]["content"]
    assert QUESTION in second["messages"][1]["content"]
    assert len(controller.history.turns(session)) == 2


def test_cli_ask_with_no_model_makes_no_call(server, acl_backend, tmp_path, capsys):
    server.requests.clear()
    config = tmp_path / "cli.yaml"
    config.write_text(f"index:\n  data_dir: {acl_backend.settings.index.data_dir}\n")
    assert main(["--config", str(config), "ask", QUESTION, "--llm", "none"]) == 0
    assert "Not written by a model" in capsys.readouterr().out and server.requests == []


@pytest.mark.parametrize("pieces", [
    ["[Answer:]", " The", " evidence", " is here.", "\n"],
    ["[Ans", "wer:] a [Ans", "wer:]  b ", " c\n\n"],
    [" [Answer:] x [Requesting", " data on:] y"],
])
def test_the_stream_adds_up_to_the_parsed_answer(pieces):
    from ragstream.llm.protocol import AnswerStream, parse_answer

    seen: list[str] = []
    stream = AnswerStream(seen.append)
    for piece in [*pieces, ""]:
        stream(piece)
    assert "".join(seen) == parse_answer("".join(pieces)).text


def test_a_request_or_a_malformed_reply_streams_nothing():
    from ragstream.llm.protocol import AnswerStream

    for reply in (["[Requesting data on:] the", " schema"], ["Sure! ", "[Answer:] x"]):
        seen: list[str] = []
        stream = AnswerStream(seen.append)
        for piece in [*reply, ""]:
            stream(piece)
        assert seen == []


def test_a_direct_question_whose_answer_asks_for_data_is_searched(models, server):
    server.queue("router", "[DIRECT:] a greeting")
    server.queue("answer", "[Requesting data on:] record_payment", "[Answer:] It is record_payment.")
    sp, results = ask(models("router", "answer"))
    steps = [r.step for r in results]
    assert steps.index("loop_guard") < steps.index("retrieve") and sp.retrieval_mode == "hybrid"
    assert sp.retrieval_seed_nodes and sp.answer == "It is record_payment."


def test_the_exhausted_answer_is_translated_and_printed_by_the_cli(models, server, acl_backend, tmp_path, capsys,
                                                                  monkeypatch):
    config = tmp_path / "cli.yaml"
    roles = {role: "none" for role in LLM_ROLES if role not in ("answer", "translator")}
    config.write_text(f"index:\n  data_dir: {acl_backend.settings.index.data_dir}\n"
                      f"llm:\n  roles: {json.dumps(roles)}\nlimits:\n  max_turn_loops: 0\n")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.always("m", lambda request: ("Ich kann das nicht beantworten." if "Translate" in request["messages"][1]["content"]
                                        else "[Requesting data on:] the Refunds table"))
    assert main(["--config", str(config), "ask", "Wie wird eine Zahlung verbucht?", "--not-english",
                 "--llm", "openai", "--model", "m"]) == 0
    out = capsys.readouterr().out
    assert "Ich kann das nicht beantworten." in out and "[Requesting" not in out
