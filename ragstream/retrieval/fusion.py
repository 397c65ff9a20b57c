"""Reciprocal Rank Fusion of ranked id lists."""
from __future__ import annotations

from ragstream.errors import RetrievalError


def reciprocal_rank_fusion(semantic: list[str], bm25: list[str], rrf_k: int = 60
                           ) -> list[tuple[str, float, dict[str, int]]]:
    """(id, score, {source: rank}) best first, `score = sum 1 / (rrf_k + rank)` over the
    sources that ranked the id (ranks 1-based). Ties: lower semantic rank, then lower bm25
    rank (an absent rank counts as worst), then id."""
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, int) or rrf_k < 1:
        raise RetrievalError(f"rrf_k must be an int >= 1, got {rrf_k!r}", where="retrieval.rrf_k")
    ranks: dict[str, dict[str, int]] = {}
    for source, ids in (("semantic", semantic), ("bm25", bm25)):
        for rank, cid in enumerate(ids, start=1):
            ranks.setdefault(cid, {}).setdefault(source, rank)
    fused = [(cid, sum(1.0 / (rrf_k + r) for r in by_source.values()), by_source)
             for cid, by_source in ranks.items()]
    worst = len(semantic) + len(bm25) + 1
    fused.sort(key=lambda item: (-item[1], item[2].get("semantic", worst), item[2].get("bm25", worst), item[0]))
    return fused
