"""Reading a stage's numeric settings from the pipeline, with errors that name the step."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragstream.errors import PipelineError


def number(settings: Mapping[str, Any], key: str, step: Mapping[str, Any], *, integer: bool = True,
           minimum: float = 1) -> Any:
    """settings[key], which must be an int (or, with integer=False, any number) >= minimum."""
    value = settings.get(key)
    kinds = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value < minimum:
        kind = "an int" if integer else "a number"
        raise PipelineError(f"{key} must be {kind} >= {minimum} in the pipeline settings, got {value!r}",
                            where=f"step {step.get('id', '?')}: {key}")
    return value
