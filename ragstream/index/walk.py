"""Walking a repository: which files are indexed, and why every other file is skipped.

`.gitignore` files are honoured at every depth with git's semantics (pathspec's GitIgnoreSpec):
a deeper file's decision wins, a negation can re-include a file, and an ignored directory is
never entered. A repository's own `.ragstreamignore` (gitignore syntax, at its root) adds to
`index.ignore`: what belongs in git but not in the index. Secrets are never read into the index: secret files are skipped by name and
credential-looking strings are redacted from the text of every file that is kept.
"""
from __future__ import annotations

import codecs
import fnmatch
import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path, PurePosixPath
from typing import cast

import pathspec

from ragstream.config import IndexSettings
from ragstream.errors import ConfigError, IndexingError
from ragstream.globs import compile_globs
from ragstream.index.workers import spread
from ragstream.redact import redact, redact_path


@dataclass(frozen=True)
class SourceFile:
    path: str  # repository-relative posix path
    language: str
    sha256: str  # of the file's bytes as on disk
    text: str  # decoded and redacted
    redactions: tuple[str, ...] = ()  # names of the secret patterns that fired
    generated: str = ""  # the generator's marker in its header, for a generated file still indexed
    fallback: str = ""  # the legacy code page it was decoded in, being no UTF-8 and without a byte-order mark


@dataclass(frozen=True)
class SkippedFile:
    """reason: gitignored, ignore_list, vendored_dir, virtualenv, secret_file, lock_file,
    generated, minified, binary, too_large, unsupported_type, symlink, special_file (a FIFO,
    socket or device: never opened), stub, bad_filename or unreadable (a directory that cannot
    be listed, or a file that cannot be looked at: skipped, and said, rather than ending the build)."""

    path: str
    reason: str
    detail: str = ""


@dataclass
class WalkResult:
    root: Path
    files: list[SourceFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)

    def skipped_by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.skipped:
            counts[item.reason] = counts.get(item.reason, 0) + 1
        return dict(sorted(counts.items()))


def too_large(skipped: list[SkippedFile]) -> list[str]:
    """`PATH (N bytes > index.max_file_bytes=M)` for each file skipped for its size: a source file
    left out of the index is said, not only counted (a seed-data file of 1.5 MB holds methods too)."""
    return [f"{item.path} ({item.detail})" for item in skipped if item.reason == "too_large"]


def decoded_by_fallback(files: list[SourceFile]) -> list[str]:
    """`PATH (windows-1252)` for each file read in a legacy code page rather than UTF-8: said, as a
    skipped file is, since its non-ASCII text is the code page's reading of its bytes."""
    return [f"{item.path} ({item.fallback})" for item in files if item.fallback]


def check_repository_path(path: str | Path) -> Path:
    """The resolved repository root, or a clear error for a missing path or a non-directory."""
    root = Path(path).expanduser()
    if not root.exists():
        raise IndexingError("path does not exist", where=str(root))
    if not root.is_dir():
        raise IndexingError("path is not a directory; give the repository's root folder",
                            where=str(root))
    resolved = root.resolve()
    if resolved == Path(resolved.anchor) or resolved == Path.home().resolve():
        what = "the file system's root" if resolved == Path(resolved.anchor) else "your home folder"
        raise IndexingError(f"this is {what}, not a repository: refusing to walk all of it", where=str(root),
                            hint="give the repository's own folder (cd into it and run `ragstream index .`)")
    return resolved


IGNORE_FILE = ".ragstreamignore"


