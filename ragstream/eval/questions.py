"""Evaluation questions: one JSON object a line, with the files and functions a fix changed."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ragstream.errors import ConfigError

REQUIRED = ("id", "repo", "query", "gold_files")


@dataclass(frozen=True)
class Question:
    id: str
    repo: str  # owner/name
    base_commit: str
    query: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...]  # path::Qualified.name
    split: str = ""
    created_at: str = ""


def load_questions(path: str | Path, split: str | None = None) -> list[Question]:
    """The questions of a JSONL file (of one split, if given); a bad line is an error naming it."""
    questions = []
    for where, row in question_rows(path, REQUIRED):
        lists = string_lists(row, ("gold_files", "gold_functions"), where)
        question = Question(str(row["id"]), str(row["repo"]), str(row.get("base_commit") or ""), str(row["query"]),
                            lists["gold_files"], lists["gold_functions"],
                            str(row.get("split") or ""), str(row.get("created_at") or ""))
        if split is None or question.split == split:
            questions.append(question)
    if not questions:
        raise ConfigError(f"no questions{f' of split {split!r}' if split else ''}", where=str(path))
    return questions


def question_rows(path: str | Path, required: tuple[str, ...]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(`file:line`, object) for each non-blank line of a JSONL file; a line that is not a JSON
    object with every `required` key set is an error naming it."""
    path = Path(path)
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read the questions file: {exc.strerror}", where=str(path)) from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise ConfigError(f"not valid JSON: {exc}", where=where) from exc
        missing = [k for k in required if not row.get(k)] if isinstance(row, dict) else list(required)
        if missing:
            raise ConfigError(f"question lacks {', '.join(missing)}", where=where)
        yield where, row


def string_lists(row: dict[str, Any], keys: tuple[str, ...], where: str) -> dict[str, tuple[str, ...]]:
    """The lists of strings under `keys` (a missing or empty one is ()); a value of another type
    -- a string would be read a character at a time -- is an error naming the question and key."""
    lists = {key: row.get(key) or [] for key in keys}
    for key, value in lists.items():
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{key} must be a list of strings, got {value!r}",
                              where=f"{where} (question {row.get('id')!r}): {key}")
    return {key: tuple(value) for key, value in lists.items()}
