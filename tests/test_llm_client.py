"""The real `openai` client against a real scripted HTTP server: replies, streaming, retries."""
from __future__ import annotations

import dataclasses

import pytest

from openai_server import Reply, ScriptedServer
from ragstream.config import load_settings
from ragstream.errors import ConfigError, ModelError
from ragstream.llm.client import LLMClient

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello there"}]


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


def client(server: ScriptedServer, waits: list[float] | None = None, **llm) -> LLMClient:
    """A client with room for the backoff sequence these tests are about: 2, 4, 8, 16, 32 s."""
    retries = {"max_retries": 5, "backoff_seconds": 2, "max_backoff_seconds": 60}
    settings = load_settings(overrides={"llm": {"provider": "openai", "base_url": server.base_url, "model": "m",
                                                **retries, **llm}}).llm
    return LLMClient(settings, sleep=(waits.append if waits is not None else None) or (lambda s: None))


def test_a_reply_with_temperature_zero_a_seed_and_a_call_record(server):
    server.queue("m", "Hi.")
    completion = client(server).complete("router", MESSAGES)
    assert completion.text == "Hi."
    request = server.requests[0]
    assert request["model"] == "m" and request["temperature"] == 0 and request["seed"] == 7
    assert request["max_tokens"] == 1024 and "response_format" not in request  # no constraints: not local
    assert request["messages"] == MESSAGES and not request.get("stream")
    call = completion.call
    assert (call.role, call.model, call.retries, call.streamed, call.usage_reported) == ("router", "m", 0, False, True)
    assert call.prompt_tokens == 4 and call.completion_tokens == 1  # the server's usage, as reported


def test_streaming_passes_pieces_on_as_they_come(server):
    text = "[Answer:] The payment is recorded in record_payment."
    server.queue("m", text)
    pieces: list[str] = []
    completion = client(server).complete("answer", MESSAGES, on_token=pieces.append)
    assert len(pieces) > 1 and "".join(pieces) == completion.text == text
    assert server.requests[0]["stream"] is True and completion.call.streamed and completion.call.usage_reported


def test_a_stream_without_usage_is_counted_locally(server):
    server.queue("m", Reply("one two three", usage=False))
    call = client(server).complete("answer", MESSAGES, on_token=lambda piece: None).call
    assert not call.usage_reported and call.completion_tokens == 3 and call.prompt_tokens > 0


def test_429_waits_what_retry_after_asks(server):
    server.queue("m", Reply("slow down", status=429, headers={"Retry-After": "3"}), "ok")
    waits: list[float] = []
    completion = client(server, waits).complete("gate", MESSAGES)
    assert completion.text == "ok" and completion.call.retries == 1 and waits == [3.0]


def test_server_errors_back_off_2_4_8_then_succeed(server):
    server.queue("m", Reply(status=500), Reply(status=502), Reply(status=503), "fine")
    waits: list[float] = []
    completion = client(server, waits).complete("answer", MESSAGES)
    assert completion.text == "fine" and completion.call.retries == 3 and waits == [2, 4, 8]
    assert len(server.requests) == 4


def test_a_timeout_is_retried(server):
    server.queue("m", Reply("too late", delay=1.5), "in time")
    waits: list[float] = []
    completion = client(server, waits, timeout_seconds=0.5).complete("router", MESSAGES)
    assert completion.text == "in time" and completion.call.retries == 1 and waits == [2]


def test_giving_up_names_the_role_the_model_and_the_server(server):
    server.always("m", Reply(status=500))
    waits: list[float] = []
    with pytest.raises(ModelError) as error:
        client(server, waits, max_retries=5).complete("condenser", MESSAGES)
    assert waits == [2, 4, 8, 16, 32] and len(server.requests) == 6
    assert "condenser" in str(error.value) and "m at http://127.0.0.1" in str(error.value)
    assert "gave up after 6 attempt(s)" in str(error.value)


