"""Follow-ups resolved against the previous turn: the conversation is loaded before the router,
"it" is the previous answer's first cited symbol, and relation follow-ups are answered from the
graph around it (checked against the graph's own edges, not against fixed lists)."""
from __future__ import annotations

import json

import pytest

from ragstream.controller import Controller, Scope
from ragstream.stages.follow_up import asked_relation, cited_subjects, refers_back, resolve, short_name
from ragstream.super_prompt import SuperPrompt

SCOPE = Scope("sample_repo", "default", None, {})
SUBJECT = "py:billing.util.log_event|FUNCTION"


@pytest.fixture(scope="module")
def controller(built_sample):
    _, settings, _ = built_sample
    return Controller(settings)


def _state(citations: list[str]) -> str:
    return json.dumps({"extras": {"answer": {"citations": citations}}})


@pytest.mark.parametrize("question, relation", [
    ("and who calls it?", "callers"), ("what does it call?", "callees"), ("which tables does it write?", "writes"),
    ("what breaks if I change it?", "impact"), ("where is it tested?", "tests"), ("and what does it read?", "reads"),
    ("explain it in more detail", None)])
def test_follow_up_questions_and_their_relations(question, relation):
    assert refers_back(question) and asked_relation(question) == relation


def test_it_is_the_first_cited_symbol_and_them_are_all():
    cited = _state([SUBJECT, "file:README.md|FILE", "py:billing.service.InvoiceService.record_payment|METHOD#p2"])
    assert cited_subjects(cited) == [SUBJECT, "py:billing.service.InvoiceService.record_payment|METHOD"]
    assert resolve("and who calls it?", 7, cited) == {"turn": 7, "subjects": [SUBJECT], "relation": "callers"}
    assert resolve("who calls them?", 7, cited)["subjects"] == cited_subjects(cited)
    assert resolve("How is a payment recorded?", 7, cited) is None  # names its own subject
    assert resolve("and who calls it?", None, None) is None and resolve("and who calls it?", 7, _state([])) is None
    assert short_name("py:billing.service.InvoiceService.record_payment|METHOD") == "InvoiceService.record_payment"
    assert short_name("sql:dbo.Invoice|TABLE") == "dbo.Invoice" and short_name(SUBJECT) == "log_event"


def _graph_neighbours(controller, node: str, incoming: bool) -> set[str]:
    graph = controller.runtime.backend.graph("sample_repo", "default", {}, None)
    edges = graph.in_edges(node, keys=True) if incoming else graph.out_edges(node, keys=True)
    return {(source if incoming else target) for source, target, key in edges if key == "CALLS"}


def test_a_three_turn_chat_answers_follow_ups_from_the_graph_around_the_previous_subject(controller):
    conversation = controller.new_conversation("follow-ups", SCOPE)
    pipeline = controller.pipeline("base")
    first, _ = controller.run("What does log_event do?", SCOPE, pipeline, session_id=conversation)
    assert first.extras["answer"]["citations"][0] == SUBJECT
    second, steps = controller.run("and who calls it?", SCOPE, pipeline, session_id=conversation)
    ran = [s.step for s in steps]
    assert ran.index("history") < ran.index("route") and second.retrieval_mode != "direct"
    assert second.extras["history"]["follow_up"]["subjects"] == [SUBJECT]
    assert "log_event" in second.retrieval_query
    callers = _graph_neighbours(controller, SUBJECT, incoming=True)
    assert callers and all(f"`{c}` calls it" in second.answer for c in callers)
    assert set(second.extras["answer"]["citations"]) >= callers
    third, _ = controller.run("what does it call?", SCOPE, pipeline, session_id=conversation)
    assert third.extras["history"]["follow_up"]["subjects"] == [SUBJECT]  # still the same "it"
    callees = _graph_neighbours(controller, SUBJECT, incoming=False)
    assert all(f"`{c}` called by it" in third.answer for c in callees)
    turns = controller.conversation_turns(conversation, SCOPE)
    assert len(turns) == 3 and SuperPrompt.from_json(turns[1].state).trace  # each turn keeps its state


def test_who_calls_a_named_symbol_is_answered_from_the_graph_without_a_conversation(controller):
    sp, _ = controller.run("who calls log_event?", SCOPE, controller.pipeline("base"))
    callers = _graph_neighbours(controller, SUBJECT, incoming=True)
    assert all(f"`{c}` calls it" in sp.answer for c in callers)
    # the graph's list and the evidence's list read as two lists, not one run together
    graph_part, evidence = sp.answer.split("\n\n**The evidence**, best first:\n\n")
    assert "calls it" in graph_part and evidence.startswith("- **") and "calls it" not in evidence


