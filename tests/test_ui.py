"""The workbench through Streamlit's AppTest: the real app script, controller, engine and the
sample index; each AppTest is one browser session."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.errors import AppTestError

from ragstream.config import PROJECT_ROOT
from ragstream.controller import HISTORY_FILE
from ragstream.history import HistoryStore
from ragstream.pipeline.registry import STAGES
from ragstream.ui import CONFIG_ENV

APP = str(PROJECT_ROOT / "ui_streamlit.py")
QUESTION = "How is a payment recorded?"


@pytest.fixture(scope="session")
def ui_config(built_sample, tmp_path_factory):
    """A settings file pointing the workbench at the indexed sample repository."""
    _, settings, _ = built_sample
    path = tmp_path_factory.mktemp("ui") / "settings.yaml"
    path.write_text(yaml.safe_dump({"index": {"data_dir": settings.index.data_dir}}), encoding="utf-8")
    return path


def open_app() -> AppTest:
    """A new browser session on the app, after its first run."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def new_session(ui_config, monkeypatch):
    monkeypatch.setenv(CONFIG_ENV, str(ui_config))
    return open_app


def stage_buttons(at: AppTest) -> dict[str, bool]:
    """stage -> enabled."""
    return {stage: not at.button(key=f"stage:{stage}").disabled for stage in STAGES}


def press(at: AppTest, stage: str) -> AppTest:
    at.button(key=f"stage:{stage}").click().run()
    assert not at.exception, at.exception
    return at


def stage_panels(at: AppTest) -> list[str]:
    """The labels of the stage panels shown (`3 Retrieve · 12 ms · deterministic path (no model)`)."""
    return [e.label for e in at.expander if e.label[0].isdigit()]


def asked(at: AppTest, question: str = QUESTION) -> AppTest:
    at.text_area(key="manual:question").input(question).run()
    return at


def test_first_paint_lists_the_index_and_enables_only_the_first_stage(new_session):
    at = new_session()
    assert at.selectbox(key="index_choice").value == "sample_repo / default"
    assert "chunks" in at.sidebar.caption[0].value and "stale" in at.sidebar.caption[0].value
    assert [s for s, enabled in stage_buttons(at).items() if enabled] == ["normalize"]
    press(at, "normalize")  # no question yet: said in place
    assert "the question is empty" in at.error[0].value and "manual:session" not in at.session_state
    press(asked(at), "normalize")
    assert not at.error and len(stage_panels(at)) == 1


def test_stage_buttons_in_order_show_each_stage_with_duration_and_path(new_session):
    at = asked(new_session())
    for n, stage in enumerate(STAGES):
        press(at, stage)
        enabled = stage_buttons(at)
        assert [s for s in STAGES if enabled[s]] == list(STAGES[: n + 2]), stage
        panels = stage_panels(at)
        assert len(panels) == n + 1 and all(" ms · deterministic path (no model)" in p for p in panels)
    # only an open panel is drawn: the last one pressed; a user opens the others
    assert not any("pieces" in d.value.columns for d in at.dataframe)
    for stage in ("retrieve", "build_prompt"):
        at.session_state[f"manual:panel:{stage}"] = True
    at.run()
    attempts = next(d.value for d in at.dataframe if "pieces" in d.value.columns)  # the retrieve panel's
    assert list(attempts.columns) == ["attempt", "mode", "pieces", "domain searches", "hits", "tests demoted",
                                      "exception types scaled", "from change history", "problems"]
    session = at.session_state["manual:session"]
    assert session.state.stage == "" and session.state.history_of_stages == [
        "normalize", "history", "route", "retrieve", "rerank", "relate", "expand", "fetch_texts", "condense",
        "build_prompt", "answer", "persist"]
    shown = " ".join(m.value for m in at.markdown)
    assert "Not written by a model" in shown and session.state.answer.splitlines()[0] in shown
    assert any(c.value == session.state.prompt_ready for c in at.code)  # build prompt shows the prompt
    assert at.get("download_button")  # ... with a download
    assert not at.error


