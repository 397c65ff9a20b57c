"""Fusion of ranked id lists: (weighted) Reciprocal Rank Fusion, then file-level evidence."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping

from ragstream.errors import RetrievalError

Fused = list[tuple[str, float, dict[str, int]]]  # (id, score, {source: rank}) best first


def ranks_of(ids: list[str]) -> dict[str, int]:
    """1-based ranks of a ranked list (an id's first position)."""
    ranks: dict[str, int] = {}
    for rank, cid in enumerate(ids, start=1):
        ranks.setdefault(cid, rank)
    return ranks


def fuse(rankings: Mapping[str, Mapping[str, int]], rrf_k: int = 60,
         weights: Mapping[str, float] | None = None,
         boosts: Mapping[str, Mapping[str, float]] | None = None) -> Fused:
    """Weighted Reciprocal Rank Fusion of rankings (hybrid search: the semantic and the bm25 ranking, with the
    mentions as a boost). Returns (id, score, {source: rank}) best first, `score = sum weight / (rrf_k + rank)`
    over the sources that ranked the id (ranks 1-based, weight 1 unless given). A boost source scores
    by strength instead of rank: an id of strength s in [0, 1] gains `weight * s / (rrf_k + 1)` (s = 1 counts
    as a first place), and its rank among the boost's ids is recorded. Ties: better rank in the first source,
    then in the next, ... (absent counts as worst), then id."""
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, int) or rrf_k < 1:
        raise RetrievalError(f"rrf_k must be an int >= 1, got {rrf_k!r}", where="retrieval.rrf_k")
    weights, boosts = weights or {}, boosts or {}
    by_id: dict[str, dict[str, int]] = defaultdict(dict)
    scores: dict[str, float] = defaultdict(float)
    for source, ranks in rankings.items():
        for cid, rank in ranks.items():
            by_id[cid][source] = rank
            scores[cid] += weights.get(source, 1.0) / (rrf_k + rank)
    for source, strengths in boosts.items():
        ordered = sorted(strengths.items(), key=lambda item: (-item[1], item[0]))
        for rank, (cid, strength) in enumerate(ordered, start=1):
            by_id[cid][source] = rank
            scores[cid] += weights.get(source, 1.0) * min(strength, 1.0) / (rrf_k + 1)
    order = [*rankings, *boosts]
    worst = sum(len(r) for r in rankings.values()) + sum(len(b) for b in boosts.values()) + 1
    fused = [(cid, scores[cid], by_source) for cid, by_source in by_id.items()]
    fused.sort(key=lambda item: (-item[1], *(item[2].get(s, worst) for s in order), item[0]))
    return fused


def scaled(fused: Fused, factor_of: Callable[[str], float]) -> Fused:
    """Each id's score times its factor, re-sorted; ties keep the fused order."""
    return _best_first([(cid, score * factor_of(cid), sources) for cid, score, sources in fused])


def with_file_evidence(fused: Fused, path_of: Callable[[str], str], weight: float, per_file: int,
                       node_of: Callable[[str], str] = str) -> Fused:
    """Each id's score plus `weight` times the summed scores of the best `per_file` nodes of its
    file (a node split into parts counts once, by its best part): a file that many hits point
    to lifts all its hits (a fix is rarely where only one weak hit points). Re-sorted; ties
    keep the fused order."""
    if weight <= 0 or not fused:
        return fused
    best: dict[str, list[float]] = defaultdict(list)
    counted: set[str] = set()
    for cid, score, _ in fused:  # best first, so each file's list is too
        scores = best[path_of(cid)]
        if len(scores) < per_file and node_of(cid) not in counted:
            counted.add(node_of(cid))
            scores.append(score)
    return _best_first([(cid, score + weight * sum(best[path_of(cid)]), sources) for cid, score, sources in fused])


def _best_first(rescored: Fused) -> Fused:
    """Sorted by score (a stable sort: ties keep their order)."""
    return sorted(rescored, key=lambda item: -item[1])