def walk_repository(root: str | Path, settings: IndexSettings, *, with_text: bool = True,
                    on_files: Callable[[int], None] | None = None) -> WalkResult:
    """List every file under root, keeping the indexable ones in path order. Without
    `with_text` a kept file has its hash and language only (text "", not redacted): enough
    to tell which files changed since a build, at a quarter of the cost. `on_files(n)` is told
    every `PROGRESS_EVERY` files met, so a long walk shows it is moving."""
    root = check_repository_path(root)
    if with_text:  # the texts read and redacted in parallel, after a walk that only hashes
        hashed = walk_repository(root, settings, with_text=False, on_files=on_files)
        read = read_sources(root, hashed.files, settings)
        if None not in read:
            return WalkResult(root, cast(list[SourceFile], read), hashed.skipped)
        # a file changed (or its name holds a secret, so it is not found by its stored path):
        # walk again, reading each file as the walk meets it
    result = WalkResult(root=root)
    met = 0
    for entry in walk_entries(root, settings, with_text=with_text):
        if isinstance(entry, SkippedFile):
            result.skipped.append(entry)
        else:
            result.files.append(entry)
        met += 1
        if on_files is not None and met % PROGRESS_EVERY == 0:
            on_files(PROGRESS_EVERY)
    result.files.sort(key=lambda f: f.path)
    result.skipped.sort(key=lambda s: s.path)
    return result


PROGRESS_EVERY = 500


def walk_entries(root: str | Path, settings: IndexSettings, *,
                 with_text: bool = True) -> Iterator[SourceFile | SkippedFile]:
    """Each file and skipped folder under root as the walk meets it (folders top-down, names
    sorted): a caller can show the first at once. Past `index.max_files` files it stops with an
    error, since a tree that large is rarely the repository that was meant."""
    root = check_repository_path(root)
    user_ignore = _user_ignore(root, settings)
    layers: list[tuple[str, pathspec.GitIgnoreSpec]] = []  # (directory, its .gitignore)
    unlisted: list[SkippedFile] = []

    def unreadable(exc: OSError) -> None:  # os.walk could not list a directory
        rel = Path(exc.filename).relative_to(root).as_posix()
        if rel == ".":
            raise IndexingError(f"cannot read the repository's root folder: {exc.strerror}", where=str(root)) from exc
        unlisted.append(SkippedFile(rel + "/", "unreadable", _unreadable_detail(exc)))

    files = 0
    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
        yield from unlisted
        unlisted.clear()
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        layers = [(d, s) for d, s in layers if _is_within(rel_dir, d)]
        gitignore = Path(dirpath) / ".gitignore"
        if gitignore.is_file():
            layers.append((rel_dir, _read_gitignore(gitignore)))
        kept_dirs = []
        for name in sorted(dirnames):
            rel = _join(rel_dir, name)
            try:
                reason, detail = _directory_skip_reason(Path(dirpath) / name, rel, name, layers,
                                                        user_ignore, settings), ""
            except OSError as exc:  # no permission to look inside it
                reason, detail = "unreadable", _unreadable_detail(exc)
            if reason:
                yield SkippedFile(rel + "/", reason, detail)
            else:
                kept_dirs.append(name)
        dirnames[:] = kept_dirs
        files += len(filenames)
        if files > settings.max_files:
            raise IndexingError(f"more than {settings.max_files:,} files under this folder (index.max_files): "
                                "is it the repository's root folder?", where=str(root),
                                hint="index the repository's own folder, keep large folders out with "
                                     ".ragstreamignore or index.ignore, or raise index.max_files")
        for name in sorted(filenames):
            outcome = _visit_file(Path(dirpath) / name, _join(rel_dir, name), name, layers, user_ignore, settings,
                                  with_text)
            yield replace(outcome, path=redact_path(outcome.path))  # a token in a file name is stored redacted
    yield from unlisted


def _user_ignore(root: Path, settings: IndexSettings) -> pathspec.GitIgnoreSpec:
    """`index.ignore` and the repository's own list of what to keep out of its index."""
    own = root / IGNORE_FILE
    patterns, where = list(settings.ignore), "index.ignore"
    if own.is_file():
        patterns += own.read_text(encoding="utf-8", errors="replace").splitlines()
        where += f" or {own}"
    return compile_globs(patterns, where, ConfigError)


# A change to one of these changes what the walk keeps elsewhere: a told walk walks everything.
_WALK_RULES = {".gitignore", IGNORE_FILE, "pyvenv.cfg"}


