"""The walk of a re-index: every file hashed without reading its text, then the text (decoded
and redacted) of each from the repository's cache, where a build has seen that content before,
or read and redacted now. Redaction is most of a walk's time, and a re-index after an edit
redacts only what the edit changed. The cache sits in the parse cache's file under the same
version prefix, so it is wiped with it when the redaction rules change."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import orjson

from ragstream.config import IndexSettings
from ragstream.index.blob_cache import BlobCache
from ragstream.index.walk import SourceFile, WalkResult, read_source, walk_repository


def text_key(prefix: str, source: SourceFile) -> str:
    return f"{prefix}text:{source.language}:{source.sha256}"


def walk_with_texts(root: Path, settings: IndexSettings, cache: BlobCache, prefix: str,
                    hashed: WalkResult | None = None, kept: dict[str, SourceFile] | None = None) -> WalkResult:
    """What `walk_repository` finds, texts included; `hashed`, a walk without text made just
    before, is reused. A file that changed between the two makes it walk again with text.
    `kept` (text key -> the file as a previous walk of this process read it) answers before the
    cache, and is left holding this walk's files."""
    hashed = hashed or walk_repository(root, settings, with_text=False)
    keys = [text_key(prefix, f) for f in hashed.files]
    known = kept if kept is not None else {}
    cached = cache.get_many(sorted({key for key in keys if key not in known}))
    files: list[SourceFile] = []
    new: dict[str, bytes] = {}
    for source, key in zip(hashed.files, keys):
        if key in known:  # the file as walked before when it is at the same path (its hash and language are the key's)
            was = known[key]
            files.append(was if was.path == source.path else replace(source, text=was.text, redactions=was.redactions))
            continue
        if key in cached:
            text, fired = orjson.loads(cached[key])
            files.append(replace(source, text=text, redactions=tuple(fired)))
            continue
        read = read_source(root, source, settings)
        if read is None:  # not the file the walk hashed: walk again, reading everything
            return remember_texts(walk_repository(root, settings), cache, prefix)
        files.append(read)
        new[key] = orjson.dumps([read.text, read.redactions])
    if new:
        cache.put_many(new)
    if kept is not None:
        kept.clear()
        kept.update(zip(keys, files))
    return WalkResult(hashed.root, files, hashed.skipped)


def remember_texts(walked: WalkResult, cache: BlobCache, prefix: str) -> WalkResult:
    """Keep the walked files' texts for the next re-index; returns `walked`."""
    cache.put_many({text_key(prefix, f): orjson.dumps([f.text, f.redactions]) for f in walked.files})
    return walked
