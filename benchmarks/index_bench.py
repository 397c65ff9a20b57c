"""Index build benchmark: a full build, a no-change re-index and a one-file-change re-index.

    .venv/bin/python benchmarks/index_bench.py PATH [--dtype bfloat16|float32] [--json OUT]
    .venv/bin/python benchmarks/index_bench.py PATH --compare-dtypes 600

The repository is copied to a scratch folder first (the one-file change must not touch it) and
indexed into a fresh data folder, so the first build embeds everything. Prints files/s,
chunks/s, embedding chunks/s, time per phase, peak RSS, index size on disk, and the wall time
of the incremental re-index both in-process (model warm) and as a fresh `ragstream index` CLI
process (what a user waits for). `--compare-dtypes N` instead embeds N chunk texts of the
repository with fp32 and bf16 and reports throughput, cosine agreement and top-10 overlap.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ragstream.config import load_settings
from ragstream.index import store
from ragstream.index.build import build_index, locate, repository_info
from ragstream.index.embeddings import Embedder, load_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path")
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    parser.add_argument("--compare-dtypes", type=int, metavar="N", help="compare fp32 and bf16 on N chunks")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragstream-bench-") as scratch:
        repo = Path(scratch) / Path(args.path).resolve().name
        shutil.copytree(args.path, repo, ignore=shutil.ignore_patterns(".git"), symlinks=True)
        if args.compare_dtypes:
            figures = compare_dtypes(repo, Path(scratch), args.compare_dtypes)
        else:
            figures = bench_build(repo, Path(scratch) / "data", args.dtype)
    print_table(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


def bench_build(repo: Path, data_dir: Path, dtype: str) -> dict:
    settings = load_settings(overrides={"index": {"data_dir": str(data_dir)}, "embedding": {"dtype": dtype}})
    started = time.perf_counter()
    load_model(dtype)
    model_load = time.perf_counter() - started

    embedder = Embedder(dtype, settings.embedding.batch_size)
    started = time.perf_counter()
    full = build_index(repo, settings, embedder=embedder)
    full_seconds = time.perf_counter() - started
    lines = sum(f.read_text(errors="replace").count("\n") for f in map(repo.joinpath, _indexed(data_dir)))

    started = time.perf_counter()
    unchanged = build_index(repo, settings, embedder=Embedder(dtype))
    unchanged_seconds = time.perf_counter() - started

    changed_file = _change_one_file(repo)
    started = time.perf_counter()
    one = build_index(repo, settings, embedder=Embedder(dtype))
    one_seconds = time.perf_counter() - started

    _change_one_file(repo, again=True)
    config = data_dir.parent / "bench-config.yaml"
    config.write_text(f"index:\n  data_dir: {data_dir}\nembedding:\n  dtype: {dtype}\n")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ragstream.cli", "--config", str(config), "index", str(repo)],
                   check=True, capture_output=True)
    cli_seconds = time.perf_counter() - started

    size = sum(p.stat().st_size for p in full.location.index_dir.rglob("*") if p.is_file())
    cache = full.location.embedding_cache.stat().st_size
    return {
        "repository": repo.name, "dtype": dtype, "files": full.files, "lines": lines,
        "chunks": full.chunks, "nodes": sum(full.nodes_by_kind.values()),
        "edges": sum(full.edges_by_type.values()),
        "full_build_s": round(full_seconds, 2), "model_load_s": round(model_load, 2),
        "phase_s": full.seconds,
        "files_per_s": round(full.files / full_seconds, 1),
        "chunks_per_s": round(full.chunks / full_seconds, 1),
        "embedding_chunks_per_s": round(full.embedded_new / full.seconds["embed"], 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "index_size_mb": round(size / 2**20, 2), "embedding_cache_mb": round(cache / 2**20, 2),
        "reindex_unchanged_s": round(unchanged_seconds, 2),
        "reindex_unchanged_embedded": unchanged.embedded_new,
        "reindex_one_file": changed_file,
        "reindex_one_file_s": round(one_seconds, 2), "reindex_one_file_phase_s": one.seconds,
        "reindex_one_file_embedded": one.embedded_new, "reindex_one_file_reparsed": one.reparsed,
        "reindex_one_file_cli_process_s": round(cli_seconds, 2),
    }


def compare_dtypes(repo: Path, scratch: Path, n: int) -> dict:
    """Throughput of fp32 and bf16 on the same chunk texts, and how far bf16 moves results."""
    settings = load_settings(overrides={"index": {"data_dir": str(scratch / "data")}})
    build_index(repo, settings, embedder=Embedder("bfloat16"))
    chunks = store.load_index(locate(repository_info(repo), settings)).chunks()
    texts = [c.embedding_text for c in chunks][:n]
    vectors, figures = {}, {"repository": repo.name, "texts": len(texts)}
    for dtype in ("float32", "bfloat16"):
        load_model(dtype)
        started = time.perf_counter()
        vectors[dtype] = Embedder(dtype).encode(texts)
        figures[f"{dtype}_chunks_per_s"] = round(len(texts) / (time.perf_counter() - started), 1)
    cos = np.sum(vectors["float32"] * vectors["bfloat16"], axis=1)
    figures["cosine_min"] = round(float(cos.min()), 4)
    figures["cosine_mean"] = round(float(cos.mean()), 4)
    # Top-10 neighbours of every text among the others, fp32 vs bf16.
    overlaps = []
    for i in range(min(len(texts), 200)):
        tops = [set(np.argsort(-(v @ v[i]))[1:11]) for v in (vectors["float32"], vectors["bfloat16"])]
        overlaps.append(len(tops[0] & tops[1]) / 10)
    figures["top10_overlap_mean"] = round(float(np.mean(overlaps)), 3)
    return figures


def _indexed(data_dir: Path) -> list[str]:
    manifest = next(data_dir.rglob("manifest.json"))
    return list(json.loads(manifest.read_text())["files"])


def _change_one_file(repo: Path, again: bool = False) -> str:
    """Edit one function body in the largest Python file (the worst case for re-parsing)."""
    target = max(repo.rglob("*.py"), key=lambda p: p.stat().st_size)
    text = target.read_text()
    marker = "    pass  # benchmark edit\n"
    if again:
        text = text.replace(marker, "    pass  # benchmark edit, again\n", 1)
    else:
        head, sep, rest = text.partition("\ndef ")
        name_line, nl, body = rest.partition("\n")
        text = head + sep + name_line + nl + marker + body if sep and name_line.rstrip().endswith(":") \
            else text + "\n\ndef _benchmark_edit():\n" + marker
    target.write_text(text)
    return str(target.relative_to(repo))


def print_table(figures: dict) -> None:
    width = max(map(len, figures))
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