def walk_told(last: WalkResult, settings: IndexSettings, changed: list[str]) -> WalkResult | None:
    """What a walk without text (`walk_repository(..., with_text=False)`) would find now, when
    the repository-relative paths in `changed` are all that changed since `last` was walked
    (a watcher's word, `index/watch.py`): only those paths are looked at again, as the walk would
    meet them -- their folders' skip rules and .gitignore files applied -- and the rest taken
    from `last`. None when that cannot be told without the whole walk: a folder (or an
    ignore rule, or a virtualenv's marker) changed, a path unknown to `last` is gone, a file
    name is stored redacted, or the walk would now pass `index.max_files`."""
    try:
        return _told(last, settings, set(changed))
    except OSError:  # a folder it may not read, a file gone half-way: the whole walk says what it is
        return None


def _told(last: WalkResult, settings: IndexSettings, told: set[str]) -> WalkResult | None:
    """`walk_told` over the told paths and the files beside them whose walk they decide; an
    OSError passes up."""
    root = last.root
    by_path: dict[str, SourceFile | SkippedFile] = {f.path: f for f in last.files}
    by_path.update((s.path, s) for s in last.skipped)
    met = sum(1 for s in last.skipped if not s.path.endswith("/")) + len(last.files)
    user_ignore = _user_ignore(root, settings)
    layers_of: dict[str, list[tuple[str, pathspec.GitIgnoreSpec]] | None] = {}
    for rel in sorted(_with_partners(told, settings)):
        path = root / rel
        if PurePosixPath(rel).name in _WALK_RULES or not _utf8(rel) or redact_path(rel) != rel:
            return None
        if path.is_dir():  # a folder, or a link to one (listed by no walk)
            return None
        if not os.path.lexists(path):
            if rel not in by_path and rel in told:  # a folder that went, perhaps
                return None
            met -= by_path.pop(rel, None) is not None
            continue
        layers = _entered(root, PurePosixPath(rel).parent.as_posix(), user_ignore, settings, layers_of)
        if layers is None:  # in a folder the walk does not enter (and did not: else that folder changed)
            if rel in by_path:
                return None
            continue
        met += rel not in by_path
        by_path[rel] = _visit_file(path, rel, PurePosixPath(rel).name, layers, user_ignore, settings, False)
    if met > settings.max_files:
        return None
    entries = sorted(by_path.values(), key=lambda e: e.path)
    return WalkResult(root, [e for e in entries if isinstance(e, SourceFile)],
                      [e for e in entries if isinstance(e, SkippedFile)])


def _with_partners(changed: set[str], settings: IndexSettings) -> set[str]:
    """`changed` and the file beside each whose walk depends on it: a `.pyi` is skipped while its
    `.py` exists, and a generated `X.cshtml.cs` while its template `X.cshtml` is indexed."""
    paths = set(changed)
    paths.update(p + "i" for p in changed if p.endswith(".py"))
    paths.update(p[:-1] for p in changed if p.endswith(".pyi"))
    paths.update(p + ".cs" for p in changed if PurePosixPath(p).suffix.lower() in settings.languages
                 and not p.endswith((".cs", ".py", ".pyi")))
    return paths


def _entered(root: Path, rel_dir: str, user_ignore, settings: IndexSettings,
             known: dict[str, list[tuple[str, pathspec.GitIgnoreSpec]] | None]
             ) -> list[tuple[str, pathspec.GitIgnoreSpec]] | None:
    """The .gitignore layers a walk applies in the folder `rel_dir` ("." the root), or None when
    the walk does not enter it (it or a folder above it is skipped, or a link); `known` keeps
    each folder's answer."""
    if rel_dir in known:
        return known[rel_dir]
    if rel_dir == ".":
        parent: list[tuple[str, pathspec.GitIgnoreSpec]] | None = []
    else:
        parent = _entered(root, PurePosixPath(rel_dir).parent.as_posix(), user_ignore, settings, known)
        path = root / rel_dir
        if parent is not None and (path.is_symlink() or _directory_skip_reason(
                path, rel_dir, path.name, parent, user_ignore, settings)):
            parent = None
    layers = parent
    if layers is not None:
        base = "" if rel_dir == "." else rel_dir
        if (gitignore := root / base / ".gitignore").is_file():
            layers = [*layers, (base, _read_gitignore(gitignore))]
    known[rel_dir] = layers
    return layers


