"""Derived text is computed for the caller (issue 19, part 3): a chunk header, built from the
graph, names only the neighbours the caller's filters allow -- in the state, the prompt and what
is embedded or keyword-indexed."""
from __future__ import annotations

import re

from ragstream.cli import main
from ragstream.index.chunks import keyword_text
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.super_prompt import SuperPrompt

HIDE_CSHARP = {"paths_exclude": ["src/**"]}


def hidden_only_words(chunks, hidden: set[str], extra_text: str = "") -> set[str]:
    """Name segments of the hidden chunks' symbols that no visible chunk's own text, symbol or
    path contains (nor `extra_text`): such a word can only reach an output through a leak."""
    seen = set(re.findall(r"\w+", extra_text))
    for chunk in chunks:
        if chunk.id not in hidden:
            seen |= set(re.findall(r"\w+", f"{chunk.text} {chunk.symbol} {chunk.path}"))
    names = {word for c in chunks if c.id in hidden for word in re.findall(r"\w+", c.symbol)}
    return names - seen


def test_a_visible_tables_header_names_no_hidden_reader(built_sample):
    _, settings, _ = built_sample
    backend = LocalBackend(settings)
    everything = backend.fetch_chunks(["sql:dbo.Invoices|TABLE"], "sample_repo", "default", None)[0]
    assert "InvoiceService.GetCustomerBalance" in everything.metadata["header"]  # visible: named
    table = backend.fetch_chunks(["sql:dbo.Invoices|TABLE"], "sample_repo", "default", HIDE_CSHARP)[0]
    header = table.metadata["header"]
    assert "read by: " in header and "dbo.usp_GetCustomerInvoices" in header  # SQL readers stay
    assert "InvoiceService" not in header and "Models.Invoice" not in header, header
    assert "(+" not in header  # a `+N more` would count the hidden ones


def test_what_is_indexed_names_no_neighbour_a_filter_could_hide(built_sample):
    """Embedded and keyword-indexed text carries only neighbours from the chunk's own file, kind,
    language and labels: a filtered search can neither show nor match on a hidden name."""
    _, settings, _ = built_sample
    index = LocalBackend(settings)._index("sample_repo", "default", None)
    table = next(c for c in index.chunks if c.id == "sql:dbo.Invoices|TABLE")
    assert "InvoiceService" not in table.embedding_text and "InvoiceService" not in keyword_text(table)
    assert "dbo.Customers" in table.metadata["header"]  # same file, kind, language, labels
    for chunk in index.chunks:
        for row in chunk.metadata["header"].split("\n"):
            if row.startswith("defined in: "):  # the own rows already spell the parent out
                parent = row.removeprefix("defined in: ")
                assert parent == chunk.path or chunk.symbol.startswith(parent + "."), (chunk.id, row)


def test_the_state_and_the_prompt_name_no_hidden_neighbour(built_sample, tmp_path, capsys):
    _, settings, _ = built_sample
    data = settings.index.data_dir
    config = tmp_path / "ask.yaml"
    config.write_text(f"index:\n  data_dir: {data}\n")
    question = "Which code reads the dbo.Invoices table?"
    state = tmp_path / "state.json"
    assert main(["--config", str(config), "ask", question, "--filter", "paths_exclude=src/**",
                 "--save-state", str(state), "--show-prompt"]) == 0
    printed = capsys.readouterr().out
    sp = SuperPrompt.from_json(state.read_text())
    chunks = LocalBackend(settings)._index("sample_repo", "default", None).chunks
    hidden = {c.id for c in chunks if c.path.startswith("src/")}
    words = hidden_only_words(chunks, hidden, question)
    assert {"GetCustomerBalance", "GetOpenInvoices"} <= words
    assert any(c.id == "sql:dbo.Invoices|TABLE" for c in sp.base_context_chunks)
    for name, text in (("state", state.read_text()), ("prompt", sp.prompt_ready), ("stdout", printed)):
        leaked = words & set(re.findall(r"\w+", text))
        assert not leaked, (name, leaked)
        assert not any(h in text for h in hidden), name

