"""Default search scope for the command line: the only repository and index there is, or the
repository that holds the one index of a given name; with several repositories, the one whose
checkout holds the current directory (as git finds its repository), else the bundled default."""
from __future__ import annotations

import json
from pathlib import Path

from ragstream.config import DEFAULT_INDEX_NAME, PROJECT_ROOT, Settings
from ragstream.retrieval.backends import serves_locally
from ragstream.errors import RetrievalError
from ragstream.index import store


def default_scope(settings: Settings, repository: str | None, index: str | None,
                  branch: str | None, source: str = "") -> tuple[str, str, str]:
    """(repository, index, branch), each taken from the data folder when it is the only one; an
    index named without its repository is looked up across repositories (ambiguity is an error
    that lists the candidates). On Milvus (`source` shared, or "" with Milvus configured)
    repository and index must be named; the branch is the published one's."""
    if not serves_locally(settings, source):
        from ragstream.retrieval.milvus_store import published_branch

        return published_branch(settings.milvus.uri, repository, index, branch)
    root = Path(settings.index.data_dir).expanduser().resolve() / "indexes"
    if repository is None and index is not None:
        repository = _holder_of(root, index)
    if repository is None:
        repository, index = _default_repository(root, index)
    index = index or _only(root / repository, "index", "--index")
    if branch is None:
        branch = store.load_index(store.IndexLocation(root.parent, repository, index)).manifest["branch"]
    return repository, index, branch


def _default_repository(root: Path, index: str | None) -> tuple[str, str | None]:
    """(repository, index) when none is named: the only one; else the one whose indexed checkout
    holds the current directory; else the bundled default (ragstream's own source, `self`)."""
    choices = _folders(root)
    if len(choices) == 1:
        return choices[0], index
    here = Path.cwd().resolve()
    holders = sorted(((len(source.parts), repo, name) for repo in choices for name in _folders(root / repo)
                      if (source := _source_root(root / repo / name)) and here.is_relative_to(source)), reverse=True)
    if holders:  # the deepest checkout: a repository vendored inside another is its own
        return holders[0][1], index or holders[0][2]
    bundled = store.safe_name(PROJECT_ROOT.name)
    if _source_root(root / bundled / DEFAULT_INDEX_NAME) == PROJECT_ROOT:
        return bundled, index or DEFAULT_INDEX_NAME
    found = ", ".join(choices) if choices else "none"
    raise RetrievalError(f"cannot choose a repository: found {found}, and the current directory is in none of "
                         "their checkouts", where=str(root),
                         hint="name one with --repository NAME, or run the command inside its checkout"
                         if choices else "build one: ragstream index PATH")


def _source_root(index_dir: Path) -> Path | None:
    """The checkout an index was built from (its live manifest's `source_root`); None: unreadable."""
    generation = store.current_generation(store.IndexLocation(index_dir.parent.parent.parent, index_dir.parent.name,
                                                              index_dir.name))
    try:
        manifest = json.loads((generation / store.MANIFEST).read_text(encoding="utf-8")) if generation else {}
        return Path(manifest["source_root"]).resolve()
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _folders(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def _only(folder: Path, what: str, option: str) -> str:
    choices = _folders(folder)
    if len(choices) != 1:
        found = ", ".join(choices) if choices else "none"
        raise RetrievalError(f"cannot choose a {what}: found {found}", where=str(folder),
                             hint=f"name one with {option}" if choices else "build one: ragstream index PATH")
    return choices[0]


def _holder_of(root: Path, index: str) -> str:
    """The one repository with an index named `index`."""
    holders = [repo for repo in _folders(root) if (root / repo / index).is_dir()]
    if len(holders) == 1:
        return holders[0]
    if not holders:
        found = ", ".join(f"{repo}/{name}" for repo in _folders(root) for name in _folders(root / repo)) or "none"
        raise RetrievalError(f"no index named {index!r}: found {found}", where=str(root),
                             hint="name an index that exists, or build it: ragstream index PATH --name NAME")
    raise RetrievalError(f"index {index!r} exists in several repositories: "
                         + ", ".join(f"{repo}/{index}" for repo in holders), where="--index",
                         hint="name the repository too with --repository")
