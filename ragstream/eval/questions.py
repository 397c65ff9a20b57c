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
    for _where, row in question_rows(path, REQUIRED):
        question = Question(str(row["id"]), str(row["repo"]), str(row.get("base_commit") or ""), str(row["query"]),
                            tuple(row["gold_files"]), tuple(row.get("gold_functions") or ()),
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
