"""Dispatch a file to its language's parser; a file that fails to parse degrades to plain text.
Many files are parsed in worker processes where that is safe (`parse_many`, `workers`)."""
from __future__ import annotations

import importlib
from collections.abc import Callable

import orjson

from ragstream.errors import ConfigError
from ragstream.index.csharp.syntax import forget_walks
from ragstream.index.model import ParsedFile, text_file
from ragstream.index.walk import SourceFile
from ragstream.index import workers

FILES_PER_WORKER = 24  # below this a worker costs more than it parses


# Each language's parser module, imported when first needed, so that a dry run or a status
# check never loads them (the SQL and C# ones cost ~0.1 s each).
PARSER_MODULES = {"python": "ragstream.index.python.parser", "sql": "ragstream.index.sql.parser",
                  "csharp": "ragstream.index.csharp.parser", "razor": "ragstream.index.razor.parser"}


def parse_source(source: SourceFile, module: str | None, sql_dialect: str) -> ParsedFile:
    """Nodes, edges and references of one file, its FILE node marked `generated` (the generator's
    header marker) when it is, and `encoding` when it was read in a legacy code page (`walk`);
    never raises for bad file content."""
    parsed = _parsed(source, module, sql_dialect)
    if source.generated or source.fallback:
        root = next((node for node in parsed.nodes if node.id == parsed.root_id), None)
        if root is not None and source.generated:
            root.attrs["generated"] = source.generated
        if root is not None and source.fallback:
            root.attrs["encoding"] = source.fallback
    return parsed


def _parsed(source: SourceFile, module: str | None, sql_dialect: str) -> ParsedFile:
    try:
        if source.language not in PARSER_MODULES:
            return text_file(source.path, source.text)
        parser = importlib.import_module(PARSER_MODULES[source.language])
        if source.language == "python":
            return parser.parse_python(source.path, source.text, module or source.path)
        if source.language == "sql":
            return parser.parse_sql(source.path, source.text, sql_dialect)
        try:
            if source.language == "csharp":
                return parser.parse_csharp(source.path, source.text)
            return parser.parse_razor(source.path, source.text)
        finally:  # a file's kept walks are never hit by another file's nodes: let its tree go
            forget_walks()
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - any parser failure must only degrade this file
        return text_file(source.path, source.text, error=describe_parse_error(exc))


def describe_parse_error(exc: Exception) -> str:
    line = getattr(exc, "lineno", None)
    where = f"line {line}: " if line else ""
    message = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
    return f"{where}{type(exc).__name__}: {message}"[:300]


def parse_many(jobs: list[tuple[SourceFile, str | None]], sql_dialect: str, done: Callable[[], None],
               meanwhile: Callable[[], None] | None = None) -> list[tuple[ParsedFile, bytes]]:
    """Each (file, module name)'s parse result and its JSON (what the parse cache keeps), in
    order; `done` is called as each one ends. Parsing is most of a keyword-ready build's CPU and
    files are independent, so they are spread over the cores by forked workers where that is
    safe (`workers.spread`); `meanwhile` runs while they parse, and has ended when this returns."""
    if workers.worker_count(len(jobs), FILES_PER_WORKER) < 2:
        results = []
        for source, module in jobs:
            results.append(_parse_stored(source, module, sql_dialect))
            done()
        return results
    for language in {source.language for source, _ in jobs} & PARSER_MODULES.keys():
        importlib.import_module(PARSER_MODULES[language])  # once here, not once in each worker forked below
    results = []
    for blob in workers.spread(_parse_to_json, [(s, m, sql_dialect) for s, m in jobs], FILES_PER_WORKER, meanwhile):
        results.append((ParsedFile.from_dict(orjson.loads(blob)), blob))
        done()
    return results


def _parse_to_json(job: tuple[SourceFile, str | None, str]) -> bytes:
    return _parse_stored(*job)[1]


def _parse_stored(source: SourceFile, module: str | None, sql_dialect: str) -> tuple[ParsedFile, bytes]:
    """The file's parse and its JSON, as the parse cache keeps it. A parse nested deeper than JSON
    is written (orjson stops at 255 levels) degrades the file to plain text with the reason, as
    any parser failure does, instead of stopping the build."""
    parsed = parse_source(source, module, sql_dialect)
    try:
        return parsed, orjson.dumps(parsed)
    except orjson.JSONEncodeError as exc:
        parsed = text_file(source.path, source.text, error=f"its parse nests too deep to store: {exc}")
        return parsed, orjson.dumps(parsed)