def test_out_of_order_stages_are_disabled_and_a_skip_enables_the_stage_after_it(new_session):
    at = press(asked(new_session()), "normalize")
    assert stage_buttons(at)["retrieve"] is False
    with pytest.raises(AppTestError, match="disabled"):  # no one can press a later stage early
        at.button(key="stage:retrieve").click()
    # A caller who may see nothing: route answers `direct`, so retrieval is skipped.
    at.text_input(key="filter:acl_tags_any").input("no-such-tag").run()
    press(press(at, "normalize"), "route")
    assert [s for s, enabled in stage_buttons(at).items() if enabled] == ["normalize", "route", "condense"]
    for stage in ("condense", "build_prompt", "answer"):
        press(at, stage)
    session = at.session_state["manual:session"]
    assert session.ran == ["normalize", "history", "route", "condense", "build_prompt", "answer", "persist"]
    assert session.state.retrieval_seed_nodes == [] and session.state.answer and not at.error
    assert [p.split(" ·")[0] for p in stage_panels(at)] == ["1 Normalize", "2 Route", "6 Condense",
                                                            "7 Build prompt", "8 Answer"]


def test_rerunning_an_earlier_stage_clears_what_follows(new_session):
    at = asked(new_session())
    for stage in STAGES[:6]:  # up to condense
        press(at, stage)
    state = at.session_state["manual:session"].state
    assert state.S_CTX_MD and state.node_texts
    press(at, "retrieve")
    session = at.session_state["manual:session"]
    assert session.ran == ["normalize", "history", "route", "retrieve"] and session.state.stage == "rerank"
    assert session.state.S_CTX_MD == "" and session.state.node_texts == [] and session.state.graph_expanded_nodes == []
    assert len(stage_panels(at)) == 3
    assert [s for s, enabled in stage_buttons(at).items() if enabled] == ["normalize", "route", "retrieve", "rerank"]


def test_a_changed_question_starts_a_new_pass(new_session):
    at = press(press(asked(new_session()), "normalize"), "route")
    asked(at, "Which procedures write the payments table?")
    assert [s for s, enabled in stage_buttons(at).items() if enabled] == ["normalize"]
    press(at, "normalize")
    assert at.session_state["manual:session"].state.question_raw == "Which procedures write the payments table?"
    assert len(stage_panels(at)) == 1


def test_a_typed_question_survives_a_run_that_does_not_draw_it(new_session):
    """Streamlit drops a widget's value after a run that did not draw it: Auto mode here, a
    full-page rerun racing a stage click in CI once (the pass then lost its question)."""
    at = press(asked(new_session()), "normalize")
    at.segmented_control(key="mode").set_value("Auto").run()
    at.segmented_control(key="mode").set_value("Manual").run()
    assert at.text_area(key="manual:question").value == QUESTION
    assert stage_buttons(at)["route"], "the pass for the same question goes on"


def ask_in_auto_mode(at: AppTest, *questions: str) -> AppTest:
    at.segmented_control(key="mode").set_value("Auto").run()
    for question in questions:
        at.chat_input(key="auto:input").set_value(question).run()
        assert not at.exception, at.exception
    return at


def test_auto_mode_turns_each_with_trace_graph_and_budget(new_session):
    at = ask_in_auto_mode(new_session(), QUESTION, "Which procedures write the payments table?")
    turns = at.session_state["auto:asked"]
    assert [t.question for t in turns] == [QUESTION, "Which procedures write the payments table?"]
    assert all(t.error is None and t.state.answer and t.turn_id for t in turns)  # persisted
    assert [m.name for m in at.chat_message] == ["user", "assistant", "user", "assistant"]
    assert [e.label for e in at.expander if e.label.startswith("turn")] == [
        "turn 1: trace, graph and budget", "turn 2: trace, graph and budget"]
    trace = at.chat_message[3].dataframe[0].value
    assert list(trace["step"]) == turns[1].state.history_of_stages
    assert set(trace["path"]) == {"deterministic"}
    # The second turn was asked with the first in its history.
    assert turns[1].state.history_for_prompt and turns[1].state.history_for_prompt[0]["content"] in (
        QUESTION, turns[0].state.answer)


def test_a_conversation_survives_a_page_reload(new_session):
    first = ask_in_auto_mode(new_session(), QUESTION)
    conversation = first.query_params["conversation"]
    answer = first.session_state["auto:asked"][0].state.answer
    reloaded = new_session()  # a new browser session on the same URL
    reloaded.query_params["conversation"] = conversation
    reloaded.segmented_control(key="mode").set_value("Auto").run()
    assert reloaded.selectbox(key="auto:conversation").value == conversation
    assert [m.name for m in reloaded.chat_message] == ["user", "assistant"]
    assert reloaded.chat_message[0].markdown[0].value == QUESTION
    assert reloaded.chat_message[1].markdown[0].value == answer
    assert "from the history" in reloaded.chat_message[1].caption[0].value
    ask_in_auto_mode(reloaded, "Which procedures write the payments table?")  # and it goes on
    assert len(reloaded.chat_message) == 4 and reloaded.query_params["conversation"] == conversation


