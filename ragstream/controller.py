"""What the CLI and the workbench call: one place that builds the runtime and runs pipelines."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ragstream.config import LLMSettings, Settings
from ragstream.errors import PipelineError, RagstreamError
from ragstream.history import HistoryStore
from ragstream.llm.connect import connect
from ragstream.pipeline.engine import Engine, Runtime, StepResult
from ragstream.pipeline.loader import Pipeline, load_pipeline
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.super_prompt import SuperPrompt, field_default
from ragstream.tokens import token_counter


HISTORY_FILE = "history.sqlite"  # in index.data_dir, beside the indexes


@dataclass(frozen=True)
class Scope:
    repository: str
    branch: str
    active_index: str | None = None
    retrieval_filters: dict[str, list[str]] = field(default_factory=dict)


class Controller:
    """Holds the runtime (backend with its loaded indexes, token counter, language-model client,
    history store) for a process; `close` stops what it started (a local model server)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._resources = ExitStack()
        llm = self._resources.enter_context(connect(settings.llm))
        self.history = HistoryStore(Path(settings.index.data_dir) / HISTORY_FILE)
        self.runtime = Runtime(LocalBackend(settings), token_counter(settings.tokens.encoding), llm, self.history)

    def close(self) -> None:
        self._resources.close()

    def __enter__(self) -> "Controller":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def pipeline(self, name: str, overrides: dict[str, Any] | None = None) -> Pipeline:
        retrieval = self.settings.retrieval
        defaults = {**vars(self.settings.limits), "keyword_semantic_weight": retrieval.keyword_semantic_weight,
                    "keyword_keyword_weight": retrieval.keyword_keyword_weight}
        pipeline = load_pipeline(name, overrides=overrides, defaults=defaults)
        fitted = fit_local_window(pipeline.settings, self.settings.llm)
        if not fitted:
            return pipeline
        pipeline = load_pipeline(name, overrides={**(overrides or {}), **fitted}, defaults=defaults)
        said = ", ".join(f"{key} {value}" for key, value in fitted.items())
        return replace(pipeline, warnings=(*pipeline.warnings, f"lowered to fit the local model's window of "
                                           f"{self.settings.llm.local_ctx_size} tokens (llm.local_ctx_size): {said}"))

    def new_state(self, question: str, scope: Scope, is_english: bool = True) -> SuperPrompt:
        return SuperPrompt(question_raw=question, is_english=is_english, retrieval_query=question,
                           repository=scope.repository, branch=scope.branch, active_index=scope.active_index,
                           retrieval_filters=dict(scope.retrieval_filters))

    def run(self, question: str, scope: Scope, pipeline: Pipeline, is_english: bool = True, *,
            session_id: str | None = None,
            on_token: Callable[[str], None] | None = None) -> tuple[SuperPrompt, list[StepResult]]:
        """Auto mode: the question through every step of the pipeline. With a `session_id` it is
        a turn of that conversation (its history is loaded, the turn persisted); `on_token`
        receives a model's answer as it streams."""
        engine = Engine(pipeline, replace(self.runtime, on_token=on_token))
        sp = self.new_state(question, scope, is_english)
        if session_id:
            sp.extras = {"session": {"id": session_id, "pipeline": pipeline.name}}
        engine.start(sp)
        return sp, engine.run(sp)


# What a prompt holds besides its budgets (system text, question, format rules, headings).
PROMPT_OVERHEAD_TOKENS = 800
CHARS_PER_TOKEN = 3  # a cautious average for code
BUDGETS = ("max_context_tokens", "max_history_tokens", "max_attachment_tokens")


def fit_local_window(settings: Mapping[str, Any], llm: LLMSettings) -> dict[str, int]:
    """Pipeline overrides that make a local model's prompts fit its context window: the prompt
    budgets scaled down together, and the gate's candidate texts cut so that all of them fit.
    Empty when nothing needs lowering (or the model is not local: a server knows its own)."""
    if llm.provider != "local":
        return {}
    room = llm.local_ctx_size - llm.max_reply_tokens - PROMPT_OVERHEAD_TOKENS
    total = sum(settings[key] for key in BUDGETS)
    lowered = {key: max(1, settings[key] * room // total) for key in BUDGETS} if total > room else {}
    gate_chars = room * CHARS_PER_TOKEN // settings["N2_RERANK_TOP_K"]
    if gate_chars < settings["gate_candidate_chars"]:
        lowered["gate_candidate_chars"] = max(1, gate_chars)
    return lowered


@dataclass(frozen=True)
class Click:
    """What one button press did: the step's result, or the error to show instead."""

    result: StepResult | None = None
    error: RagstreamError | None = None


class ManualSession:
    """Manual mode: one step per click, in pipeline order; re-running an earlier step first
    clears every field that it and the steps after it wrote."""

    def __init__(self, controller: Controller, pipeline: Pipeline, question: str, scope: Scope,
                 is_english: bool = True):
        self.engine = Engine(pipeline, controller.runtime)
        self.state = self.engine.start(controller.new_state(question, scope, is_english))
        self._ran: list[str] = []  # this pass's steps, in order

    @property
    def enabled(self) -> list[str]:
        """The steps a person may click now: those already run, and the next one."""
        return self._ran + ([self.state.stage] if self.state.stage else [])

    def click(self, step_id: str) -> Click:
        try:
            if step_id not in self.enabled:
                raise PipelineError(f"step {step_id!r} is not available now; enabled: {self.enabled}",
                                    where=self.engine.pipeline.name)
            if step_id in self._ran:
                self._rewind(step_id)
            result = self.engine.step(self.state)
            self._ran.append(result.step)
            return Click(result=result)
        except RagstreamError as exc:
            return Click(error=exc)

    def _rewind(self, step_id: str) -> None:
        undone = self._ran[self._ran.index(step_id):]
        steps = self.engine.pipeline.steps
        for write in sorted({w for s in undone for w in self.engine.actions[steps[s].action].writes}):
            name, _, key = write.partition(".")
            if key:  # one key of a shared dict field: the other steps' keys stay
                setattr(self.state, name, {k: v for k, v in getattr(self.state, name).items() if k != key})
            else:
                setattr(self.state, name, field_default(name))
        self._ran = self._ran[: self._ran.index(step_id)]
        self.state.stage = step_id