def _unreadable_detail(exc: OSError) -> str:
    return f"{exc.strerror or exc}: its files are not indexed; fix its permissions, or add it to index.ignore"


def _directory_skip_reason(abs_path: Path, rel: str, name: str, layers, user_ignore,
                           settings: IndexSettings) -> str | None:
    if name in settings.vendored_dirs:
        return "vendored_dir"
    if (abs_path / "pyvenv.cfg").is_file():
        return "virtualenv"
    if _ignored(rel + "/", layers):
        return "gitignored"
    if user_ignore.match_file(rel + "/"):
        return "ignore_list"
    return None


def _visit_file(abs_path: Path, rel: str, name: str, layers, user_ignore,
                settings: IndexSettings, with_text: bool = True) -> SourceFile | SkippedFile:
    if not _utf8(rel):
        return SkippedFile(rel.encode("utf-8", "backslashreplace").decode(), "bad_filename",
                           "the path is not valid UTF-8")
    if _ignored(rel, layers):
        return SkippedFile(rel, "gitignored")
    if user_ignore.match_file(rel):
        return SkippedFile(rel, "ignore_list")
    if _matches(name, settings.secret_files):
        return SkippedFile(rel, "secret_file", "never read: name matches a secret-file pattern")
    if _matches(name, settings.lock_files):
        return SkippedFile(rel, "lock_file")
    if _matches(name, settings.generated_files):
        return SkippedFile(rel, "generated", "name matches a generated-file pattern")
    language = settings.languages.get(PurePosixPath(name).suffix.lower())
    if language is None:
        return SkippedFile(rel, "unsupported_type")
    if name.endswith(".pyi") and abs_path.with_suffix(".py").exists():
        return SkippedFile(rel, "stub", "the .py beside it is indexed (same module name)")
    if abs_path.is_symlink():
        # The target is indexed where it lives, if it lives inside the repository at all.
        return SkippedFile(rel, "symlink")
    try:
        mode = abs_path.lstat().st_mode
    except OSError as exc:
        return SkippedFile(rel, "unreadable", _unreadable_detail(exc))
    if not stat.S_ISREG(mode):
        # Opening a FIFO blocks until a writer comes; a device or socket is no source text.
        return SkippedFile(rel, "special_file", f"a {_special_kind(mode)}: never opened")
    size = abs_path.stat().st_size
    if size > settings.max_file_bytes:
        return SkippedFile(rel, "too_large", f"{size} bytes > index.max_file_bytes={settings.max_file_bytes}")
    try:
        data = abs_path.read_bytes()
    except OSError as exc:
        raise IndexingError(f"cannot read file: {exc.strerror}", where=str(abs_path),
                            hint="fix its permissions, or add it to index.ignore") from exc
    return _classify_content(rel, language, data, settings, with_text,
                             partial(_template_beside, abs_path, rel, layers, user_ignore, settings))


def read_source(root: Path, source: SourceFile, settings: IndexSettings) -> SourceFile | None:
    """A file that a walk without text kept, read again with its text (decoded and redacted);
    None when it is no longer the file that walk saw (changed, gone, or now skipped)."""
    try:
        data = (root / source.path).read_bytes()
    except OSError:
        return None
    if len(data) > settings.max_file_bytes:
        return None
    found = _classify_content(source.path, source.language, data, settings,
                              template=partial(_template_walked, root, source.path, settings))
    return found if isinstance(found, SourceFile) and found.sha256 == source.sha256 else None


READS_PER_WORKER = 128  # below this a worker costs more than the redaction it takes over (Contoso: 100 files)


def read_sources(root: Path, files: list[SourceFile], settings: IndexSettings) -> list[SourceFile | None]:
    """`read_source` of each file, in order: decoding and redaction are most of a walk's time and
    files are independent, so they are spread over forked workers where it pays (`workers`)."""
    return list(spread(partial(_read, root, settings), files, READS_PER_WORKER))


def _read(root: Path, settings: IndexSettings, source: SourceFile) -> SourceFile | None:
    return read_source(root, source, settings)


