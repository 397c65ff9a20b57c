"""The semantic fill: vectors added to a keyword-ready index in priority order, each batch
published as a new generation, so searches use what exists while the rest is embedded.

Order: one text per chunk first (its head: header and the start of its code), code before
tests, fixtures and examples; then the windows over long chunks' code. Within a tier, texts go
in batches of one length (`Embedder.encode`), shortest first. Every vector is put in the
embedding cache as soon as it exists, so a killed fill resumes where it stopped, and a
generation's FAISS file holds the vectors present, in the order of a full build: once all are
there the index is the one a full build makes.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ragstream.index import store
from ragstream.index.embeddings import Embedder, EmbeddingCache, length_batches, text_key, token_lengths
from ragstream.test_paths import is_test_path
from ragstream.index.search_artifacts import rows_path, write_faiss
from ragstream.index.embedding_windows import LinePieces, window_texts
from ragstream.index.model import Chunk

PUBLISH_EVERY_S = 3.0  # a fill publishes at most this often (and when every chunk has its head vector)
STAGES = ("keyword", "heads", "complete")  # keyword-ready; every chunk has a vector; every window has one
STAGE_NAMES = {"keyword": "keyword-ready", "heads": "every chunk has a vector, windows pending",
               "complete": "complete"}


@dataclass(frozen=True)
class ChunkTexts:
    """One chunk's texts to embed (its own, then its windows) and their embedding-cache keys."""

    texts: list[str]
    keys: list[str]


@dataclass(frozen=True)
class TextPlan:
    """Every text the index embeds, in full-build order, with the chunk row each belongs to."""

    texts: list[str]
    keys: list[str]  # embedding-cache key of each text
    rows: np.ndarray  # chunk row of each text
    heads: np.ndarray  # bool: the text is its chunk's first (the chunk's own embedding text)
    windowed: bool = True  # every chunk's windows are planned (else some chunks have their own text only)

    @classmethod
    def of(cls, chunks: list[Chunk], window_tokens: int, pieces: LinePieces | None = None,
           kept: dict[tuple, ChunkTexts] | None = None, windows: bool = True) -> "TextPlan":
        """`kept` (what a process that re-indexes keeps between builds): each chunk's texts by
        what they are made of; a chunk found there is not planned again, and `kept` is left
        holding these chunks' texts only. Without `windows`, a chunk not found in `kept` gets
        its own text only (no word piece is counted): the plan a keyword-ready index publishes,
        whose windows its fill plans."""
        known = kept if kept is not None else {}
        # What a chunk's texts are made of: its header and text make its embedding text (strings
        # a reused chunk holds as they were, their hashes cached, unlike an embedding text made anew).
        keys = [(window_tokens, chunk.metadata.get("header", ""), chunk.text) for chunk in chunks]
        fresh = [i for i, key in enumerate(keys) if key not in known]
        found: dict[tuple, ChunkTexts] = {}
        if windows:
            made, made_rows = window_texts([chunks[i] for i in fresh], window_tokens, pieces)
            bounds = np.searchsorted(made_rows, np.arange(len(fresh) + 1))  # rows ascend: each chunk's texts
            for row, i in enumerate(fresh):
                own = made[bounds[row]:bounds[row + 1]]
                found[keys[i]] = ChunkTexts(own, [text_key(t) for t in own])
        else:  # own texts, kept too (under `_own_key`): a process whose fill runs elsewhere plans only these
            found = {keys[i]: known.get(_own_key(keys[i])) or _own_text(chunks[i]) for i in fresh}
        planned = [known[key] if key in known else found[key] for key in keys]
        if kept is not None:
            kept.clear()
            kept.update((key, texts) for key, texts in zip(keys, planned) if windows or key not in found)
            if not windows:
                kept.update((_own_key(key), texts) for key, texts in found.items())
        rows = np.repeat(np.arange(len(chunks), dtype=np.int32), [len(p.texts) for p in planned])
        heads = np.ones(len(rows), dtype=bool)
        heads[1:] = rows[1:] != rows[:-1]
        return cls([t for p in planned for t in p.texts], [k for p in planned for k in p.keys], rows, heads,
                   windows or not fresh)

    def tiers(self, chunks: list[Chunk]) -> list[list[int]]:
        """The texts' indexes in fill order: heads of code, heads of tests, windows of code,
        windows of tests; a text met before (same content) is left out."""
        tests = np.array([is_test_path(c.path) for c in chunks], dtype=bool)[self.rows]
        seen: set[str] = set()
        tiers = []
        for head, test in ((True, False), (True, True), (False, False), (False, True)):
            tier = []
            for i in np.flatnonzero((self.heads == head) & (tests == test)):
                if self.keys[i] not in seen:
                    seen.add(self.keys[i])
                    tier.append(int(i))
            tiers.append(tier)
        return tiers