def test_an_error_is_shown_in_place_not_as_a_stack_trace(new_session):
    at = asked(new_session())
    at.text_input(key="filter:paths_include").input("!").run()  # not a valid gitignore pattern
    press(at, "normalize")
    press(at, "route")  # route searches under the filters: the backend rejects them
    assert len(at.error) == 1 and "retrieval error" in at.error[0].value
    assert "invalid path glob" in at.error[0].value and "retrieval_filters.paths_include" in at.error[0].value
    assert at.session_state["manual:session"].ran == ["normalize", "history"]  # the failed step changed nothing
    ask_in_auto_mode(at, QUESTION)
    assert "invalid path glob" in at.chat_message[1].error[0].value


def test_an_unexpected_exception_in_a_step_is_shown_in_place(new_session, monkeypatch, built_sample):
    from ragstream.retrieval.local_backend import LocalBackend

    def broken(self, request):
        raise ValueError("the search broke")

    monkeypatch.setattr(LocalBackend, "search", broken)
    at = press(press(asked(new_session()), "normalize"), "route")
    assert not at.exception and "unexpected ValueError" in at.error[0].value and "the search broke" in at.error[0].value
    ask_in_auto_mode(at, QUESTION)
    answer = at.chat_message[1]
    assert "unexpected ValueError" in answer.error[0].value and "failed" in answer.caption[0].value
    [details] = [e for e in answer.expander if e.label == "details"]
    assert "Traceback" in details.code[0].value and "the search broke" in details.code[0].value
    turns = HistoryStore(Path(built_sample[1].index.data_dir) / HISTORY_FILE).turns(at.query_params["conversation"])
    assert [t.failed for t in turns] == [True] and turns[0].answer == ""  # kept as failed, not as an answer


def test_two_sessions_do_not_share_state(new_session):
    first, second = new_session(), new_session()
    press(press(asked(first), "normalize"), "route")
    second.sidebar.selectbox(key="pipeline_choice").set_value("db").run()
    asked(second, "Which procedures write the payments table?")
    press(second, "normalize")
    first.run()
    assert first.session_state["manual:session"].ran == ["normalize", "history", "route"]
    assert first.session_state["manual:session"].state.question_raw == QUESTION
    assert first.selectbox(key="pipeline_choice").value == "base"
    assert second.session_state["manual:session"].ran == ["normalize", "history"]
    assert len(stage_panels(first)) == 2 and len(stage_panels(second)) == 1


def test_budget_sliders_and_n_constants_reach_the_pipeline(new_session):
    at = asked(new_session())
    at.slider(key="base:max_context_tokens").set_value(500).run()
    at.number_input(key="base:N3_FINAL_SELECTION_MAX").set_value(2).run()
    for stage in STAGES[:6]:
        press(at, stage)
    state = at.session_state["manual:session"].state
    assert state.budget["context"]["limit"] == 500 and len(state.final_selection_ids) <= 2


def test_a_broken_settings_file_is_reported_in_place(tmp_path, monkeypatch):
    bad = tmp_path / "bad.yaml"
    bad.write_text("limits:\n  N9_UNKNOWN: 3\n", encoding="utf-8")
    monkeypatch.setenv(CONFIG_ENV, str(bad))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception and "config error" in at.error[0].value and "N9_UNKNOWN" in at.error[0].value


def test_index_a_folder_from_the_sidebar(sample_repo, tmp_path, monkeypatch):
    from ragstream.ui import resources

    settings = tmp_path / "settings.yaml"
    settings.write_text(yaml.safe_dump({"index": {"data_dir": str(tmp_path / "data")}}), encoding="utf-8")
    monkeypatch.setenv(CONFIG_ENV, str(settings))
    at = open_app()
    assert "No index yet" in at.sidebar.info[0].value and not any(stage_buttons(at).values())
    at.sidebar.text_input(key="index_folder:path").input(str(sample_repo))
    at.sidebar.text_input(key="index_folder:name").input("copy")
    at.sidebar.button(key="index_folder:submit").click().run()
    job = next(j for j in resources.controller().builds() if j.name == "copy")
    job.wait()
    assert job.error is None
    at.run()
    assert at.selectbox(key="index_choice").value == "sample_repo / copy"
    assert any("Indexed sample_repo → index `copy`" in s.value for s in at.sidebar.success)
    press(asked(at), "normalize")
    assert len(stage_panels(at)) == 1


