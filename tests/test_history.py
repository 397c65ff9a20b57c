"""The history store and the conversation window: rolling summary pointer and version, the
history budget, concurrent writers."""
from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from openai_server import ScriptedServer
from ragstream.config import load_settings
from ragstream.errors import HistoryError
from ragstream.history import HistoryStore
from ragstream.llm.client import LLMClient
from ragstream.stages.conversation import HISTORY_HEADING, load_conversation_history, render_history, turn_cost
from ragstream.super_prompt import SuperPrompt
from ragstream.token_count import token_counter

COUNTER = token_counter()
SHARE = 0.4  # of the history budget, for the summary


def words(n: int, word: str) -> str:
    return " ".join([word] * n)


def add(store: HistoryStore, session: str, n: int) -> int:
    """A turn of about 20 tokens (question and answer 10 each)."""
    return store.add_turn(session, question_raw=f"q{n}", question_en=words(5, f"question{n}"),
                          answer_en=words(5, f"answer{n}"), answer=words(5, f"answer{n}"), pipeline="base",
                          index_name="self")


def load(store: HistoryStore, session: str, budget: int, llm: LLMClient | None = None) -> SuperPrompt:
    sp = SuperPrompt(question_raw="what next?", question_en="what next?", extras={"session": {"id": session}})
    load_conversation_history(sp, store, llm, COUNTER, {"id": "history"},
                              {"max_history_tokens": budget, "history_summary_share": SHARE})
    return sp


def tokens(sp: SuperPrompt) -> int:
    """Tokens of the history block exactly as the prompt renders it."""
    return COUNTER.count(render_history(sp.history_for_prompt))


def five_turns_budget(store: HistoryStore, session: str) -> int:
    """A budget with room for exactly five of this test's turns (all cost the same): three fit
    raw, six do not, and 40% of it (the summary's share) is two turns' worth."""
    costs = {turn_cost(t, COUNTER.count) for t in store.turns(session)}
    assert len(costs) == 1, costs
    return 5 * costs.pop() + COUNTER.count(HISTORY_HEADING)


@pytest.fixture
def store(tmp_path: Path) -> HistoryStore:
    return HistoryStore(tmp_path / "history.sqlite")


def test_the_summary_pointer_and_version_advance_exactly_as_specified(store):
    session = store.create_session("t")
    ids = [add(store, session, n) for n in range(3)]
    budget = five_turns_budget(store, session)

    sp = load(store, session, budget)  # 3 turns: all raw
    assert store.latest_summary(session) is None and len(sp.history_for_prompt) == 6
    assert sp.extras["history"]["raw_turns"] == ids and sp.extras["history"]["summary"] is None

    ids += [add(store, session, n) for n in range(3, 6)]  # 6 turns: over the budget
    sp = load(store, session, budget)
    first = store.latest_summary(session)
    assert (first.version, first.last_turn_id) == (1, ids[2])  # the older half folded, the newest 60 raw
    assert sp.extras["history"]["folded_turns"] == ids[:3] and sp.extras["history"]["raw_turns"] == ids[3:]
    assert sp.history_for_prompt[0] == {"role": "summary", "content": first.text}
    # two turns' worth of tokens hold one summary line: the oldest lines go first
    assert first.text.startswith("- Q: question2") and "question5" not in first.text

    sp = load(store, session, budget)  # nothing new: the stored summary still fits, no new version
    assert store.latest_summary(session) == first and sp.extras["history"]["folded_turns"] == []

    ids.append(add(store, session, 6))  # summary + 4 newer turns overflow again
    sp = load(store, session, budget)
    second = store.latest_summary(session)
    assert (second.version, second.last_turn_id) == (2, ids[3])
    assert sp.extras["history"]["folded_turns"] == [ids[3]]  # only what followed the pointer, never the whole log
    assert sp.extras["history"]["raw_turns"] == ids[4:]
    assert tokens(sp) <= budget


