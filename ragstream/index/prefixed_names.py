"""SQL names whose start the code composes at run time (`string.Format("INSERT INTO {0}Posts ...",
tablePrefix)`, `$"... {tablePrefix}Settings"`, the prefix read from configuration): linked to the
repository's objects whose name ends with the known part.

The string reader marks such a name's start `UNKNOWN_PREFIX` (`csharp/strings.py`). An object
matches when its name, in the schema written if one is, is some prefix (maybe empty) followed by
the known part. Code that composes names with a configured prefix uses it throughout, so when
several objects match, the prefix that explains the most composed names of the repository wins
(`be_` explains Posts, Users, Roles, ...; `be_User` only `{0}Roles`, against `be_Roles`). Every
edge is a guess, `via="unknown_prefix"`, listing every object that matched (`candidates`); no
match, no edge."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from ragstream.index.csharp.strings import UNKNOWN_PREFIX, shown_sql
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Node, Reference
from ragstream.index.symbols import SymbolTable


def has_unknown_prefix(ref: Reference) -> bool:
    return ref.target_language == "sql" and UNKNOWN_PREFIX in ref.target


@dataclass(frozen=True)
class _Written:
    """`dbo.__prefix__Posts` read apart: the schema written (or None) and the known end."""

    schema: str | None
    end: str

    @staticmethod
    def of(name: str) -> _Written:
        schema, _, bare = name.rpartition(".")
        return _Written(schema.lower() or None, bare.split(UNKNOWN_PREFIX)[-1].lower())

    def prefix_of(self, node: Node) -> str | None:
        """The prefix that makes `node`'s name this one, None when it does not."""
        schema, _, bare = node.name.lower().rpartition(".")
        if self.schema is not None and schema != self.schema or not bare.endswith(self.end):
            return None
        return bare[:len(bare) - len(self.end)]


def link_prefixed_names(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: list[Reference],
                        source_of: Callable[[Reference], str | None]) -> Counter:
    """Edges for the references whose SQL name has an unknown prefix; counts per edge type.
    `source_of` finds a reference's source as every other reference's (a guessed entity's
    `source_candidates`: `[Table("{0}Posts")]` on a type another file declares)."""
    sql_nodes = [node for node in symbols.nodes.values() if node.language == "sql"]
    matches = {ref.target: _matches(_Written.of(ref.target), sql_nodes, ref.target_kinds) for ref in refs}
    # how many distinct known ends each prefix explains, over the whole repository
    votes = Counter(prefix for found in {_Written.of(t).end: m for t, m in matches.items()}.values()
                    for prefix in {prefix for prefix, _ in found})
    linked: Counter = Counter()
    for ref in refs:
        found = matches[ref.target]
        source = source_of(ref) if found else None
        if source is None:
            continue
        best = max(votes[prefix] for prefix, _ in found)
        attrs = {**ref.attrs, "line": ref.line, "resolution": "inferred", "via": "unknown_prefix",
                 "sql_via": ref.attrs.get("via", "data_access_call"),
                 "written": shown_sql(ref.target), "guess": True,
                 "candidates": sorted(node_id for _, node_id in found)}
        for prefix, node_id in found:
            if votes[prefix] == best:
                linked[ref.edge_type] += add_edge(graph, source, node_id, ref.edge_type, attrs)
    return linked


def _matches(written: _Written, sql_nodes: list[Node], kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    """(prefix, node id) of each object of those kinds whose name the written one can be."""
    found = {(prefix, node.id) for node in sql_nodes if node.kind in kinds
             for prefix in [written.prefix_of(node)] if prefix is not None}
    return sorted(found)