def test_filters_that_hide_everything_say_so_without_naming_what_they_hide(controller):
    hidden = Scope("sample_repo", "default", None, {"paths_include": ["nothing/**"]})
    sp, _ = controller.run("How is a payment recorded?", hidden, controller.pipeline("base"))
    assert "your retrieval filters are set and may hide relevant code" in sp.answer
    assert "payment" not in sp.answer.split("may hide")[1] and "record_payment" not in sp.answer
    plain, _ = controller.run("zebra quantum marmalade", SCOPE, controller.pipeline("base"))
    assert "Nothing in the index matches" in plain.answer and "filters" not in plain.answer


def test_the_router_model_sees_the_conversation_and_may_not_skip_a_follow_up(server, built_sample):
    from conftest import make_settings
    from ragstream.config import LLM_ROLES

    server.queues.clear()
    server.requests.clear()
    _, settings, _ = built_sample
    llm = {"provider": "openai", "base_url": server.base_url, "backoff_seconds": 0.01,
           "roles": {role: (role if role == "router" else "none") for role in LLM_ROLES}}
    with Controller(make_settings(settings.index.data_dir, llm=llm)) as controller:
        conversation = controller.new_conversation("router", SCOPE)
        server.queue("router", "[BM25:] log_event", "[DIRECT:] a greeting")
        controller.run("What does log_event do?", SCOPE, controller.pipeline("base"), session_id=conversation)
        sp, _ = controller.run("and who calls it?", SCOPE, controller.pipeline("base"), session_id=conversation)
    prompt = server.requests_for("router")[-1]["messages"][-1]["content"]
    assert "What does log_event do?" in prompt and "Subjects of the previous turn: log_event" in prompt
    assert sp.retrieval_mode != "direct" and "the rules decide" in " ".join(sp.extras["route"]["reasons"])


@pytest.mark.parametrize("question", ["Where is the code that writes invoices?", "How does the engine run a step?"])
def test_a_question_that_names_its_subject_is_no_follow_up(question):
    assert not refers_back(question)


def test_callees_outside_the_repository_come_last_and_say_so():
    from ragstream.graph.relations_view import render_graph_answer
    from ragstream.index.graph_build import build_graph
    from ragstream.index.python.parser import parse_python
    from ragstream.stages.follow_up import relation_answer

    source = ("def tidy(items):\n    return sorted(items)\n\n\n"
              "def report(items):\n    print(len(items))\n    return tidy(items)\n")
    graph, _ = build_graph([parse_python("shop/report.py", source, "shop.report")])
    answer = relation_answer(graph, ["py:shop.report.report|FUNCTION"], "callees", lambda ids: {})
    assert [i.id for i in answer.items] == ["py:shop.report.tidy|FUNCTION", "ext:builtins.len|EXTERNAL",
                                           "ext:builtins.print|EXTERNAL"]
    lines = render_graph_answer(answer, graph).splitlines()
    assert lines[2] == "- `py:shop.report.tidy|FUNCTION` called by it — `shop/report.py:1-2`"
    assert lines[3] == "- `ext:builtins.len|EXTERNAL` called by it — not defined in the repository"


def test_that_function_and_this_table_are_the_cited_subjects_of_that_kind():
    table = "sql:dbo.Invoices|TABLE"
    cited = _state([table, SUBJECT])
    assert resolve("what does that function call?", 3, cited) == {"turn": 3, "subjects": [SUBJECT],
                                                                  "relation": "callees"}
    assert resolve("which procedures write this table?", 3, _state([SUBJECT, table]))["subjects"] == [table]
    assert resolve("and who calls it?", 3, cited)["subjects"] == [table]  # "it": the first cited, whatever its kind


def test_what_does_that_function_call_answers_the_callees_of_the_function_asked_about(controller):
    conversation = controller.new_conversation("that function", SCOPE)
    pipeline = controller.pipeline("base")
    first, _ = controller.run("What does AuditedInvoiceService.record_payment do?", SCOPE, pipeline,
                              session_id=conversation)
    subject = "py:billing.service.AuditedInvoiceService.record_payment|METHOD"
    cited = cited_subjects(first.to_json())
    assert subject in cited and not cited[0].endswith("|METHOD")  # the class came first: "that function" is not "it"
    sp, _ = controller.run("what does that function call?", SCOPE, pipeline, session_id=conversation)
    assert sp.extras["history"]["follow_up"]["subjects"] == [subject]
    assert sp.extras["history"]["follow_up"]["relation"] == "callees"
    callees = _graph_neighbours(controller, subject, incoming=False)
    assert callees and "**From the graph** (callees)" in sp.answer
    assert all(f"`{c}` called by it" in sp.answer for c in callees)
