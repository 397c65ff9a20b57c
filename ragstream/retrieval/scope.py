"""Default search scope for the command line: the only repository and index there is."""
from __future__ import annotations

from pathlib import Path

from ragstream.config import Settings
from ragstream.errors import RetrievalError
from ragstream.index import store


def default_scope(settings: Settings, repository: str | None, index: str | None,
                  branch: str | None) -> tuple[str, str, str]:
    """(repository, index, branch), each taken from the data folder when it is the only one
    (on Milvus: repository and index must be named; the branch is the published one's)."""
    if settings.retrieval.backend == "milvus":
        from ragstream.retrieval.milvus_store import published_branch

        return published_branch(settings.milvus.uri, repository, index, branch)
    root = Path(settings.index.data_dir).expanduser().resolve() / "indexes"
    repository = repository or _only(root, "repository", "--repository")
    index = index or _only(root / repository, "index", "--index")
    if branch is None:
        branch = store.load_index(store.IndexLocation(root.parent, repository, index)).manifest["branch"]
    return repository, index, branch


def _only(folder: Path, what: str, option: str) -> str:
    choices = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    if len(choices) != 1:
        found = ", ".join(choices) if choices else "none"
        raise RetrievalError(f"cannot choose a {what}: found {found}", where=str(folder),
                             hint=f"name one with {option}" if choices else "build one: ragstream index PATH")
    return choices[0]
