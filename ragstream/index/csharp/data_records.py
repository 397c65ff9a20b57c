"""Rows read by column name into an object: ADO.NET code that fills an entity from a data reader.

`new Issue { DueDate = reader["IssueDueDate"], Id = reader.GetInt32(reader.GetOrdinal("IssueId")) }`
reads columns by name: `IDataRecord.Item[String]` and `IDataRecord.GetOrdinal(String)` (and
`DataRow.Item[String]`) get the column with that name of the row the command returned (.NET API
reference, System.Data). The reader comes from a command a caller ran, so:

- at parse time a METHOD records `reader_columns` (the names it reads from a parameter or local
  typed as a data reader or record, or holding what `ExecuteReader` returned) and `reader_builds`
  (the qualified guesses of each type it creates with `new`), when it has both;
- once the graph is built (`link_reader_mappings`), the tables and views its callers' SQL reads
  (up to READER_HOPS callers up, a method group passed counting as a call: the procedures they run
  and the tables those read, or the tables they read themselves, and the same of the calls they
  make that return a reader: `reader = _procedures.GetBlog(id)`) are where the rows come from: the
  created types MAP_TO the table(s) whose declared columns hold at least half the names read, else
  the one most of those callers read; the method REFERENCES each type as the code that maps it.
  Both edges `via="data_reader"`, marked as guesses (which command a reader came from is the
  callers' business), with the columns read.
"""
from __future__ import annotations

from collections import Counter, deque

import networkx as nx
import tree_sitter

from ragstream.index.csharp.syntax import (
    LANGUAGE, call_arguments, callee_of, created_type, descendants, initializer, node_text, type_name,
)
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import node_id

VIA = "data_reader"
READER_TYPES = frozenset({
    "IDataRecord", "IDataReader", "DbDataReader", "SqlDataReader", "SqliteDataReader", "NpgsqlDataReader",
    "MySqlDataReader", "OracleDataReader", "OleDbDataReader", "OdbcDataReader", "DataRow",
})
_EXECUTES_READER = ("ExecuteReader", "ExecuteReaderAsync")
READER_HOPS = 3  # how many callers up the command that returned the reader is looked for
_MOST_TIED = 3  # more tables equally likely than this say nothing


def reader_columns(method: tree_sitter.Node) -> list[str]:
    """The column names the method reads by name from a data reader or record it is given or runs."""
    readers = _readers(method)
    prefixes = _empty_prefixes(method) if readers else set()
    return list(dict.fromkeys(column for node in descendants(method) if readers
                              for column in _column_read(node, readers, prefixes)))


# Accessors of a record taking a column's name first: IDataRecord's `GetOrdinal(String)`, DataRow's
# `Field<T>(String)` / `SetField` / `IsNull(String)`, and the `Get*` / `Read*` extensions repositories
# write over them (`reader.GetString("Name")`, `reader.ReadValue<T>("Author")`); DataRow's relation
# accessors take a relation's name, not a column's, and the rest (`ToString("G")`) no name at all.
_BY_NAME = frozenset({"GetOrdinal", "Field", "SetField", "IsNull", "IsDBNull"})
_BY_NAME_PREFIXES = ("Get", "Read")
_NOT_BY_COLUMN = frozenset({
    "GetChildRows", "GetParentRow", "GetParentRows", "GetSchemaTable", "GetType", "GetHashCode", "GetData",
    "GetEnumerator", "GetName", "GetFieldType", "GetDataTypeName", "GetColumnsInError", "GetErrors",
})


def _column_read(node: tree_sitter.Node, readers: set[str], prefixes: set[str]) -> list[str]:
    """The column `node` reads by name from one of `readers` (`reader["IssueId"]`,
    `reader.GetOrdinal("IssueId")`, `row.Field<int>("IssueId")`, `reader.ReadValue<string>(prefix +
    "Author")`), as a list of at most one: the indexer, or an accessor taking the column's name first
    (`_BY_NAME`). A name built as `prefix + "Author"` reads the column the literal names only when
    `prefix` is one of `prefixes` (`_empty_prefixes`: empty as the method's callers pass it);
    `lang + "_Title"` names no column."""
    if node.type == "element_access_expression":
        holder = node.child_by_field_name("expression")
        subscript = node.child_by_field_name("subscript")
        keys = [value for _, value in call_arguments(subscript)] if subscript is not None else []
    elif node.type == "invocation_expression":
        callee = callee_of(node)
        holder = callee[0] if callee is not None else None
        name = type_name(callee[1]) or "" if callee is not None else ""
        if name not in _BY_NAME and (not name.startswith(_BY_NAME_PREFIXES) or name in _NOT_BY_COLUMN):
            return []
        arguments = node.child_by_field_name("arguments")
        keys = [value for _, value in call_arguments(arguments)] if holder is not None and arguments else []
        if name != "GetOrdinal":
            keys = keys[:1]  # an extension's column name, then what it needs besides
    else:
        return []
    key = keys[0] if len(keys) == 1 else None
    if key is not None and key.type == "binary_expression" and node_text(key.child_by_field_name("operator")) == "+":
        prefix = key.child_by_field_name("left")
        key = key.child_by_field_name("right") if prefix is not None and node_text(prefix) in prefixes else None
    if holder is not None and node_text(holder) in readers and key is not None and key.type == "string_literal":
        return [node_text(key).strip('"')]
    return []