def _special_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "FIFO (named pipe)"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
             (stat.S_ISBLK, "block device"))
    return next((name for test, name in kinds if test(mode)), "special file")


def _classify_content(rel: str, language: str, data: bytes, settings: IndexSettings,
                      with_text: bool = True, template: Callable[[], str | None] = lambda: None
                      ) -> SourceFile | SkippedFile:
    """The file as the walk keeps it (`template`: the indexed template it was generated from,
    asked only of a file with a generator's header)."""
    text, not_text, fallback = _decoded(data, language)
    if not_text:
        return SkippedFile(rel, "binary", not_text)
    marker = _generated_marker(text, settings.generated_markers) or ""
    if marker and language not in GENERATED_INDEXED:
        return SkippedFile(rel, "generated", f"header says {marker!r}")
    made_from = template() if marker else None
    if made_from:
        return SkippedFile(rel, "generated", f"header says {marker!r}, made from {made_from}, which is indexed")
    lines = text.count("\n") + 1
    if len(text) / lines > settings.max_line_chars:
        return SkippedFile(rel, "minified", f"average line over {settings.max_line_chars} chars")
    if not with_text:
        return SourceFile(rel, language, hashlib.sha256(data).hexdigest(), "", generated=marker, fallback=fallback)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    clean, fired = redact(text, language)
    return SourceFile(rel, language, hashlib.sha256(data).hexdigest(), clean, tuple(fired), marker, fallback)


# Languages whose files with a generator's header are indexed all the same, marked `generated`
# (the FILE node's attrs; retrieval ranks them after hand-written code, `generated_penalty`): a
# LINQ to SQL designer file or an EF model snapshot holds the only mapping of some tables, and a
# mapping being generated does not make it less of an answer. Elsewhere (Python's protobuf
# modules, bundled JavaScript) generated code is noise, and stays out; so is a file generated
# from a template indexed beside it (RazorGenerator's `HomePage.cshtml.cs`: Hangfire's 23 views
# cost two development questions a gold item each when indexed).
GENERATED_INDEXED = frozenset({"csharp", "sql"})


def _template_beside(path: Path, rel: str, layers, user_ignore, settings: IndexSettings) -> str | None:
    """The file a generated one was made from, when it lies beside it and the walk indexes it too
    (`HomePage.cshtml.cs` from `HomePage.cshtml`): the generated copy only repeats it. A template
    the walk skips (ignored, too large, ...) leaves the generated copy the only one indexed."""
    template = path.with_suffix("")
    if template.suffix.lower() not in settings.languages or not template.is_file():
        return None
    walked = _visit_file(template, rel[:-len(path.suffix)], template.name, layers, user_ignore, settings, False)
    return template.name if isinstance(walked, SourceFile) else None


def _template_walked(root: Path, rel: str, settings: IndexSettings) -> str | None:
    """`_template_beside` for a file read again outside a walk: its folder's ignore rules found anew."""
    user_ignore = _user_ignore(root, settings)
    layers = _entered(root, PurePosixPath(rel).parent.as_posix(), user_ignore, settings, {})
    return _template_beside(root / rel, rel, layers or [], user_ignore, settings)


# UTF-32 before UTF-16: the UTF-32 LE mark begins with the UTF-16 LE one.
_BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                     (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
                     (codecs.BOM_UTF8, "utf-8"))


