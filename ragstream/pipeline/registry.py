"""The actions a pipeline step may name, collected from the stage modules that declare them.

Each stage module declares its actions once (`ACTIONS`: name, stage, parameters with types,
outcomes, reads, writes, run; see `stages/action.py`). A loader rejects anything not declared,
so a typo in a pipeline file fails at load time, naming the file and the step, instead of
silently doing nothing at run time.
"""
from __future__ import annotations

from ragstream.errors import PipelineError
from ragstream.stages import (answer, build_prompt, condense, conversation, expand, normalize, relate, rerank,
                              retrieve, route)
from ragstream.stages.action import STAGES, Action

__all__ = ["REGISTRY", "STAGES", "Action"]

# The stage modules, in the order a turn meets them.
STAGE_MODULES = (normalize, conversation, route, retrieve, rerank, relate, expand, condense, build_prompt, answer)


def _collect() -> dict[str, Action]:
    registry: dict[str, Action] = {}
    for module in STAGE_MODULES:
        for action in module.ACTIONS:
            if action.name in registry:
                raise PipelineError(f"action {action.name!r} is declared twice", where=module.__name__)
            registry[action.name] = action
    return registry


REGISTRY: dict[str, Action] = _collect()