def test_the_first_paint_loads_no_model(ui_config):
    """Models load on first use (a search), never to draw the page."""
    script = ("import sys\nfrom streamlit.testing.v1 import AppTest\n"
              f"at = AppTest.from_file({APP!r}, default_timeout=120).run()\n"
              "assert not at.exception and at.button(key='stage:normalize')\n"
              "print(sorted({'torch', 'sentence_transformers', 'onnxruntime', 'faiss'} & set(sys.modules)))\n")
    env = {**os.environ, CONFIG_ENV: str(ui_config)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def listed(at: AppTest, conversation: str) -> bool:
    """Whether the conversation picker offers `conversation` (its labels end with the id)."""
    return any(option.endswith(conversation) for option in at.selectbox(key="auto:conversation").options)


def test_narrowed_filters_hide_the_earlier_turns_and_start_a_new_conversation(new_session):
    at = ask_in_auto_mode(new_session(), QUESTION)
    first = at.query_params["conversation"]
    at.text_input(key="filter:acl_tags_any").input("public").run()
    assert not at.exception and not at.chat_message  # nothing said under the wider filters is drawn
    assert not at.error and any(f"Conversation {first} belongs to another index or other security filters" in c.value
                                for c in at.caption)  # a quiet note, never a red banner
    assert any("1 earlier turn(s) of this browser session are hidden" in c.value for c in at.caption)
    assert not listed(at, first)
    at.chat_input(key="auto:input").set_value("Which procedures write the payments table?").run()
    assert [t.error is None for t in at.session_state["auto:asked"]] == [True, True]
    assert at.query_params["conversation"] != first and len(at.chat_message) == 2
    at.text_input(key="filter:acl_tags_any").input("").run()  # back under the first scope: its conversation resumes
    assert any("1 earlier turn(s)" in c.value for c in at.caption) and listed(at, first)
    assert at.query_params["conversation"] == first and len(at.chat_message) == 2 and not at.error
    assert any("Resumed this index's own conversation" in c.value for c in at.caption)


def test_a_session_under_narrower_filters_cannot_list_or_open_another_s_conversation(new_session):
    owner = ask_in_auto_mode(new_session(), QUESTION)
    conversation = owner.query_params["conversation"]
    other = new_session()
    other.text_input(key="filter:acl_tags_any").input("no-such-tag").run()
    ask_in_auto_mode(other)
    assert not listed(other, conversation)
    assert not other.chat_message
    visitor = new_session()  # the same, arriving by the conversation's URL
    visitor.text_input(key="filter:acl_tags_any").input("no-such-tag").run()
    visitor.query_params["conversation"] = conversation
    ask_in_auto_mode(visitor)
    assert not visitor.error and any(conversation in c.value and "another index" in c.value for c in visitor.caption)
    assert not visitor.chat_message and QUESTION not in " ".join(m.value for m in visitor.markdown)
    assert visitor.selectbox(key="auto:conversation").value == "(new conversation)"
    assert "conversation" not in visitor.query_params


def test_the_graph_drawing_is_keyed_by_its_edges_and_the_index_generation(built_sample):
    from ragstream.controller import Controller, Scope
    from ragstream.ui.graph import _state_key

    _, settings, _ = built_sample
    with Controller(settings) as controller:
        [summary] = [s for s in controller.indexes() if s.index == "default"]
        sp = controller.new_state(QUESTION, Scope(summary.repository, summary.branch, summary.index))
        sp.graph_edges = [{"source": "a", "target": "b", "edge_type": "CALLS"}]
        calls = _state_key(controller, sp)
        sp.graph_edges = [{"source": "a", "target": "b", "edge_type": "IMPORTS"}]  # same count, other edges
        assert _state_key(controller, sp) != calls
        generation = controller.index_generation(sp)
        assert generation and generation in calls


def test_the_expand_panel_shows_the_graph_answer_to_a_list_question(new_session):
    at = asked(new_session(), "Which procedures write to the Invoices table?")
    for stage in ("normalize", "route", "retrieve", "rerank", "expand"):
        press(at, stage)
    shown = " ".join(m.value for m in at.markdown)
    assert "**From the graph** (WRITES) for `dbo.Invoices` (table)" in shown
    assert "sql:dbo.usp_CreateInvoice|PROCEDURE" in shown and "sql:dbo.usp_RecordPayment|PROCEDURE" in shown


def test_the_url_restores_mode_index_pipeline_filters_and_conversation_with_its_trace(new_session):
    first = new_session()
    first.sidebar.selectbox(key="pipeline_choice").set_value("db").run()
    first.text_input(key="filter:acl_tags_any").input("public").run()
    ask_in_auto_mode(first, QUESTION)
    params = dict(first.query_params)
    assert params["mode"] == "Auto" and params["pipeline"] == "db" and params["filter.acl_tags_any"] == "public"
    assert params["index"] == "sample_repo / default" and params["conversation"]
    reloaded = AppTest.from_file(APP, default_timeout=120)  # the same URL in a new browser session
    for name, value in params.items():
        reloaded.query_params[name] = value
    reloaded.run()
    assert not reloaded.exception and not reloaded.error
    assert reloaded.segmented_control(key="mode").value == "Auto"
    assert reloaded.selectbox(key="pipeline_choice").value == "db"
    assert reloaded.text_input(key="filter:acl_tags_any").value == "public"
    assert reloaded.selectbox(key="auto:conversation").value == params["conversation"]
    assert [e.label for e in reloaded.expander if e.label.startswith("turn")] == ["turn 1: trace, graph and budget"]
    trace = reloaded.chat_message[1].dataframe[0].value
    assert list(trace["step"])[:3] == ["normalize", "history", "route"]


def test_id_tables_lead_with_a_short_name_and_keep_the_whole_id(new_session):
    at = asked(new_session())
    for stage in STAGES[:5]:
        press(at, stage)
    at.session_state["manual:panel:retrieve"] = True  # opened as a user would: only open panels are drawn
    at.run()
    hits = next(d.value for d in at.dataframe if "sources" in d.value.columns)
    assert list(hits.columns)[:2] == ["name", "kind"] and list(hits.columns)[-1] == "id"
    session = at.session_state["manual:session"]
    assert list(hits["id"]) == [h["id"] for h in session.state.retrieval_hits]
    assert all(len(name) < len(full) and "…" not in name for name, full in zip(hits["name"], hits["id"]))
    nodes = next(d.value for d in at.dataframe if "role" in d.value.columns)
    assert nodes["name"].is_unique and set(nodes["role"]) <= {"seed", "reached"}
    shown = " ".join(m.value for m in at.markdown)
    assert "**calls**" in shown or "**reads**" in shown or "**writes**" in shown  # relations in words


def test_budget_gauges_say_used_and_limit_and_the_state_is_a_tree(new_session):
    at = asked(new_session())
    for stage in STAGES[:7]:
        press(at, stage)
    assert not at.get("progress")  # only the open tab is drawn: the graph's
    at.session_state["manual:side"] = "Budget"
    at.run()
    texts = [p.proto.text for p in at.get("progress")]
    assert any(t.startswith("**context**: ") and " / " in t for t in texts)
    assert "Bars: tokens a block uses" in " ".join(c.value for c in at.caption) and not at.get("json")
    at.session_state["manual:side"] = "State"
    at.run()
    at.toggle(key="manual:state").set_value(True).run()
    assert at.get("json")


def test_index_with_an_empty_or_missing_folder_says_why(new_session):
    at = new_session()
    at.sidebar.button(key="index_folder:submit").click().run()
    assert "Type the folder to index first" in at.sidebar.error[0].value
    at.sidebar.text_input(key="index_folder:path").input("/no/such/folder")
    at.sidebar.button(key="index_folder:submit").click().run()
    assert "is not a folder" in at.sidebar.error[0].value


def test_the_first_paint_says_what_the_tool_is_and_offers_a_sample_question(new_session):
    at = new_session()
    assert "answers questions about a codebase" in at.caption[0].value
    at.button(key="manual:sample").click().run()
    assert at.text_area(key="manual:question").value == "How does the engine check the fields a step writes?"


def test_stage_clicks_chat_turns_and_builds_rerun_a_fragment_not_the_page():
    # st.fragment wraps what it decorates (`__wrapped__`); a helper placed between the decorator and
    # the function it was meant for would take the decorator and every click would redraw the page.
    from ragstream.ui import builds, chat, manual

    for area in (manual._workspace, chat._conversation, builds._live):
        assert hasattr(area, "__wrapped__"), area
    assert not hasattr(manual._current, "__wrapped__")
