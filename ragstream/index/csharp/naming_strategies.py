"""Naming conventions a project declares for its database: how an ORM turns a class or property
name into a table or column name.

ServiceStack OrmLite's PostgreSQL dialect (`PostgreSqlDialect.Provider`) names tables and columns
through `PostgreSqlNamingStrategy`, PascalCase -> lowercase_underscore (`TechnologyStack` ->
`technology_stack`); so do an explicit `LowercaseUnderscoreNamingStrategy` and, for EF Core,
`UseSnakeCaseNamingConvention()` (EFCore.NamingConventions) or Npgsql's `SnakeCaseNameRewriter`.
A file configuring one of them carries `naming_strategy` on its FILE node (`parse_csharp`); the
graph's strategy is the one its files declare.
"""
from __future__ import annotations

import re

import networkx as nx

SNAKE_CASE = "snake_case"
_SNAKE_CASE_DECLARATIONS = re.compile(
    r"\b(?:PostgreSqlDialect\s*\.\s*Provider|PostgreSqlNamingStrategy|LowercaseUnderscoreNamingStrategy"
    r"|UseSnakeCaseNamingConvention|SnakeCaseNameRewriter)\b")


def declared_naming(text: str) -> str | None:
    """The naming strategy a C# file configures, or None."""
    return SNAKE_CASE if _SNAKE_CASE_DECLARATIONS.search(text) else None


def naming_strategy(graph: nx.MultiDiGraph) -> str | None:
    """The naming strategy some file of the graph declares, or None (names as written)."""
    return next((SNAKE_CASE for _, data in graph.nodes(data=True)
                 if data.get("kind") == "FILE" and (data.get("attrs") or {}).get("naming_strategy") == SNAKE_CASE),
                None)


def lowercase_underscore(name: str) -> str:
    """OrmLite's `ToLowercaseUnderscore`: each capital after the first letter starts a new word
    (`TechnologyStack` -> `technology_stack`, `OwnerId` -> `owner_id`)."""
    return re.sub(r"(?<=[^_])([A-Z])", r"_\1", name).lower()


def stored_name(name: str, strategy: str | None) -> str:
    """A class or property name as the strategy stores it."""
    return lowercase_underscore(name) if strategy == SNAKE_CASE else name


def loose_key(name: str) -> str:
    """A name without case or underscores: `technology_stack` and `TechnologyStack` meet here."""
    return name.replace("_", "").lower()
