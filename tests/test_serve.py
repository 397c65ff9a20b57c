"""`ragstream serve` (issue 40): a real server process on a real Unix socket, over a real index
of the sample repository with the leak overlay's folders. What a client is served is checked
against the same command run in its own process (`--no-server`): the same stdout, stderr and
exit code, the run's timings aside. A client falls back to its own run, saying nothing, when no
server listens, the socket file is stale, its settings or version differ. Slow: an index is
built and each server is a fresh process that loads the embedding model.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from ragstream.cli import served
from tests.conftest import ctrl_c_as_in_a_terminal
from tests.test_mcp_server import HIDDEN_MARKS, index_leak_overlay

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "how is a payment recorded"
START_SECONDS = 120  # the server loads the index and the embedding model first


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, Path]:
    """(settings file, repository copy): the sample with the leak overlay, indexed."""
    return index_leak_overlay(tmp_path_factory.mktemp("serve"))


def start_server(config: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(config), "serve"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_as_in_a_terminal)
    assert process.stderr is not None
    line = process.stderr.readline()  # said once it listens
    assert "listening on" in line, line + process.stderr.read()
    return process


@pytest.fixture(scope="module")
def server(indexed) -> Iterator[tuple[Path, subprocess.Popen]]:
    config, _ = indexed
    process = start_server(config)
    yield config, process
    stop(process)


def stop(process: subprocess.Popen, how: int = signal.SIGTERM) -> int:
    if process.poll() is None:
        process.send_signal(how)
    return process.wait(timeout=30)


def sock(config: Path) -> Path:
    return Path(yaml.safe_load(config.read_text())["index"]["data_dir"]) / served.SOCKET_NAME


def in_process(argv: list[str]) -> tuple[str, str, int]:
    """The command run in a process of its own, never served."""
    done = subprocess.run([sys.executable, "-m", "ragstream", *argv, "--no-server"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    return done.stdout, done.stderr, done.returncode


def through_server(argv: list[str], capsys) -> tuple[str, str, int]:
    """The command as the CLI sends it to the server."""
    capsys.readouterr()
    code = served.forwarded(argv)
    assert code is not None, "the server did not answer"
    out, err = capsys.readouterr()
    return out, err, code


def untimed(text: str) -> str:
    """Output with the run's timings blanked: they differ run to run, served or not."""
    text = re.sub(r'"(ms|seconds)": [0-9.e-]+', r'"\1": 0', text)
    text = re.sub(r"seconds: [0-9.e-]+", "seconds: 0", text)
    return re.sub(r"^(\w+\t\w+\t\w+\t)\d+\t", r"\g<1>0\t", text, flags=re.M)  # the trace's ms column


@pytest.mark.parametrize("words", [
    ["search", QUESTION, "--json"],
    ["search", QUESTION, "--mode", "bm25", "--top-k", "5"],
    ["ask", QUESTION, "--llm", "none", "--json"],
    ["ask", QUESTION, "--llm", "none"],
    ["expand", QUESTION, "--json"],
    ["search", QUESTION, "--filter", "nonsense=1"],  # a typed error, exit code 2
])
def test_served_output_is_the_in_process_output(server, capsys, words):
    config, _ = server
    argv = ["--config", str(config), *words]
    out, err, code = through_server(argv, capsys)
    expected = in_process(argv)
    assert (untimed(out), err, code) == (untimed(expected[0]), expected[1], expected[2])
    if "--json" in words:
        assert json.loads(out)


def test_filters_pass_through_unchanged(server, capsys):
    config, _ = server
    argv = ["--config", str(config), "search", "vault keys escrow rotate", "--json", "--top-k", "30",
            "--filter", "acl_tags_any=public,ops,dba", "--filter", "paths_exclude=hidden/"]
    out, _, code = through_server(argv, capsys)
    assert code == 0 and json.loads(out)["hits"]
    assert not [mark for mark in HIDDEN_MARKS if mark in out]
    assert untimed(out) == untimed(in_process(argv)[0])
    unfiltered, _, _ = through_server(argv[:-4], capsys)
    assert [mark for mark in HIDDEN_MARKS if mark in unfiltered]  # the filters, not the index, hid them


def test_socket_is_private_and_bad_requests_get_a_typed_refusal(server):
    config, _ = server
    path = sock(config)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for payload in (b"not json", b"[1]", json.dumps({"argv": "search x", "cwd": "/", "version": "",
                                                     "terminal": {}}).encode()):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(path))
            conn.sendall(payload)
            conn.shutdown(socket.SHUT_WR)
            reply = json.loads(conn.makefile("rb").read())
        assert reply["refused"].startswith("error (serve): request"), reply


def test_concurrent_clients_each_get_their_own_answer(server):
    config, _ = server
    queries = ["payment", "invoice", "refund", "customer"] * 2

    def ask(query: str) -> dict[str, Any] | None:
        return served.exchange(sock(config), request(["--config", str(config), "search", query, "--json"]))

    with ThreadPoolExecutor(len(queries)) as pool:
        replies = list(pool.map(ask, queries))
    assert all(reply is not None and reply["code"] == 0 for reply in replies)
    assert [json.loads(reply["stdout"])["query"] for reply in replies if reply] == queries


