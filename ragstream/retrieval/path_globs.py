"""The path globs of `paths_include` / `paths_exclude`: normalised or refused, then matched.

Indexed paths are repository-relative POSIX paths (`src/a.py`: no `./`, no `//`, no `..`), and
gitignore matching compares text: `./hidden/**` matches none of them, so an exclude written that
way used to exclude nothing. A glob is therefore rewritten to the form the index uses, keeping
what gitignore makes of it (a slash before the end anchors it at the root), and anything that
cannot be rewritten safely is an error naming the filter and the glob -- never a filter that
silently lets more through.

A list matches a path when one of its plain globs does and none of its `!` globs does, in any
order. (In gitignore's ordered rules `["**", "!hidden/"]` keeps `hidden/a.py`, since a folder
matched by `**` cannot have its files taken back: a `!` that fails to narrow an include list
would widen access.)

Spellings that name a different path must not exclude nothing in silence, so both sides -- each
glob and each path it is matched against -- are compared in one form: Unicode NFKC (fullwidth
`ｈｉｄｄｅｎ` is `hidden`) without format characters (a zero-width space, a joiner, a
direction mark). Globs that take away (`paths_exclude`, the `!` globs of `paths_include`) match
case-insensitively, and globs that allow (the plain globs of `paths_include`) case-sensitively:
either way a case mistake hides more, never less. A look-alike letter of another script (a
Cyrillic `і` in `hіdden`) is no spelling of the Latin one: an exclude glob mixing scripts in one
name that matches no indexed path is refused (`check_exclusions`).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import pathspec

from ragstream.errors import FilterError
from ragstream.globs import compile_globs, folded, mixed_script_letters

_WILDCARD = re.compile(r"[*?\[]")
# A backslash escapes a glob character or a leading `!`/`#`; anything else is a Windows separator.
_STRAY_BACKSLASH = re.compile(r"\\(?![*?\[\]!# \\])")


def normalised_globs(globs: tuple[str, ...], key: str) -> tuple[str, ...]:
    """Every glob of one filter key normalised (see `normalised_glob`), checked to compile."""
    out = tuple(normalised_glob(glob, key) for glob in globs)
    compile_globs((g.removeprefix("!") for g in out), f"retrieval_filters.{key}", FilterError)
    return out


def normalised_glob(glob: str, key: str) -> str:
    """`./a//b/../c/**` -> `a/c/**`. A leading `!` (a re-inclusion) is refused in `paths_exclude`:
    an exclude list may only take away; in `paths_include` it narrows and is kept."""
    where = f"retrieval_filters.{key}"
    text = folded(glob).strip()  # gitignore drops trailing blanks; a leading one would match no path
    negated = text.startswith("!")
    if negated and key == "paths_exclude":
        raise FilterError(f"{glob!r}: a `!` would re-include what the exclude list removes; an exclude list "
                          "can only exclude (narrow paths_include with `!` instead)", where=where)
    body = text[1:] if negated else text
    if not body:
        raise FilterError(f"invalid path glob {glob!r}: an empty glob matches nothing; leave it out", where=where)
    if body.startswith("#"):
        raise FilterError(f"{glob!r}: a glob starting with `#` is a comment in gitignore syntax and matches "
                          "nothing; write `\\#` for a literal `#`", where=where)
    if _STRAY_BACKSLASH.search(body):
        raise FilterError(f"{glob!r}: use / between folders (a backslash only escapes a glob character)",
                          where=where)
    # gitignore: a slash at the start or in the middle anchors the glob at the repository root.
    anchored = "/" in body.rstrip("/")
    directory = body.endswith("/")
    parts: list[str] = []
    for part in body.split("/"):
        if part in ("", "."):
            continue
        if part != "..":
            parts.append(part)
        elif not parts:
            raise FilterError(f"{glob!r} climbs above the repository root", where=where)
        elif _WILDCARD.search(parts[-1]):
            raise FilterError(f"{glob!r}: `..` after the wildcard folder {parts[-1]!r} cannot be resolved",
                              where=where)
        else:
            parts.pop()
    if not parts:
        raise FilterError(f"{glob!r} names the repository root itself; write `**` for every path", where=where)
    normal = "/".join(parts) + ("/" if directory else "")
    if anchored and "/" not in normal.rstrip("/"):
        normal = "/" + normal  # `./hidden` is the root's folder, not every folder named hidden
    return ("!" if negated else "") + normal


@dataclass(frozen=True)
class GlobRule:
    plain: pathspec.GitIgnoreSpec  # case-sensitive when it allows, case-folded when it excludes
    negated: pathspec.GitIgnoreSpec  # the `!` globs, without their `!`, case-folded (they take away)
    excluding: bool

    def matches(self, path: str) -> bool:
        path = folded(path)
        lowered = path.casefold()
        return (self.plain.match_file(lowered if self.excluding else path)
                and not self.negated.match_file(lowered))


@lru_cache(maxsize=256)
def glob_rule(globs: tuple[str, ...], excluding: bool = False) -> GlobRule:
    """Compiled normalised globs (once per distinct tuple); `excluding`: the list takes away."""
    plain = [g for g in globs if not g.startswith("!")]
    negated = [g[1:].casefold() for g in globs if g.startswith("!")]
    return GlobRule(pathspec.GitIgnoreSpec.from_lines([g.casefold() for g in plain] if excluding else plain),
                    pathspec.GitIgnoreSpec.from_lines(negated), excluding)


def check_exclusions(globs: tuple[str, ...], key: str, paths: Sequence[str]) -> list[str]:
    """Warnings for the globs of `key` that take away (all of `paths_exclude`, the `!` ones of
    `paths_include`) and match none of `paths` (the index's); a FilterError for one that matches
    none while it mixes scripts in a name, as a look-alike spelling does."""
    warnings = []
    for glob in globs:
        if key == "paths_include" and not glob.startswith("!"):
            continue
        rule = glob_rule((glob.removeprefix("!"),), excluding=True)
        if any(rule.matches(path) for path in paths):
            continue
        if mixed := mixed_script_letters(glob):
            raise FilterError(f"{glob!r} matches no indexed path, and mixes scripts in one name: "
                              f"{', '.join(mixed)}; a look-alike letter names a different path, so this "
                              "glob would take nothing away", where=f"retrieval_filters.{key}",
                              hint="write the name in one script (retype it rather than pasting it)")
        warnings.append(f"retrieval_filters.{key}: {glob!r} matches no indexed path: it takes nothing away")
    return warnings
