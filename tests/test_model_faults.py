"""Model faults against a real local HTTP server: every case ends within its deadline with a
clear message, and a question whose model failed still gets the deterministic answer, headed
honestly. Deadlines are short here (fractions of a second) so the suite stays fast; SLACK is
what a busy two-core machine may add to a deadline.
"""
from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from conftest import ACL_RULES, make_settings
from openai_server import Reply
from ragstream.cli import main
from ragstream.config import LLM_ROLES, load_settings
from ragstream.controller import Controller, Scope
from ragstream.errors import ModelError
from ragstream.llm.client import LLMClient
from ragstream.llm.turn import Progress

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi."}]
FAST = {"first_token_seconds": 0.6, "timeout_seconds": 1.5, "turn_seconds": 5, "max_retries": 2,
        "backoff_seconds": 0.05, "max_backoff_seconds": 0.2}
SLACK = 1.5
SCOPE = Scope("sample_repo", "default", None, {"acl_tags_any": ["public", "dba"]})
QUESTION = "How is a payment recorded on an invoice?"


def chunk(content) -> str:
    import json

    return json.dumps({"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                       "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}]})


def fast_client(server, **llm) -> tuple[LLMClient, list[Progress]]:
    settings = load_settings(overrides={"llm": {"provider": "openai", "base_url": server.base_url, "model": "m",
                                                **FAST, **llm}}).llm
    heard: list[Progress] = []
    return LLMClient(settings).for_turn(heard.append), heard


@pytest.fixture
def fresh(server):
    server.queues.clear()
    server.fallback.clear()
    server.requests.clear()
    return server


def failing(server, stream: bool, **llm) -> tuple[ModelError, float, list[Progress]]:
    """The ModelError a call ends in, how long it took, and what it reported on the way."""
    client, heard = fast_client(server, **llm)
    started = time.monotonic()
    with pytest.raises(ModelError) as error:
        client.complete("answer", MESSAGES, on_token=(lambda piece: None) if stream else None)
    return error.value, time.monotonic() - started, heard


# (case, replies, streamed?, what the message says, how many requests, the bound in seconds)
FAILURES = [
    ("500 every time", [Reply(status=500)] * 3, False, "HTTP 500", 3, 0.5),
    ("429 every time, Retry-After capped", [Reply(status=429, headers={"Retry-After": "3600"})] * 3, False,
     "HTTP 429", 3, 0.6),
    ("malformed JSON, not streamed", [Reply(body='{"choices": [')], False, "not valid JSON", 1, 0.5),
    ("JSON of the wrong shape", [Reply(body='{"choices": "none"}')], False, "no readable choice", 1, 0.5),
    ("content that is no text", [Reply(body='{"choices": [{"message": {"content": 5}}]}')], False,
     "not text", 1, 0.5),
    ("malformed JSON, streamed", [Reply(events=("{not json",))], True, "malformed piece after 0 pieces", 1, 0.5),
    ("a piece that is no text, streamed", [Reply(events=(chunk("[Answer:] a"), chunk(7)))], True,
     "malformed piece after 1 pieces", 1, 0.5),
    ("a stream that stalls after two pieces", [Reply("[Answer:] one two three four", stall_after=2, stall=5)],
     True, "the stream broke after 2 pieces", 1, 0.6),
    ("a stream that stalls before its first piece", [Reply("[Answer:] x", stall_after=0, stall=5)] * 3, True,
     "stalled or broke before its first piece", 3, 3 * 0.6 + 0.3),
    ("no reply at all within the wait", [Reply("late", delay=5)] * 3, False, "timed out", 3, 3 * 0.6 + 0.3),
    ("a slow trickle", [Reply("[Answer:] " + "word " * 60, piece_delay=0.25)], True,
     "took longer than its deadline of 1.5 s", 1, 1.5 + 0.3),
    ("a dropped connection", [Reply(drop=True)] * 3, False, "Connection error", 3, 0.5),
    # A plain reply's body is held to the request's deadline too: each byte comes well within the
    # per-read wait (0.6 s), so only the total (1.5 s) can cut these.
    ("a plain reply that trickles a byte at a time", [Reply("[Answer:] " + "word " * 40, byte_gap=0.05)], False,
     "took longer than its deadline of 1.5 s (llm.timeout_seconds) or the question's time left; cut off after",
     1, 1.5 + 0.3),
    ("a plain reply whose body never ends", [Reply(endless=True, byte_gap=0.01)], False,
     "took longer than its deadline of 1.5 s", 1, 1.5 + 0.3),
    ("a plain reply whose body stalls", [Reply("[Answer:] x", byte_gap=5)] * 3, False,
     "the reply's body stalled or broke after 1 bytes", 3, 3 * 0.6 + 0.3),
]


