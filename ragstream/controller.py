"""What the CLI and the workbench call: one place that builds the runtime and runs pipelines."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragstream.config import Settings
from ragstream.pipeline.engine import Engine, Runtime, StepResult
from ragstream.pipeline.loader import Pipeline, load_pipeline
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.super_prompt import SuperPrompt
from ragstream.tokens import token_counter


@dataclass(frozen=True)
class Scope:
    repository: str
    branch: str
    active_index: str | None = None
    retrieval_filters: dict[str, list[str]] = field(default_factory=dict)


class Controller:
    """Holds the runtime (backend with its loaded indexes, token counter) for a session."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.runtime = Runtime(LocalBackend(settings), token_counter(settings.tokens.encoding))

    def pipeline(self, name: str, overrides: dict[str, Any] | None = None) -> Pipeline:
        return load_pipeline(name, overrides=overrides)

    def new_state(self, question: str, scope: Scope) -> SuperPrompt:
        return SuperPrompt(question_raw=question, retrieval_query=question, repository=scope.repository,
                           branch=scope.branch, active_index=scope.active_index,
                           retrieval_filters=dict(scope.retrieval_filters))

    def run(self, question: str, scope: Scope, pipeline: Pipeline) -> tuple[SuperPrompt, list[StepResult]]:
        """Auto mode: the question through every step of the pipeline."""
        engine = Engine(pipeline, self.runtime)
        sp = engine.start(self.new_state(question, scope))
        return sp, engine.run(sp)
