"""Default search scope for the command line: the only repository and index there is, or the
repository that holds the one index of a given name."""
from __future__ import annotations

from pathlib import Path

from ragstream.config import Settings
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
    repository = repository or _only(root, "repository", "--repository")
    index = index or _only(root / repository, "index", "--index")
    if branch is None:
        branch = store.load_index(store.IndexLocation(root.parent, repository, index)).manifest["branch"]
    return repository, index, branch


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