def coverage(plan: TextPlan, vectors: dict[str, np.ndarray], rate: float | None = None,
             backend: str | None = None) -> dict:
    """The manifest's `vectors` record: how many texts and chunk heads have vectors, the stage,
    the measured rate (texts/s) and the backend a resumed fill keeps using. `texts` is None
    while the windows are not planned (`TextPlan.windowed`): the fill counts them."""
    have = np.array([k in vectors for k in plan.keys], dtype=bool)
    embedded, heads = int(have.sum()), int((have & plan.heads).sum())
    total, chunks = len(plan.keys) if plan.windowed else None, int(plan.heads.sum())
    stage = "complete" if embedded == total else "heads" if heads == chunks else "keyword"
    return {"stage": stage, "texts": total, "embedded": embedded, "chunks": chunks, "heads": heads,
            "rate": round(rate, 2) if rate else None, "backend": backend}


def semantic_over(vectors: dict) -> str:
    """"semantic over E of T texts", or, before the fill planned the windows, "semantic over E texts
    (windows not planned yet)"."""
    if vectors["texts"] is None:
        return f"semantic over {vectors['embedded']:,} texts (windows not planned yet)"
    return f"semantic over {vectors['embedded']:,} of {vectors['texts']:,} texts"


def _own_key(key: tuple) -> tuple:
    """Where `TextPlan.of` keeps a chunk's own text alone: its key without the window size (no
    window size is an int's equal, so it is never taken for a plan with windows)."""
    return (None, *key[1:])


def _own_text(chunk: Chunk) -> ChunkTexts:
    return ChunkTexts([chunk.embedding_text], [text_key(chunk.embedding_text)])


def write_vectors(generation, plan: TextPlan, vectors: dict[str, np.ndarray]) -> None:
    """The FAISS file of the texts that have vectors, in full-build order (so a complete one is
    the full build's), with each vector's chunk row beside it."""
    present = [i for i, key in enumerate(plan.keys) if key in vectors]
    matrix = (np.stack([vectors[plan.keys[i]] for i in present]) if present
              else np.zeros((0, Embedder.dimension), dtype=np.float32))
    write_faiss(generation / store.FAISS, matrix, plan.rows[present])


@dataclass
class FillResult:
    embedded: int = 0  # texts embedded by this fill
    seconds: float = 0.0  # spent embedding
    publishes: int = 0
    stopped: bool = False  # a re-index asked it to stop before the end
    manifest: dict | None = None  # the last published manifest


