"""The evaluation index of one repository at one commit: an existing one, or checked out and built.

Shared by every kind of evaluation: the Python question sets check out the `.py` files of a
commit, the gold-symbol sets the folders their questions are about. Indexes are named by the
commit (or `eval` for one `--repo` folder), so a later run can use them as they are.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragstream.config import Settings
from ragstream.errors import ConfigError, IndexLoadError
from ragstream.eval.checkout import PYTHON_FILES, checkout_files, mirror_path, repo_folder
from ragstream.index import store
from ragstream.index.build import build_index
from ragstream.index.embeddings import Embedder
from ragstream.index.walk import too_large

EVAL_BRANCH = "eval"
COMMIT_NAME_LENGTH = 12
REPO_INDEX_NAME = "eval"  # the index of --repo (with --mirrors, each index is named by its commit)


@dataclass(frozen=True)
class IndexSource:
    """Where the code of an evaluation comes from and where its indexes go."""

    data_dir: Path  # evaluation indexes (never inside a work tree)
    repo: Path | None = None  # one repository folder for every question
    mirrors: Path | None = None  # or bare mirrors, <owner>+<name>/repo, one checkout per commit
    worktrees: Path | None = None  # scratch checkouts (default: <data_dir>/worktrees)
    existing_indexes: bool = False  # use a commit's index as it is when there is one (no checkout, no build)

    def check(self) -> None:
        if (self.repo is None) == (self.mirrors is None):
            raise ConfigError("give exactly one of --repo and --mirrors", where="eval")


def commit_index(source: IndexSource, repo: str, commit: str, settings: Settings, embedder: Embedder,
                 pathspecs: tuple[str, ...] = PYTHON_FILES,
                 on_build: Callable[[dict[str, Any]], None] | None = None) -> store.IndexLocation:
    """The index of `repo` at `commit` (of `source.repo` when given): the existing one when
    asked and loadable, else the files `pathspecs` name checked out and indexed (`on_build`
    hears the build's record)."""
    location = existing_index(source, repo, commit, settings) if source.existing_indexes else None
    if location is not None:
        return location
    root, name = _checkout(source, repo, commit, pathspecs)
    started = time.perf_counter()
    report = build_index(root, settings, name=name, branch=EVAL_BRANCH, embedder=embedder)
    if on_build:
        on_build({"repo": repo, "commit": commit, "index": name, "files": report.files, "chunks": report.chunks,
                  "reparsed": report.reparsed, "embedded_new": report.embedded_new,
                  "too_large": too_large(report.skipped), "decoded_by_fallback": report.decoded_by_fallback,
                  "seconds": round(time.perf_counter() - started, 2)})
    return report.location


def existing_index(source: IndexSource, repo: str, commit: str, settings: Settings) -> store.IndexLocation | None:
    """The live index of this repository and commit (or of --repo), if a loadable one was built before."""
    folder = source.repo.resolve().name if source.repo else repo_folder(repo)
    name = REPO_INDEX_NAME if source.repo else commit[:COMMIT_NAME_LENGTH]
    location = store.IndexLocation(Path(settings.index.data_dir), store.safe_name(folder), name)
    try:
        store.load_index(location, optional=(store.BM25_DIR + "/",))
    except IndexLoadError:
        return None  # none, unfinished or of an older format: built again (from the caches)
    return location


def _checkout(source: IndexSource, repo: str, commit: str, pathspecs: tuple[str, ...]) -> tuple[Path, str]:
    """The folder to index and the index name."""
    if source.repo is not None:
        return source.repo, REPO_INDEX_NAME
    if not commit:
        raise ConfigError(f"a question of {repo} has no commit", where="questions file")
    worktrees = source.worktrees or source.data_dir / "worktrees"
    assert source.mirrors is not None, "IndexSource.check: no repo, so mirrors"
    root = checkout_files(mirror_path(source.mirrors, repo), commit, worktrees / repo_folder(repo), pathspecs)
    return root, commit[:COMMIT_NAME_LENGTH]
