"""Typed errors: one hierarchy under RagstreamError, one class per layer.

Every error carries where it came from (a file, line, setting, step or stage), so a message
can always say what was wrong and where.
"""
from __future__ import annotations


class RagstreamError(Exception):
    """Base of every error ragstream raises on purpose."""

    layer = "ragstream"

    def __init__(self, message: str, *, where: str | None = None, hint: str | None = None):
        self.message = message
        self.where = where
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        return f"{text}\n  hint: {self.hint}" if self.hint else text

    def __reduce__(self):
        # Whole across processes (a parse worker's error reaches the build as raised).
        return _restore, (type(self), self.message, self.where, self.hint)


def _restore(cls: type[RagstreamError], message: str, where: str | None, hint: str | None) -> RagstreamError:
    return cls(message, where=where, hint=hint)


class ConfigError(RagstreamError):
    """A setting or configuration file is missing or invalid (where = file and key)."""

    layer = "config"


class IndexingError(RagstreamError):
    """Walking, parsing, embedding or writing an index failed (where = path)."""

    layer = "index"


class IndexLoadError(IndexingError):
    """An index on disk is missing, partial, corrupt or of another format version."""


class PipelineError(RagstreamError):
    """A pipeline file or a step is invalid (where = file and step)."""

    layer = "pipeline"


class RetrievalError(RagstreamError):
    """A search or fetch request is invalid or cannot be served (where = request field)."""

    layer = "retrieval"


class FilterError(RetrievalError):
    """A retrieval filter cannot be applied as written (where = retrieval_filters.<key>; the
    message names the value). Refused rather than read loosely: a loose filter widens access."""


class HistoryError(RagstreamError):
    """The conversation history cannot be read or written (where = the file)."""

    layer = "history"


class ModelError(RagstreamError):
    """A model (embedding, cross-encoder, LLM) cannot be loaded or called (where = setting)."""

    layer = "model"


class ProtocolError(ModelError):
    """A reply (from a model or the rule-based stand-in) breaks its one-line protocol."""


class OutputError(RagstreamError):
    """A file a command was asked to write cannot be written there (where = the option and path)."""

    layer = "output"


class QuestionError(RagstreamError):
    """A question cannot be asked as given: empty, or longer than the limit (where = the setting)."""

    layer = "question"


class ServeError(RagstreamError):
    """`ragstream serve` cannot serve, or a request it was sent is malformed (where = the socket
    or the request's field)."""

    layer = "serve"
