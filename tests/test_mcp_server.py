"""`ragstream mcp` (issue 39), driven as an editor or agent drives it: the server started as a
subprocess, the official SDK's client over stdio and over streamable HTTP, against a real index
(walk, parse, graph, bundled embedding model, FAISS, BM25) of the sample repository with the
leak overlay's folders (vault/, hidden/, ...) copied over it.

Each tool's answer is checked against the CLI's answer to the same question (`--json`, the
same settings file); the server's filters are checked through every tool and resource (nothing
under the hidden folders reaches a reply, whatever a call asks for); a bad argument gets an MCP
error result naming it. Slow: an index is built and every server is a fresh process.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
import yaml
from mcp import Client, StdioServerParameters

from ragstream.index.build import build_index
from ragstream.index.embeddings import Embedder
from tests.conftest import SAMPLE_REPO, make_settings
from tests.test_filter_leak_properties import ACL_RULES, OVERLAY

pytestmark = pytest.mark.slow

TOOLS = {"search", "expand", "fetch", "relations", "ask", "more", "index_status", "refresh", "changed_since"}
METHOD = "py:billing.service.InvoiceService.record_payment|METHOD"
HIDDEN_NODE = "py:vault.keys.rotate_qzvault_keys|FUNCTION"
# The server of the leak checks shows code tagged public, ops or dba (so not vault/, tagged sec)
# and nothing under a folder named hidden.
SERVER_FILTERS = ["acl_tags_any=public,ops,dba", "paths_exclude=hidden/"]
# What only the hidden files hold: their paths, module names and planted words.
HIDDEN_MARKS = ("vault/", "hidden/", "py:vault.", "py:x.hidden", "qzvaultkeys", "QzVaultSigner", "qzescrow",
                "qzhiddennotes", "qzxhidden", "Escrow release")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> tuple[Path, Path]:
    return index_leak_overlay(tmp_path_factory.mktemp("mcp"))


def index_leak_overlay(root: Path) -> tuple[Path, Path]:
    """(settings file, repository copy): the sample repository with the leak overlay, indexed
    with the overlay's access rules, under `root`."""
    repo = root / "repo"
    shutil.copytree(SAMPLE_REPO, repo)
    shutil.copytree(OVERLAY, repo, dirs_exist_ok=True)
    config = root / "settings.yaml"
    config.write_text(yaml.safe_dump({"index": {"data_dir": str(root / "data")}, "acl": {"rules": ACL_RULES}}))
    build_index(repo, make_settings(root / "data", acl={"rules": ACL_RULES}), embedder=Embedder())
    return config, repo


def _command(config: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "ragstream", "--config", str(config), *args]


