"""Gitignore-style globs compiled, or refused naming where they were set.

Every path rule in ragstream (`acl.rules[].paths`, `index.ignore`, `.ragstreamignore`,
`retrieval_filters.paths_*`) is compiled here. pathspec reports a bad glob as a ValueError, but
lets a bad character range (`[z-a]`) through to `re`, which raises `re.error` only when the
pattern is compiled: both are the same mistake to the person who wrote the glob.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

import pathspec

from ragstream.errors import RagstreamError


def compile_globs(globs: Iterable[str], where: str, error: type[RagstreamError]) -> pathspec.GitIgnoreSpec:
    """The compiled globs; an `error` naming `where` and the glob that does not compile."""
    globs = list(globs)
    try:
        return pathspec.GitIgnoreSpec.from_lines(globs)
    except (ValueError, TypeError, re.error) as exc:
        bad = next((g for g in globs if not _compiles(g)), None)
        named = f"{bad!r}: " if bad is not None else ""
        raise error(f"invalid path glob {named}{exc}", where=where) from exc


def _compiles(glob: str) -> bool:
    try:
        pathspec.GitIgnoreSpec.from_lines([glob])
    except (ValueError, TypeError, re.error):
        return False
    return True
