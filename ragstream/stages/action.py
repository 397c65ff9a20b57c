"""What a pipeline step may name: an `Action`, declared once, in its stage module.

An action says what it is (`name`, its `stage` in the fixed vocabulary), what a step may set
on it (`params`, with their types), how it can end (`outcomes`, for `on_<outcome>` branches),
which `SuperPrompt` fields it reads and which it writes, and how it runs (`run`). The registry
(`pipeline/registry.py`) collects the actions from the stage modules, the loader validates
steps against them, and the engine holds every step to what its action declares.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from ragstream.errors import PipelineError
from ragstream.super_prompt import SuperPrompt

if TYPE_CHECKING:
    from ragstream.history import HistoryStore
    from ragstream.llm.client import LLMClient
    from ragstream.retrieval.store_backend import StoreBackend
    from ragstream.token_count import TokenCounter

# The fixed stage vocabulary (docs/DESIGN.md): every action belongs to one stage.
STAGES = ("normalize", "route", "retrieve", "rerank", "expand", "condense", "build_prompt", "answer")
# Every field of the state, for an action that reads it whole (to store it, say).
WHOLE_STATE = frozenset(f.name for f in fields(SuperPrompt))
# What every call to the backend is asked under: the index and the caller's filters.
SCOPE = frozenset({"repository", "branch", "active_index", "retrieval_filters"})
# The question: in English when normalize translated it (`question_en`), else as asked.
QUESTION = frozenset({"question_en", "question_raw"})


@dataclass(frozen=True)
class Runtime:
    """What actions use but never keep: built once, passed to every step. `on_token` receives
    the answer as it streams (a chat turn sets it on a copy)."""

    backend: StoreBackend
    counter: TokenCounter
    llm: LLMClient | None = None
    history: HistoryStore | None = None
    on_token: Callable[[str], None] | None = None


@dataclass(frozen=True)
class Action:
    """One action. `reads` and `writes` name whole fields (`node_texts`) or one key of a shared
    dict field (`budget.context`, `extras.route`): a step's writes are held to the key, so
    re-running a step clears only its own part; its reads are held to the field. A field an
    action writes it may also read."""

    name: str
    stage: str
    run: Callable[[SuperPrompt, Runtime, dict[str, Any], Mapping[str, Any]], str]
    outcomes: tuple[str, ...] = ("ok",)
    params: Mapping[str, type | tuple[type, ...]] = field(default_factory=dict)
    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise PipelineError(f"action {self.name!r} names stage {self.stage!r}; stages: {list(STAGES)}",
                                where=f"action {self.name}")
        unknown = sorted(n for n in {w.split(".", 1)[0] for w in self.reads | self.writes} if n not in WHOLE_STATE)
        if unknown:
            raise PipelineError(f"action {self.name!r} declares unknown state field(s) {unknown}",
                                where=f"action {self.name}")

    @property
    def fields_read(self) -> frozenset[str]:
        """The state fields the action may read: those it declares reading or writing."""
        return frozenset(name.split(".", 1)[0] for name in self.reads | self.writes)