_EMPTY = frozenset({'""', "string.Empty", "String.Empty"})


def _empty_prefixes(method: tree_sitter.Node) -> set[str]:
    """The method's string parameters that are empty as its callers pass them: declared `= ""`, or
    passed `""` / `string.Empty` by a call of the method's name in its file (Subtext's
    `ReadBlog(this IDataReader reader) => reader.ReadBlog(string.Empty)` beside `ReadBlog(reader, prefix)`)."""
    name = method.child_by_field_name("name")
    listed = method.child_by_field_name("parameters")
    if name is None or listed is None:
        return set()
    parameters = [p for p in listed.named_children if p.type == "parameter"]
    found = {node_text(p.child_by_field_name("name")) for p in parameters
             if (default := p.named_children[-1]) is not None and default.type != "identifier" and node_text(default) in _EMPTY}
    root = method
    while root.parent is not None:
        root = root.parent
    calls = [call for call in descendants(root) if call.type == "invocation_expression"
             and (callee := callee_of(call)) is not None and type_name(callee[1]) == node_text(name)]
    for call in calls:
        arguments = call.child_by_field_name("arguments")
        passed = [node_text(value) for _, value in call_arguments(arguments)] if arguments is not None else []
        # an extension called on its receiver passes `this` outside the list: either position may be it
        for position, parameter in enumerate(parameters):
            if any(0 <= at < len(passed) and passed[at] in _EMPTY for at in (position, position - 1)):
                found.add(node_text(parameter.child_by_field_name("name")))
    return found


def _reads_a_column(node: tree_sitter.Node, readers: set[str], prefixes: set[str]) -> bool:
    return any(_column_read(part, readers, prefixes) for part in (node, *descendants(node)))


def _readers(method: tree_sitter.Node) -> set[str]:
    """Parameters and locals typed as a reader or record, or holding what `ExecuteReader` returned."""
    found = set()
    for node in descendants(method):
        if node.type == "parameter":
            declared = type_name(node.child_by_field_name("type"))
            if declared and declared.rsplit(".", 1)[-1] in READER_TYPES:
                found.add(node_text(node.child_by_field_name("name")))
        elif node.type == "variable_declarator":
            declaration = node.parent
            declared = type_name(declaration.child_by_field_name("type")) if declaration is not None else None
            value = initializer(node)
            runs = value is not None and value.type in ("invocation_expression", "await_expression") and any(
                type_name(callee[1]) in _EXECUTES_READER for call in (value, *descendants(value))
                if call.type == "invocation_expression" and (callee := callee_of(call)) is not None)
            if (declared and declared.rsplit(".", 1)[-1] in READER_TYPES) or runs:
                found.add(node_text(node.child_by_field_name("name")))
    return found


def built_types(method: tree_sitter.Node) -> list[str]:
    """The types, as written, of the objects the method fills from a reader's columns: created with
    a column read among their arguments or initializer (`new Issue { Id = (int)reader["IssueId"] }`),
    or kept in a local whose members are then set from one (`issue.Id = (int)reader["IssueId"]`).
    What it creates otherwise (`throw new NotFoundException()`, `new Audit("read")`) is not a row."""
    readers = _readers(method)
    prefixes = _empty_prefixes(method) if readers else set()
    filled = {node_text(target.child_by_field_name("expression"))
              for node in descendants(method) if node.type == "assignment_expression"
              and (target := node.child_by_field_name("left")) is not None and target.type == "member_access_expression"
              and (value := node.child_by_field_name("right")) is not None and _reads_a_column(value, readers, prefixes)}
    found = []
    for node in descendants(method):
        written = created_type(node)
        if not written:
            continue
        holder = node.parent.parent if node.parent is not None and node.parent.type == "equals_value_clause" else node.parent
        kept = node_text(holder.child_by_field_name("name")) if holder is not None and holder.type == "variable_declarator" else None
        if any(_reads_a_column(part, readers, prefixes) for part in node.named_children if part.type != "object_creation_expression") \
                or (kept is not None and kept in filled):
            found.append(written)
    return list(dict.fromkeys(found))


