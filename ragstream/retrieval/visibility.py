"""Which rows of an index a set of filters lets through, as one boolean mask.

Columns (one boolean array per tag, label, kind and language; one path id per row) are built
once per loaded index, so a filter costs a few vector operations, not a pass over 100k chunks
in Python. The mask is computed before any ranking: FAISS and BM25 only ever score visible rows.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.path_globs import check_exclusions, glob_rule
from ragstream.index.chunk_table import access_columns
from ragstream.index.model import Chunk


class Visibility:
    def __init__(self, chunks: Sequence[Chunk]):
        columns = access_columns(chunks)  # a chunk table's are read, not made
        self.size = columns.size
        self._rows = columns.rows
        self._paths = columns.paths
        self._path_ids = columns.path_ids
        self.mask = lru_cache(maxsize=128)(self._mask)
        self.filter_warnings = lru_cache(maxsize=128)(self._filter_warnings)

    def _mask(self, filters: RetrievalFilters) -> np.ndarray:
        self.filter_warnings(filters)  # a look-alike exclude is refused before any row is shown
        visible = np.ones(self.size, dtype=bool)
        for field, values in (("acl_tags", filters.acl_tags_any), ("kind", filters.kinds),
                              ("language", filters.languages)):
            if values is not None:
                visible &= self._any(field, values)
        if filters.classification_labels_all is not None:
            if not filters.classification_labels_all:
                visible[:] = False  # an empty allowlist allows nothing, this one too
            for label in filters.classification_labels_all:
                visible &= self._any("labels", (label,))
        if filters.paths_include is not None:
            visible &= self._paths_matching(filters.paths_include)[self._path_ids]
        if filters.paths_exclude:
            visible &= ~self._paths_matching(filters.paths_exclude, excluding=True)[self._path_ids]
        for narrower in filters.also:
            visible &= self.mask(narrower)
        visible.flags.writeable = False  # cached and shared between calls
        return visible

    def _any(self, field: str, values: tuple[str, ...]) -> np.ndarray:
        hit = np.zeros(self.size, dtype=bool)
        for value in values:
            rows = self._rows.get((field, value))
            if rows is not None:
                hit[rows] = True
        return hit

    def _filter_warnings(self, filters: RetrievalFilters) -> tuple[str, ...]:
        """What the filters' globs that take away fail to match in this index (`check_exclusions`:
        a look-alike spelling is an error), for every narrowing too."""
        warnings = [w for key in ("paths_exclude", "paths_include") if (globs := getattr(filters, key))
                    for w in check_exclusions(globs, key, self._paths)]
        for narrower in filters.also:
            warnings += self.filter_warnings(narrower)
        return tuple(dict.fromkeys(warnings))

    def _paths_matching(self, globs: tuple[str, ...], excluding: bool = False) -> np.ndarray:
        rule = glob_rule(globs, excluding)
        return np.array([rule.matches(p) for p in self._paths], dtype=bool)
