"""Typed, bounded numbers: the one rule for every numeric setting, in config files and pipelines.

A bool is not a number here (YAML's `true` is no depth), a float is no int (`top_k: 3.7` is a
mistake, not 3), and every value has a sane upper bound, so `max_nodes: 1e21` fails at load
time instead of exhausting memory at run time.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Bound:
    """An int (or, with `integer=False`, any finite number) in [low, high]; `open_low`: above low."""

    low: float
    high: float
    integer: bool = True
    open_low: bool = False

    def problem(self, value: Any) -> str | None:
        """Why `value` does not fit, or None when it does."""
        kinds = int if self.integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds):
            kind = "an int" if self.integer else "a number"
            return f"must be {kind}, got {type(value).__name__} {value!r}"
        if not math.isfinite(value):
            return f"must be a finite number, got {value!r}"
        if self.open_low and value <= self.low:
            return f"must be > {_show(self.low)}, got {value!r}"
        if value < self.low:
            return f"must be >= {_show(self.low)}, got {value!r}"
        if value > self.high:
            return f"must be <= {_show(self.high)}, got {value!r}"
        return None


def _show(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def ints(low: int, high: int) -> Bound:
    return Bound(low, high)


def numbers(low: float, high: float, *, open_low: bool = False) -> Bound:
    return Bound(low, high, integer=False, open_low=open_low)


TOP_K = ints(1, 1000)  # entry points a search keeps
TOKENS = ints(1, 2_000_000)  # a prompt budget: far above any model's window, far below memory trouble
SHARE = numbers(0, 1)
WEIGHT = numbers(0, 1000)

# The N-constants and budgets that config `limits` sets and pipelines override (same names).
LIMITS: dict[str, Bound] = {
    "N0_QUERY_PIECES": ints(1, 64),
    "N1_RETR_MAX_CANDIDATES": ints(1, 10_000),
    "logavgexp_tau": numbers(0, 1000, open_low=True),
    "N2_RERANK_TOP_K": ints(1, 1000),
    "N3_FINAL_SELECTION_MAX": ints(1, 1000),
    "gate_duplicate_jaccard": SHARE,
    "gate_candidate_chars": ints(1, 1_000_000),
    "max_history_tokens": TOKENS,
    "max_attachment_tokens": TOKENS,
    "answer_max_citations": ints(1, 100),
    "answer_best_lines": ints(1, 1000),
    "route_short_question_words": ints(1, 1000),
    "route_lookup_max_words": ints(1, 100_000),
    "entry_tests_share": SHARE,
    "tests_penalty": numbers(0, 100),
    "generated_penalty": numbers(0, 100),
    "mixed_domain_share": SHARE,
    "max_turn_loops": ints(0, 10),
    "history_summary_share": Bound(0, 0.99, integer=False),  # the summary shares the budget with recent turns
    "max_question_chars": ints(1, 1_000_000),
}
