"""One client for every language-model call: an OpenAI-compatible endpoint and a model per role.

Temperature 0 and a fixed seed by default; streaming when the caller wants tokens as they come;
retries with exponential backoff (2, 4, 8, 16, 32 s) on 429, 5xx, timeouts and connection
errors, honouring `Retry-After`. Every call returns a `CallRecord` (role, model, tokens,
latency, retries) that the calling stage puts in its trace. Provider `none` makes no call, ever.
"""
from __future__ import annotations

import datetime
import email.utils
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ragstream.config import LLMSettings
from ragstream.errors import ConfigError, ModelError

DEFAULT_MODEL = "gpt-4o-mini"
NO_MODEL = "none"  # a role set to this runs its stage's deterministic path
Message = Mapping[str, str]


@dataclass(frozen=True)
class CallRecord:
    role: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    retries: int
    streamed: bool
    usage_reported: bool  # False: the server sent no usage, the token counts are our own count

    def as_trace(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Completion:
    text: str
    call: CallRecord


# (role, JSON schema or None) -> request fields that constrain the reply on a server that can
Constraints = Callable[[str, Mapping[str, Any] | None], dict[str, Any]]


class LLMClient:
    """Calls the configured endpoint. `constraints` adds request fields that make a server
    enforce a role's reply format (a llama.cpp grammar or JSON schema); without it a caller's
    schema is only the prompt's contract."""

    def __init__(self, settings: LLMSettings, *, base_url: str | None = None,
                 constraints: Constraints | None = None, sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self.constraints = constraints
        self._sleep = sleep
        self._openai = None
        self.base_url = base_url or settings.base_url or os.environ.get("OPENAI_BASE_URL", "")
        if self.enabled and settings.provider == "openai" and not self.base_url and not os.environ.get("OPENAI_API_KEY"):
            raise ConfigError("provider openai talks to the OpenAI API, which needs OPENAI_API_KEY in the "
                              "environment", where="llm.provider",
                              hint="export OPENAI_API_KEY, or set OPENAI_BASE_URL (llm.base_url) to a local server")

    @property
    def enabled(self) -> bool:
        return self.settings.provider != "none"

    def uses_model(self, role: str) -> bool:
        """Whether `role` is played by a model (else its stage runs the deterministic path)."""
        return self.enabled and self.model_for(role) != NO_MODEL

    def model_for(self, role: str) -> str:
        return (self.settings.roles.get(role) or self.settings.model or os.environ.get("RAGSTREAM_MODEL")
                or DEFAULT_MODEL)

    def complete(self, role: str, messages: Sequence[Message], *, on_token: Callable[[str], None] | None = None,
                 schema: Mapping[str, Any] | None = None) -> Completion:
        """The model's reply to `messages`; streamed through `on_token` when it is given (an
        empty piece marks the end of the stream)."""
        if not self.uses_model(role):
            raise ModelError(f"no model plays the role {role!r}", where=f"llm.roles.{role}")
        model = self.model_for(role)
        started = time.perf_counter()
        openai = _openai()
        retryable = (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError)
        where = f"llm role {role} ({model} at {self.base_url or 'api.openai.com'})"
        for attempt in range(self.settings.max_retries + 1):
            try:
                text, usage = self._request(role, model, messages, on_token, schema)
                break
            except retryable as exc:
                if attempt == self.settings.max_retries:
                    raise ModelError(f"{_describe(exc)}; gave up after {attempt} retries", where=where) from exc
                self._sleep(self._wait(attempt, exc))
            except openai.APIStatusError as exc:  # 400, 401, 404 ...: retrying cannot help
                raise ModelError(_describe(exc), where=where,
                                 hint="check the model name, the base URL and OPENAI_API_KEY") from exc
        prompt_tokens, completion_tokens = usage or (_count(m["content"] for m in messages), _count([text]))
        record = CallRecord(role, model, prompt_tokens, completion_tokens, round(time.perf_counter() - started, 4),
                            attempt, on_token is not None, usage is not None)
        return Completion(text, record)

    def _request(self, role: str, model: str, messages: Sequence[Message], on_token: Callable[[str], None] | None,
                 schema: Mapping[str, Any] | None) -> tuple[str, tuple[int, int] | None]:
        request = {"model": model, "messages": [dict(m) for m in messages],
                   "temperature": self.settings.temperature, "seed": self.settings.seed}
        if self.settings.max_reply_tokens:
            request["max_tokens"] = self.settings.max_reply_tokens
        extra = self.constraints(role, schema) if self.constraints else {}
        if on_token is None:
            response = self._client().chat.completions.create(**request, extra_body=extra or None)
            usage = response.usage
            return (response.choices[0].message.content or "",
                    (usage.prompt_tokens, usage.completion_tokens) if usage else None)
        parts: list[str] = []
        usage = None
        stream = self._client().chat.completions.create(**request, stream=True, extra_body=extra or None,
                                                        stream_options={"include_usage": True})
        try:
            for chunk in stream:
                if chunk.usage:
                    usage = (chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
                delta = chunk.choices[0].delta.content if chunk.choices else None
                if delta:
                    parts.append(delta)
                    on_token(delta)
            on_token("")  # the end of the stream: a sink holding text back lets it out
        except Exception as exc:
            if parts:  # the reader has seen part of it: a retry would show it twice
                raise ModelError(f"the stream broke after {len(parts)} pieces: {_describe(exc)}",
                                 where=f"llm role {role} ({model})") from exc
            raise
        return "".join(parts), usage

    def _client(self):
        if self._openai is None:
            self._openai = _openai().OpenAI(base_url=self.base_url or None,
                                            api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
                                            timeout=self.settings.timeout_seconds, max_retries=0)
        return self._openai

    def _wait(self, attempt: int, exc: Exception) -> float:
        """Seconds before retry `attempt + 1`: what Retry-After asks, else 2, 4, 8 ... s; capped."""
        asked = _retry_after(exc)
        backoff = self.settings.backoff_seconds * 2 ** attempt
        return min(asked if asked is not None else backoff, self.settings.max_backoff_seconds)


def _openai():
    import openai  # imported on first use: `ragstream ask --llm none` never loads it

    return openai


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # an HTTP date; one without a zone is taken as UTC, as HTTP dates are
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None  # unreadable: the usual backoff applies
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, when.timestamp() - time.time())


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    return f"HTTP {status}: {getattr(exc, 'message', exc)}" if status else f"{type(exc).__name__}: {exc}"


def _count(texts) -> int:
    from ragstream.tokens import token_counter

    return sum(token_counter().count(t) for t in texts)
