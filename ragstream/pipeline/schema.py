"""The pipeline settings and step parameters ragstream knows: each one's type and range.

The loader checks the merged settings against this table, naming the file that set a bad
value and the key; a step's numeric and closed-choice parameters are checked the same way,
naming the file, the step and the parameter. A settings key nothing reads is reported as a
warning (a typo would otherwise be silently ignored).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragstream.bounds import LIMITS, TOKENS, TOP_K, WEIGHT, Bound, ints
from ragstream.graph.guesses import GUESS_MODES
from ragstream.graph.node_texts import MODES
from ragstream.graph.render import LAYOUTS
from ragstream.retrieval.types import RERANKERS, SEARCH_TYPES

NUMBERS: dict[str, Bound] = {
    **LIMITS,
    "top_k": TOP_K,
    "max_depth": ints(0, 20),
    "max_nodes": ints(1, 100_000),
    "max_context_tokens": TOKENS,
    "keyword_semantic_weight": WEIGHT,
    "keyword_keyword_weight": WEIGHT,
    # step parameters
    "budget_tokens": TOKENS,
    "max_chars": ints(1, 10_000_000),
}
CHOICES: dict[str, tuple[str, ...]] = {
    "prioritization_mode": MODES,
    "layout": LAYOUTS,
    "graph_guesses": GUESS_MODES,
    "mode": SEARCH_TYPES,
    "rerank": RERANKERS,
}
# Keys checked elsewhere: the entry step (against the steps), the edge allowlist (by the expand step).
OTHER_KEYS = ("entry_step_id", "edge_allowlist")


def setting_problem(key: str, value: Any) -> str | None:
    """Why `value` is wrong for the setting or parameter `key` (None: fine, or not one we know)."""
    if key in NUMBERS:
        return NUMBERS[key].problem(value)
    if key in CHOICES and value not in CHOICES[key]:
        return f"must be one of {list(CHOICES[key])}, got {value!r}"
    return None


def unread_keys(settings: Mapping[str, Any], named: set[str]) -> list[str]:
    """Settings keys no stage reads and no step names (`*_from_settings`)."""
    known = set(NUMBERS) | set(CHOICES) | set(OTHER_KEYS) | named
    return sorted(set(settings) - known)
