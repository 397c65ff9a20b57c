"""One engine for both modes: `step` runs the next step (a button click), `run` steps to the end.

Each action declares the state fields it writes; after every step the engine compares the
state with its copy from before the step and fails loudly if anything else changed. The next
step is chosen by the step's outcome (`on_<outcome>`, else `next`). The state itself records
where it is (`stage`: the step to run next, "" when finished), the steps it ran
(`history_of_stages`, append-only) and a trace entry per step.
"""
from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ragstream.errors import PipelineError
from ragstream.graph.actions import expand_graph, fill_node_texts
from ragstream.pipeline.loader import Pipeline
from ragstream.pipeline.registry import REGISTRY
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.history import HistoryStore
from ragstream.llm.client import LLMClient
from ragstream.stages import answer, build_prompt, condense, conversation, normalize, relate, rerank, retrieve, route
from ragstream.super_prompt import GRAPH_FIELDS, SuperPrompt
from ragstream.token_count import TokenCounter

BOOKKEEPING = frozenset({"stage", "history_of_stages", "trace"})


@dataclass(frozen=True)
class Runtime:
    """What actions use but never keep: built once, passed to every step. `on_token` receives
    the answer as it streams (a chat turn sets it on a copy)."""

    backend: LocalBackend
    counter: TokenCounter
    llm: LLMClient | None = None
    history: HistoryStore | None = None
    on_token: Callable[[str], None] | None = None


@dataclass(frozen=True)
class Action:
    """An action and what it writes: whole fields (`node_texts`), or one key of a shared dict
    field (`budget.context`, `extras.route`), so re-running a step clears only its own part."""

    run: Callable[[SuperPrompt, Runtime, dict[str, Any], Mapping[str, Any]], str]
    writes: frozenset[str]


ACTIONS: dict[str, Action] = {
    "normalize": Action(lambda sp, rt, step, settings: normalize.run(sp, rt.llm, step, settings), normalize.WRITES),
    "route": Action(lambda sp, rt, step, settings: route.run(sp, rt.backend, rt.llm, step, settings), route.WRITES),
    "retrieve": Action(lambda sp, rt, step, settings: retrieve.run(sp, rt.backend, step, settings), retrieve.WRITES),
    "rerank": Action(lambda sp, rt, step, settings: rerank.run(sp, rt.backend, rt.llm, step, settings),
                     rerank.WRITES),
    "relate": Action(lambda sp, rt, step, settings: relate.run(sp, rt.backend, step, settings), relate.WRITES),
    "expand": Action(lambda sp, rt, step, settings: expand_graph(sp, rt.backend, step, settings),
                     frozenset(GRAPH_FIELDS)),
    "fetch_node_texts": Action(lambda sp, rt, step, settings: fill_node_texts(sp, rt.backend, rt.counter, step, settings),
                               frozenset({"node_texts", "budget.node_texts"})),
    "load_conversation_history": Action(
        lambda sp, rt, step, settings: conversation.load_conversation_history(sp, rt.history, rt.llm, rt.counter,
                                                                              step, settings),
        conversation.LOAD_WRITES),
    "condense": Action(lambda sp, rt, step, settings: condense.run(sp, rt.backend, rt.llm, rt.counter, step, settings),
                       condense.WRITES),
    "build_prompt": Action(
        lambda sp, rt, step, settings: build_prompt.run(sp, rt.backend, rt.llm, rt.counter, step, settings),
        build_prompt.WRITES),
    "answer": Action(lambda sp, rt, step, settings: answer.run(sp, rt.backend, rt.llm, rt.on_token, step, settings),
                     answer.WRITES),
    "loop_guard": Action(lambda sp, rt, step, settings: answer.loop_guard(sp, rt.llm, step, settings),
                         answer.LOOP_WRITES),
    "persist_turn_and_finalize": Action(
        lambda sp, rt, step, settings: conversation.persist_turn_and_finalize(sp, rt.history, step, settings),
        conversation.PERSIST_WRITES),
}


@dataclass(frozen=True)
class StepResult:
    step: str
    action: str
    outcome: str
    next_step: str | None
    seconds: float
    changed: tuple[str, ...]  # state fields the step changed (bookkeeping excluded)