def test_the_summarizer_model_sees_the_previous_summary_and_only_the_new_turns(store):
    session = store.create_session()
    for n in range(6):
        add(store, session, n)
    budget = five_turns_budget(store, session)
    load(store, session, budget)  # v1, extractive
    add(store, session, 6)
    with ScriptedServer() as server:
        server.queue("sum", "- turns up to 3: question3 asked")
        llm_settings = load_settings(overrides={"llm": {"provider": "openai", "base_url": server.base_url,
                                                        "roles": {"summarizer": "sum"}}}).llm
        sp = load(store, session, budget, LLMClient(llm_settings))
        prompt = server.requests_for("sum")[0]["messages"][1]["content"]
    assert "question3" in prompt and "question2" not in prompt.split("Turns to add to it:")[1]
    assert "question2" in prompt.split("Turns to add to it:")[0]  # via the previous summary
    assert store.latest_summary(session).text == "- turns up to 3: question3 asked"
    assert sp.extras["history"]["path"] == "model" and sp.extras["history"]["llm_calls"][0]["role"] == "summarizer"


@hypothesis_settings(max_examples=25, deadline=None)
@given(sizes=st.lists(st.integers(1, 300), min_size=1, max_size=12), budget=st.integers(40, 400))
def test_the_injected_history_never_exceeds_its_budget(tmp_path_factory, sizes, budget):
    store = HistoryStore(tmp_path_factory.mktemp("h") / "history.sqlite")
    session = store.create_session()
    for n, size in enumerate(sizes):
        store.add_turn(session, question_raw="q", question_en=words(size, f"ask{n}"), answer_en=words(size, f"ans{n}"),
                       answer="", pipeline="base", index_name="x")
        sp = load(store, session, budget)
        assert tokens(sp) <= budget
        summary = store.latest_summary(session)
        assert summary is None or summary.text.strip()  # never an empty summary


def test_no_session_means_no_history(store):
    sp = SuperPrompt(question_raw="q")
    load_conversation_history(sp, store, None, COUNTER, {"id": "history"},
                              {"max_history_tokens": 100, "history_summary_share": SHARE})
    assert sp.history_for_prompt == [] and "single question" in sp.extras["history"]["note"]


def test_an_unknown_session_is_a_clear_error(store):
    with pytest.raises(HistoryError, match="no session 'nope'"):
        store.turns("nope")


def _write_turns(path: str, session: str, writer: int, count: int) -> None:
    store = HistoryStore(path)
    for n in range(count):
        store.add_turn(session, question_raw=f"w{writer}-{n}", question_en="q", answer_en="a", answer="a",
                       pipeline="base", index_name="x")


@pytest.mark.slow
def test_concurrent_writers_in_several_processes_lose_no_turn(tmp_path):
    path = str(tmp_path / "history.sqlite")
    session = HistoryStore(path).create_session()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_turns, args=(path, session, w, 40)) for w in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    turns = HistoryStore(path).turns(session)
    assert len(turns) == 160 and len({t.id for t in turns}) == 160
    for w in range(4):  # each writer's turns are all there, in its own order
        assert [t.question_raw for t in turns if t.question_raw.startswith(f"w{w}-")] == [f"w{w}-{n}" for n in range(40)]


def test_a_session_keeps_to_the_scope_of_its_first_question(store):
    session = store.create_session()
    wide = SuperPrompt(question_raw="q", repository="r", branch="main", retrieval_filters={"acl_tags_any": ["dba", "public"]},
                       extras={"session": {"id": session}})
    load_conversation_history(wide, store, None, COUNTER, {"id": "history"},
                              {"max_history_tokens": 100, "history_summary_share": SHARE})
    same = SuperPrompt(question_raw="q", repository="r", branch="main", retrieval_filters={"acl_tags_any": ["public", "dba"]},
                       extras={"session": {"id": session}})
    load_conversation_history(same, store, None, COUNTER, {"id": "history"},
                              {"max_history_tokens": 100, "history_summary_share": SHARE})  # order is no difference
    narrow = SuperPrompt(question_raw="q", repository="r", branch="main", retrieval_filters={"acl_tags_any": ["public"]},
                         extras={"session": {"id": session}})
    with pytest.raises(HistoryError, match="runs under") as error:
        load_conversation_history(narrow, store, None, COUNTER, {"id": "history"},
                                  {"max_history_tokens": 100, "history_summary_share": SHARE})
    assert "new session" in error.value.hint


def test_an_older_history_file_gains_the_scope_column(tmp_path):
    import sqlite3

    path = tmp_path / "history.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL, created REAL NOT NULL)")
        db.execute("INSERT INTO sessions VALUES ('old', 'kept', 1.0)")
    store = HistoryStore(path)
    store.bind_scope("old", "{}")
    assert [s.id for s in store.sessions()] == ["old"]
