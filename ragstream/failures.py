"""A failure as a front end shows it and the history keeps it: the error's type, its message (the
hint after a full stop) and the traceback, so an unexpected error is never a bare type name."""
from __future__ import annotations

import json
import traceback as tracebacks
from dataclasses import asdict, dataclass

from ragstream.errors import RagstreamError


@dataclass(frozen=True)
class Failure:
    kind: str  # "<layer> error" for a RagstreamError, else "unexpected <type>"
    message: str
    traceback: str

    @classmethod
    def of(cls, exc: BaseException) -> Failure:
        trace = "".join(tracebacks.format_exception(exc))
        if isinstance(exc, RagstreamError):
            return cls(f"{exc.layer} error", sentence(exc), trace)
        return cls(f"unexpected {type(exc).__name__}", str(exc) or "(the error has no message)", trace)

    def headline(self) -> str:
        return f"{self.kind} · {self.message}"

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Failure:
        return cls(**json.loads(text))


def sentence(exc: RagstreamError) -> str:
    """The error as one line of prose: where, what, then "Hint: ..." after a full stop."""
    text = f"{exc.where}: {exc.message}" if exc.where else exc.message
    if not exc.hint:
        return text
    return f"{text.rstrip('.')}. Hint: {exc.hint[0].upper()}{exc.hint[1:]}"
