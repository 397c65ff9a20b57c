"""Where the embed phase's time goes, and what the model's arithmetic allows on this CPU.

    .venv/bin/python benchmarks/embed_profile.py PATH [--texts 800] [--rounds 2]

Takes N texts of the repository's index plan (heads and windows, evenly spread), then times,
interleaved round by round on the same texts (the machine is shared: an A/B run back to back
would compare two loads, not two methods):
  padded    length-sorted batches of 32, padded to the batch's longest (the build before
            progressive fills)
  exact-32  batches of one token length, at most 32 texts (what `Embedder.encode` does)
  exact-tok batches of one token length, up to 8,192 tokens each (short texts in bigger batches)
  tokenize  the tokenisation alone
and prints texts/s, tokens/s and the achieved GFLOP/s against the model's arithmetic: 2 x
(4h^2 + 2h*ffn + 2*L*h) multiply-adds per token per layer (h 384, ffn 1536, 6 layers, L the
text's length).
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from ragstream.config import load_settings
from ragstream.index import store
from ragstream.index.build import build_index, locate, repository_info
from ragstream.index.embeddings import Embedder, length_batches, load_model, token_lengths
from ragstream.index.fill import TextPlan

HIDDEN, FFN, LAYERS = 384, 1536, 6


def flops(lengths: list[int]) -> float:
    """Floating-point operations of one forward pass over texts of these lengths (unpadded)."""
    return sum(2 * LAYERS * n * (4 * HIDDEN**2 + 2 * HIDDEN * FFN + 2 * n * HIDDEN) for n in lengths)


def sample_texts(path: Path, scratch: Path, count: int) -> list[str]:
    """About `count` texts of the plan: all those of every k-th distinct token length, so a
    length's batch is as full as in a real fill (an even spread would leave one text a length)."""
    settings = load_settings(overrides={"index": {"data_dir": str(scratch)}})
    build_index(path, settings, fill=False)
    chunks = store.load_index(locate(repository_info(path), settings)).chunks()
    texts = TextPlan.of(chunks, settings.embedding.window_tokens).texts
    lengths = token_lengths(texts)
    chosen = set(sorted(set(lengths))[::max(1, len(texts) // count)])  # every k-th length: ~len/k texts
    return [t for t, n in zip(texts, lengths) if n in chosen][:count]


def run(texts: list[str], method: str, model, lengths: list[int]) -> float:
    started = time.perf_counter()
    if method == "tokenize":
        token_lengths(texts)
    elif method == "padded":
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), 32):
            batch = [texts[i] for i in order[start:start + 32]]
            model.encode(batch, batch_size=len(batch), convert_to_numpy=True, show_progress_bar=False)
    else:
        size = 32 if method == "exact-32" else None
        for batch in _batches(lengths, size):
            chosen = [texts[i] for i in batch]
            model.encode(chosen, batch_size=len(chosen), convert_to_numpy=True, show_progress_bar=False)
    return time.perf_counter() - started


def _batches(lengths: list[int], size: int | None) -> list[list[int]]:
    if size:
        return length_batches(lengths, size)
    batches = []
    for group in length_batches(lengths, 10**9):
        rows = max(1, 8192 // lengths[group[0]])
        batches += [group[i:i + rows] for i in range(0, len(group), rows)]
    return batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path")
    parser.add_argument("--texts", type=int, default=800)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragstream-embed-") as scratch:
        texts = sample_texts(Path(args.path).resolve(), Path(scratch), args.texts)
    lengths = token_lengths(texts)
    model = load_model(Embedder().dtype)
    model.encode(texts[:8], show_progress_bar=False)  # warm
    methods = ("padded", "exact-32", "exact-tok", "tokenize")  # interleaved, round by round
    seconds: dict[str, list[float]] = {m: [] for m in methods}
    for _ in range(args.rounds):
        for method in methods:
            seconds[method].append(run(texts, method, model, lengths))
    work = flops(lengths)
    print(json.dumps({"texts": len(texts), "tokens": int(sum(lengths)),
                      "mean_tokens": round(float(np.mean(lengths)), 1),
                      "gflop": round(work / 1e9, 1)}))
    for method in methods:
        best = min(seconds[method])
        print(json.dumps({"method": method, "seconds": [round(s, 2) for s in seconds[method]],
                          "texts_per_s": round(len(texts) / best, 1),
                          "gflop_per_s": None if method == "tokenize" else round(work / best / 1e9, 1)}))


if __name__ == "__main__":
    main()
