"""The repository's past changes: each recent commit's message and the indexed code it touched.

A fix often lands where earlier fixes of the same behaviour landed ("Always force a single value
for firstresult hooks" changes the function "Handle firstresult hooks that return None" changed),
so past commit messages are a second description of the code, written in the words of questions.

`git log -p -U0` gives each hunk's enclosing definition in its header (git's own diff drivers
for Python and C#); a header names a function or class of the indexed tree by its file and name,
and by its exact definition line when the file has several of that name. The history read is
the commits reachable from the indexed HEAD, newest first: nothing after the indexed tree.
"""
from __future__ import annotations

import re
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ragstream.redact import redact, redact_path
from ragstream.index.model import Chunk

DIFF_DRIVERS = {".py": "python", ".cs": "csharp"}  # git's built-in hunk-header patterns
TARGET_KINDS = ("FUNCTION", "METHOD", "CLASS")
MESSAGE_CHARS = 2000  # a squash commit's bullet list adds little after this
_COMMIT, _END = "\x1eCOMMIT ", "\x1eEND"
_TYPE_NAME = re.compile(r"\b(?:class|struct|interface|record|enum)\s+([A-Za-z_]\w*)")
_CALLABLE_NAME = re.compile(r"\b(?:def\s+)?([A-Za-z_]\w*)\s*\(")


@dataclass(frozen=True)
class PastChange:
    """One commit: its message and the node ids of the indexed definitions it changed."""

    commit: str
    message: str
    targets: tuple[str, ...]


def read_change_history(root: Path, chunks: list[Chunk], max_commits: int) -> list[PastChange]:
    """The last `max_commits` non-merge commits of the git work tree at `root` that changed an
    indexed definition, newest first; [] when `root` is not a git work tree or `max_commits` is 0."""
    return ChangeLog(root, max_commits).past_changes(chunks)


class ChangeLog:
    """`git log -p` of the indexed HEAD, run on a thread from the moment it is made: git works
    on another core while the build makes the graph and chunks that the log is read against."""

    def __init__(self, root: Path, max_commits: int):
        self._log: str | None = None
        self._reader = threading.Thread(target=self._read, args=(root, max_commits), daemon=True)
        self._reader.start()

    def past_changes(self, chunks: list[Chunk]) -> list[PastChange]:
        """The commits of the log that changed a definition among `chunks`, newest first."""
        self._reader.join()
        if not self._log:
            return []
        targets = DefinitionLookup(chunks)
        # Messages are stored in the index like code, so they get the same secret redaction, before
        # they are cut: a token straddling the cut would lose its shape and leave its head stored.
        return [PastChange(commit, redact(message, "text")[0][:MESSAGE_CHARS], touched)
                for commit, message, headers in parse_log(self._log.split("\n"))
                if (touched := targets.of(headers))]

    def _read(self, root: Path, max_commits: int) -> None:
        if max_commits <= 0:
            return
        with tempfile.NamedTemporaryFile("w", suffix=".gitattributes") as attributes:
            attributes.write("".join(f"*{suffix} diff={driver}\n" for suffix, driver in DIFF_DRIVERS.items()))
            attributes.flush()
            try:
                log = subprocess.run(
                    ["git", "-C", str(root), "-c", f"core.attributesFile={attributes.name}", "log", "-p", "-U0",
                     "--no-merges", "--no-color", "--no-ext-diff", f"-n{max_commits}",
                     f"--format={_COMMIT}%H%n%B{_END}", "HEAD", "--", *(f"*{s}" for s in DIFF_DRIVERS)],
                    capture_output=True, text=True, errors="replace", timeout=300, check=False)
            except (OSError, subprocess.TimeoutExpired):
                return
        if log.returncode == 0:
            self._log = log.stdout


def parse_log(lines: Iterable[str]) -> Iterator[tuple[str, str, list[tuple[str, str]]]]:
    """(commit, message, [(path, hunk header)]) per commit of `git log -p` output in our format."""
    commit: str | None = None
    message: list[str] = []
    headers: list[tuple[str, str]] = []
    path: str | None = None
    in_message = False
    for line in lines:
        if line.startswith(_COMMIT):
            if commit:
                yield commit, "\n".join(message).strip(), headers
            commit, message, headers, path, in_message = line[len(_COMMIT):], [], [], None, True
        elif in_message:
            if line == _END:
                in_message = False
            else:
                message.append(line)
        elif line.startswith("+++ "):
            # /dev/null: a deleted file; a path is redacted as the indexed files' paths are
            path = redact_path(line[6:]) if line.startswith("+++ b/") else None
        elif line.startswith("@@") and path:
            header = line.split("@@", 2)[-1].strip()
            if header:
                headers.append((path, header))
    if commit:
        yield commit, "\n".join(message).strip(), headers


class DefinitionLookup:
    """Finds the indexed definition a hunk header names: by file and name, and by the exact
    definition line when the file holds several definitions of that name (`__init__`)."""

    def __init__(self, chunks: list[Chunk]):
        self.by_name: dict[tuple[str, str], set[str]] = {}
        self.by_line: dict[tuple[str, str], set[str]] = {}
        for chunk in chunks:  # the parts of a split definition all give its node id
            if chunk.kind in TARGET_KINDS:
                self.by_name.setdefault((chunk.path, chunk.symbol.rsplit(".", 1)[-1]), set()).add(chunk.node_id)
                if chunk.metadata.get("part", 1) == 1 and (line := _definition_line(chunk.text)):
                    self.by_line.setdefault((chunk.path, line), set()).add(chunk.node_id)

    def of(self, headers: list[tuple[str, str]]) -> tuple[str, ...]:
        found: dict[str, None] = {}
        for path, header in headers:
            name = header_name(header)
            candidates = self.by_name.get((path, name), set()) if name else set()
            if len(candidates) > 1:
                candidates = self.by_line.get((path, header), set()) or candidates
            found.update(dict.fromkeys(sorted(candidates)))
        return tuple(found)


def header_name(header: str) -> str | None:
    """The defined name in a hunk header: `def parse(self):` -> parse, `class A(B):` -> A,
    `public void Save(int id)` -> Save."""
    match = _TYPE_NAME.search(header) if not header.lstrip().startswith(("def ", "async ")) else None
    match = match or _CALLABLE_NAME.search(header)
    return match.group(1) if match else None


def _definition_line(text: str) -> str | None:
    """The first line of a chunk that is neither a decorator/attribute nor blank, stripped."""
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith(("@", "[", "#", "//")):
            return stripped
    return None
