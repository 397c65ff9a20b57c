"""Tables known only from the SQL the code runs.

An application whose schema lives elsewhere (another repository, a database managed by hand, a
legacy database an importer reads) still reads and writes its tables: `conn.Execute("UPDATE
osu_counts SET ...")` names a table no script, migration or model of the repository defines.
Once every schema source is in (`name_resolution`), such a name is an EXTERNAL SQL node; this
pass makes it a TABLE (`via="sql_text"`, a guess, placed on the line of code that first names it)
when code runs SQL naming it, so that a question about the table finds it and the code around it:

- evidence is SQL the code runs or hands to what runs it (a data-access call, a command's text,
  a helper's parameter), not a migration's (the schema's story: its data statements name tables
  the migrations or a model define): a literal that merely reads as SQL (`via="sql_literal"`, an error
  message saying "update failed") makes no table of its own, though its edges move to one the
  evidence made;
- the name is a plain identifier (`schema.name` at most, no placeholder such as `{0}` or `@p0`
  left in it), not a system catalog (`sys.*`, `INFORMATION_SCHEMA.*`, `sqlite_master`,
  `sysobjects`, `pg_*`), no one- or two-letter alias, no SQL word (`LATERAL`, `DUAL`);
- no table of that name is defined in any schema, case, underscores, a module prefix and a plural
  aside (`audit.Posts` beside a defined `dbo.Posts`, a `Job` two schemas define, an importer's `Page`
  of another application beside the repository's `roadkill_pages`, `post_comment` beside an ORM's
  `PostComment`: those stay EXTERNAL, with their candidates);
- spellings of one table are one node: case aside, and the bare name with the one schema the
  code qualifies it with (`osu.osu_beatmap_difficulty_attribs` and `osu_beatmap_difficulty_attribs`).

CALLS into the name (a routine) stay on the EXTERNAL node; every other edge into it moves.
"""
from __future__ import annotations

import re
from collections import defaultdict

import networkx as nx

from ragstream.index.csharp.naming_strategies import loose_key
from ragstream.index.model import Node, node_id

CODE_ONLY = "sql_text"  # the `via` of a table known only from the code's SQL
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z_][A-Za-z0-9_$]*)?")
_SYSTEM_SCHEMAS = frozenset({"sys", "information_schema", "pg_catalog", "mysql", "performance_schema", "sqlite_schema"})
_SYSTEM_NAMES = re.compile(r"^(?:sqlite_\w+|pg_\w+|pragma_\w+|sys(?:objects|columns|databases|files|indexes|users|"
                           r"comments|constraints|types|tables|logins|processes))$", re.IGNORECASE)
_SQL_WORDS = frozenset({"lateral", "unnest", "dual", "values", "select", "from", "into", "table", "set", "where",
                        "join", "inserted", "deleted", "generate_series", "json_each", "openjson"})
_DATA_EDGES = ("READS", "WRITES")
_WEAK = "sql_literal"


def settle_code_only_tables(graph: nx.MultiDiGraph) -> int:
    """Make a TABLE of each EXTERNAL SQL name the code's SQL reads or writes; how many."""
    defined = {key for _, data in graph.nodes(data=True)
               if data.get("kind") in ("TABLE", "VIEW") and data.get("language") == "sql"
               for key in _keys(str(data.get("name", "")))}
    spellings: dict[str, list[str]] = defaultdict(list)  # bare name, lower case -> EXTERNAL nodes
    for node, data in sorted(graph.nodes(data=True)):
        if data.get("kind") == "EXTERNAL" and data.get("language") == "sql" \
                and is_table_name(str(data.get("name", ""))) and _run_by_code(graph, node) \
                and not _keys(str(data["name"])) & defined:
            spellings[str(data["name"]).rsplit(".", 1)[-1].lower()].append(node)
    for node, data in sorted(graph.nodes(data=True)):  # weaker spellings join a table the evidence made
        bare = str(data.get("name", "")).rsplit(".", 1)[-1].lower()
        if bare in spellings and node not in spellings[bare] and data.get("kind") == "EXTERNAL" \
                and data.get("language") == "sql" and is_table_name(str(data.get("name", ""))):
            spellings[bare].append(node)
    for nodes in spellings.values():
        _make_table(graph, nodes)
    return len(spellings)


