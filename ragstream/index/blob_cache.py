"""A key -> bytes store in one SQLite file: what the embedding and parse caches are made of.

Each `put_many` is one transaction, so a crash never leaves half a batch; keys are content
hashes, so an entry never goes stale and the file only grows, except that `keep_only` wipes the
entries of other parser or redaction versions (they may hold what today's rules redact).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

from ragstream.errors import IndexingError

_BATCH = 500  # SQLite's bound-parameter limit is 999 on older builds
BUSY_TIMEOUT_S = 60  # two builds of one repository (two branches, two commits) share its caches


class BlobCache:
    def __init__(self, path: Path, table: str, column: str):
        self.path = path
        self._table = table
        self._select = f"SELECT key, {column} FROM {table} WHERE key IN "
        self._insert = f"INSERT OR REPLACE INTO {table} VALUES (?, ?)"
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
            self._db.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer
            self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, {column} BLOB NOT NULL)")
        except sqlite3.DatabaseError as exc:
            raise IndexingError(f"cache is unreadable: {exc}", where=str(path),
                                hint="delete the file; it is rebuilt on the next index run") from exc

    def get_many(self, keys: list[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), _BATCH):
            chunk = keys[start:start + _BATCH]
            found.update(self._db.execute(f"{self._select}({','.join('?' * len(chunk))})", chunk))
        return found

    def put_many(self, items: dict[str, bytes]) -> None:
        with self._db:
            self._db.executemany(self._insert, list(items.items()))

    def keep_only(self, prefix: str) -> int:
        """Delete every entry whose key does not start with `prefix`, overwriting the deleted
        bytes (secure_delete) and emptying the write-ahead log, so nothing of them stays in the
        files; returns how many went."""
        self._db.execute("PRAGMA secure_delete=ON")
        with self._db:
            gone = self._db.execute(f"DELETE FROM {self._table} WHERE substr(key, 1, ?) != ?",
                                    (len(prefix), prefix)).rowcount
        if gone:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return gone

    def close(self) -> None:
        self._db.close()
