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
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import pathspec

from ragstream.errors import FilterError

_WILDCARD = re.compile(r"[*?\[]")
# A backslash escapes a glob character or a leading `!`/`#`; anything else is a Windows separator.
_STRAY_BACKSLASH = re.compile(r"\\(?![*?\[\]!# \\])")


def normalised_globs(globs: tuple[str, ...], key: str) -> tuple[str, ...]:
    """Every glob of one filter key normalised (see `normalised_glob`), checked to compile."""
    out = tuple(normalised_glob(glob, key) for glob in globs)
    try:
        glob_rule(out)
    except (ValueError, TypeError) as exc:  # pathspec's pattern errors are ValueErrors
        raise FilterError(f"invalid path glob in {list(globs)!r}: {exc}", where=f"retrieval_filters.{key}") from exc
    return out


def normalised_glob(glob: str, key: str) -> str:
    """`./a//b/../c/**` -> `a/c/**`. A leading `!` (a re-inclusion) is refused in `paths_exclude`:
    an exclude list may only take away; in `paths_include` it narrows and is kept."""
    where = f"retrieval_filters.{key}"
    text = glob.strip()  # gitignore drops trailing blanks; a leading one would match no path
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
    plain: pathspec.GitIgnoreSpec
    negated: pathspec.GitIgnoreSpec  # the `!` globs, without their `!`

    def matches(self, path: str) -> bool:
        return self.plain.match_file(path) and not self.negated.match_file(path)


@lru_cache(maxsize=256)
def glob_rule(globs: tuple[str, ...]) -> GlobRule:
    """Compiled normalised globs (once per distinct tuple)."""
    return GlobRule(pathspec.GitIgnoreSpec.from_lines([g for g in globs if not g.startswith("!")]),
                    pathspec.GitIgnoreSpec.from_lines([g[1:] for g in globs if g.startswith("!")]))