def request(argv: list[str], **changed: Any) -> dict[str, Any]:
    return {"argv": argv, "cwd": str(ROOT), "version": served.code_stamp(), "terminal": served.terminal(),
            **changed}


def test_other_settings_or_version_are_refused_and_the_client_runs_itself(server, tmp_path, capsys):
    config, _ = server
    other = tmp_path / "other.yaml"  # the same data folder, another setting
    other.write_text(yaml.safe_dump({**yaml.safe_load(config.read_text()), "retrieval": {"rrf_k": 7}}))
    assert served.exchange(sock(config), request(["--config", str(other), "search", QUESTION])) is None
    assert served.exchange(sock(config), request(["--config", str(config), "ask", QUESTION, "--llm", "openai"])) is None
    assert served.exchange(sock(config), request(["--config", str(config), "search", QUESTION],
                                                 version="0.0.0:elsewhere:1")) is None
    assert served.exchange(sock(config), request(["--config", str(config), "index", "."])) is None
    assert served.forwarded(["--config", str(config), "search", QUESTION, "--top-k", "0"]) is None  # usage error
    assert served.forwarded(["--config", str(other), "search", QUESTION]) is None
    assert served.forwarded(["--config", str(config), "search", QUESTION, "--no-server"]) is None
    assert capsys.readouterr() == ("", "")  # a refusal is silent


def copied(indexed: tuple[Path, Path], folder: Path) -> Path:
    """A settings file over a copy of the index's data folder (no server runs there)."""
    config, _ = indexed
    shutil.copytree(Path(yaml.safe_load(config.read_text())["index"]["data_dir"]), folder / "data",
                    ignore=shutil.ignore_patterns(served.SOCKET_NAME))
    copy = folder / "settings.yaml"
    copy.write_text(yaml.safe_dump({**yaml.safe_load(config.read_text()), "index": {"data_dir": str(folder / "data")}}))
    return copy


def test_no_server_or_a_stale_socket_falls_back_and_a_new_server_clears_it(tmp_path, indexed):
    copy = copied(indexed, tmp_path)
    argv = ["--config", str(copy), "search", QUESTION, "--json"]
    assert served.forwarded(argv) is None  # no socket
    process = start_server(copy)
    assert stop(process, signal.SIGKILL) != 0 and sock(copy).exists()  # killed: its socket file stays
    assert served.forwarded(argv) is None  # refused: the client runs the command itself
    done = subprocess.run([sys.executable, "-m", "ragstream", *argv], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["hits"]
    process = start_server(copy)  # a new server removes the stale file and listens
    try:
        assert served.exchange(sock(copy), request(argv)) is not None
    finally:
        assert stop(process, signal.SIGINT) == 0
    assert not sock(copy).exists()


def test_a_reindex_is_served_at_once(server, indexed, capsys):
    config, repo = indexed
    (repo / "billing" / "qzrefund_ledger.py").write_text(
        "def qzsettle_refund_ledger(amount):\n    \"\"\"Settles the refund ledger.\"\"\"\n    return amount\n")
    argv = ["--config", str(config), "search", "qzsettle_refund_ledger", "--mode", "bm25", "--json"]
    before, _, _ = through_server(argv, capsys)
    assert not [hit for hit in json.loads(before)["hits"] if "qzsettle_refund_ledger" in hit["id"]]
    done = subprocess.run([sys.executable, "-m", "ragstream", "--config", str(config), "index", str(repo), "--wait"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    after, _, _ = through_server(argv, capsys)
    assert "qzsettle_refund_ledger" in json.loads(after)["hits"][0]["id"]
    assert untimed(after) == untimed(in_process(argv)[0])


def test_sigterm_removes_the_socket(indexed, tmp_path):
    config = copied(indexed, tmp_path)
    process = start_server(config)
    assert sock(config).exists()
    assert stop(process) == 0 and not sock(config).exists()
    assert process.stderr is not None and "Traceback" not in process.stderr.read()


@pytest.mark.skipif(shutil.which("script") is None, reason="util-linux `script` gives a command a terminal")
def test_on_a_terminal_tables_colours_and_order_are_the_in_process_ones(server):
    """stdout and stderr on one terminal (rich's tables and colours at its width, the scope line
    on stderr before the table), served as in-process."""
    config, _ = server
    argv = f"{sys.executable} -m ragstream --config {config} search '{QUESTION}' --top-k 3"
    env = {**os.environ, "COLUMNS": "117", "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    shown = [subprocess.run(["script", "-qec", argv + extra, "/dev/null"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=300).stdout for extra in ("", " --no-server")]
    assert "\x1b[" in shown[0] and "┏" in shown[0]
    assert untimed(shown[0]) == untimed(shown[1])


def test_relative_paths_are_the_clients(server, tmp_path, monkeypatch, capsys):
    """`--save-state` and `--config` given relative to the client's folder, not the server's."""
    config, _ = server
    monkeypatch.chdir(tmp_path)
    shutil.copy(config, tmp_path / "here.yaml")
    _, _, code = through_server(["--config", "here.yaml", "ask", QUESTION, "--llm", "none", "--save-state",
                                 "state.json"], capsys)
    assert code == 0 and json.loads((tmp_path / "state.json").read_text())["question_raw"] == QUESTION
