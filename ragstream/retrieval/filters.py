"""Security filters (`retrieval_filters`): what a caller may see, decided before any ranking.

Every rule fails closed (a backend translating them, Milvus included, must keep to them):
- A key that is absent constrains nothing; a key given as null is an error (leave it out).
- A key that is present is an allowlist, and an empty allowlist allows nothing -- every one of
  them: no tags, no kinds, no paths, and an empty `classification_labels_all` too (which
  otherwise requires every listed label on the item).
- `paths_exclude` removes what it matches; it can never re-include (a `!` is refused), and an
  empty exclude list excludes nothing. Path globs are gitignore-style, normalised to the index's
  path form or refused; in `paths_include` a `!` glob always narrows, whatever its place in the
  list (`path_globs`).
- Narrowing (`narrowed_by`, a repeated key in `narrowed_mapping`) only ever takes away.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ragstream.errors import FilterError
from ragstream.retrieval.path_globs import glob_rule, normalised_globs

PATH_KEYS = ("paths_include", "paths_exclude")

@dataclass(frozen=True)
class RetrievalFilters:
    acl_tags_any: tuple[str, ...] | None = None
    classification_labels_all: tuple[str, ...] | None = None
    paths_include: tuple[str, ...] | None = None  # gitignore-style globs
    paths_exclude: tuple[str, ...] | None = None
    kinds: tuple[str, ...] | None = None  # FUNCTION, METHOD, CLASS, TABLE, ...
    languages: tuple[str, ...] | None = None  # python, sql, csharp, text
    also: tuple["RetrievalFilters", ...] = ()  # further filters an item must pass too (narrowed_by)

    def __post_init__(self) -> None:
        # Here rather than in `parse`: filters built directly are normalised and checked too.
        for key in PATH_KEYS:
            if (globs := getattr(self, key)) is not None:
                object.__setattr__(self, key, normalised_globs(tuple(globs), key))

    @classmethod
    def parse(cls, value: "RetrievalFilters | Mapping[str, Any] | None") -> "RetrievalFilters":
        """Filters from a mapping; an unknown key or a value that is not a list of strings is
        an error naming the key (a typo must never widen access silently)."""
        if value is None:
            return cls()
        if isinstance(value, RetrievalFilters):
            return value
        if not isinstance(value, Mapping):
            raise FilterError(f"must be a mapping, got {type(value).__name__}", where="retrieval_filters")
        known = [f.name for f in fields(cls) if f.name != "also"]
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise FilterError(f"unknown filter(s) {unknown}; known: {known}", where="retrieval_filters")
        parsed = {}
        for key, items in value.items():
            if items is None:
                raise FilterError("given without a value: leave the key out to not filter by it, or give "
                                  "[] to allow nothing", where=f"retrieval_filters.{key}")
            if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
                raise FilterError(f"must be a list of strings, got {items!r}", where=f"retrieval_filters.{key}")
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
        if self.classification_labels_all is not None and not (
                self.classification_labels_all and set(self.classification_labels_all) <= set(labels)):
            return False
        if self.kinds is not None and kind not in self.kinds:
            return False
        if self.languages is not None and language not in self.languages:
            return False
        if self.paths_include is not None and not glob_rule(self.paths_include).matches(path):
            return False
        if self.paths_exclude and glob_rule(self.paths_exclude, excluding=True).matches(path):
            return False
        return all(f.allows(acl_tags, labels, path, kind, language) for f in self.also)


def narrowed_mapping(items: Iterable[tuple[str, Sequence[str]]]) -> dict[str, list[str]]:
    """One filter mapping from (key, values) pairs in which a key may repeat (`--filter` given
    twice): a repeat narrows, never widens. An allowlist keeps the values both lists name, a
    label requirement requires both (and stays empty, allowing nothing, when either is empty),
    an exclude list excludes both. Two include glob lists cannot be
    intersected into one, so a repeated `paths_include` is refused."""
    merged: dict[str, list[str]] = {}
    for key, values in items:
        values = list(dict.fromkeys(values))
        if key not in merged:
            merged[key] = values
        elif key == "paths_include":
            raise FilterError(f"paths_include is given twice ({merged[key]!r}, then {values!r}); a path matching "
                              "both lists cannot be written as one list: give the narrower list once",
                              where="retrieval_filters.paths_include")
        elif key == "classification_labels_all" and not (merged[key] and values):
            merged[key] = []  # an empty requirement allows nothing: adding labels to it would widen
        elif key in ("classification_labels_all", "paths_exclude"):
            merged[key] += [v for v in values if v not in merged[key]]
        else:
            merged[key] = [v for v in merged[key] if v in values]
    return merged
