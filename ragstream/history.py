"""The conversation history: sessions, turns and rolling summaries in one SQLite file.

WAL mode and `BEGIN IMMEDIATE` writes, with a busy timeout, so several processes can append
turns to the same file and none is lost. A connection per operation keeps the store safe to
share between threads (the workbench serves sessions from several).
"""
from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from ragstream.errors import HistoryError
from ragstream.redact import redact_text, redact_value

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, created REAL NOT NULL,
    scope TEXT);  -- repository, branch, index and filters of its first turn; every turn runs under it
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    question_raw TEXT NOT NULL, question_en TEXT NOT NULL,
    answer_en TEXT NOT NULL, answer TEXT NOT NULL,
    pipeline TEXT NOT NULL, index_name TEXT NOT NULL, created REAL NOT NULL,
    state TEXT,  -- the finished turn's state as JSON (trace, graph, budget, what it cited)
    error TEXT);  -- a failed turn: its Failure as JSON (no answer; left out of the prompt's history)
CREATE INDEX IF NOT EXISTS turns_by_session ON turns (session_id, id);
CREATE TABLE IF NOT EXISTS summaries (
    session_id TEXT NOT NULL REFERENCES sessions(id), version INTEGER NOT NULL,
    text TEXT NOT NULL, last_turn_id INTEGER NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (session_id, version));
"""
BUSY_TIMEOUT_SECONDS = 30


@dataclass(frozen=True)
class Turn:
    id: int
    session_id: str
    question_raw: str
    question_en: str
    answer_en: str
    answer: str
    pipeline: str
    index_name: str
    created: float
    state: str | None = None  # the turn's final state as JSON (None: a turn stored before states were kept)
    error: str | None = None  # a failed turn's Failure as JSON (None: the turn was answered)

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass(frozen=True)
class Summary:
    session_id: str
    version: int
    text: str
    last_turn_id: int  # every turn up to this one is in the summary


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str
    created: float
    turns: int
    scope: str | None = None  # what it is bound to (None: no question has run in it yet)


class HistoryStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)
            if "scope" not in {row[1] for row in db.execute("PRAGMA table_info(sessions)")}:
                db.execute("ALTER TABLE sessions ADD COLUMN scope TEXT")  # a file from before scopes
            if "state" not in {row[1] for row in db.execute("PRAGMA table_info(turns)")}:
                db.execute("ALTER TABLE turns ADD COLUMN state TEXT")  # a file from before turn states
            if "error" not in {row[1] for row in db.execute("PRAGMA table_info(turns)")}:
                db.execute("ALTER TABLE turns ADD COLUMN error TEXT")  # a file from before failed turns

    def create_session(self, title: str = "", scope: str | None = None) -> str:
        """A new session; with `scope` it is bound from the start (see `bind_scope`)."""
        session_id = uuid.uuid4().hex[:12]
        with self._write() as db:
            db.execute("INSERT INTO sessions (id, title, created, scope) VALUES (?, ?, ?, ?)",
                       (session_id, redact_text(title) or "conversation", time.time(), scope))
        return session_id

    def sessions(self) -> list[SessionInfo]:
        """Every session, newest first, with its number of turns."""
        with self._connect() as db:
            rows = db.execute("SELECT s.id, s.title, s.created, COUNT(t.id), s.scope FROM sessions s "
                              "LEFT JOIN turns t ON t.session_id = s.id GROUP BY s.id ORDER BY s.created DESC")
            return [SessionInfo(*row) for row in rows]

    def add_turn(self, session_id: str, *, question_raw: str, question_en: str, answer_en: str, answer: str,
                 pipeline: str, index_name: str, state: str | None = None, error: str | None = None) -> int:
        """Append a turn (with `error`: a failed one, whose answer is empty); its texts are stored
        with secrets redacted (an answer may quote one)."""
        question_raw, question_en, answer_en, answer = (redact_text(t) for t in (question_raw, question_en,
                                                                                  answer_en, answer))
        if state is not None:  # the stored state holds the same texts; its values are redacted, not its JSON text
            state = json.dumps(redact_value(json.loads(state)), sort_keys=True, ensure_ascii=False, indent=1)
        error = redact_text(error) if error is not None else None  # a failure's message may quote one too
        with self._write() as db:
            self._require_session(db, session_id)
            cursor = db.execute("INSERT INTO turns (session_id, question_raw, question_en, answer_en, answer, "
                                "pipeline, index_name, created, state, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                (session_id, question_raw, question_en, answer_en, answer, pipeline, index_name,
                                 time.time(), state, error))
            assert cursor.lastrowid is not None, "an INSERT sets it"
            return int(cursor.lastrowid)

    def turns(self, session_id: str) -> list[Turn]:
        """The session's turns, oldest first."""
        with self._connect() as db:
            self._require_session(db, session_id)
            rows = db.execute("SELECT id, session_id, question_raw, question_en, answer_en, answer, pipeline, "
                              "index_name, created, state, error FROM turns WHERE session_id = ? ORDER BY id", (session_id,))
            return [Turn(*row) for row in rows]

    def scope_of(self, session_id: str) -> str | None:
        """The scope the session is bound to (None: not bound yet)."""
        with self._connect() as db:
            self._require_session(db, session_id)
            return db.execute("SELECT scope FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]

    def bind_scope(self, session_id: str, scope: str) -> None:
        """Tie the session to `scope` (its first question's repository, branch, index and
        filters); a question under another scope is refused, so nothing said under wider
        filters can reach a prompt built under narrower ones."""
        with self._write() as db:
            self._require_session(db, session_id)
            bound = db.execute("SELECT scope FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]
            if bound is None:
                db.execute("UPDATE sessions SET scope = ? WHERE id = ?", (scope, session_id))
            elif bound != scope:
                raise HistoryError(f"session {session_id!r} runs under {bound}, not under {scope}",
                                   where=str(self.path), hint="start a new session for another index or other filters")

    def latest_summary(self, session_id: str) -> Summary | None:
        with self._connect() as db:
            row = db.execute("SELECT session_id, version, text, last_turn_id FROM summaries WHERE session_id = ? "
                             "ORDER BY version DESC LIMIT 1", (session_id,)).fetchone()
            return Summary(*row) if row else None

    def add_summary(self, session_id: str, text: str, last_turn_id: int, version: int) -> Summary:
        """Store summary `version`; if another writer stored that version first, theirs stands
        and is returned (both summarised the same turns). Stored with secrets redacted."""
        text = redact_text(text)
        try:
            with self._write() as db:
                db.execute("INSERT INTO summaries VALUES (?, ?, ?, ?, ?)",
                           (session_id, version, text, last_turn_id, time.time()))
            return Summary(session_id, version, text, last_turn_id)
        except sqlite3.IntegrityError:
            latest = self.latest_summary(session_id)
            assert latest is not None  # the conflicting row exists
            return latest

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            with closing(sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)) as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA foreign_keys=ON")
                yield db
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise HistoryError(f"{type(exc).__name__}: {exc}", where=str(self.path)) from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction that takes the write lock up front (no upgrade deadlocks)."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _require_session(self, db: sqlite3.Connection, session_id: str) -> None:
        if db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise HistoryError(f"no session {session_id!r}", where=str(self.path))
