"""Does the keyword phase answer keyword search as the linked index does (issue 40, twelfth pass)?

    PYTHONPATH=$PWD .venv/bin/python benchmarks/keyword_phase_same.py PATH [PATH ...] [--queries 60]

Each PATH is copied (what ragstream indexes) and built cold into a fresh data folder
(`build_index(..., fill=False)`). When the build first publishes -- the generation over the
unlinked graph -- `--queries` BM25 searches run on it: the short names of chunks taken evenly
through the chunk list, and as many three-word phrases from their code. Once the linked
generation is live the same searches run again; their hits (ids, scores, ranks) must be the
same. Also said: whether the first generation was the unlinked one, whether the linked one's
BM25 files are the first one's (hard links), and the two publications' times.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def queries_of(chunks, count: int) -> list[str]:
    """Half short names, half three-word phrases of code, from chunks taken evenly."""
    step = max(1, len(chunks) // max(1, count // 2))
    picked = chunks[::step][: count // 2]
    names = [c.symbol.rsplit(".", 1)[-1] for c in picked]
    phrases = []
    for chunk in picked:
        words = re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", chunk.text)
        if len(words) >= 3:
            middle = len(words) // 2
            phrases.append(" ".join(words[middle - 1: middle + 2]))
    return names + phrases


def check(path: Path, count: int) -> bool:
    """Build `path` cold, search both generations, print what was found; whether the hits agree."""
    from index_bench import copy_indexable

    from ragstream.config import load_settings
    from ragstream.index import store
    from ragstream.index.build import Silent, build_index
    from ragstream.index.graph_mark import GRAPH_UPDATE
    from ragstream.retrieval.local_backend import LocalBackend
    from ragstream.retrieval.types import SearchRequest

    def hits(queries: list[str]) -> list:
        backend = LocalBackend(settings)
        return [[(h.id, h.score, h.rank) for h in backend.search(SearchRequest("bm25", q, 10, repo.name, "default")).hits]
                for q in queries]

    def inodes(folder: Path) -> list[int]:
        return [path.stat().st_ino for path in sorted(folder.iterdir())]

    class First(Silent):
        seen: dict | None = None

        def published(self, vectors: dict) -> None:
            if self.seen is None:
                at = time.perf_counter() - started
                stored = store.load_index(report_location())
                queries = queries_of(stored.chunks(), count)
                self.seen = {"at": at, "unlinked": bool(stored.manifest.get(GRAPH_UPDATE, {}).get("unlinked")),
                             "queries": queries, "hits": hits(queries), "bm25": inodes(stored.bm25_dir)}

    with tempfile.TemporaryDirectory(prefix="keyword_phase_") as scratch:
        repo = copy_indexable(path.resolve(), Path(scratch))
        settings = load_settings(overrides={"index": {"data_dir": str(Path(scratch) / "data")}})

        def report_location():
            from ragstream.index.build import locate, repository_info

            return locate(repository_info(repo), settings)

        first = First()
        started = time.perf_counter()
        report = build_index(repo, settings, fill=False, progress=first)
        total = time.perf_counter() - started
        seen = first.seen
        assert seen is not None
        same = hits(seen["queries"]) == seen["hits"]
        print(f"{path.name}: first generation unlinked: {seen['unlinked']} (published at {seen['at']:.2f} s, "
              f"build {total:.2f} s, the first searches included); {len(seen['queries'])} queries, "
              f"{sum(map(len, seen['hits']))} hits: {'the same' if same else 'DIFFERENT'} on the linked index; "
              f"BM25 files linked: {inodes(store.load_index(report.location).bm25_dir) == seen['bm25']}", flush=True)
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    results = [check(Path(path), args.queries) for path in args.paths]
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