def link_reader_mappings(graph: nx.MultiDiGraph) -> int:
    """MAPS_TO from each type a reader-mapping method fills to the tables its rows come from, and
    REFERENCES from the method to the type; how many edges were added."""
    added = 0
    for method, data in list(graph.nodes(data=True)):
        attrs = data.get("attrs") or {}
        if data.get("kind") != "METHOD" or not attrs.get("reader_columns"):
            continue
        entities = [found for guesses in attrs.get("reader_builds", ())
                    if (found := next((node_id(LANGUAGE, guess, "TYPE") for guess in guesses
                                       if node_id(LANGUAGE, guess, "TYPE") in graph), None))]
        columns = attrs["reader_columns"]
        tables = _source_tables(graph, method, columns) if entities else []
        for entity in entities:
            for table in tables:
                added += add_edge(graph, entity, table, "MAPS_TO", {
                    "via": VIA, "by": method, "reader_columns": columns, "resolution": "inferred", "guess": True})
            if tables:
                added += add_edge(graph, method, entity, "REFERENCES", {
                    "via": VIA, "reader_columns": columns, "resolution": "inferred", "guess": True})
    return added


def _source_tables(graph: nx.MultiDiGraph, method: str, columns: list[str]) -> list[str]:
    """The tables and views the rows the method reads come from (see the module's doc)."""
    read: Counter = Counter()
    seen, queue = {method}, deque([(method, 0)])
    while queue:
        current, depth = queue.popleft()
        # what it runs itself, and what the calls it makes that return a reader run (`using (var
        # reader = _procedures.GetBlog(id)) { return reader.ReadBlog(); }`: that call ran the command)
        read.update({table for runner in (current, *_reader_sources(graph, current))
                     for table in _tables_run(graph, runner)})
        if depth >= READER_HOPS:
            continue
        for caller, _, key in graph.in_edges(current, keys=True):
            if key == "CALLS" and caller not in seen and graph.nodes[caller].get("kind") == "METHOD":
                seen.add(caller)
                queue.append((caller, depth + 1))
    if not read:
        return []
    wanted = {column.lower() for column in columns}
    holding = {table: len(wanted & _declared_columns(graph, table)) for table in read}
    enough = [table for table, count in holding.items() if count and 2 * count >= len(wanted)]
    if enough:
        best = max(holding[table] for table in enough)
        return sorted(table for table in enough if holding[table] == best)
    most = max(read.values())
    tied = sorted(table for table, count in read.items() if count == most)
    return tied if len(tied) <= _MOST_TIED else []


def _reader_sources(graph: nx.MultiDiGraph, method: str) -> list[str]:
    """The methods `method` calls that return a data reader or record."""
    return [target for _, target, key in graph.out_edges(method, keys=True)
            if key == "CALLS" and graph.nodes[target].get("kind") == "METHOD"
            and any(returned.rsplit(".", 1)[-1] in READER_TYPES
                    for returned in (graph.nodes[target].get("attrs") or {}).get("returns", ()))]


def _tables_run(graph: nx.MultiDiGraph, method: str) -> list[str]:
    """The tables and views a method reads, itself or through the procedures it calls."""
    found = []
    for _, target, key in graph.out_edges(method, keys=True):
        kind = graph.nodes[target].get("kind")
        if key == "READS" and kind in ("TABLE", "VIEW"):
            found.append(target)
        elif key == "CALLS" and kind == "PROCEDURE":
            found += [t for _, t, k in graph.out_edges(target, keys=True)
                      if k == "READS" and graph.nodes[t].get("kind") in ("TABLE", "VIEW")]
    return found


def _declared_columns(graph: nx.MultiDiGraph, table: str) -> set[str]:
    return {graph.nodes[column]["name"].rsplit(".", 1)[-1].lower()
            for _, column, key in graph.out_edges(table, keys=True)
            if key == "DEFINES" and graph.nodes[column].get("kind") == "COLUMN"}
