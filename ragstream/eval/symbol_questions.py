"""Gold-symbol questions (the .NET + SQL sets): a commit, the folders the question is about, its
kind, and the C# members, SQL objects and files a good answer names.

Unlike the Python sets (`questions.py`: files and functions a fix changed), these are scored by
`score_dotnet.py` from a ranked list of node ids; the format is `shared/eval/DOTNET_SQL.md`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragstream.errors import ConfigError
from ragstream.eval.questions import question_rows, string_lists

REQUIRED = ("id", "repo", "commit", "scope", "query", "kind")
KINDS = ("flow", "list", "where", "impact", "mapping", "explain")
GOLD_KEYS = ("gold_symbols", "gold_sql_objects")  # what tells this format from the Python sets'


@dataclass(frozen=True)
class SymbolQuestion:
    id: str
    repo: str  # owner/name
    commit: str
    scope: tuple[str, ...]  # folders to index (git pathspecs)
    query: str
    kind: str  # one of KINDS
    gold_files: tuple[str, ...]
    gold_symbols: tuple[str, ...]  # path::Namespace.Type.Member
    gold_sql_objects: tuple[str, ...]  # schema.Name


def holds_symbol_questions(path: str | Path) -> bool:
    """Whether the JSONL file's first question is of this format (it names gold symbols or SQL objects)."""
    first = next(question_rows(path, ()), None)
    return first is not None and any(key in first[1] for key in GOLD_KEYS)


def load_symbol_questions(path: str | Path) -> list[SymbolQuestion]:
    """The questions of a JSONL file; a bad line is an error naming `file:line`."""
    questions = []
    for where, row in question_rows(path, REQUIRED):
        if row["kind"] not in KINDS:
            raise ConfigError(f"unknown kind {row['kind']!r}; one of {', '.join(KINDS)}", where=where)
        lists = string_lists(row, ("scope", "gold_files", *GOLD_KEYS), where)
        questions.append(SymbolQuestion(str(row["id"]), str(row["repo"]), str(row["commit"]), tuple(lists["scope"]),
                                        str(row["query"]), row["kind"], tuple(lists["gold_files"]),
                                        tuple(lists["gold_symbols"]), tuple(lists["gold_sql_objects"])))
    if not questions:
        raise ConfigError("no questions", where=str(path))
    return questions
