"""The language-model client a configuration asks for, and what it needs running."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from ragstream.config import LLMSettings
from ragstream.llm.client import LLMClient


@contextmanager
def connect(settings: LLMSettings) -> Iterator[LLMClient]:
    """A client for `settings.provider`: `none` (never calls anything), `openai` (OpenAI or any
    compatible server), or `local` (a llama.cpp server ragstream starts, and stops on exit)."""
    if settings.provider != "local":
        yield LLMClient(settings)
        return
    from ragstream.llm.grammars import extra_body_for
    from ragstream.llm.local_server import LocalServer, LocalServerOptions

    options = LocalServerOptions(ctx_size=settings.local_ctx_size,
                                 max_tokens=settings.max_reply_tokens or LocalServerOptions.max_tokens)
    with LocalServer(settings.local_gguf or None, options=options) as server:
        # one model serves every role unless the settings name others
        yield LLMClient(replace(settings, model=settings.model or server.model), base_url=server.base_url,
                        constraints=extra_body_for)
