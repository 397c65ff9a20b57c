"""Prompts as files: `config/prompts/<role>.md`, a system part and a user part split by a
`<!-- user -->` line, with `$name` placeholders filled from the state (string.Template: code
in the values may hold braces and dollars without harm)."""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from string import Template

from ragstream.config import PROJECT_ROOT
from ragstream.errors import ConfigError
from ragstream.redact import redact_text

PROMPTS_DIR = PROJECT_ROOT / "config" / "prompts"
USER_MARK = "<!-- user -->"


@lru_cache(maxsize=None)
def _parts(path: Path) -> tuple[Template, Template]:
    if not path.is_file():
        raise ConfigError("prompt file not found", where=str(path))
    system, mark, user = path.read_text(encoding="utf-8").partition(USER_MARK)
    if not mark:
        raise ConfigError(f"no {USER_MARK!r} line between the system and the user part", where=str(path))
    return Template(system.strip()), Template(user.strip())


def system_text(role: str, values: Mapping[str, str] | None = None) -> str:
    return _fill(role, 0, values or {})


def render(role: str, values: Mapping[str, str]) -> list[dict[str, str]]:
    """The chat messages of `role`'s prompt with `values` filled in, secrets redacted: nothing
    sent to a model carries one, whatever state field it came from."""
    return [{"role": "system", "content": redact_text(_fill(role, 0, values))},
            {"role": "user", "content": redact_text(_fill(role, 1, values))}]


def _fill(role: str, part: int, values: Mapping[str, str]) -> str:
    path = PROMPTS_DIR / f"{role}.md"
    try:
        return _parts(path)[part].substitute(values)
    except KeyError as exc:
        raise ConfigError(f"placeholder ${exc.args[0]} has no value (values: {sorted(values)})", where=str(path)) from exc
    except ValueError as exc:
        raise ConfigError(f"invalid placeholder: {exc}", where=str(path)) from exc
