"""The SQL schema as it stands after the last script: migrations replayed in path order.

Parsers see one file at a time, so a table created in `024 - Metadata.sql` and renamed in
`039 - ....sql` arrives as a TABLE node under its first name plus a RENAME `SchemaChange`.
`evolve_schema` replays every SQL file's definitions, column nodes and schema changes in natural
path order (`9` before `10`) and rewrites the parse results so that:

- a renamed object is one node under its final name (attrs `renamed_from`), and references to
  any of its names resolve to it;
- a dropped object, and a dropped column, is gone (its node, its DEFINES edges and the
  references out of its definition); references to it from elsewhere stay, marked with
  `dropped_in`, and resolve as any unknown name does (to an EXTERNAL node);
- the latest definition of an object wins (ALTER PROCEDURE, a re-created table), and columns
  added or altered by later scripts belong to the table under its final name;
- every script that altered, renamed or re-created an object links to it: a REFERENCES edge
  from its FILE node with attrs `resolution: schema_evolution` and the `changes` it made.

It is a pure function of the parse results, like the rest of graph building, so an incremental
index that re-parses one script replays them all again.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ragstream.index.model import Edge, Node, ParsedFile, Reference, SchemaChange, node_id

_OBJECT_KINDS = ("TABLE", "VIEW", "PROCEDURE", "FUNCTION", "TRIGGER", "TYPE")
_HAS_COLUMNS = ("TABLE", "TYPE")
RESOLUTION = "schema_evolution"


@dataclass
class _Column:
    name: str  # current name
    node: Node  # its latest definition
    file: int


@dataclass
class _Object:
    kind: str
    name: str  # current name
    node: Node  # its latest definition
    file: int
    renamed_from: list[str] = field(default_factory=list)
    columns: dict[str, _Column] = field(default_factory=dict)  # lower-cased name -> column
    changes: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))  # by file


@dataclass
class _Replay:
    """The objects as the scripts leave them, and what became of every node on the way."""

    files: list[ParsedFile]
    live: list[_Object] = field(default_factory=list)
    removed: set[int] = field(default_factory=set)  # id() of nodes that are gone
    dropped: dict[str, str] = field(default_factory=dict)  # lower name -> "path:line"
    former: dict[str, _Object] = field(default_factory=dict)  # lower former name -> object

    def find(self, name: str, kinds: tuple[str, ...]) -> _Object | None:
        """The live object called `name` (as written): exact, else, for a name written without a
        schema, the one with its last part (a schema that is written must match)."""
        exact = [o for o in self.live if o.kind in kinds and o.name.lower() == name.lower()]
        if exact:
            return exact[-1]
        if "." in name:
            return None
        short = _short(name)
        matches = [o for o in self.live if o.kind in kinds and _short(o.name) == short]
        return matches[0] if len(matches) == 1 else None

    def create(self, index: int, node: Node) -> None:
        previous = self.find(node.name, (node.kind,))
        obj = _Object(node.kind, node.name, node, index)
        if previous is not None and previous.name.lower() == node.name.lower():
            self._remove(previous)  # redefined: ALTER PROCEDURE, CREATE OR ALTER, re-created
            obj.changes, obj.renamed_from = previous.changes, previous.renamed_from
            if previous.file != index:
                obj.changes[previous.file].append(
                    f"defined it (line {previous.node.start_line}), replaced by {node.path}")
        self.dropped.pop(node.name.lower(), None)
        self.live.append(obj)

    def column(self, index: int, node: Node) -> None:
        table, _, column = node.name.rpartition(".")
        owner = self.find(table, _HAS_COLUMNS)
        if owner is None:  # a column of a table no script creates
            self.removed.add(id(node))
            return
        key = column.lower()
        if key in owner.columns:
            self.removed.add(id(owner.columns[key].node))
        if owner.node.path != node.path or not (
                owner.node.start_line <= node.start_line <= owner.node.end_line):
            verb = "altered" if key in owner.columns else "added"
            owner.changes[index].append(f"{verb} column {column} (line {node.start_line})")
        owner.columns[key] = _Column(column, node, index)

    def change(self, index: int, change: SchemaChange) -> None:
        where = f"line {change.line}"
        obj = self.find(change.name, (change.kind,) if change.kind else _OBJECT_KINDS)
        if change.kind == "COLUMN" or (obj is None and not change.kind and "." in change.name):
            # sp_rename 'Table.Column', 'New' needs no 'COLUMN' when no object has that name
            table, _, column = change.name.rpartition(".")
            owner = self.find(table, _HAS_COLUMNS)
            found = owner.columns.get(column.lower()) if owner else None
            if owner is None or found is None:
                return
            if change.action == "DROP":
                self.removed.add(id(owner.columns.pop(column.lower()).node))
                owner.changes[index].append(f"dropped column {found.name} ({where})")
            elif change.action == "RENAME":
                owner.changes[index].append(
                    f"renamed column {found.name} to {change.new_name} ({where})")
                del owner.columns[column.lower()]
                found.name = change.new_name
                owner.columns[change.new_name.lower()] = found
            return
        if obj is None:
            return
        if change.action == "DROP":
            self._remove(obj)
            self.dropped[obj.name.lower()] = f"{self.files[index].path}:{change.line}"
        elif change.action == "RENAME":
            schema, _, _ = obj.name.rpartition(".")
            new_name = f"{schema}.{change.new_name}" if schema else change.new_name
            obj.changes[index].append(f"renamed {obj.name} to {new_name} ({where})")
            obj.renamed_from.append(obj.name)
            self.former[obj.name.lower()] = obj
            obj.name = new_name
        else:
            obj.changes[index].append(f"altered ({where})")

    def _remove(self, obj: _Object) -> None:
        self.live.remove(obj)
        self.removed.add(id(obj.node))
        self.removed.update(id(column.node) for column in obj.columns.values())


def evolve_schema(files: list[ParsedFile]) -> list[ParsedFile]:
    """`files` (same order) with the SQL schema replayed to its final state (module docstring)."""
    order = sorted((i for i, f in enumerate(files) if f.language == "sql"),
                   key=lambda i: natural_key(files[i].path))
    replay = _Replay(files)
    for _, _, _, index, item in sorted(_events(files, order), key=lambda e: e[:3]):
        if isinstance(item, SchemaChange):
            replay.change(index, item)
        elif item.kind == "COLUMN":
            replay.column(index, item)
        else:
            replay.create(index, item)
    if not (replay.removed or replay.former or any(o.changes for o in replay.live)):
        return files
    finals = {id(o.node): o for o in replay.live}
    columns = {id(c.node): (o, c) for o in replay.live for c in o.columns.values()}
    return [_rewrite(replay, finals, columns, index, parsed) if _may_change(parsed) else parsed
            for index, parsed in enumerate(files)]


def _may_change(parsed: ParsedFile) -> bool:
    """Whether the final schema can change a file: only a SQL file has objects, columns and
    script links of its own, and another file only references into the schema (rewriting all
    of a large repository's files for its few scripts was ~0.05 CPU s of every re-index)."""
    return parsed.language == "sql" or any(ref.target_language == "sql" for ref in parsed.references)


def natural_key(path: str) -> list[tuple[int, int | str]]:
    """Sort key that puts `Migrations/9 - a.sql` before `Migrations/10 - b.sql`."""
    return [(0, int(part)) if part.isdigit() else (1, part.lower())
            for part in re.split(r"(\d+)", path) if part]


def _events(files: list[ParsedFile], order: list[int]):
    """(file rank, line, step, file index, node or change) for every SQL file in path order."""
    for rank, index in enumerate(order):
        for node in files[index].nodes:
            if node.kind in _OBJECT_KINDS:
                yield rank, node.start_line, 0, index, node
            elif node.kind == "COLUMN":
                yield rank, node.start_line, 1, index, node
        for change in files[index].schema_changes:
            yield rank, change.line, 2, index, change


def _rewrite(replay: _Replay, finals: dict[int, _Object],
             columns: dict[int, tuple[_Object, _Column]], index: int,
             parsed: ParsedFile) -> ParsedFile:
    """One file's nodes, edges and references as the final schema has them (`finals`,
    `columns`: the live objects and columns by id() of their latest node)."""
    renamed: dict[str, str] = {}  # id in this file -> final id
    gone: set[str] = set()
    kept: set[str] = set()
    nodes: list[Node] = []
    for node in parsed.nodes:
        if id(node) in replay.removed:
            gone.add(node.id)
            continue
        final = _final_node(node, finals.get(id(node)), columns.get(id(node)))
        if final.id != node.id:
            renamed[node.id] = final.id
        kept.add(node.id)
        nodes.append(final)
        if id(node) in columns and node.parent:  # the table may be defined elsewhere
            owner = columns[id(node)][0]
            renamed[node.parent] = node_id("sql", owner.name, owner.kind)
    gone -= kept
    edges = [replace(e, source=renamed.get(e.source, e.source),
                     target=renamed.get(e.target, e.target))
             for e in parsed.edges if e.source not in gone and e.target not in gone]
    edges.extend(_script_links(replay, index, parsed))
    references = [_retarget(replay, replace(r, source=renamed.get(r.source, r.source)))
                  for r in parsed.references if r.source not in gone]
    return replace(parsed, nodes=nodes, edges=edges, references=references)


def _final_node(node: Node, obj: _Object | None, column: tuple[_Object, _Column] | None) -> Node:
    if obj is not None and obj.name != node.name:
        return replace(node, id=node_id("sql", obj.name, obj.kind), name=obj.name,
                       attrs={**node.attrs, "renamed_from": list(obj.renamed_from)})
    if column is not None:
        owner, current = column
        name = f"{owner.name}.{current.name}"
        if name != node.name:
            return replace(node, id=node_id("sql", name, "COLUMN"), name=name,
                           parent=node_id("sql", owner.name, owner.kind),
                           signature=node.signature.replace(node.short_name, current.name, 1))
    return node


def _script_links(replay: _Replay, index: int, parsed: ParsedFile) -> list[Edge]:
    """REFERENCES from this script's FILE node to each object it changed."""
    return [Edge(parsed.root_id, node_id("sql", o.name, o.kind), "REFERENCES",
                 {"resolution": RESOLUTION, "changes": list(o.changes[index])})
            for o in replay.live if o.changes.get(index)]


def _retarget(replay: _Replay, ref: Reference) -> Reference:
    """A reference to a former name also tries the final one; one to a dropped object says so."""
    if ref.target_language != "sql":
        return ref
    key = ref.target.lower()
    renamed = replay.former.get(key) or replay.former.get(_by_last_part(replay.former, ref.target))
    if (renamed is not None and renamed in replay.live
            and replay.find(ref.target, (renamed.kind,)) is None):
        return replace(ref, candidates=(*ref.candidates, renamed.name),
                       attrs={**ref.attrs, "renamed_to": renamed.name})
    dropped = replay.dropped.get(key) or replay.dropped.get(_by_last_part(replay.dropped, ref.target))
    if dropped and not any(replay.find(ref.target, (kind,)) for kind in ref.target_kinds):
        return replace(ref, attrs={**ref.attrs, "dropped_in": dropped})
    return ref


def _by_last_part(names: Mapping[str, object], name: str) -> str:
    """The one key of `names` whose last part is `name`'s (`metadata` for `dbo.Metadata`)."""
    matches = [key for key in names if _short(key) == _short(name)]
    return matches[0] if len(matches) == 1 else ""


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower()