@pytest.mark.parametrize("case, replies, stream, message, requests, bound", FAILURES, ids=[f[0] for f in FAILURES])
def test_every_fault_ends_within_its_deadline_with_a_clear_message(fresh, case, replies, stream, message,
                                                                    requests, bound):
    fresh.queue("m", *replies)
    error, seconds, heard = failing(fresh, stream)
    assert message in error.message and "llm role answer (m at http://127.0.0.1" in str(error)
    assert seconds < bound + SLACK, f"{case}: {seconds:.2f} s"
    assert len(fresh.requests) == requests
    assert heard[-1].event == "failed" and heard[-1].attempt == requests and message in heard[-1].detail
    retries = [p for p in heard if p.event == "retry"]
    assert len(retries) == requests - 1 and all(p.wait <= FAST["max_backoff_seconds"] for p in retries)


def test_connection_refused_gives_up_quickly(fresh):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client, heard = fast_client(fresh, base_url=f"http://127.0.0.1:{port}/v1")
    started = time.monotonic()
    with pytest.raises(ModelError, match="Connection error.*gave up after 3 attempt"):
        client.complete("router", MESSAGES)
    assert time.monotonic() - started < 0.5 + SLACK
    assert [p.event for p in heard] == ["start", "retry", "start", "retry", "start", "failed"]


def test_429_with_retry_after_waits_what_it_asks_then_succeeds(fresh):
    fresh.queue("m", Reply(status=429, headers={"Retry-After": "0.1"}), "[Answer:] fine")
    client, heard = fast_client(fresh)
    completion = client.complete("answer", MESSAGES)
    assert completion.text == "[Answer:] fine" and completion.call.retries == 1
    retry = next(p for p in heard if p.event == "retry")
    assert retry.wait == 0.1 and "HTTP 429" in retry.detail and retry.line().startswith("answer model m: attempt 1 of 3")


def test_a_client_error_is_not_retried_and_does_not_mark_the_endpoint_down(fresh):
    fresh.queue("m", Reply("no such model", status=404), "[Answer:] ok")
    client, _ = fast_client(fresh)
    with pytest.raises(ModelError, match="HTTP 404"):
        client.complete("router", MESSAGES)
    assert client.complete("router", MESSAGES).text == "[Answer:] ok"  # another role may use another model


def test_after_the_endpoint_failed_later_calls_of_the_question_fall_back_at_once(fresh):
    fresh.always("m", Reply(status=500))
    client, heard = fast_client(fresh)
    with pytest.raises(ModelError):
        client.complete("router", MESSAGES)
    started = time.monotonic()
    with pytest.raises(ModelError, match="not called: the endpoint already failed in this question"):
        client.complete("gate", MESSAGES)
    assert time.monotonic() - started < 0.1 and len(fresh.requests) == 3


def test_the_turn_deadline_bounds_every_call_of_the_question(fresh):
    fresh.always("m", Reply("[Answer:] " + "word " * 200, piece_delay=0.2))
    client, _ = fast_client(fresh, turn_seconds=0.8, timeout_seconds=30, first_token_seconds=5)
    started = time.monotonic()
    with pytest.raises(ModelError, match="took longer than its deadline"):
        client.complete("answer", MESSAGES, on_token=lambda piece: None)
    assert time.monotonic() - started < 0.8 + SLACK
    with pytest.raises(ModelError, match="not called"):
        client.complete("answer", MESSAGES)


# --- through the pipeline: the deterministic answer, headed honestly -------------------------

@pytest.fixture
def answering(fresh, acl_backend):
    """answering(**llm) -> a Controller whose roles all call the scripted model `m`."""
    made: list[Controller] = []

    def build(**llm) -> Controller:
        llm = {"provider": "openai", "base_url": fresh.base_url, **FAST,
               "roles": {role: "m" for role in LLM_ROLES}, **llm}
        made.append(Controller(make_settings(acl_backend.settings.index.data_dir, acl={"rules": ACL_RULES},
                                             llm=llm)))
        return made[-1]

    yield build
    for controller in made:
        controller.close()


