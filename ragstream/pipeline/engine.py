"""One engine for both modes: `step` runs the next step (a button click), `run` steps to the end.

Each action declares the state fields it reads and writes (`stages/action.py`); the step runs on
a copy of the state that notes every field read, and afterwards the engine compares that copy
with the state and fails loudly if the step read or changed anything it does not declare. The next
step is chosen by the step's outcome (`on_<outcome>`, else `next`). The state itself records
where it is (`stage`: the step to run next, "" when finished), the steps it ran
(`history_of_stages`, append-only) and a trace entry per step.
"""
from __future__ import annotations

import copy
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ragstream.errors import PipelineError
from ragstream.pipeline.loader import Pipeline
from ragstream.pipeline.registry import REGISTRY
from ragstream.stages.action import Action, Runtime
from ragstream.super_prompt import SuperPrompt

__all__ = ["Engine", "Runtime", "StepResult"]

BOOKKEEPING = frozenset({"stage", "history_of_stages", "trace"})
FIELDS = frozenset(f.name for f in fields(SuperPrompt))
READ_LOG = "_fields_read"  # where a step's state notes the fields read (in its instance dict, no field)


class _ReadRecorder(SuperPrompt):
    """The state an action runs on: a `SuperPrompt` that notes every field read."""

    def __getattribute__(self, name: str) -> Any:
        if name in FIELDS:
            object.__getattribute__(self, "__dict__").setdefault(READ_LOG, set()).add(name)
        return object.__getattribute__(self, name)


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
    def __init__(self, pipeline: Pipeline, runtime: Runtime, actions: Mapping[str, Action] = REGISTRY):
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
        # The action works on a copy, kept only if it succeeds and reads and writes what it
        # declares: a failed or misbehaving step leaves the state exactly as it was.
        work = copy.deepcopy(sp)
        work.__class__ = _ReadRecorder
        started = time.perf_counter()
        try:
            outcome = action.run(work, self.runtime, {"id": step.id, **step.params}, self.pipeline.settings)
        finally:
            work.__class__ = SuperPrompt
        seconds = time.perf_counter() - started
        undeclared = sorted(vars(work).pop(READ_LOG, set()) - action.fields_read - BOOKKEEPING)
        if undeclared:
            raise PipelineError(f"{step.action} read fields it does not declare: {undeclared}",
                                where=f"{step.source}: step {step.id}")
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
            "step": step.id, "action": step.action, "stage": action.stage, "outcome": outcome,
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
        results: list[StepResult] = []
        # Each follow-up loop re-runs the steps once more; any other cycle needs its own guard.
        limit = len(self.pipeline.steps) * (self.pipeline.settings.get("max_turn_loops", 0) + 2)
        while sp.stage:
            if len(results) == limit:
                raise PipelineError(f"ran {limit} steps without finishing: a loop without a guard",
                                    where=self.pipeline.name)
            results.append(self.step(sp))
        return results
