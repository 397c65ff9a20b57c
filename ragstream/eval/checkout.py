"""Checking out a question's commit from a bare mirror into a scratch worktree (chosen files only).

Mirrors are laid out `<mirrors>/<owner>+<name>/repo`. Only the files a pathspec names are written
(the Python files, or the folders a question is about: a few mirrors lack some large blobs, so a
full checkout can fail); one scratch folder per repository is reused from commit to commit,
emptied first so no file of another commit stays.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ragstream.errors import ConfigError, IndexingError

GIT_TIMEOUT_SECONDS = 600
PYTHON_FILES = ("*.py",)


def repo_folder(repo: str) -> str:
    """`owner/name` -> `owner+name`: the folder of its mirror and of its scratch worktree."""
    owner, _, name = repo.partition("/")
    return f"{owner}+{name}"


def mirror_path(mirrors: Path, repo: str) -> Path:
    """The git directory of `owner/name`'s mirror: a bare repository at `<owner>+<name>/repo`, or
    the `.git` of a clone kept without its files there (as some snapshots are stored); else an
    error saying where it was looked for."""
    path = mirrors / repo_folder(repo) / "repo"
    for git_dir in (path, path / ".git"):
        if (git_dir / "HEAD").is_file():
            return git_dir
    raise ConfigError(f"no bare git mirror of {repo}", where=str(path),
                      hint="lay mirrors out as <mirrors>/<owner>+<name>/repo (a bare repository, or a clone's .git in it)")


def checkout_files(mirror: Path, commit: str, worktree: Path, pathspecs: tuple[str, ...] = PYTHON_FILES) -> Path:
    """`worktree` holding exactly the files of `commit` that `pathspecs` (git's) name; returns it."""
    if worktree.exists():
        _git(mirror, "worktree", "remove", "--force", str(worktree), check=False)
        shutil.rmtree(worktree, ignore_errors=True)
    _git(mirror, "worktree", "prune")
    worktree.parent.mkdir(parents=True, exist_ok=True)
    _git(mirror, "worktree", "add", "--no-checkout", "--detach", "--force", str(worktree), commit)
    _git(worktree, "read-tree", "HEAD")
    listed = _git(worktree, "ls-files", "-z", "--", *pathspecs).stdout
    _git(worktree, "checkout-index", "-f", "-z", "--stdin", stdin=listed)
    return worktree


def _git(where: Path, *args: str, check: bool = True, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    try:
        result = subprocess.run(["git", "-C", str(where), *args], input=stdin, capture_output=True,
                                timeout=GIT_TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise IndexingError(f"git {args[0]} failed: {exc}", where=str(where)) from exc
    if check and result.returncode != 0:
        raise IndexingError(f"git {' '.join(args[:2])} failed: {result.stderr.decode(errors='replace').strip()}",
                            where=str(where))
    return result
