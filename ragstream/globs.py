"""Gitignore-style globs compiled, or refused naming where they were set.

Every path rule in ragstream (`acl.rules[].paths`, `index.ignore`, `.ragstreamignore`,
`retrieval_filters.paths_*`) is compiled here. pathspec reports a bad glob as a ValueError, but
lets a bad character range (`[z-a]`) through to `re`, which raises `re.error` only when the
pattern is compiled: both are the same mistake to the person who wrote the glob.

The rules that decide who sees what (`acl.rules[].paths`, `retrieval_filters.paths_*`) compare a
glob and a path in one form (`folded`: NFKC, no format characters), and refuse a spelling that
names a different path: a look-alike letter of another script (`mixed_script_letters`).
"""
from __future__ import annotations

import re
import unicodedata
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


def folded(text: str) -> str:
    """`text` in the form globs and paths are compared in: Unicode NFKC (fullwidth `ｈｉｄｄｅｎ` is
    `hidden`), without format characters (a zero-width space, a joiner, a direction mark)."""
    if text.isascii():  # NFKC keeps ASCII as it is, and no ASCII character is a format character
        return text
    return "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")


# Scripts with letters that look like Latin ones (Cyrillic `і`, `а`, `о`; Greek `ο`, `ν` ...).
LOOKALIKE_SCRIPTS = frozenset({"CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC"})


def mixed_script_letters(glob: str) -> list[str]:
    """The letters of a name in `glob` that mix Latin with a look-alike script, those of the
    name's minority script (`U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I`)."""
    odd = []
    for name in glob.split("/"):
        letters = [(c, _script(c)) for c in name if c.isalpha()]
        scripts = [s for _, s in letters]
        if "LATIN" in scripts and LOOKALIKE_SCRIPTS & set(scripts):
            latin = scripts.count("LATIN") * 2 >= len(scripts)
            odd += [f"U+{ord(c):04X} {unicodedata.name(c, '?')} in {name!r}" for c, s in letters
                    if (s != "LATIN") == latin]
    return odd


def _script(char: str) -> str:
    """A letter's script as the first word of its Unicode name (LATIN, CYRILLIC, GREEK, CJK ...)."""
    return unicodedata.name(char, "UNKNOWN").split(" ")[0]