def is_table_name(name: str) -> bool:
    """A name written as a table's, not a system catalog's, an alias or an SQL word."""
    if not _IDENTIFIER.fullmatch(name):
        return False
    schema, _, bare = name.lower().rpartition(".")
    return len(bare) > 2 and schema not in _SYSTEM_SCHEMAS and not _SYSTEM_NAMES.match(bare) \
        and bare not in _SQL_WORDS


def _keys(name: str) -> set[str]:
    """The forms under which two table names may be one table's: case and underscores aside, with
    and without a module prefix and a plural `s` (`roadkill_pages`: `roadkillpages`, `pages`,
    `page`)."""
    bare = name.rsplit(".", 1)[-1]
    forms = {loose_key(bare), loose_key(bare.split("_", 1)[-1])}
    return forms | {form[:-1] for form in forms if form.endswith("s") and len(form) > 3}


def _run_by_code(graph: nx.MultiDiGraph, node: str) -> bool:
    """Whether code (not an SQL script, nor a migration, whose data statements and SQL are the
    schema's story: `migration_sql`) reads or writes `node` in SQL it runs."""
    return any(key in _DATA_EDGES and attrs.get("via") != _WEAK and graph.nodes[source].get("language") != "sql"
               and not _in_migration(graph, source)
               for source, _, key, attrs in graph.in_edges(node, keys=True, data=True))


def _in_migration(graph: nx.MultiDiGraph, node: str) -> bool:
    """Whether `node` is (a member of) a migration class (`ef_role`: EF's or FluentMigrator's)."""
    current: str | None = node
    for _ in range(8):  # a member, its type, an outer type
        if not isinstance(current, str) or current not in graph:
            return False
        data = graph.nodes[current]
        if (data.get("attrs") or {}).get("ef_role") == "migration":
            return True
        current = data.get("parent")
    return False


def _make_table(graph: nx.MultiDiGraph, spellings: list[str]) -> None:
    """One TABLE for the spellings, named as the code most often qualifies it, else writes it."""
    uses = {node: graph.in_degree(node) for node in spellings}
    qualified = {str(graph.nodes[n]["name"]).split(".", 1)[0].lower() for n in spellings if "." in graph.nodes[n]["name"]}
    chosen = max(spellings, key=lambda n: ("." in graph.nodes[n]["name"] if len(qualified) == 1 else False,
                                           uses[n], graph.nodes[n]["name"]))
    name = str(graph.nodes[chosen]["name"])
    first = min((_place(graph.nodes[s], attrs.get("line", 0)) + (s,)
                 for n in spellings for s, _, attrs in graph.in_edges(n, data=True)
                 if graph.nodes[s].get("language") != "sql"), default=("", 0, ""))
    table = node_id("sql", name, "TABLE")
    if table not in graph:
        # placed on the line of code that first names it: its chunk quotes that line, what the
        # search finds the table by (no script defines it)
        graph.add_node(table, **vars(Node(
            id=table, kind="TABLE", language="sql", name=name, path=first[0], start_line=first[1], end_line=first[1],
            # a bare signature: the chunk is one line, and words of an explanation in its header would
            # match every question that says "table", "code" or "SQL" (roadkill's `File` was the first
            # table hit for "the user accounts table"); `via` and `guess` say how it is known
            signature=f"table {name}",
            attrs={"via": CODE_ONLY, "guess": True, "first_named_by": first[2],
                   **({"spellings": sorted(str(graph.nodes[n]["name"]) for n in spellings)} if len(spellings) > 1 else {})})))
    for node in spellings:
        if len(qualified) > 1 and "." in graph.nodes[node]["name"] and node != chosen:
            continue  # another schema's table of the same name: not this one
        for source, _, key, attrs in sorted(graph.in_edges(node, keys=True, data=True), key=lambda e: (e[0], e[2])):
            if key == "CALLS":
                continue
            if not graph.has_edge(source, table, key=key):
                written = graph.nodes[node]["name"]
                graph.add_edge(source, table, key=key, **{**attrs, **({"external": written} if written != name else {})})
            graph.remove_edge(source, node, key=key)
        if graph.degree(node) == 0:
            graph.remove_node(node)


def _place(source: dict, line: int) -> tuple[str, int]:
    """Where the code names the table: the edge's line when it lies in the naming member (SQL a
    helper runs for its caller is on the helper's line), else the member's first line."""
    start, end = source.get("start_line", 0), source.get("end_line", 0)
    return source.get("path", ""), line if start <= line <= end else start
