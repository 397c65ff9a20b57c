"""`retrieval_filters` as one Milvus boolean expression, applied inside every engine request.

Tags, labels, kinds and languages translate one to one (`array_contains_any`,
`array_contains_all`, `in`). Gitignore-style path globs have no exact counterpart in Milvus'
`like` (negations, `**`, anchoring), so they are evaluated here against the paths the
published generation holds -- a generation never changes, so the list is complete -- and sent
as `path in [...]`: exact, never wider than the globs. A filter key this module does not know
is refused (an unknown key must never be dropped silently: that would widen access).
"""
from __future__ import annotations

from dataclasses import fields

import orjson

from ragstream.errors import RetrievalError
from ragstream.retrieval.filters import RetrievalFilters

NOTHING = "false"  # an empty allowlist: the expression no row satisfies
_TRANSLATED = {"acl_tags_any", "classification_labels_all", "paths_include", "paths_exclude", "kinds",
               "languages", "also"}


def to_expression(filters: RetrievalFilters, paths: tuple[str, ...]) -> str:
    """The Milvus filter expression of `filters` over a generation holding `paths` ("" = no
    restriction). Every clause is ANDed: a row must pass each filter and each narrowing."""
    untranslated = {f.name for f in fields(filters) if f.name not in _TRANSLATED
                    and getattr(filters, f.name) != f.default}
    if untranslated:
        raise RetrievalError(f"filter(s) {sorted(untranslated)} have no Milvus translation: refusing rather "
                             "than widening", where="retrieval_filters")
    clauses = _clauses(filters, paths)
    if NOTHING in clauses:
        return NOTHING
    return " and ".join(f"({c})" for c in clauses)


def _clauses(filters: RetrievalFilters, paths: tuple[str, ...]) -> list[str]:
    clauses = []
    if filters.acl_tags_any is not None:
        clauses.append(f"array_contains_any(acl_tags, {_list(filters.acl_tags_any)})"
                       if filters.acl_tags_any else NOTHING)
    if filters.classification_labels_all is not None:  # empty: nothing carries every label of no list
        clauses.append(f"array_contains_all(classification_labels, {_list(filters.classification_labels_all)})"
                       if filters.classification_labels_all else NOTHING)
    for field, values in (("kind", filters.kinds), ("language", filters.languages)):
        if values is not None:
            clauses.append(f"{field} in {_list(values)}" if values else NOTHING)
    if filters.paths_include is not None or filters.paths_exclude:
        # The filters' own one-item predicate decides, so glob semantics live in one place.
        only_paths = RetrievalFilters(paths_include=filters.paths_include, paths_exclude=filters.paths_exclude)
        kept = [p for p in paths if only_paths.allows((), (), p, "", "")]
        clauses.append(f"path in {_list(kept)}" if kept else NOTHING)
    for narrower in filters.also:
        clauses.extend(_clauses(narrower, paths))
    return clauses


def _list(values) -> str:
    """A Milvus list literal: JSON string escaping is what the expression grammar reads."""
    return orjson.dumps(sorted(values)).decode()
