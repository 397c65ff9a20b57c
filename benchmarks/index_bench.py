"""Index build benchmark: a full build, a no-change re-index and a one-file-change re-index.

    .venv/bin/python benchmarks/index_bench.py PATH [--dtype bfloat16|float32] [--json OUT]
    .venv/bin/python benchmarks/index_bench.py PATH --compare-dtypes 600   # torch fp32 vs torch bf16 vs ONNX fp32

The files ragstream would index are copied to a scratch folder (the one-file change must not
touch the repository) and indexed into a fresh data folder, so the first build embeds
everything. Prints files/s,
chunks/s, texts embedded (chunks plus the windows of long ones) and texts/s, time per phase, peak RSS, index size on disk, and the wall time
of the incremental re-index both in-process (model warm) and as a fresh `ragstream index` CLI
process (what a user waits for). `--compare-dtypes N` instead embeds N chunk texts of the
repository with torch fp32, torch bf16 and ONNX fp32 and reports throughput, cosine agreement
and top-10 overlap against torch fp32.
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
from ragstream.index.walk import walk_repository


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path")
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    parser.add_argument("--compare-dtypes", type=int, metavar="N",
                        help="compare torch fp32, torch bf16 and ONNX fp32 on N chunks")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragstream-bench-") as scratch:
        repo = copy_indexable(Path(args.path).resolve(), Path(scratch))
        if args.compare_dtypes:
            figures = compare_dtypes(repo, Path(scratch), args.compare_dtypes)
        else:
            figures = bench_build(repo, Path(scratch) / "data", args.dtype)
    print_table(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


def copy_indexable(source: Path, scratch: Path) -> Path:
    """Copy what ragstream would index (and the .gitignore files), not virtualenvs or data."""
    repo = scratch / source.name
    walked = walk_repository(source, load_settings().index)
    for rel in [f.path for f in walked.files] + [p.relative_to(source).as_posix()
                                                 for p in source.rglob(".gitignore")]:
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / rel, target)
    return repo


def bench_build(repo: Path, data_dir: Path, dtype: str) -> dict:
    settings = load_settings(overrides={"index": {"data_dir": str(data_dir)}, "embedding": {"dtype": dtype}})
    started = time.perf_counter()
    load_model(dtype)
    model_load = time.perf_counter() - started

    embedder = Embedder(dtype, settings.embedding.batch_size, settings.embedding.onnx_below)
    started = time.perf_counter()
    full = build_index(repo, settings, embedder=embedder)
    full_seconds = time.perf_counter() - started
    lines = sum(f.read_text(errors="replace").count("\n") for f in map(repo.joinpath, _indexed(data_dir)))

    started = time.perf_counter()
    unchanged = build_index(repo, settings, embedder=Embedder(dtype, onnx_below=settings.embedding.onnx_below))
    unchanged_seconds = time.perf_counter() - started

    changed_file = _change_one_file(repo)
    started = time.perf_counter()
    one = build_index(repo, settings, embedder=Embedder(dtype, onnx_below=settings.embedding.onnx_below))
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
        "embedded_texts": full.embedded_new,  # chunk texts plus the windows of long chunks
        "embedding_texts_per_s": round(full.embedded_new / full.seconds["embed"], 1),
        "full_build_backends": full.embedding_backends,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "index_size_mb": round(size / 2**20, 2), "embedding_cache_mb": round(cache / 2**20, 2),
        "reindex_unchanged_s": round(unchanged_seconds, 2),
        "reindex_unchanged_embedded": unchanged.embedded_new,
        "reindex_one_file": changed_file,
        "reindex_one_file_s": round(one_seconds, 2), "reindex_one_file_phase_s": one.seconds,
        "reindex_one_file_embedded": one.embedded_new, "reindex_one_file_reparsed": one.reparsed,
        "reindex_one_file_backends": one.embedding_backends,
        "reindex_one_file_cli_process_s": round(cli_seconds, 2),
    }


def compare_dtypes(repo: Path, scratch: Path, n: int) -> dict:
    """Throughput of torch fp32, torch bf16 and ONNX fp32 on the same chunk texts, and how far
    each moves results from torch fp32 (the reference)."""
    settings = load_settings(overrides={"index": {"data_dir": str(scratch / "data")}})
    build_index(repo, settings, embedder=Embedder("bfloat16", onnx_below=0))
    chunks = store.load_index(locate(repository_info(repo), settings)).chunks()
    texts = [c.embedding_text for c in chunks][:: max(1, len(chunks) // n)][:n]
    paths = {"torch_fp32": Embedder("float32", onnx_below=0),
             "torch_bf16": Embedder("bfloat16", onnx_below=0),
             "onnx_fp32": Embedder("float32", onnx_below=len(texts) + 1)}
    vectors, figures = {}, {"repository": repo.name, "texts": len(texts)}
    for label, embedder in paths.items():
        embedder.encode(texts[:2])  # load the model outside the timing
        started = time.perf_counter()
        vectors[label] = embedder.encode(texts)
        figures[f"{label}_chunks_per_s"] = round(len(texts) / (time.perf_counter() - started), 1)
        figures[f"{label}_backend"] = ", ".join(embedder.backends)
    reference = vectors["torch_fp32"]
    for label in ("torch_bf16", "onnx_fp32"):
        cos = np.sum(reference * vectors[label], axis=1)
        figures[f"{label}_cosine_min"] = round(float(cos.min()), 6)
        figures[f"{label}_top10_overlap"] = round(_top10_overlap(reference, vectors[label]), 3)
    return figures


def _top10_overlap(reference: np.ndarray, other: np.ndarray) -> float:
    """Mean share of each text's 10 nearest neighbours (first 200 texts as queries) kept."""
    kept = []
    for i in range(min(len(reference), 200)):
        tops = [set(np.argsort(-(v @ v[i]))[1:11]) for v in (reference, other)]
        kept.append(len(tops[0] & tops[1]) / 10)
    return float(np.mean(kept))


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
