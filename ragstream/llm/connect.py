"""The language-model client a configuration asks for, and what it needs running."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ragstream.config import LLMSettings
from ragstream.llm.client import LLMClient


@contextmanager
def connect(settings: LLMSettings) -> Iterator[LLMClient]:
    """A client for `settings.provider`: `none` (never calls anything), `openai` (OpenAI or any
    compatible server), or `local` (a llama.cpp server ragstream starts, and stops on exit)."""
    if settings.provider != "local":
        yield LLMClient(settings)
        return
    from ragstream.llm.local_server import LocalServer, role_extra_body

    with LocalServer(settings.local_gguf or None) as server:
        yield LLMClient(settings, base_url=server.base_url, extra_body=role_extra_body())
