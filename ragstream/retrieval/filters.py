"""Security filters (`retrieval_filters`): what a caller may see, decided before any ranking.

A key that is absent constrains nothing. A key that is present is an allowlist, and an empty
allowlist allows nothing (a caller with no tags sees nothing). `classification_labels_all`
requires every listed label on the chunk; `paths_exclude` removes what it matches.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

import pathspec

from ragstream.errors import RetrievalError

@dataclass(frozen=True)
class RetrievalFilters:
    acl_tags_any: tuple[str, ...] | None = None
    classification_labels_all: tuple[str, ...] | None = None
    paths_include: tuple[str, ...] | None = None  # gitignore-style globs
    paths_exclude: tuple[str, ...] | None = None
    kinds: tuple[str, ...] | None = None  # FUNCTION, METHOD, CLASS, TABLE, ...
    languages: tuple[str, ...] | None = None  # python, sql, csharp, text
    also: tuple["RetrievalFilters", ...] = ()  # further filters an item must pass too (narrowed_by)

    @classmethod
    def parse(cls, value: "RetrievalFilters | Mapping[str, Any] | None") -> "RetrievalFilters":
        """Filters from a mapping; an unknown key or a value that is not a list of strings is
        an error naming the key (a typo must never widen access silently)."""
        if value is None:
            return cls()
        if isinstance(value, RetrievalFilters):
            return value
        if not isinstance(value, Mapping):
            raise RetrievalError(f"must be a mapping, got {type(value).__name__}", where="retrieval_filters")
        known = [f.name for f in fields(cls) if f.name != "also"]
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise RetrievalError(f"unknown filter(s) {unknown}; known: {known}", where="retrieval_filters")
        parsed = {}
        for key, items in value.items():
            if items is None:
                continue
            if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
                raise RetrievalError(f"must be a list of strings, got {items!r}", where=f"retrieval_filters.{key}")
            if key.startswith("paths_"):
                _check_globs(items, f"retrieval_filters.{key}")
            parsed[key] = tuple(items)
        return cls(**parsed)

    def narrowed_by(self, extra: "RetrievalFilters") -> "RetrievalFilters":
        """These filters AND `extra`: an item must pass both, so `extra` can only narrow.
        (Merging glob lists instead could drop a negation and widen access.)"""
        return replace(self, also=self.also + (replace(extra, also=()),) + extra.also)

    def allows(self, acl_tags, labels, path: str, kind: str, language: str) -> bool:
        """Whether one item with this access metadata is visible (graph nodes use this; the
        index's vectorised `Visibility` must agree with it row for row, which a test checks)."""
        if self.acl_tags_any is not None and not set(acl_tags) & set(self.acl_tags_any):
            return False
        if self.classification_labels_all and not set(self.classification_labels_all) <= set(labels):
            return False
        if self.kinds is not None and kind not in self.kinds:
            return False
        if self.languages is not None and language not in self.languages:
            return False
        if self.paths_include is not None and not path_spec(self.paths_include).match_file(path):
            return False
        if self.paths_exclude and path_spec(self.paths_exclude).match_file(path):
            return False
        return all(f.allows(acl_tags, labels, path, kind, language) for f in self.also)


@lru_cache(maxsize=256)
def path_spec(globs: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    """Compiled gitignore-style globs (compiled once per distinct tuple)."""
    return pathspec.GitIgnoreSpec.from_lines(globs)


def _check_globs(globs, where: str) -> None:
    try:
        path_spec(tuple(globs))
    except (ValueError, TypeError) as exc:  # pathspec's pattern errors are ValueErrors
        raise RetrievalError(f"invalid path glob: {exc}", where=where) from exc
