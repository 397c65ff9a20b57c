"""Search over past changes: the commits whose messages best match a question, and the
definitions they changed, ranked by those matches (bm25s over the messages' keyword tokens,
older commits counting less)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ragstream.index.change_history import PastChange
from ragstream.keyword_tokens import keyword_tokens

if TYPE_CHECKING:
    import bm25s


@dataclass
class HistoryIndex:
    changes: list[PastChange]
    bm25: bm25s.BM25 | None  # over the messages; None when there are none

    @classmethod
    def build(cls, changes: list[PastChange]) -> HistoryIndex:
        import bm25s

        if not changes:
            return cls(changes, None)
        bm25 = bm25s.BM25()
        # bm25s cannot index an empty document: a placeholder keeps row i = change i.
        bm25.index([keyword_tokens(c.message) or ["\x00empty"] for c in changes], show_progress=False)
        return cls(changes, bm25)

    def ranking(self, query: str, visible: Callable[[str], bool], commits: int, k: int,
                half_life: float = 0.0) -> list[tuple[str, float]]:
        """The best k visible definitions changed by the `commits` past changes whose messages
        match the query best: each scores the sum of those changes' BM25 scores, a change's
        score halved for every `half_life` past changes it lies back (0: no decay; the code an old
        change touched has often changed since) and shared out by the square root of how many
        definitions it touched (a sweeping refactor says little about any one of them).
        Definitions the filters hide are dropped before anything is ranked: a change that
        touched only hidden code takes no place."""
        tokens = keyword_tokens(query)
        if not tokens or not self.changes:
            return []
        assert self.bm25 is not None, "there are changes"
        scores = self.bm25.get_scores(tokens) * recency_weights(len(self.changes), half_life)
        totals: dict[str, float] = {}
        taken = 0
        for i in np.argsort(-scores, kind="stable"):
            if taken == commits or scores[i] <= 0:
                break
            change = self.changes[i]
            shown = [target for target in change.targets if visible(target)]
            if not shown:
                continue
            taken += 1
            share = float(scores[i]) / len(change.targets) ** 0.5
            for target in shown:
                totals[target] = totals.get(target, 0.0) + share
        return sorted(totals.items(), key=lambda item: (-item[1], item[0]))[:k]


def recency_weights(count: int, half_life: float) -> np.ndarray:
    """0.5 ** (age / half_life) for ages 0..count-1 (the changes newest first); all 1 when half_life is 0."""
    if half_life <= 0:
        return np.ones(count)
    return 0.5 ** (np.arange(count) / half_life)