def _declared(name: str, before: Any, after: Any, writes: frozenset[str]) -> bool:
    """Whether a change to field `name` stays within what the action declares."""
    if name in writes or name in BOOKKEEPING:
        return True
    keys = {w.split(".", 1)[1] for w in writes if w.startswith(name + ".")}
    if not keys or not isinstance(before, dict) or not isinstance(after, dict):
        return False
    return ({k: v for k, v in before.items() if k not in keys} == {k: v for k, v in after.items() if k not in keys})


class Engine:
    def __init__(self, pipeline: Pipeline, runtime: Runtime, actions: Mapping[str, Action] = ACTIONS):
        missing = sorted({s.action for s in pipeline.steps.values()} - set(actions))
        if missing:
            raise PipelineError(f"actions {missing} are declared but not implemented", where=pipeline.files[-1])
        self.pipeline = pipeline
        self.runtime = runtime
        self.actions = actions

    def start(self, sp: SuperPrompt) -> SuperPrompt:
        """Point a fresh state at the entry step."""
        sp.stage = self.pipeline.entry
        return sp

    def step(self, sp: SuperPrompt) -> StepResult:
        """Run the state's next step and move it on."""
        if not sp.stage:
            raise PipelineError("the pipeline has finished; start a new question", where=self.pipeline.name)
        if sp.stage not in self.pipeline.steps:
            raise PipelineError(f"the state is at unknown step {sp.stage!r}", where=self.pipeline.name)
        step = self.pipeline.steps[sp.stage]
        action = self.actions[step.action]
        # The action works on a copy, kept only if it succeeds and writes what it declares:
        # a failed or misbehaving step leaves the state exactly as it was.
        work = copy.deepcopy(sp)
        started = time.perf_counter()
        outcome = action.run(work, self.runtime, {"id": step.id, **step.params}, self.pipeline.settings)
        seconds = time.perf_counter() - started
        changed = tuple(f.name for f in fields(sp) if getattr(work, f.name) != getattr(sp, f.name))
        undeclared = sorted(name for name in changed
                            if not _declared(name, getattr(sp, name), getattr(work, name), action.writes))
        if undeclared:
            raise PipelineError(f"{step.action} wrote fields it does not declare: {undeclared}",
                                where=f"{step.source}: step {step.id}")
        for name in changed:
            setattr(sp, name, getattr(work, name))
        next_step = self.pipeline.transition(step, outcome)
        decisions = {w: work.extras.get(w.split(".", 1)[1]) for w in sorted(action.writes) if w.startswith("extras.")}
        # What a step reports about itself (path, model calls, warnings) sits in its keyed writes.
        reports = [d for d in [*decisions.values(), *(work.budget.get(w.split(".", 1)[1]) for w in action.writes
                                                     if w.startswith("budget."))] if isinstance(d, dict)]
        sp.history_of_stages.append(step.id)
        sp.trace.append({
            "step": step.id, "action": step.action, "stage": REGISTRY[step.action].stage, "outcome": outcome,
            "seconds": round(seconds, 4), "changed": list(changed),
            # which path ran: a stage that records one says so; the rest have only a deterministic path
            "path": next((d["path"] for d in reports if "path" in d), "deterministic"),
            "counts": {name: len(getattr(sp, name)) for name in changed
                       if isinstance(getattr(sp, name), (list, dict))},
            "decisions": decisions,
            "warnings": [w for d in reports for w in d.get("warnings", [])],
            "llm_calls": [c for d in reports for c in d.get("llm_calls", [])],
        })
        sp.stage = next_step or ""
        return StepResult(step.id, step.action, outcome, next_step, seconds, changed)

    def run(self, sp: SuperPrompt) -> list[StepResult]:
        """Step until the pipeline ends (a step with no transition for its outcome)."""
        results = []
        # Each follow-up loop re-runs the steps once more; any other cycle needs its own guard.
        limit = len(self.pipeline.steps) * (self.pipeline.settings.get("max_turn_loops", 0) + 2)
        while sp.stage:
            if len(results) == limit:
                raise PipelineError(f"ran {limit} steps without finishing: a loop without a guard",
                                    where=self.pipeline.name)
            results.append(self.step(sp))
        return results
