"""Stages 6-8 on their deterministic paths: condense, build prompt, extractive answer; and `ask`."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragstream.cli import main
from ragstream.controller import Controller, Scope
from ragstream.excerpt import GAP_LINE, quoted
from ragstream.stages.condense import condense_text
from ragstream.stages.relate import in_search_order
from ragstream.index.model import node_of
from ragstream.super_prompt import SuperPrompt
from ragstream.token_count import token_counter

SCOPE = Scope("sample_repo", "default", None, {"acl_tags_any": ["public", "dba"]})


@pytest.fixture(scope="module")
def controller(acl_backend):
    return Controller(acl_backend.settings)


def test_condense_text_keeps_definitions_and_query_lines():
    text = "def record_payment(self, invoice_id, amount):\n    a = 1\n    b = 2\n    self.repository.save_payment(x)\n    c = 3\n"
    cut, numbers = condense_text(text, {"save", "payment"}, list(range(16, 22)))
    assert cut.split("\n")[0] == "def record_payment(self, invoice_id, amount):"
    assert "    self.repository.save_payment(x)" in cut and "a = 1" not in cut
    assert numbers == [16, GAP_LINE, 19, GAP_LINE]  # one gap line per run of dropped lines, each kept line its number
    assert quoted(cut, numbers).split("\n") == ["16 │ def record_payment(self, invoice_id, amount):", "   ⋮",
                                                 "19 │     self.repository.save_payment(x)", "   ⋮"]


def test_condense_fits_the_budget_and_records_every_cut(controller):
    six = {"N3_FINAL_SELECTION_MAX": 6}
    roomy, _ = controller.run("how is a payment recorded on an invoice", SCOPE, controller.pipeline("base", six))
    assert not [c for c in roomy.budget["context"]["cuts"] if c["reason"] != "over N3_FINAL_SELECTION_MAX"]
    assert roomy.final_selection_ids and len(roomy.final_selection_ids) <= 6
    limit = roomy.budget["context"]["tokens"] // 2
    tight, results = controller.run("how is a payment recorded on an invoice", SCOPE,
                                    controller.pipeline("base", {"max_context_tokens": limit, "N3_FINAL_SELECTION_MAX": 6}))
    assert dict((r.step, r.outcome) for r in results)["condense"] == "condensed"
    context = tight.budget["context"]
    assert token_counter().count(tight.S_CTX_MD) == context["tokens"] <= limit
    assert len(tight.final_selection_ids) <= 6
    reasons = {c["reason"].split(":")[0] for c in context["cuts"]}
    assert reasons <= {"over N3_FINAL_SELECTION_MAX", "condensed", "dropped"} and "condensed" in reasons
    assert all(i in tight.S_CTX_MD for i in tight.final_selection_ids)


def test_history_keeps_the_most_recent_turns(controller):
    from ragstream.stages import condense

    turns = [{"role": "user", "content": f"question number {i} " * 20} for i in range(10)]
    sp = SuperPrompt(repository="sample_repo", branch="default", history_for_prompt=turns)
    settings = {"max_context_tokens": 1000, "max_history_tokens": 200, "N3_FINAL_SELECTION_MAX": 5}
    condense.run(sp, controller.runtime.backend, None, token_counter(), {"id": "condense"}, settings)
    kept = condense.kept_history(sp)
    assert kept == turns[-len(kept):] and 0 < len(kept) < 10 and sp.history_for_prompt == turns  # input untouched
    assert sp.budget["context"]["history_tokens"] <= 200
    dropped = [c for c in sp.budget["context"]["cuts"] if c["reason"] == "dropped: over max_history_tokens"]
    assert len(dropped) == 10 - len(kept)


def test_prompt_blocks_in_order_with_their_tokens(controller):
    sp, _ = controller.run("which procedures write the payments table", SCOPE, controller.pipeline("db"))
    ready = sp.prompt_ready
    assert ready.index("Cite the file:lines") < ready.index("## Question") < ready.index("## Evidence")
    assert "which procedures write the payments table" in sp.Prompt_MD and sp.S_CTX_MD in ready
    blocks = sp.budget["prompt"]["blocks"]
    assert blocks["context"] > 0 and blocks["attachments"] == 0 and sp.Attachments_MD == ""
    assert sp.budget["prompt"]["total"] == token_counter().count(ready)


def test_condensed_blocks_come_back_raw_as_attachments_within_their_budget(controller):
    question = "how is a payment recorded on an invoice"
    roomy, _ = controller.run(question, SCOPE, controller.pipeline("base"))
    tight_context = {"max_context_tokens": roomy.budget["context"]["tokens"] // 2}
    tight, _ = controller.run(question, SCOPE, controller.pipeline("base", tight_context))
    condensed = [c["id"] for c in tight.budget["context"]["cuts"] if c["reason"].startswith("condensed")]
    attached = re.findall(r"SOURCE: (\S+)", tight.Attachments_MD)
    assert condensed and attached and set(attached) <= set(condensed) & set(tight.final_selection_ids)
    assert "SPAN: " in tight.Attachments_MD and "## Attachments" in tight.prompt_ready
    blocks = tight.budget["prompt"]["blocks"]
    assert blocks["attachments"] <= tight.budget["prompt"]["limits"]["attachments"] + 10  # heading on top
    none, _ = controller.run(question, SCOPE, controller.pipeline("base", {**tight_context, "max_attachment_tokens": 1}))
    assert none.Attachments_MD == "" and none.budget["prompt"]["blocks"]["attachments"] == 0


def test_extractive_answer_is_labelled_and_cites(controller):
    sp, results = controller.run("where is a payment recorded for an invoice", SCOPE, controller.pipeline("base"))
    assert results[-1].outcome == "ok"
    assert sp.answer.startswith("> **Not written by a model.**") and sp.answer == sp.answer_en
    assert "(search hit)" in sp.answer
    assert re.search(r"— `[^`]+\.(py|cs|sql):\d+-\d+` \(", sp.answer)  # every citation is file:lines


def test_the_search_best_match_leads_what_the_question_names(controller):
    """A report names objects in passing (here the repository class); the code the whole question
    matches best comes first, then what it names, in the search's order, then the other hits."""
    sp, _ = controller.run("ValueError: a payment must be positive is raised for a positive amount when "
                           "InvoiceRepository is used", SCOPE, controller.pipeline("base"))
    best = node_of(sp.retrieval_seed_nodes[0])
    named = [n["id"] for n in sp.extras["relations"]["named"]]
    assert named and best not in named
    context = [node_of(i) for i in sp.final_selection_ids]
    assert context[0] == best
    assert context[1:1 + len(named)] == in_search_order(named, sp.retrieval_hits)


