"""Search latency while a semantic fill runs in another process, at the normal priority or niced
as `ragstream index` runs it in the background (A/B, interleaved: the machine is shared).

    .venv/bin/python benchmarks/fill_priority_ab.py PATH [--seconds 25]

Builds PATH keyword-ready in a scratch data folder, then four times starts a fill process --
plain (`fill_index` called directly), niced (`ragstream index --fill`), plain, niced --, runs
hybrid and bm25 searches in this process for `--seconds` once the fill has published, stops it
(the STOP request a re-index uses) and prints the median search latency of each round.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ragstream.config import load_settings
from ragstream.index import store
from ragstream.index.build import build_index, locate, repository_info
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.types import SearchRequest

QUERIES = ("how is a call's inferred return type cached", "parse a module from source text",
           "where are decorators resolved")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path")
    parser.add_argument("--seconds", type=float, default=25.0)
    args = parser.parse_args()
    repo = Path(args.path).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="ragstream-ab-"))
    config = scratch / "config.yaml"
    config.write_text(f"index:\n  data_dir: {scratch / 'data'}\n")
    settings = load_settings(str(config))
    report = build_index(repo, settings, fill=False)
    location = locate(repository_info(repo), settings)
    backend = LocalBackend(settings)
    plain = [sys.executable, "-c", "from ragstream.config import load_settings; from ragstream.index.build "
             f"import fill_index; fill_index({str(repo)!r}, load_settings({str(config)!r}))"]
    niced = [sys.executable, "-m", "ragstream", "--config", str(config), "index", str(repo), "--fill"]
    for label, command in (("plain", plain), ("niced", niced), ("plain", plain), ("niced", niced)):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while store.load_index(location).manifest["vectors"].get("rate") is None and process.poll() is None:
            time.sleep(0.5)  # searched once the fill embeds (and semantic search has vectors)
        latencies, end = [], time.time() + args.seconds
        while time.time() < end:
            for query in QUERIES:
                for mode in ("hybrid", "bm25"):
                    started = time.perf_counter()
                    backend.search(SearchRequest(mode, query, 10, repo.name, report.info.branch))
                    latencies.append(time.perf_counter() - started)
            time.sleep(0.2)
        (location.index_dir / store.STOP).touch()
        process.wait()
        vectors = store.load_index(location).manifest["vectors"]
        print(f"{label}: median search {statistics.median(latencies) * 1000:.1f} ms over {len(latencies)}; "
              f"{vectors['embedded']} of {vectors['texts']} texts embedded", flush=True)


if __name__ == "__main__":
    main()