@pytest.mark.parametrize("header, wait", [("soon", 2), ("Wed, 21 Oct 2015 07:28:00", 0), ("1.5", 1.5)])
def test_an_unreadable_or_past_retry_after_never_breaks_the_call(server, header, wait):
    server.queue("m", Reply(status=429, headers={"Retry-After": header}), "ok")
    waits: list[float] = []
    assert client(server, waits).complete("router", MESSAGES).text == "ok" and waits == [wait]


def test_waits_are_capped(server):
    server.queue("m", Reply(status=429, headers={"Retry-After": "3600"}), "ok")
    waits: list[float] = []
    client(server, waits, max_backoff_seconds=60).complete("router", MESSAGES)
    assert waits == [60]


def test_a_client_error_is_not_retried(server):
    server.queue("m", Reply("invalid model", status=404))
    with pytest.raises(ModelError) as error:
        client(server).complete("answer", MESSAGES)
    assert len(server.requests) == 1 and "HTTP 404" in str(error.value) and error.value.hint


def test_provider_none_never_calls_anything(server):
    none = LLMClient(load_settings().llm)
    assert not none.enabled and not none.uses_model("answer")
    with pytest.raises(ModelError):
        none.complete("answer", MESSAGES)
    assert server.requests == []


def test_a_role_set_to_none_runs_deterministically(server):
    llm = client(server, roles={"gate": "none", "answer": "big"})
    assert not llm.uses_model("gate") and llm.uses_model("router") and llm.model_for("answer") == "big"


def test_openai_without_a_key_or_a_server_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    settings = load_settings(overrides={"llm": {"provider": "openai"}}).llm
    with pytest.raises(ConfigError) as error:
        LLMClient(settings)
    assert "OPENAI_API_KEY" in str(error.value) and error.value.where == "llm.provider"


def test_base_url_comes_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.queue("m", "from env")
    settings = dataclasses.replace(load_settings().llm, provider="openai", model="m")
    assert LLMClient(settings).complete("router", MESSAGES).text == "from env"


def test_unknown_roles_and_providers_are_config_errors():
    with pytest.raises(ConfigError, match="unknown role"):
        load_settings(overrides={"llm": {"roles": {"writer": "x"}}})
    with pytest.raises(ConfigError, match="llm.provider"):
        load_settings(overrides={"llm": {"provider": "anthropic"}})


def test_constraints_go_with_the_request_when_the_server_can_enforce_them(server):
    from ragstream.llm.grammars import extra_body_for, gate_schema

    server.queue("m", "[BM25:] x", '{"decisions": []}')
    settings = load_settings(overrides={"llm": {"provider": "openai", "base_url": server.base_url, "model": "m"}}).llm
    llm = LLMClient(settings, constraints=extra_body_for)
    llm.complete("router", MESSAGES)
    llm.complete("gate", MESSAGES, schema=gate_schema(["a|FUNCTION"], ["keep"], 10))
    router, gate = server.requests
    assert router["grammar"].startswith("root ::=")
    decision = gate["response_format"]["json_schema"]["schema"]["properties"]["decisions"]["items"]
    assert decision["properties"]["id"] == {"enum": ["a|FUNCTION"]}


def test_a_local_window_lowers_the_budgets_to_fit():
    from ragstream.controller import BUDGETS, PROMPT_OVERHEAD_TOKENS, fit_local_window
    from ragstream.pipeline.loader import load_pipeline

    settings = load_settings()
    pipeline = load_pipeline("base", defaults=vars(settings.limits))
    local = dataclasses.replace(settings.llm, provider="local", local_ctx_size=8192, max_reply_tokens=1024)
    assert fit_local_window(pipeline.settings, settings.llm) == {}  # another server knows its own window
    assert fit_local_window(pipeline.settings, dataclasses.replace(local, local_ctx_size=200_000)) == {}
    fitted = fit_local_window(pipeline.settings, local)
    room = 8192 - 1024 - PROMPT_OVERHEAD_TOKENS
    assert room - len(BUDGETS) <= sum(fitted[key] for key in BUDGETS) <= room
    assert fitted["max_context_tokens"] > fitted["max_attachment_tokens"] > 0  # scaled together
    assert fitted["gate_candidate_chars"] * pipeline.settings["N2_RERANK_TOP_K"] <= room * 3
