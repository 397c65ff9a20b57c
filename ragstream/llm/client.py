"""One client for every language-model call: an OpenAI-compatible endpoint and a model per role.

Temperature 0 and a fixed seed by default; streaming when the caller wants tokens as they come;
retries with exponential backoff (1, 2 s by default) on 429, 5xx, stalls and connection errors,
honouring `Retry-After`. Deadlines: no reply (or no next piece of a stream) for
`first_token_seconds` is a stall; one request, streamed or not, never runs past
`timeout_seconds`; and all calls of one question share `turn_seconds` (see `turn.py`). A reply
the wire protocol cannot read (malformed JSON, no choices) is a ModelError, like a server that
gave up, so the stage falls back to its deterministic path and says why. Every call returns a
`CallRecord` (role, model, tokens, latency, retries) that the calling stage puts in its trace.
Provider `none` makes no call, ever.
"""
from __future__ import annotations

import copy
import datetime
import email.utils
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ragstream.config import LLMSettings
from ragstream.errors import ConfigError, ModelError
from ragstream.llm.turn import Progress, ProgressSink, Turn

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


class _Retryable(Exception):
    """An attempt failed in a way another attempt may not (a stall, 429, 5xx, a dropped connection)."""

    def __init__(self, reason: str, cause: Exception | None = None):
        super().__init__(reason)
        self.reason = reason
        self.cause = cause


