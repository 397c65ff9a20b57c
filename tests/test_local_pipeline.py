"""`ragstream ask --llm local`: the whole pipeline with the bundled SmolLM2-135M behind
ragstream's own local server. Every role's reply follows its protocol (the grammars and schemas
see to it). Answer quality is not what this checks: a 135M model is a demo."""
from __future__ import annotations

import json
import re

import pytest

from conftest import ACL_RULES
from ragstream.cli import main
from ragstream.config import LLM_ROLES
from ragstream.history import HistoryStore
from ragstream.llm.protocol import MARKERS
from ragstream.super_prompt import SuperPrompt


@pytest.mark.slow
def test_ask_with_the_local_demo_model_follows_every_protocol(acl_backend, tmp_path, capsys):
    data = acl_backend.settings.index.data_dir
    config = tmp_path / "local.yaml"  # small budgets: one thread reads ~100 prompt tokens a second
    config.write_text(f"index:\n  data_dir: {data}\nacl:\n  rules: {json.dumps(ACL_RULES)}\n"
                      "llm:\n  max_reply_tokens: 320\n"
                      "limits:\n  N2_RERANK_TOP_K: 6\n  N3_FINAL_SELECTION_MAX: 4\n  max_turn_loops: 1\n")
    state = tmp_path / "state.json"
    assert main(["--config", str(config), "ask", "How is a payment recorded on an invoice?", "--llm", "local",
                 "--session", "new", "--max-context-tokens", "700", "--filter", "acl_tags_any=public,dba",
                 "--save-state", str(state)]) == 0
    captured = capsys.readouterr()
    sp = SuperPrompt.from_json(state.read_text())
    calls = [call for entry in sp.trace for call in entry["llm_calls"]]
    assert {"router", "shaper", "gate", "format", "answer"} <= {c["role"] for c in calls} <= set(LLM_ROLES)
    assert all(c["model"] == "SmolLM2-135M-Instruct.Q4_1" and c["completion_tokens"] > 0 for c in calls)
    paths = {entry["step"]: entry["path"] for entry in sp.trace}
    # constrained roles never fall back: the server enforces their protocol (a reply cut off at
    # max_reply_tokens may need the one retry)
    assert paths["route"] == paths["rerank"] == paths["normalize"] == "model", sp.trace
    assert not [w for entry in sp.trace for w in entry["warnings"] if "malformed twice" in w]
    assert sp.extras["route"]["line"].startswith(tuple(MARKERS))
    assert set(sp.retrieval_seed_nodes) <= {h["id"] for h in sp.retrieval_hits}
    assert sp.history_of_stages[-1] == "persist" and sp.answer and not any(m in sp.answer for m in MARKERS)
    assert sp.answer in captured.out and not any(m in captured.out for m in MARKERS)
    answered = [e for e in sp.trace if e["step"] == "answer"][-1]["path"] == "model"
    assert answered or sp.extras["loop"]["decision"].startswith("loops exhausted")
    session = re.search(r"session (\w+)", captured.err).group(1)
    assert HistoryStore(f"{data}/history.sqlite").turns(session)[-1].answer == sp.answer
