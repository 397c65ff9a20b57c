"""Dispatch a file to its language's parser; a file that fails to parse degrades to plain text."""
from __future__ import annotations

from ragstream.errors import ConfigError
from ragstream.index.model import ParsedFile, text_file
from ragstream.index.walk import SourceFile


def parse_source(source: SourceFile, module: str | None, sql_dialect: str) -> ParsedFile:
    """Nodes, edges and references of one file; never raises for bad file content."""
    # Parsers are imported here so that a dry run or a status check never loads them.
    try:
        if source.language == "python":
            from ragstream.index.parsers.python import parse_python

            return parse_python(source.path, source.text, module or source.path)
        if source.language == "sql":
            from ragstream.index.parsers.sql import parse_sql

            return parse_sql(source.path, source.text, sql_dialect)
        if source.language == "csharp":
            from ragstream.index.parsers.csharp import parse_csharp

            return parse_csharp(source.path, source.text)
        if source.language == "razor":
            from ragstream.index.parsers.razor import parse_razor

            return parse_razor(source.path, source.text)
        return text_file(source.path, source.text)
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - any parser failure must only degrade this file
        return text_file(source.path, source.text, error=describe_parse_error(exc))


def describe_parse_error(exc: Exception) -> str:
    line = getattr(exc, "lineno", None)
    where = f"line {line}: " if line else ""
    message = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
    return f"{where}{type(exc).__name__}: {message}"[:300]