class LLMClient:
    """Calls the configured endpoint. `constraints` adds request fields that make a server
    enforce a role's reply format (a llama.cpp grammar or JSON schema); without it a caller's
    schema is only the prompt's contract. `for_turn` gives the client one question's calls use."""

    def __init__(self, settings: LLMSettings, *, base_url: str | None = None,
                 constraints: Constraints | None = None, sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self.constraints = constraints
        self._sleep = sleep
        self._shared: dict[str, Any] = {}  # the openai client, shared by every turn's copy
        self.turn: Turn | None = None  # None: each call is its own turn
        self.base_url = base_url or settings.base_url or os.environ.get("OPENAI_BASE_URL", "")
        if self.enabled and settings.provider == "openai" and not self.base_url and not os.environ.get("OPENAI_API_KEY"):
            raise ConfigError("provider openai talks to the OpenAI API, which needs OPENAI_API_KEY in the "
                              "environment", where="llm.provider",
                              hint="export OPENAI_API_KEY, or set OPENAI_BASE_URL (llm.base_url) to a local server")

    @property
    def enabled(self) -> bool:
        return self.settings.provider != "none"

    def for_turn(self, on_progress: ProgressSink | None = None) -> "LLMClient":
        """This client for one question: its calls share `turn_seconds` and report to `on_progress`."""
        turned = copy.copy(self)
        turned.turn = Turn.starting_now(self.settings.turn_seconds, on_progress)
        return turned

    def uses_model(self, role: str) -> bool:
        """Whether `role` is played by a model (else its stage runs the deterministic path)."""
        return self.enabled and self.model_for(role) != NO_MODEL

    def model_for(self, role: str) -> str:
        return (self.settings.roles.get(role) or self.settings.model or os.environ.get("RAGSTREAM_MODEL")
                or DEFAULT_MODEL)

    def complete(self, role: str, messages: Sequence[Message], *, on_token: Callable[[str], None] | None = None,
                 schema: Mapping[str, Any] | None = None) -> Completion:
        """The model's reply to `messages`; streamed through `on_token` when it is given (an
        empty piece marks the end of the stream). Every failure is a ModelError saying why."""
        if not self.uses_model(role):
            raise ModelError(f"no model plays the role {role!r}", where=f"llm.roles.{role}")
        turn = self.turn or Turn.starting_now(self.settings.turn_seconds)
        model = self.model_for(role)
        where = f"llm role {role} ({model} at {self.base_url or 'api.openai.com'})"
        started = time.monotonic()
        attempts = self.settings.max_retries + 1

        def tell(event: str, attempt: int, detail: str = "", wait: float = 0.0) -> None:
            turn.tell(Progress(event, role, model, attempt, attempts, round(time.monotonic() - started, 2), detail, wait))

        def fail(attempt: int, reason: str, *, endpoint: bool = True, hint: str | None = None) -> ModelError:
            if endpoint:  # the server is the trouble: the question's other calls need not wait on it
                turn.down = reason
            tell("failed", attempt, reason)
            return ModelError(reason, where=where, hint=hint)

        for attempt in range(1, attempts + 1):
            if turn.down:
                raise fail(attempt, f"not called: the endpoint already failed in this question ({turn.down})")
            left = turn.left()
            if left <= 0:
                raise fail(attempt, f"not called: this question's model time is spent "
                                    f"(llm.turn_seconds = {turn.seconds:g} s)")
            budget = min(self.settings.timeout_seconds, left)
            tell("start", attempt, f"stalls after {min(self.settings.first_token_seconds, budget):g} s without a "
                                   f"reply, gives up after {budget:g} s")
            try:
                text, usage = self._request(role, model, messages, on_token, schema, attempt, tell,
                                            time.monotonic() + budget)
                break
            except _Retryable as exc:
                wait = self._wait(attempt - 1, exc.cause)
                if attempt == attempts or time.monotonic() + wait >= turn.deadline:
                    why = "no retry left" if attempt == attempts else "the question's model time would run out"
                    raise fail(attempt, f"{exc.reason}; gave up after {attempt} attempt(s): {why}") from exc.cause
                tell("retry", attempt, f"{exc.reason}; next attempt in {wait:.1f} s", wait)
                self._sleep(wait)
            except ModelError as exc:  # a deadline passed mid-stream, or the reply was unreadable
                raise fail(attempt, exc.message) from exc
            except _openai().APIStatusError as exc:  # 400, 401, 404 ...: retrying cannot help
                raise fail(attempt, _describe(exc), endpoint=False,
                           hint="check the model name, the base URL and OPENAI_API_KEY") from exc
        tell("done", attempt)
        prompt_tokens, completion_tokens = usage or (_count(m["content"] for m in messages), _count([text]))
        record = CallRecord(role, model, prompt_tokens, completion_tokens, round(time.monotonic() - started, 4),
                            attempt - 1, on_token is not None, usage is not None)
        return Completion(text, record)

    def _request(self, role: str, model: str, messages: Sequence[Message], on_token: Callable[[str], None] | None,
                 schema: Mapping[str, Any] | None, attempt: int, tell: Callable[..., None],
                 deadline: float) -> tuple[str, tuple[int, int] | None]:
        """One attempt, within `deadline`: (text, the server's usage or None)."""
        openai = _openai()
        request = {"model": model, "messages": [dict(m) for m in messages],
                   "temperature": self.settings.temperature, "seed": self.settings.seed}
        if self.settings.max_reply_tokens:
            request["max_tokens"] = self.settings.max_reply_tokens
        extra = self.constraints(role, schema) if self.constraints else {}
        # The transport's timeout bounds connecting, the wait for a reply and every gap between
        # pieces or bytes; the total is checked as pieces or bytes come, a plain reply's body
        # included (one that trickles a byte at a time never trips a per-read timeout).
        wait = max(0.001, min(self.settings.first_token_seconds, deadline - time.monotonic()))
        try:
            if on_token is None:
                with self._client().chat.completions.with_streaming_response.create(
                        **request, extra_body=extra or None, timeout=wait) as raw:
                    body = self._read_body(raw, deadline)
                return _reply_of(_completion_of(body))
            stream = self._client().chat.completions.create(**request, stream=True, extra_body=extra or None,
                                                            stream_options={"include_usage": True}, timeout=wait)
        except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as exc:
            raise _Retryable(_describe(exc), exc) from exc
        except ValueError as exc:  # the body is no JSON (pydantic's errors are ValueErrors too)
            raise ModelError(f"the server's reply is not valid JSON: {exc}") from exc
        return self._read_stream(stream, on_token, attempt, tell, deadline)

    def _read_body(self, raw, deadline: float) -> bytes:
        """A plain reply's body, read as it comes and cut off at `deadline`."""
        received = bytearray()
        try:
            for piece in raw.iter_bytes():
                received += piece
                if time.monotonic() > deadline:
                    raise ModelError(f"the reply took longer than its deadline of {self.settings.timeout_seconds:g} s "
                                     f"(llm.timeout_seconds) or the question's time left; cut off after "
                                     f"{len(received):,} bytes of its body")
        except _http_errors() as exc:  # the body stalled past the wait, or the connection broke
            raise _Retryable(f"the reply's body stalled or broke after {len(received):,} bytes: "
                             f"{type(exc).__name__}: {exc}", exc) from exc
        return bytes(received)

    def _read_stream(self, stream, on_token: Callable[[str], None], attempt: int, tell: Callable[..., None],
                     deadline: float) -> tuple[str, tuple[int, int] | None]:
        openai = _openai()
        parts: list[str] = []
        usage = None
        try:
            for chunk in stream:
                usage = _usage_of(chunk) or usage
                delta = _delta_of(chunk)
                if delta:
                    if not parts:
                        tell("streaming", attempt)
                    parts.append(delta)
                    on_token(delta)
                if time.monotonic() > deadline:
                    stream.close()
                    raise ModelError(f"the reply took longer than its deadline of "
                                     f"{self.settings.timeout_seconds:g} s (llm.timeout_seconds) "
                                     f"or the question's time left; cut off after {len(parts)} pieces")
            on_token("")  # the end of the stream: a sink holding text back lets it out
        except ModelError:
            raise
        except (ValueError, AttributeError, TypeError, IndexError) as exc:
            raise ModelError(f"the stream held a malformed piece after {len(parts)} pieces: {exc}") from exc
        except openai.APIError as exc:
            if not parts and isinstance(exc, (openai.APIConnectionError, openai.InternalServerError)):
                raise _Retryable(f"the stream stalled or broke before its first piece: {_describe(exc)}", exc) from exc
            # the reader has seen part of it: a retry would show it twice
            raise ModelError(f"the stream broke after {len(parts)} pieces: {_describe(exc)}") from exc
        return "".join(parts), usage

    def _client(self):
        if "openai" not in self._shared:
            self._shared["openai"] = _openai().OpenAI(base_url=self.base_url or None,
                                                      api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
                                                      timeout=self.settings.timeout_seconds, max_retries=0)
        return self._shared["openai"]

    def _wait(self, attempt: int, exc: Exception | None) -> float:
        """Seconds before retry `attempt + 1`: what Retry-After asks, else 1, 2, 4 ... s; capped."""
        asked = _retry_after(exc) if exc is not None else None
        backoff = self.settings.backoff_seconds * 2 ** attempt
        return min(asked if asked is not None else backoff, self.settings.max_backoff_seconds)


def _completion_of(body: bytes):
    """The chat completion in a plain reply's body, built as the openai package builds it
    (leniently: a reply of the wrong shape is found out by `_reply_of`)."""
    from openai.types.chat import ChatCompletion

    data = json.loads(body)  # a ValueError when the body is no JSON
    return ChatCompletion.construct(**data) if isinstance(data, dict) else data


def _http_errors() -> tuple[type[Exception], ...]:
    """What reading a body can raise: the transport's errors (of the HTTP package openai uses)."""
    import httpx2

    return httpx2.TransportError, OSError


def _reply_of(response) -> tuple[str, tuple[int, int] | None]:
    """(text, usage) of a non-streamed reply; one without the expected shape is a ModelError."""
    try:
        content = response.choices[0].message.content
        usage = response.usage
        counts = (int(usage.prompt_tokens), int(usage.completion_tokens)) if usage else None
    except (AttributeError, TypeError, IndexError, KeyError, ValueError) as exc:
        raise ModelError(f"the server's reply has no readable choice: {type(exc).__name__}: {exc}") from exc
    if content is not None and not isinstance(content, str):
        raise ModelError(f"the server's reply content is {type(content).__name__}, not text")
    return content or "", counts


def _usage_of(chunk) -> tuple[int, int] | None:
    usage = getattr(chunk, "usage", None)
    return (int(usage.prompt_tokens), int(usage.completion_tokens)) if usage else None


def _delta_of(chunk) -> str | None:
    delta = chunk.choices[0].delta.content if chunk.choices else None
    if delta is not None and not isinstance(delta, str):
        raise TypeError(f"a piece's content is {type(delta).__name__}, not text")
    return delta


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
    from ragstream.token_count import token_counter

    return sum(token_counter().count(t) for t in texts)