def _decoded(data: bytes, language: str) -> tuple[str, str, str]:
    """(text, "", fallback) by the file's byte-order mark when it has one (SQL Server Management
    Studio saves scripts as UTF-16 with a mark: their NUL bytes are text), else as UTF-8, else, for
    the languages whose tools read a file without a mark that is no UTF-8 in the Windows code page
    (`CODE_PAGE_LANGUAGES`: the C# compiler, SQL Server's tools), in that code page (`fallback`
    names it: ScrewTurn's `Core/Pages.cs` is ISO-8859-1); ("", why, "") when it is no text: a NUL
    byte in a file without a mark, a NUL character in one with a mark, bytes the mark's encoding
    cannot decode, no UTF-8 in another language (Python reads its own coding line, a Markdown file
    may be in any multibyte encoding: guessing would index mojibake), or control bytes no text in a
    code page holds."""
    mark, encoding = next(((m, e) for m, e in _BYTE_ORDER_MARKS if data.startswith(m)), (b"", "utf-8"))
    if not mark and b"\x00" in data[:8192]:
        return "", "NUL byte in the first 8 KiB", ""
    try:
        text = data[len(mark):].decode(encoding)
    except UnicodeDecodeError as exc:
        if mark or language not in CODE_PAGE_LANGUAGES:
            return "", f"not {encoding.upper()} (byte {exc.start + len(mark)})", ""
        return _code_page_text(data, exc.start)
    if "\x00" in text[:8192]:
        return "", f"NUL character in the first 8 KiB ({encoding.upper()} with a byte-order mark)", ""
    return text, "", ""


CODE_PAGE = "windows-1252"
CODE_PAGE_LANGUAGES = frozenset({"csharp", "razor", "sql"})
# Windows-1252 by byte, its five unassigned bytes as their Latin-1 characters, as Windows' own
# code page reads them: one character per byte, so lines and columns are the file's, and no byte
# becomes a line break (Latin-1's 0x85 is NEL, which `str.splitlines` breaks at; 1252's is `…`).
_LATIN1_TO_CODE_PAGE = {b: ord(c) for b, c in ((b, bytes([b]).decode("cp1252", errors="ignore") or chr(b))
                                                 for b in range(256)) if ord(c) != b}
# C0 controls besides the whitespace ones (tab, line feed, vertical tab, form feed, carriage
# return), and DEL: random bytes hold about 12 % of them, a text in a code page next to none
# (a stray DOS end-of-file ^Z aside), so more than 1 in 100 calls the file binary.
_CONTROL_BYTES = bytes([*range(0x09), *range(0x0E, 0x20), 0x7F])
MAX_CONTROL_SHARE = 0.01


def _code_page_text(data: bytes, bad: int) -> tuple[str, str, str]:
    """(text, "", CODE_PAGE) of bytes that are no UTF-8 (the first bad one at `bad`), or ("", why, "")
    when their control bytes say binary."""
    controls = len(data) - len(data.translate(None, _CONTROL_BYTES))
    if controls > MAX_CONTROL_SHARE * len(data):
        return "", f"not UTF-8 (byte {bad}), and {controls} control bytes in {len(data)}: no code page's text", ""
    return data.decode("latin-1").translate(_LATIN1_TO_CODE_PAGE), "", CODE_PAGE


_COMMENT_STARTS = ("#", "//", "--", "/*", "*", "<!--", '"' * 3, "'" * 3, ";")


def _generated_marker(text: str, markers: list[str]) -> str | None:
    """A generator's marker in a comment among the first lines (not just anywhere in the file)."""
    for line in text.split("\n", 10)[:10]:
        stripped = line.strip()
        if stripped.startswith(_COMMENT_STARTS):
            found = next((m for m in markers if m in stripped), None)
            if found:
                return found
    return None


def _read_gitignore(path: Path) -> pathspec.GitIgnoreSpec:
    """The file's patterns; like git, a line that is not a valid pattern is ignored."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise IndexingError(f"cannot read .gitignore: {exc.strerror}", where=str(path)) from exc
    return pathspec.GitIgnoreSpec.from_lines([line for line in lines if _valid_pattern(line)])


def _valid_pattern(line: str) -> bool:
    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except ValueError:
        return False
    return True


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _ignored(rel: str, layers: list[tuple[str, pathspec.GitIgnoreSpec]]) -> bool:
    """Git semantics: the deepest .gitignore with an opinion about the path decides."""
    decision = False
    for base, spec in layers:
        local = rel[len(base) + 1:] if base else rel
        verdict = spec.check_file(local).include
        if verdict is not None:
            decision = verdict
    return decision


def _matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _is_within(rel_dir: str, base: str) -> bool:
    return base == "" or rel_dir == base or rel_dir.startswith(base + "/")


def _join(rel_dir: str, name: str) -> str:
    return f"{rel_dir}/{name}" if rel_dir else name
