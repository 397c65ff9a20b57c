"""Long auto-mode conversations on a C# + SQL index while its vectors are still being filled,
with index switches and follow-ups (real FAISS, BM25, embedding model, SQLite history): every
turn answers, and a turn that fails is recorded as failed, never as an answer."""
from __future__ import annotations

import shutil

import pytest

from ragstream.controller import Controller, Scope
from ragstream.errors import RagstreamError
from ragstream.failures import Failure
from ragstream.index import store
from ragstream.index.build import build_index
from ragstream.super_prompt import SuperPrompt
from tests.conftest import SAMPLE_REPO, make_settings
from tests.test_progressive_build import partial_fill

# A question on code and tables (domain mixed) also searches inside the SQL domain alone; one vector
# batch holds none of the SQL chunks, which made FAISS assert `k > 0` ("unexpected AssertionError").
FILLING = ("Which procedures write the Invoice table?", "and what does this table reference?",
           "How does the invoice service save rows in the Invoice table?", "who calls it?",
           "what does that function call?", "explain how invoices are stored in the database by the service",
           "and which procedures read it?")
BUILT = ("How is a payment recorded?", "and who calls it?")


@pytest.fixture(scope="module")
def two_indexes(tmp_path_factory):
    """(controller, scope of a fully built index, scope of one whose fill stopped after a batch)."""
    root = tmp_path_factory.mktemp("two")
    settings = make_settings(root / "data")
    built, filling = root / "built_repo", root / "filling_repo"
    shutil.copytree(SAMPLE_REPO, built)
    shutil.copytree(SAMPLE_REPO, filling)
    build_index(built, settings)
    partial_fill(filling, settings, batches=1)
    controller = Controller(settings)
    scopes = {s.repository: controller.scope_of(s) for s in controller.indexes()}
    yield controller, scopes["built_repo"], scopes["filling_repo"]
    controller.close()


def _ask(controller: Controller, scope: Scope, conversation: str, question: str) -> None:
    state, _ = controller.run(question, scope, controller.pipeline("base"), session_id=conversation)
    assert state.answer and state.extras["persist"]["turn_id"] is not None, question


def test_a_long_conversation_with_index_switches_and_follow_ups_answers_every_turn(two_indexes):
    controller, built, filling = two_indexes
    on_filling = controller.new_conversation("filling", filling)
    on_built = controller.new_conversation("built", built)
    for number, question in enumerate(FILLING):
        _ask(controller, filling, on_filling, question)
        if number % 3 == 2:  # switch to the other index and back, as the sidebar does
            for asked in BUILT:
                _ask(controller, built, on_built, asked)
    assert len(controller.conversation_turns(on_filling, filling)) == len(FILLING)


def test_a_failed_turn_is_kept_as_failed_and_left_out_of_the_next_turns_history(tmp_path, caplog):
    settings = make_settings(tmp_path / "data")
    repo = tmp_path / "sample_repo"
    shutil.copytree(SAMPLE_REPO, repo)
    report = build_index(repo, settings)
    live = store.current_generation(report.location)
    assert live is not None
    graph = live / "graph.json"
    with Controller(settings) as controller:
        scope = controller.scope_of(controller.indexes()[0])
        conversation = controller.new_conversation("a failure in the middle", scope)
        _ask(controller, scope, conversation, "What does log_event do?")
    graph.rename(graph.with_suffix(".aside"))  # a broken index: the next turn fails in the middle
    with Controller(settings) as controller, pytest.raises(RagstreamError) as raised:
        controller.run("and who calls it?", scope, controller.pipeline("base"), session_id=conversation)
    graph.with_suffix(".aside").rename(graph)
    [logged] = [r for r in caplog.records if r.name == "ragstream" and r.exc_info]  # the server log has its traceback
    assert logged.exc_info[1] is raised.value
    with Controller(settings) as controller:
        _ask(controller, scope, conversation, "what does it call?")
        first, failed, third = controller.conversation_turns(conversation, scope)
    assert not first.failed and not third.failed and failed.failed and failed.answer == ""
    failure = Failure.from_json(failed.error)
    assert failure.kind == f"{raised.value.layer} error" and "Traceback" in failure.traceback
    state = SuperPrompt.from_json(third.state)
    assert "and who calls it?" not in str(state.history_for_prompt)  # the failed turn is not recalled
    assert state.extras["history"]["follow_up"]["turn"] == first.id  # "it" is still the first turn's subject