def test_in_search_order_keeps_what_the_search_did_not_find_last():
    hits = [{"id": "b#p2"}, {"id": "c"}, {"id": "b#p1"}]
    assert in_search_order(["x", "c", "y", "b"], hits) == ["b", "c", "x", "y"]


def test_no_evidence_is_said_plainly(controller, tmp_path: Path):
    import yaml

    from ragstream.pipeline.loader import load_pipeline

    (tmp_path / "bare.yaml").write_text(yaml.safe_dump({
        "settings": {"entry_step_id": "answer", "answer_max_citations": 3, "answer_best_lines": 2},
        "steps": [{"id": "answer", "action": "answer"}]}))
    sp, results = controller.run("anything", SCOPE, load_pipeline("bare", tmp_path))
    assert results[-1].outcome == "no_evidence" and "nothing to quote" in sp.answer


GROUNDED = [  # (question, a file the answer must cite)
    ("How is a payment recorded on an invoice?", "billing/service.py"),
    ("Which table does the Invoice entity map to?", "src/Billing/Models/Invoice.cs"),  # named: the relate stage
    ("Which stored procedure writes to the Payments table?", "db/procedures.sql"),
    ("What does the foreign key from Invoices reference?", "db/schema.sql"),
    ("How does InvoiceRepository load an invoice?", "billing/repository.py"),
    ("Where are audit records logged?", "db/procedures.sql"),
    ("What is the balance of an invoice and when is it marked paid?", "billing/models.py"),
    pytest.param("How does the command line entry point record a payment?", "billing/cli.py",
                 marks=pytest.mark.xfail(strict=False, reason="borderline: billing/cli.py ranks 5th-6th, around "
                                         "the 5-citation cut; 'command line entry point' names nothing in main()")),
    ("Which DbSet properties does BillingContext declare?", "src/Billing/Data/BillingContext.cs"),
    ("How are monthly totals refreshed for reporting?", "db/reporting_pg.sql"),
    ("Where is log_event defined?", "billing/util.py"),
]


@pytest.mark.parametrize("question, path", GROUNDED)
def test_ask_gives_grounded_answers_on_the_fixture(controller, question, path):
    sp, _ = controller.run(question, SCOPE, controller.pipeline("base"))
    assert f"`{path}:" in sp.answer, sp.answer[:1500]


def test_cli_ask_prints_answer_trace_budget_and_saves_state(acl_backend, tmp_path: Path, capsys):
    config = tmp_path / "cli.yaml"
    config.write_text(f"index:\n  data_dir: {acl_backend.settings.index.data_dir}\n")
    state = tmp_path / "state.json"
    assert main(["--config", str(config), "ask", "how is a payment recorded", "--step", "--show-prompt",
                 "--save-state", str(state)]) == 0
    out = capsys.readouterr().out
    assert "[normalize] ok; changed:" in out and "[route] ok; changed:" in out and "Not written by a model" in out
    assert "trace" in out and "prompt budget" in out and "## Question" in out
    saved = SuperPrompt.from_json(state.read_text())
    assert saved.answer and json.loads(state.read_text())["history_of_stages"][-2:] == ["answer", "persist"]