def _cli_json(config: Path, *args: str) -> Any:
    done = subprocess.run(_command(config, *args, "--json"), capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _stdio(config: Path, *args: str) -> Client:
    command = _command(config, "mcp", *args)
    return Client(StdioServerParameters(command=command[0], args=command[1:], env=os.environ.copy(), cwd=str(ROOT)),
                  read_timeout_seconds=300)


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def _error(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "Traceback" not in text and 'File "' not in text
    return text


def _relations_of(answer: dict) -> list[tuple]:
    return [(i["id"], i["relation"], i["resolution"], i["indirect"], i["guess"], i["where"]) for i in answer["items"]]


def test_every_tool_over_stdio_answers_as_the_cli_does(served):
    config, repo = served
    question = "who calls record_payment?"
    cli_search = _cli_json(config, "search", "record a payment on an invoice", "--top-k", "5")
    cli_ask = _cli_json(config, "ask", question)
    cli_expand = _cli_json(config, "expand", "how is a payment recorded")

    async def session() -> None:
        async with _stdio(config) as client:
            assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
            for tool in (await client.list_tools()).tools:  # typed input and output schemas
                assert tool.input_schema["type"] == "object" and tool.output_schema is not None

            search = await _call(client, "search", query="record a payment on an invoice", top_k=5)
            assert [(h["rank"], h["id"], h["where"]) for h in search["items"]] == \
                [(h["rank"], h["id"], h["path_lines"]) for h in cli_search["hits"]]
            assert search["more"] is None and search["total"] == 5

            ask = await _call(client, "ask", question=question)
            assert ask["answer"] == cli_ask["answer"] and ask["citations"] == cli_ask["citations"]
            assert not ask["written_by_model"] and "From the graph" in ask["graph_answer"]

            relate = next(e for e in cli_ask["trace"] if e["step"] == "relate")["decisions"]["extras.relations"]
            relations = await _call(client, "relations", subject="record_payment", relation="callers")
            assert [(i["id"], i["relation"], i["resolution"], i["indirect"], i["guess"], i["where"])
                    for i in relations["items"]] == _relations_of(relate["answer"])
            assert "py:billing.cli.main|FUNCTION" in {i["id"] for i in relations["items"]}
            # the control of the leak test below: unfiltered, the hidden folders answer
            assert HIDDEN_NODE in {i["id"] for i in relations["items"]}
            escrow = await _call(client, "search", query="escrow release", top_k=1)
            assert escrow["items"][0]["where"].startswith("vault/")

            expand = await _call(client, "expand", query="how is a payment recorded", max_tokens=100_000)
            assert [n["id"] for n in expand["items"]] == [n["id"] for n in cli_expand["nodes"]]

            fetched = await _call(client, "fetch", ids=[METHOD, "py:no.such|FUNCTION"])
            assert [(t["id"], t["where"]) for t in fetched["items"]] == [(METHOD, "billing/service.py:16-24")]
            lines = (repo / "billing/service.py").read_text().splitlines()[15:24]
            assert fetched["items"][0]["text"] == "\n".join(lines)
            assert fetched["not_found"] == ["py:no.such|FUNCTION"]

            writers = await _call(client, "relations", subject="the Invoices table", relation="writes")
            assert "sql:dbo.usp_RecordPayment|PROCEDURE" in {i["id"] for i in writers["items"]}
            assert {i["relation"] for i in writers["items"]} == {"writes it"}
            callees = await _call(client, "relations", subject="InvoicesController.Pay", relation="callees")
            dispatched = next(i for i in callees["items"]
                              if i["id"] == "cs:Billing.Services.InvoiceService.RecordPayment|METHOD")
            assert (dispatched["resolution"], dispatched["via"]) == \
                ("dispatch", "cs:Billing.Services.IInvoiceService.RecordPayment|METHOD")
            mapped = await _call(client, "relations", subject="the Customers table", relation="impact")
            assert {"id": "cs:Billing.Models.Customer|TYPE", "relation": "MAPS_TO", "guess": True}.items() <= \
                next(i for i in mapped["items"] if i["id"] == "cs:Billing.Models.Customer|TYPE").items()
            column = await _call(client, "relations", subject="the Status column of the Invoices table",
                                 relation="impact")
            assert column["subjects"] == [{"id": "sql:dbo.Invoices.Status|COLUMN", "kind": "COLUMN",
                                           "table": "sql:dbo.Invoices|TABLE"}]
            assert ("cs:Billing.Models.Invoice.Status|PROPERTY", "maps column") in \
                {(i["id"], i["relation"]) for i in column["items"]}
            flow = await _call(client, "relations", subject="InvoicesController.Pay", relation="flow")
            assert flow["shape"] == "flow" and all(p["nodes"][-1].startswith("sql:") for p in flow["items"])

            status = await _call(client, "index_status")
            assert status["stage"].startswith("complete") and status["counts"]["chunks"] > 0
            # does the C# reach the SQL: the build's counts, as `ragstream index` prints them
            assert status["sql_coverage"][0].startswith("C# -> SQL: ") and "procedures have a C# caller" in \
                status["sql_coverage"][0]

            # a reply over its budget is cut, never silently: the cursor gives the rest, once
            walk = await _call(client, "expand", seeds=[METHOD], depth=2, max_tokens=300)
            assert walk["more"] and len(walk["items"]) < walk["total"]
            seen, cursor = [n["id"] for n in walk["items"]], walk["more"]
            while cursor:
                page = await _call(client, "more", cursor=cursor, max_tokens=300)
                assert page["tool"] == "expand" and page["offset"] == len(seen)
                seen += [n["id"] for n in page["items"]]
                cursor = page["more"]
            whole = await _call(client, "expand", seeds=[METHOD], depth=2, max_tokens=100_000)
            assert seen == [n["id"] for n in whole["items"]] and whole["more"] is None
            assert "no result is held" in await _error(client, "more", cursor=walk["more"])

            listed = json.loads((await client.read_resource("ragstream://indexes")).contents[0].text)
            assert [(i["repository"], i["index"]) for i in listed] == [(status["repository"], status["index"])]
            node = json.loads((await client.read_resource(f"ragstream://node/{quote(METHOD, safe='')}"))
                              .contents[0].text)
            assert node["where"] == "billing/service.py:16-24"
            assert {"from_id": "py:billing.cli.main|FUNCTION", "to_id": METHOD, "edge_type": "CALLS"}.items() <= \
                next(e for e in node["in"] if e["from_id"] == "py:billing.cli.main|FUNCTION").items()

            # refresh: a changed file is re-indexed, and the next search finds what it now says
            assert (await _call(client, "refresh"))["status"] == "up to date"
            with (repo / "billing" / "util.py").open("a") as source:
                source.write("\n\ndef reconcile_ledger_mcpword():\n    return 'mcpword'\n")
            refreshed = await _call(client, "refresh", wait_seconds=240)
            assert refreshed["status"] == "re-indexed", refreshed
            found = await _call(client, "search", query="reconcile_ledger_mcpword", mode="bm25", top_k=1)
            assert found["items"][0]["id"] == "py:billing.util.reconcile_ledger_mcpword|FUNCTION"

            # what changed since the answer above, as the workbench says it beside an answer
            changed = await _call(client, "changed_since", made_from=ask["made_from"])
            assert (changed["modified"], changed["added"], changed["deleted"]) == (["billing/util.py"], [], [])
            assert changed["refreshed"] and changed["in_index"] == ["billing/util.py"]
            hidden = await _call(client, "changed_since", made_from=ask["made_from"],
                                 filters={"paths_exclude": ["billing/"]})
            assert hidden["modified"] == [] and not hidden["unknown"]  # a hidden file is never named
            assert "made_from" in await _error(client, "changed_since", made_from="../../etc/passwd")

    anyio.run(session)


def test_streamable_http_on_the_loopback_serves_the_same_answers(served):
    config, _ = served
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(_command(config, "mcp", "--http", str(port)), cwd=ROOT, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ.copy())
    try:
        _wait_for_port(port, server)

        async def over_http() -> list[dict]:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=300) as client:
                assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
                return [await _call(client, "search", query="record a payment on an invoice", top_k=5),
                        await _call(client, "relations", subject="record_payment", relation="callers")]

        async def over_stdio() -> list[dict]:
            async with _stdio(config) as client:
                return [await _call(client, "search", query="record a payment on an invoice", top_k=5),
                        await _call(client, "relations", subject="record_payment", relation="callers")]

        by_http, by_stdio = anyio.run(over_http), anyio.run(over_stdio)
        for replies in (by_http, by_stdio):
            assert replies[0].pop("debug")["search_type"] == "hybrid"  # the rest of it says how long it took
        assert by_http == by_stdio
    finally:
        server.terminate()
        server.wait(timeout=30)


def _wait_for_port(port: int, server: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"the server did not listen on port {port} within {seconds} s")


def _visible(reply: dict[str, Any], echoed: tuple[str, ...] = ()) -> str:
    """A reply as text, less the fields that only echo the caller's own arguments."""
    return json.dumps({k: v for k, v in reply.items() if k not in echoed})


def test_nothing_the_server_filters_out_reaches_any_reply(served):
    config, _ = served
    filters = [arg for f in SERVER_FILTERS for arg in ("--filter", f)]
    queries = ["rotate the signing key after a payment", "escrow release", "hidden runbook master password",
               "who calls record_payment?", "what breaks if I change record_payment?"]
    # what a call may add: each only narrows (an empty exclude list excludes nothing more, a tag
    # the server does not allow allows nothing)
    widenings = [None, {"paths_exclude": []}, {"paths_include": ["**"]}, {"acl_tags_any": ["sec", "public"]}]

    async def session() -> None:
        async with _stdio(config, *filters) as client:
            replies = []
            for query in queries:
                for mode in ("hybrid", "bm25", "semantic"):
                    for extra in widenings:
                        replies.append(_visible(await _call(client, "search", query=query, mode=mode,
                                                            filters=extra), ("query",)))
                replies.append(_visible(await _call(client, "ask", question=query), ("question",)))
                replies.append(_visible(await _call(client, "expand", query=query, max_tokens=100_000)))
            replies.append(_visible(await _call(client, "expand", seeds=[METHOD, HIDDEN_NODE], depth=3,
                                                max_tokens=100_000)))
            hidden = await _call(client, "fetch", ids=[HIDDEN_NODE, METHOD])
            assert hidden["not_found"] == [HIDDEN_NODE]  # as an id that does not exist
            replies.append(_visible(hidden, ("not_found",)))
            for relation in ("callers", "callees", "impact", "tests", "flow", "reads", "writes"):
                replies.append(_visible(await _call(client, "relations", subject="record_payment",
                                                    relation=relation)))
            callers = await _call(client, "relations", subject="record_payment", relation="callers")
            assert "py:billing.cli.main|FUNCTION" in {i["id"] for i in callers["items"]}  # the visible caller stays
            message = await _error(client, "relations", subject=HIDDEN_NODE, relation="callers")
            assert "nothing in the index is named" in message
            status = await _call(client, "index_status")
            assert status["counts"] is None and status["stale_files"] is None  # they would say how much is hidden
            assert status["sql_coverage"] is None  # counts of the whole index, as they
            replies.append(_visible(status))
            node = await client.read_resource(f"ragstream://node/{quote(METHOD, safe='')}")
            replies.append(node.contents[0].text)
            replies.append((await client.read_resource("ragstream://indexes")).contents[0].text)
            with pytest.raises(Exception, match="no node"):
                await client.read_resource(f"ragstream://node/{quote(HIDDEN_NODE, safe='')}")
            leaks = [(mark, reply[:200]) for reply in replies for mark in HIDDEN_MARKS if mark in reply]
            assert not leaks

    anyio.run(session)


def test_a_bad_argument_gets_an_mcp_error_naming_it(served):
    config, _ = served

    async def session() -> None:
        async with _stdio(config, "--filter", "paths_include=billing/**") as client:
            assert "top_k" in await _error(client, "search", query="payment", top_k=0)
            assert "search_type" in await _error(client, "search", query="payment", mode="fuzzy")
            assert "unknown relation 'owners'" in await _error(client, "relations", subject="x", relation="owners")
            assert "retrieval_filters" in await _error(client, "search", query="payment", filters={"pathz": ["a"]})
            assert "filters.paths_include" in await _error(client, "search", query="payment",
                                                           filters={"paths_include": ["**"]})
            assert "not both" in await _error(client, "expand", seeds=[METHOD], query="payment")
            assert "edge allowlist" in await _error(client, "expand", seeds=[METHOD], edge_types=["CALLZ"])
            assert "question" in await _error(client, "ask", question="x" * 20_001)
            assert "query" in await _error(client, "search")
            assert "Unknown tool" in await _error(client, "nope")
            # the server still answers after every refusal
            assert (await _call(client, "search", query="payment", top_k=1))["total"] == 1

    anyio.run(session)


def test_the_server_refuses_to_start_on_a_bad_filter_or_no_index(tmp_path, served):
    config, _ = served
    bad = subprocess.run(_command(config, "mcp", "--filter", "paths_exclude=!db/**"), capture_output=True,
                         text=True, cwd=ROOT, timeout=120, stdin=subprocess.DEVNULL)
    assert bad.returncode == 2 and "error (retrieval): retrieval_filters.paths_exclude" in bad.stderr
    empty = tmp_path / "empty.yaml"
    empty.write_text(yaml.safe_dump({"index": {"data_dir": str(tmp_path / "none")}}))
    none = subprocess.run(_command(empty, "mcp"), capture_output=True, text=True, cwd=ROOT, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert none.returncode == 2 and "cannot choose a repository" in none.stderr
