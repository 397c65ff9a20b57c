"""Stage 1, normalize: the header mapping ladder, MUST defaults, and rule-based understanding."""
from __future__ import annotations

import pytest

from ragstream.stages import normalize
from ragstream.super_prompt import SuperPrompt


@pytest.mark.parametrize("header, field, step", [
    ("Task", "task", "exact"),
    ("  FORMAT!! ", "format", "exact"),  # normalised first
    ("Background", "context", "alias"),
    ("fromat", "format", "typo"),
    ("Audeince", "audience", "typo"),  # two neighbours swapped: one edit
    ("Adiense", None, "unknown"),  # two edits away: not a typo of anything
    ("Zielgruppe", "audience", "bilingual"),
    ("What I need", "task", "template"),
    ("Desired output", "format", "keyword"),
    ("Ticket", None, "unknown"),
    ("Error output of the job", None, "unknown"),  # keywords count in short headers only
])
def test_the_ladder(header, field, step):
    assert normalize.resolve_header(header) == (field, step)


def test_headers_fill_the_body_unknown_ones_go_to_extras():
    sp = SuperPrompt(question_raw="Task: explain how payments are recorded\nZielgruppe: new developers\n"
                                  "fromat: a bullet list\nTicket: BILL-42\n  raised by support")
    assert normalize.run(sp, None, {"id": "normalize"}, {}) == "ok"
    assert sp.body["task"] == "explain how payments are recorded" == sp.question_en
    assert sp.body["audience"] == "new developers" and sp.body["format"] == "a bullet list"
    assert sp.body["tone"] == "neutral" and sp.body["depth"] == "normal" and sp.body["confidence"] == "normal"
    assert sp.body["context"] == ""  # optional fields stay empty
    extras = sp.extras["normalize"]
    assert extras["unknown_headers"] == {"Ticket": "BILL-42\n  raised by support"}
    assert [h["step"] for h in extras["headers"]] == ["exact", "bilingual", "typo", "unknown"]


def test_a_question_with_a_colon_is_not_headers():
    sp = SuperPrompt(question_raw="Why does ValueError: a payment must be positive happen?")
    normalize.run(sp, None, {"id": "normalize"}, {})
    assert sp.body["task"] == "Why does ValueError: a payment must be positive happen?"
    assert sp.extras["normalize"]["headers"] == [] and sp.intent == "bug"
    assert sp.body["format"].startswith("Markdown")  # MUST default


@pytest.mark.parametrize("question, intent, domain", [
    ("Why does save_payment fail with a KeyError?", "bug", "code"),
    ("What breaks if I change InvoiceRepository.get?", "impact", "code"),
    ("Where is log_event defined?", "where_is", "code"),
    ("How is a payment recorded?", "how_implemented", "code"),
    ("Explain the payments table and its foreign keys", "explain", "db"),
    ("Which stored procedure writes the table used by InvoiceService?", "where_is", "mixed"),
    ("Thanks!", "other", "code"),
])
def test_intent_and_domain(question, intent, domain):
    assert normalize.understand(question)[:2] == (intent, domain)


def test_concepts_and_synonyms():
    _, _, concepts, synonyms = normalize.understand("How do invoices reach the record_payment method of InvoiceService?")
    assert concepts[:2] == ["record_payment", "InvoiceService"] and "invoices" in concepts
    assert {"record", "payment", "invoice", "service"} <= set(synonyms)  # identifier parts, singular
    assert "invoiceservices" not in synonyms and "methods" in synonyms


def test_not_english_is_kept_and_said(tmp_path):
    sp = SuperPrompt(question_raw="Wie wird eine Zahlung verbucht?", is_english=False)
    normalize.run(sp, None, {"id": "normalize"}, {})
    assert sp.question_en == "Wie wird eine Zahlung verbucht?"
    assert "no model plays the translator" in sp.extras["normalize"]["translation"]


def test_a_pasted_issue_report_keeps_its_text():
    # `Output:` is a known header (format); its section ends at the blank line, and the
    # unknown `MRE:` header and the code stay in the question, tracebacks and all.
    report = ("pairplot raises KeyError with MultiIndex DataFrame\nMRE:\n\n```python\nsns.pairplot(df)\n"
              "```\n\nOutput:\n\n```\naxisgrid.py in map_diag(self, func)\nKeyError: 'A'\n```")
    sp = SuperPrompt(question_raw=report)
    normalize.run(sp, None, {"id": "normalize"}, {})
    assert "map_diag" in sp.question_en and "sns.pairplot(df)" in sp.question_en
    assert sp.question_en.startswith("pairplot raises KeyError")


def test_headers_inside_code_blocks_and_short_typos_are_not_fields():
    versions = "to_unstacked_dataset broken\n```\nKeyError: 'y'\n```\nxarray: 0.15.1\ndask: 2.10.1\n"
    sp = SuperPrompt(question_raw=versions)
    normalize.run(sp, None, {"id": "normalize"}, {})
    assert normalize.resolve_header("dask") == (None, "unknown")  # one edit from "task", but too short to tell
    assert sp.body["task"] == versions.strip() == sp.question_en


def test_text_after_a_known_field_goes_back_to_the_question():
    sp = SuperPrompt(question_raw="Format: a table\n\nWhich functions write the payments table?")
    normalize.run(sp, None, {"id": "normalize"}, {})
    assert sp.body["format"] == "a table"
    assert sp.question_en == "Which functions write the payments table?"


def test_a_field_header_on_its_own_line_takes_the_next_paragraph():
    sp = SuperPrompt(question_raw="Context:\n\nWe moved payments to a queue last week.\n\nWhy do refunds arrive twice?")
    normalize.run(sp, None, {"id": "normalize"}, {})
    assert sp.body["context"] == "We moved payments to a queue last week."
    assert sp.question_en == "Why do refunds arrive twice?"
