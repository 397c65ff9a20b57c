"""Retrieval metrics of ranked files and functions against a question's gold, and their averages.

Per question: file Recall@1/5/10 (share of gold files in the top k), file MRR (1 / rank of the
first gold file), function Recall@5/10 (only for questions with gold functions). Ranked lists
are de-duplicated before the cut, as `shared/eval/score.py` does, so both scorers agree.
Averages: per repository, micro (mean over questions) and macro (mean of repository means).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

FILE_KS = (1, 5, 10)
FUNCTION_KS = (5, 10)
RANKED_MAX = 50  # ranked files and functions kept per question (what score.py reads)
COLUMNS = tuple(f"file_R@{k}" for k in FILE_KS) + ("file_MRR",) + tuple(f"func_R@{k}" for k in FUNCTION_KS)


def norm_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def norm_function(name: str) -> str:
    path, _, qualified = name.partition("::")
    return f"{norm_path(path)}::{qualified.strip()}"


def dedup(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def first_ranks(gold: Sequence[str], ranked: Sequence[str]) -> dict[str, int | None]:
    """Each gold item's 1-based rank in the (de-duplicated) ranking, None when absent."""
    position = {item: rank for rank, item in enumerate(dedup(ranked), start=1)}
    return {g: position.get(g) for g in gold}


def recall_at(ranks: dict[str, int | None], k: int) -> float:
    return sum(1 for r in ranks.values() if r is not None and r <= k) / len(ranks)


def question_metrics(gold_files: Sequence[str], gold_functions: Sequence[str],
                     ranked_files: Sequence[str], ranked_functions: Sequence[str]) -> dict[str, float]:
    """The metrics of one question (function recalls only when it has gold functions)."""
    file_ranks = first_ranks(dedup(norm_path(f) for f in gold_files), [norm_path(f) for f in ranked_files])
    metrics = {f"file_R@{k}": recall_at(file_ranks, k) for k in FILE_KS}
    found = [r for r in file_ranks.values() if r is not None]
    metrics["file_MRR"] = 1.0 / min(found) if found else 0.0
    if gold_functions:
        function_ranks = first_ranks(dedup(norm_function(f) for f in gold_functions),
                                     [norm_function(f) for f in ranked_functions])
        metrics.update({f"func_R@{k}": recall_at(function_ranks, k) for k in FUNCTION_KS})
    return metrics


def mean_metrics(rows: Sequence[dict[str, float]]) -> dict[str, float | int]:
    """Means of each column over the rows that have it, with n and n_fn (rows with functions)."""
    out: dict[str, float | int] = {"n": len(rows), "n_fn": sum(1 for r in rows if f"func_R@{FUNCTION_KS[0]}" in r)}
    for column in COLUMNS:
        values = [r[column] for r in rows if column in r]
        out[column] = sum(values) / len(values) if values else float("nan")
    return out


def aggregate(rows: Sequence[tuple[str, dict[str, float]]]) -> dict[str, dict[str, float | int]]:
    """(group, metrics) rows -> per-group means, then `micro` and `macro` (mean of the groups)."""
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for group, metrics in rows:
        groups[group].append(metrics)
    table = {name: mean_metrics(groups[name]) for name in sorted(groups)}
    per_group = list(table.values())
    table["micro"] = mean_metrics([m for _, m in rows])
    macro: dict[str, float | int] = {"n": len(rows), "n_fn": table["micro"]["n_fn"]}
    for column in COLUMNS:
        values = [g[column] for g in per_group if g[column] == g[column]]  # skip NaN
        macro[column] = sum(values) / len(values) if values else float("nan")
    table["macro"] = macro
    return table
