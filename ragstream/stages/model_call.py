"""A stage's model path: render the role's prompt, call the model, parse the reply strictly.

A malformed reply is asked for again once, with the parse error; if it is still malformed, or
the model cannot be reached (or its reply is unreadable, or a deadline passed), the stage falls
back to its deterministic path and the trace says why. Every call made is returned for the trace.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ragstream.errors import ModelError, ProtocolError
from ragstream.llm.client import LLMClient
from ragstream.llm.prompts import render

T = TypeVar("T")


@dataclass
class ModelReply(Generic[T]):
    value: T | None  # None: use the deterministic path
    calls: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    failure: str = ""  # why the model's reply is not used (empty: it is, or no call was made)

    @property
    def path(self) -> str:
        return "model" if self.value is not None else "deterministic (model fallback)"

    def decisions(self) -> dict:
        """What a stage adds to its trace decisions."""
        return {"path": self.path, "llm_calls": self.calls, "warnings": self.warnings}


def ask(llm: LLMClient, role: str, values: Mapping[str, str], parse: Callable[[str], T], *,
        stream: Callable[[], Callable[[str], None]] | None = None,
        schema: Mapping[str, Any] | None = None) -> ModelReply[T]:
    """`parse`d reply of `role`'s model; `stream` makes a fresh token sink for each attempt;
    `schema` (JSON Schema) lets a server that can enforce it do so."""
    messages = render(role, values)
    reply: ModelReply[T] = ModelReply(None)
    for attempt in range(2):
        try:
            completion = llm.complete(role, messages, on_token=stream() if stream else None, schema=schema)
        except ModelError as exc:
            reply.failure = exc.message
            reply.warnings.append(f"{role} model failed ({exc.message}); deterministic path used")
            return reply
        reply.calls.append(completion.call.as_trace())
        try:
            reply.value = parse(completion.text)
            return reply
        except ProtocolError as exc:
            if attempt == 1:
                reply.failure = f"its reply was malformed twice ({exc.message})"
                reply.warnings.append(f"{role} reply malformed twice ({exc.message}); deterministic path used")
                return reply
            reply.warnings.append(f"{role} reply malformed ({exc.message}); asked again")
            messages = [*messages, {"role": "assistant", "content": completion.text},
                        {"role": "user", "content": f"Your reply could not be parsed: {exc.message}. "
                                                    "Reply again, following the output contract exactly."}]
    return reply