@pytest.mark.parametrize("reply, why", [
    (Reply(status=500), "HTTP 500"),
    (Reply(body="{oops"), "not valid JSON"),
    (Reply("The payment is recorded somewhere."), "its reply was malformed twice"),  # no [Answer:] prefix
    (Reply(""), "its reply was malformed twice"),  # no answer at all
])
def test_a_failed_answering_model_gives_the_deterministic_answer_saying_why(fresh, answering, reply, why):
    fresh.always("m", reply)
    heard: list[Progress] = []
    started = time.monotonic()
    sp, _ = answering().run(QUESTION, SCOPE, answering().pipeline("base"), on_progress=heard.append)
    assert time.monotonic() - started < FAST["turn_seconds"] + SLACK
    header = sp.answer.splitlines()[0]
    assert header.startswith("> **Not written by a model.** The answering model failed: ") and why in header
    assert "this is the deterministic answer" in header and "No language model is configured" not in sp.answer
    assert {p.role for p in heard} >= {"router"}


def test_a_dead_server_costs_one_role_its_retries_not_every_role(fresh, answering):
    fresh.always("m", Reply(status=500))
    controller = answering()
    started = time.monotonic()
    sp, _ = controller.run(QUESTION, SCOPE, controller.pipeline("base"))
    assert time.monotonic() - started < 2 + SLACK
    assert len(fresh.requests) == 3  # the first role's three attempts; the others were not called
    warnings = [w for entry in sp.trace for w in entry["warnings"]]
    assert any("not called: the endpoint already failed" in w for w in warnings)


def _fast_config(path: Path, backend, server) -> Path:
    """Settings for `ragstream ask` on the ACL index with the scripted server as its model, FAST."""
    llm = "".join(f"  {key}: {value}\n" for key, value in FAST.items())
    path.write_text(f"index:\n  data_dir: {backend.settings.index.data_dir}\n"
                    f"llm:\n  provider: openai\n  base_url: {server.base_url}\n  model: m\n{llm}")
    return path


def test_cli_says_each_retry_on_stderr_and_heads_the_answer_honestly(fresh, acl_backend, tmp_path, capsys):
    fresh.always("m", Reply(status=500))
    config = _fast_config(tmp_path / "faults.yaml", acl_backend, fresh)
    started = time.monotonic()
    assert main(["--config", str(config), "ask", QUESTION, "--filter", "acl_tags_any=public"]) == 0
    assert time.monotonic() - started < 2 + SLACK
    out, err = capsys.readouterr()
    assert "model: router model m: attempt 1 of 3" in err and "retry (HTTP 500" in err
    assert "failed (HTTP 500" in err and "gave up after 3 attempt(s)" in err
    assert "The answering model failed: not called: the endpoint already failed" in out


def test_cli_says_a_call_is_still_waiting(fresh, acl_backend, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("ragstream.progress_lines.EVERY_SECONDS", 0.2)
    fresh.always("m", Reply("late", delay=3))
    config = tmp_path / "slow.yaml"
    config.write_text(f"index:\n  data_dir: {acl_backend.settings.index.data_dir}\n"
                      f"llm:\n  provider: openai\n  base_url: {fresh.base_url}\n  model: m\n"
                      f"  first_token_seconds: 0.7\n  max_retries: 0\n  roles: {{answer: none, shaper: none, "
                      f"gate: none, condenser: none, format: none, summarizer: none, translator: none}}\n")
    assert main(["--config", str(config), "ask", QUESTION, "--filter", "acl_tags_any=public"]) == 0
    err = capsys.readouterr().err
    assert "model: router model m: attempt 1 of 1, still waiting for a reply after" in err
    assert "timed out" in err


def test_cli_cuts_a_plain_reply_that_never_ends_at_its_deadline(fresh, acl_backend, tmp_path, capsys):
    """The client said "gives up after 12 s" and went on reading a body that never ended."""
    fresh.always("m", Reply(endless=True, byte_gap=0.01))
    config = _fast_config(tmp_path / "endless.yaml", acl_backend, fresh)
    started = time.monotonic()
    assert main(["--config", str(config), "ask", QUESTION, "--filter", "acl_tags_any=public"]) == 0
    assert time.monotonic() - started < FAST["timeout_seconds"] + 0.5 + SLACK
    out, err = capsys.readouterr()
    assert "failed (the reply took longer than its deadline of 1.5 s (llm.timeout_seconds)" in err
    assert "The answering model failed: not called: the endpoint already failed" in out