def fill_vectors(location: store.IndexLocation, plan: TextPlan, chunks: list[Chunk], vectors: dict[str, np.ndarray],
         embedder: Embedder, cache: EmbeddingCache, backend: str | None = None,
         progress: Callable[[str, int], None] | None = None,
         on_publish: Callable[[dict], None] | None = None, publish_every: float = PUBLISH_EVERY_S) -> FillResult:
    """Embed what `vectors` lacks in fill order, publishing from the live generation at most every
    `publish_every` seconds, when the heads are done and at the end. `progress(event, n)` hears
    ("start", texts to embed) then ("advance", n) per batch; `on_publish` each new manifest."""
    tiers = [[i for i in tier if plan.keys[i] not in vectors] for tier in plan.tiers(chunks)]
    missing = sum(map(len, tiers))
    result = FillResult()
    if progress:
        progress("start", missing)
    backend = backend or (embedder.choose(missing) if missing else None)
    if stage_of(store.load_index(location).manifest)["texts"] is None:
        # The live index was published before its windows were planned (`TextPlan.of` without
        # them): this plan's coverage goes live first, with the backend a resumed fill keeps.
        result.manifest = _publish(location, plan, vectors, result, backend, on_publish)
    if not missing:
        return result
    last_publish, pending = time.monotonic(), 0
    for number, tier in enumerate(tiers):
        lengths = token_lengths([plan.texts[i] for i in tier])
        for batch in length_batches(lengths, embedder.batch_size):
            if store.stop_requested(location):
                result.stopped = True
                break
            ids = [tier[b] for b in batch]
            started = time.perf_counter()
            new = dict(zip((plan.keys[i] for i in ids),
                           embedder.encode([plan.texts[i] for i in ids], backend=backend)))
            result.seconds += time.perf_counter() - started
            result.embedded += len(ids)
            pending += len(ids)
            cache.put_many(new)
            vectors.update(new)
            if progress:
                progress("advance", len(ids))
            if time.monotonic() - last_publish >= publish_every:
                result.manifest = _publish(location, plan, vectors, result, backend, on_publish)
                last_publish, pending = time.monotonic(), 0
        # Published when every head is done, at the end, and when stopped early.
        if pending and (result.stopped or number in (1, len(tiers) - 1)):
            result.manifest = _publish(location, plan, vectors, result, backend, on_publish)
            last_publish, pending = time.monotonic(), 0
        if result.stopped:
            break
    return result


def _publish(location: store.IndexLocation, plan: TextPlan, vectors: dict[str, np.ndarray],
             result: FillResult, backend: str | None, on_publish: Callable[[dict], None] | None) -> dict:
    """A new generation: the live one's files linked, the vectors and manifest written anew."""
    live = store.current_generation(location)
    manifest = store.load_index(location).manifest
    assert live is not None, "a fill publishes over a live generation"
    faiss_name = store.FAISS
    generation = store.linked_generation(location, live, (faiss_name, rows_path(live / faiss_name).name,
                                                           store.MANIFEST))
    try:
        write_vectors(generation, plan, vectors)
        rate = result.embedded / result.seconds if result.seconds else None
        manifest = {**manifest, "vectors": coverage(plan, vectors, rate, backend),
                    "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "artifacts": store.artifact_sizes(generation)}
        store.write_json(generation / store.MANIFEST, manifest)
        store.publish(location, generation, keep_previous=True)
    except BaseException:
        store.discard(location, generation)
        raise
    result.publishes += 1
    if on_publish:
        on_publish(manifest)
    return manifest


def stage_of(manifest: dict) -> dict:
    """The manifest's `vectors` record; an index built before progressive builds is complete."""
    vectors = manifest.get("vectors")
    if vectors is None:
        chunks = manifest.get("counts", {}).get("chunks", 0)
        return {"stage": "complete", "texts": None, "embedded": None, "chunks": chunks, "heads": chunks,
                "rate": None, "backend": None}
    return vectors


def eta_seconds(vectors: dict) -> float | None:
    """Seconds to complete at the measured rate; None when no rate was measured yet."""
    if vectors["stage"] == "complete":
        return 0.0
    if not vectors.get("rate") or vectors["texts"] is None:
        return None
    return (vectors["texts"] - vectors["embedded"]) / vectors["rate"]


def describe(vectors: dict, holder: str | None = None) -> str:
    """One line: stage, coverage, and the ETA or why the fill is not running."""
    if vectors["stage"] == "complete":
        return "complete" + (f": {vectors['texts']:,} texts embedded" if vectors.get("texts") else "")
    line = f"{STAGE_NAMES[vectors['stage']]}: {semantic_over(vectors)} ({vectors['heads']:,} of {vectors['chunks']:,} chunks)"
    if not (holder or "").startswith(("fill", "build")):
        return line + "; no fill is running (run `ragstream index` on the repository to resume it)"
    eta = eta_seconds(vectors)
    return line + ("; filling, ETA not measured yet" if eta is None else f"; filling, ETA {eta:.0f} s")
