"""Questions the graph answers: list, impact and flow questions, from the edges, complete.

"Which procedures write to T?" is a list of T's incoming WRITES edges; "what breaks if I rename
column C of T?" is what reads, writes or maps T and names C; "how is X saved, from the
controller down to the tables?" is the paths from the entry point along CALLS to the tables it
reads or writes. Search alone finds a few of these; the graph holds all of them. Every item
keeps how its edge was made, so a guess (`by_name`) is shown as one. Pure functions over the
(filtered) graph the caller hands in: a node the caller may not see is never reached.
"""
from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from ragstream.graph.named import Named
from ragstream.keyword_tokens import identifier_parts, keyword_tokens

TABLE_KINDS = ("TABLE", "VIEW")
# Question shapes, first match wins.
_FLOW = re.compile(r"\bfrom\b.*\b(?:down\s+)?to\b.*\b(?:tables?|database|db|sql)\b|\bdown to\b|\bend[- ]to[- ]end\b"
                   # "how does X do Y in SQL Server": the code path down to the database
                   r"|^\s*(?:how|what happens|when)\b.*\b(?:in|from|to|into|and)\s+(?:the\s+)?"
                   r"(?:sql(?:\s+server)?|database|db)\b", re.IGNORECASE)
_IMPACT = re.compile(r"\bwhat\s+(?:would\s+)?(?:breaks?|is affected|depends)\b|\bimpact\b|\bif\s+(?:i|we|you)\s+"
                     r"(?:rename|drop|change|remove|delete|alter)\b|\bis renamed\b|\bis dropped\b|\bdepends? on\b",
                     re.IGNORECASE)
_LIST = re.compile(r"^\s*(?:which|what|list|show|name)\b.*\b(?:methods?|procedures?|procs|class(?:es)?|code|functions?|"
                   r"tables?|views?|callers?|triggers?|services?|repositories|controllers?)\b"
                   r"|\b(?:rows?|tables?)\b.*\bmapped\b", re.IGNORECASE)
# Relation words -> edge types; "read or write" takes both.
_VERBS = (
    ("FOREIGN_KEY", re.compile(r"\bforeign keys?\b|\breferenc\w+ the \w+ table\b", re.IGNORECASE)),
    ("WRITES", re.compile(r"\b(?:writes?|writing|written|modif\w+|inserts?|updates?|deletes?|saves?|changes?|"
                          r"stores?|persists?)\b", re.IGNORECASE)),
    ("READS", re.compile(r"\b(?:reads?|reading|selects?|quer(?:y|ies)|loads?|fetch\w*)\b", re.IGNORECASE)),
    ("MAPS_TO", re.compile(r"\bmap(?:s|ped|ping)?\b", re.IGNORECASE)),
    ("CALLS", re.compile(r"\bcall(?:s|ed|ers?)?\b", re.IGNORECASE)),
)
# Nouns of a list question -> the kinds of node it lists (none named: every kind).
_NOUNS = (
    (re.compile(r"\b(?:stored\s+)?(?:procedures?|procs|sprocs?)\b", re.IGNORECASE), ("PROCEDURE",)),
    (re.compile(r"\btriggers?\b", re.IGNORECASE), ("TRIGGER",)),
    (re.compile(r"\bmethods?\b", re.IGNORECASE), ("METHOD", "FUNCTION")),
    (re.compile(r"\bfunctions?\b", re.IGNORECASE), ("FUNCTION",)),
)
_CLASSES = re.compile(r"\bclass(?:es)?\b|\btypes?\b|\bentit(?:y|ies)\b", re.IGNORECASE)
_USES = re.compile(r"\b(?:uses?|using|access\w*|touch\w*|depend\w*)\b", re.IGNORECASE)
DATA_EDGES = ("READS", "WRITES", "MAPS_TO", "FOREIGN_KEY", "REFERENCES", "CALLS")
MAX_FLOW_DEPTH = 8
MAX_FLOW_PATHS = 12
MAX_FLOW_VISITS = 3000
_PLACE_ORDER = {"FILE": 1, "EXTERNAL": 2}
ENTRY_SEARCH_HITS = 3  # the best method hits whose callers may hold a flow's entry point


@dataclass(frozen=True)
class Related:
    """One answer item: a node, how it relates to the subject, how that edge was made."""

    id: str
    relation: str  # WRITES, READS, ...; "names column" for a text match
    subject: str  # the named object's id
    resolution: str  # the edge's resolution (static, inferred, dispatch, by_name, ...) or "text"
    indirect: bool = False  # reached through one more hop (a caller of a writer, a procedure it runs)

    @property
    def guess(self) -> bool:
        return "by_name" in self.resolution or "guess" in self.resolution


@dataclass(frozen=True)
class Path:
    nodes: tuple[str, ...]
    edges: tuple[str, ...]  # the edge type (and resolution when not static) between each pair

    @property
    def guess(self) -> bool:
        return any("by_name" in edge or "guess" in edge for edge in self.edges)


@dataclass
class GraphAnswer:
    shape: str  # list | impact | flow
    subjects: list[Named]
    relations: tuple[str, ...] = ()  # the edge types asked about
    items: list[Related] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)

    def node_ids(self) -> list[str]:
        """Everything the answer names, subjects first (a column with its table), then items and
        path nodes in order."""
        ids = [i for s in self.subjects for i in (s.id, *([s.table] if s.table else []))]
        ids += [i.id for i in self.items]
        ids += [n for path in self.paths for n in path.nodes]
        return list(dict.fromkeys(ids))


def question_shape(question: str) -> str | None:
    """flow, impact, list, or None when the question is none of these."""
    # impact first: "what happens if I rename X ... in the database" asks what breaks
    for shape, pattern in (("impact", _IMPACT), ("flow", _FLOW), ("list", _LIST)):
        if pattern.search(question):
            return shape
    return None


def asked_relations(question: str) -> tuple[str, ...]:
    """The edge types a list question asks about ("read or write" -> READS and WRITES), in the
    order the question names them (its first verb is what it is about: "mapped ... loads")."""
    positions = {edge: match.start() for edge, pattern in _VERBS if (match := pattern.search(question))}
    found = tuple(sorted(positions, key=positions.get))
    if "FOREIGN_KEY" in found:
        return ("FOREIGN_KEY",)
    if not found or _USES.search(question):
        return DATA_EDGES
    return found


def asked_kinds(question: str) -> tuple[str, ...]:
    """The node kinds a list question asks for ("which procedures ..." -> PROCEDURE); empty
    when it names none or asks for code or classes too (a class is answered by its mapped type
    and by its methods that read or write)."""
    if _CLASSES.search(question):
        return ()
    return tuple(dict.fromkeys(kind for pattern, kinds in _NOUNS if pattern.search(question) for kind in kinds))


def answer_from_graph(graph: nx.MultiDiGraph, question: str, named: list[Named], entry_hits: list[str],
                      text_of: Callable[[list[str]], dict[str, str]]) -> GraphAnswer | None:
    """The graph's answer to a list, impact or flow question, or None when the question is
    none of these or names nothing its shape needs. `entry_hits` (search hits, best first)
    give a flow question its entry point when it names none; `text_of` fetches node texts
    (under the caller's filters) for a column's impact."""
    shape = question_shape(question)
    if shape == "flow":
        entries = [n.id for n in named if n.kind in ("METHOD", "FUNCTION")] \
            or _entry_points(graph, entry_hits, question)
        paths = flow_paths(graph, entries, question)
        return GraphAnswer("flow", named, ("CALLS", "READS", "WRITES"), paths=paths) if paths else None
    if shape not in ("list", "impact") or not named:
        return None
    subjects = _main_subjects(named)
    if shape == "impact":
        items = [item for s in subjects for item in impact_of(graph, s, text_of)]
        return GraphAnswer("impact", subjects, DATA_EDGES,
                           _by_relevance(graph, items, question, DATA_EDGES, entry_hits))
    relations = asked_relations(question)
    wants_tables = bool(re.search(r"\b(?:which|what)\s+(?:other\s+)?tables\b", question, re.IGNORECASE))
    items = [item for s in subjects for item in related(graph, s, relations, wants_tables)]
    kinds = asked_kinds(question) if not wants_tables else ()
    if kinds:
        items = [item for item in items if graph.nodes[item.id].get("kind") in kinds]
    return GraphAnswer("list", subjects, relations, _by_relevance(graph, items, question, relations, entry_hits))


def _by_relevance(graph: nx.MultiDiGraph, items: list[Related], question: str,
                  relations: tuple[str, ...], hits: list[str]) -> list[Related]:
    """Every item still, best first: direct before one more hop, the repository's code before
    scripts and before what lies outside it (a library's function), a mapped property before the
    code, the asked relations in the question's order, then what the search ranked (`hits`,
    best first: it read the code and the question), then items whose names share words with
    the question ("job details" -> `JobDetails`), then by id."""
    asked = set(keyword_tokens(question))
    order = {relation: n for n, relation in enumerate(("maps column", *relations))}
    searched = {hit: rank for rank, hit in reversed(list(enumerate(hits)))}

    def key(item: Related) -> tuple:
        data = graph.nodes[item.id] if item.id in graph else {}
        shared = len(asked & set(keyword_tokens(data.get("name", item.id).rsplit(".", 1)[-1])))
        return (item.indirect, place_rank(graph, item.id), order.get(item.relation, len(order)),
                searched.get(item.id, len(hits)), -shared, item.id)

    return sorted(items, key=key)


def place_rank(graph: nx.MultiDiGraph, node: str) -> int:
    """Where an answer item lies: 0 the repository's code, 1 a script that created or altered a
    table, 2 what is not defined in the repository (a library's function): lists go in that order."""
    return _PLACE_ORDER.get(graph.nodes[node].get("kind") if node in graph else None, 0)


def _main_subjects(named: list[Named]) -> list[Named]:
    """The objects a list or impact question is about: columns and database objects named with
    a cue before bare identifiers (a table is what `which methods write the Job table` asks
    about, not a class that happens to be called Job)."""
    for cues in (("column",), ("table", "procedure", "function"), ("class", "identifier")):
        chosen = [n for n in named if n.cue in cues]
        if chosen:
            return chosen
    return named


def related(graph: nx.MultiDiGraph, subject: Named, relations: tuple[str, ...],
            wants_tables: bool = False) -> list[Related]:
    """What relates to `subject` by `relations`: a table's readers/writers (incoming edges), a
    procedure's or method's tables (outgoing edges, with the procedures it runs), complete."""
    node = subject.id
    if subject.kind in TABLE_KINDS and not (wants_tables and relations != ("FOREIGN_KEY",)):
        return _edges(graph.in_edges(node, keys=True, data=True), relations, node, source_side=True)
    items = _edges(graph.out_edges(node, keys=True, data=True), relations, node, source_side=False)
    for callee in _called_procedures(graph, node):  # EXEC of another procedure: its tables too
        items += [Related(i.id, i.relation, node, i.resolution, indirect=True)
                  for i in _edges(graph.out_edges(callee, keys=True, data=True), relations, node, source_side=False)]
    return _unique(items)


def impact_of(graph: nx.MultiDiGraph, subject: Named,
              text_of: Callable[[list[str]], dict[str, str]]) -> list[Related]:
    """What breaks when `subject` is renamed or changed: for a column, every reader, writer and
    mapped type of its table whose code names the column, and its foreign keys; for a table,
    everything that reads, writes, maps or references it, and the callers of those; for code,
    its callers, implementers and referrers."""
    if subject.kind == "COLUMN":
        table = subject.table
        if table is None:  # a column whose table the caller may not see: nothing to follow
            return []
        column = subject.name.rsplit(".", 1)[-1]
        users = _edges(graph.in_edges(table, keys=True, data=True), DATA_EDGES, subject.id, source_side=True)
        texts = text_of([u.id for u in users])
        word = re.compile(rf"(?<![\w]){re.escape(column)}(?![\w])", re.IGNORECASE)
        naming = [Related(u.id, "names column", subject.id, u.resolution) for u in users
                  if word.search(texts.get(u.id, "")) or _names_in_attrs(graph, u.id, word)]
        keys = [Related(other, "FOREIGN_KEY", subject.id, resolution_of(data))
                for other, data in _foreign_keys_on(graph, table, column)]
        mapped = _mapped_properties(graph, table, subject.id, column)
        return _unique([*mapped, *naming, *keys, *_callers(graph, naming, subject.id)])
    edges = (*DATA_EDGES, "IMPLEMENTS", "INHERITS") if subject.kind not in TABLE_KINDS else DATA_EDGES
    direct = _edges(graph.in_edges(subject.id, keys=True, data=True), edges, subject.id, source_side=True)
    return _unique([*direct, *_callers(graph, direct, subject.id)])


def flow_paths(graph: nx.MultiDiGraph, entries: Iterable[str], question: str = "") -> list[Path]:
    """Paths from each entry along CALLS (dispatch included) to every table reached by READS or
    WRITES (also through procedures): the shortest path to each method, then one path per method
    and table it touches, so a table a side path (a cleanup) reaches first is still reached by
    the path the question asks about. At most MAX_FLOW_PATHS: by entry, then those whose nodes
    name more of the question's words ("results ... cached" -> `GetResults`, `CachedResults`),
    then those ending in the relation the question's verb asks for ("saves": writes first), then
    shortest first, then paths without a guess."""
    paths: list[Path] = []
    for entry in dict.fromkeys(entries):
        if entry not in graph:
            continue
        parent: dict[str, tuple[str, str] | None] = {entry: None}
        queue, touches = deque([(entry, 0)]), []
        while queue and len(parent) < MAX_FLOW_VISITS:
            node, depth = queue.popleft()
            for _, target, edge_type, data in sorted(graph.out_edges(node, keys=True, data=True)):
                kind = graph.nodes[target].get("kind")
                if edge_type not in ("CALLS", "READS", "WRITES") or kind == "EXTERNAL":
                    continue
                resolution = resolution_of(data)
                how = edge_type if resolution in ("static", "inferred") else f"{edge_type} ({resolution})"
                if kind in TABLE_KINDS:
                    touches.append((node, how, target))
                elif target not in parent:
                    parent[target] = (node, how)
                    if depth + 1 < MAX_FLOW_DEPTH:
                        queue.append((target, depth + 1))
        paths += [_path_to(parent, node, (how, table)) for node, how, table in dict.fromkeys(touches)]
    order = {entry: n for n, entry in enumerate(dict.fromkeys(entries))}
    asked = set(keyword_tokens(question))

    def shared(path: Path) -> int:
        return len(asked & {t for n in path.nodes[1:] for t in keyword_tokens(_short_name(graph, n))})

    verbs = [r for r in asked_relations(question) if r in ("READS", "WRITES")] if question else []

    def as_asked(path: Path) -> int:  # "saves" asks for the writes first, "loads" for the reads
        last = path.edges[-1].split(" ", 1)[0]
        return verbs.index(last) if last in verbs else len(verbs)

    paths.sort(key=lambda p: (order[p.nodes[0]], -shared(p), as_asked(p), len(p.nodes), p.guess, p.nodes))
    return paths[:MAX_FLOW_PATHS]


def with_their_tables(graph: nx.MultiDiGraph, nodes: list[str]) -> list[str]:
    """Each node followed by the tables and views it reads or writes (directly, or through a
    procedure it calls): what a question about the data wants beside the code that was found."""
    out = []
    for node in nodes:
        if node not in graph:
            continue
        out.append(node)
        reached = [node, *_called_procedures(graph, node)]
        out += sorted({t for n in reached for _, t, k in graph.out_edges(n, keys=True)
                       if k in ("READS", "WRITES") and graph.nodes[t].get("kind") in TABLE_KINDS})
    return list(dict.fromkeys(out))


def _short_name(graph: nx.MultiDiGraph, node: str) -> str:
    return graph.nodes[node].get("name", node).rsplit(".", 1)[-1]


def _path_to(parent: dict[str, tuple[str, str] | None], node: str, last: tuple[str, str] | None = None) -> Path:
    """The walk's path to `node`, then `last` (an edge and the node it leads to) when given."""
    nodes, edges = [node], []
    step = parent[node]
    while step is not None:
        previous, edge = step
        nodes.append(previous)
        edges.append(edge)
        step = parent[previous]
    nodes.reverse()
    edges.reverse()
    if last is not None:
        edges.append(last[0])
        nodes.append(last[1])
    return Path(tuple(nodes), tuple(edges))


def _entry_points(graph: nx.MultiDiGraph, hits: list[str], question: str) -> list[str]:
    """Entry points of a flow question that names none: among the search hits that are methods,
    and the methods upstream of the best of them whose type the question names in words ("how
    does a worker fetch ..." -> `Worker.Execute`), those of controllers, pages and handlers first,
    then those of a type the question names, then those upstream of more of the other hits (a
    flow is asked from the top down), then those whose own name says what the question does
    ("created" -> `Create`), then search order."""
    methods = [h for h in hits if graph.has_node(h) and graph.nodes[h].get("kind") in ("METHOD", "FUNCTION")]
    outer = re.compile(r"(?:Controller|Page|PageModel|Handler|Endpoint|Endpoints)\.[^.]+$")
    asked = set(keyword_tokens(question))

    def of_named_type(method: str) -> bool:
        parts = graph.nodes[method].get("name", "").split("(", 1)[0].rsplit(".", 2)
        words = {t for part in identifier_parts(parts[1]) for t in keyword_tokens(part)} if len(parts) == 3 else set()
        return bool(words) and words <= asked

    upstream = [m for m in _callers_within(graph, methods[:ENTRY_SEARCH_HITS]) if of_named_type(m)]
    candidates = list(dict.fromkeys([*methods, *upstream]))
    downstream = {h: len(_called_from(graph, h) & (set(methods) - {h})) for h in candidates}

    def rank(hit: str) -> tuple[bool, bool, int, bool]:
        name = graph.nodes[hit].get("name", "")
        return (not outer.search(name), not of_named_type(hit), -downstream[hit],
                not asked & set(keyword_tokens(name.rsplit(".", 1)[-1])))

    return sorted(candidates, key=rank)[:3]


def _callers_within(graph: nx.MultiDiGraph, starts: list[str]) -> list[str]:
    """The methods that reach `starts` along CALLS within MAX_FLOW_DEPTH, nearest first."""
    depth = dict.fromkeys(starts, 0)
    queue = deque(starts)
    while queue and len(depth) < MAX_FLOW_VISITS:
        node = queue.popleft()
        if depth[node] >= MAX_FLOW_DEPTH:
            continue
        for source, _, key in sorted(graph.in_edges(node, keys=True)):
            if key == "CALLS" and source not in depth:
                depth[source] = depth[node] + 1
                queue.append(source)
    return [n for n in depth if n not in starts]


def _called_from(graph: nx.MultiDiGraph, start: str) -> set[str]:
    """The methods `start` reaches along CALLS within MAX_FLOW_DEPTH."""
    depth = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if depth[node] >= MAX_FLOW_DEPTH:
            continue
        for _, target, key in graph.out_edges(node, keys=True):
            if key == "CALLS" and target not in depth:
                depth[target] = depth[node] + 1
                queue.append(target)
    return set(depth)


def resolution_of(data: Mapping[str, Any]) -> str:
    """How an edge was made; ", guess" added where a guess was carried on (a call dispatched to
    the implementations of a method that was itself found by name)."""
    resolution = data.get("resolution", "static")
    return f"{resolution}, guess" if data.get("guess") and resolution != "by_name" else resolution


def _edges(edges, types: tuple[str, ...], subject: str, source_side: bool) -> list[Related]:
    """The edges of `types`, as items."""
    out = []
    for source, target, edge_type, data in sorted(edges, key=lambda e: (e[0], e[1], e[2])):
        if edge_type in types:
            other = source if source_side else target
            out.append(Related(other, edge_type, subject, resolution_of(data)))
    return out


def _called_procedures(graph: nx.MultiDiGraph, node: str) -> list[str]:
    return [t for _, t, k in graph.out_edges(node, keys=True)
            if k == "CALLS" and graph.nodes[t].get("kind") == "PROCEDURE"]


def _callers(graph: nx.MultiDiGraph, items: list[Related], subject: str) -> list[Related]:
    """The callers of the code items: they break when what they call breaks."""
    found = []
    for item in items:
        if graph.nodes[item.id].get("kind") in ("METHOD", "FUNCTION", "PROCEDURE"):
            found += [Related(source, "CALLS", subject, resolution_of(data), indirect=True)
                      for source, _, key, data in sorted(graph.in_edges(item.id, keys=True, data=True))
                      if key == "CALLS"]
    return found


def _mapped_properties(graph: nx.MultiDiGraph, table: str, column_id: str, column: str) -> list[Related]:
    """The C# properties an ORM fills from the column: mapped to it by name (`HasColumnName`),
    or named as the column in a type mapped to its table (Dapper, EF conventions)."""
    found = []
    for source, _, key, data in graph.in_edges(column_id, keys=True, data=True):
        prop = data.get("property") and f"{graph.nodes[source].get('name')}.{data['property']}"
        if key == "MAPS_TO" and prop:
            found += [Related(n, "maps column", column_id, resolution_of(data))
                      for n in _properties(graph, source) if graph.nodes[n]["name"] == prop]
    for source, _, key, data in graph.in_edges(table, keys=True, data=True):
        if key == "MAPS_TO":
            found += [Related(n, "maps column", column_id, "by_name" if data.get("guess") else "inferred")
                      for n in _properties(graph, source)
                      if graph.nodes[n]["name"].rsplit(".", 1)[-1].lower() == column.lower()]
    return found


def _properties(graph: nx.MultiDiGraph, type_id: str) -> list[str]:
    return [t for _, t, k in graph.out_edges(type_id, keys=True)
            if k == "DEFINES" and graph.nodes[t].get("kind") == "PROPERTY"]


def _foreign_keys_on(graph: nx.MultiDiGraph, table: str, column: str) -> list[tuple[str, dict]]:
    """Tables whose foreign keys use `column` of `table`, or that `column` points to."""
    low = column.lower()
    found = [(s, d) for s, _, k, d in graph.in_edges(table, keys=True, data=True)
             if k == "FOREIGN_KEY" and low in (c.lower() for c in d.get("ref_columns", ()))]
    found += [(t, d) for _, t, k, d in graph.out_edges(table, keys=True, data=True)
              if k == "FOREIGN_KEY" and low in (c.lower() for c in d.get("columns", ()))]
    return found


def _names_in_attrs(graph: nx.MultiDiGraph, node: str, word: re.Pattern[str]) -> bool:
    """Inline SQL a C# method keeps in its attributes names the column."""
    return any(word.search(sql) for sql in graph.nodes[node].get("attrs", {}).get("inline_sql", ()))


def _unique(items: list[Related]) -> list[Related]:
    kept: dict[str, Related] = {}
    for item in items:
        if item.id not in kept or (kept[item.id].indirect and not item.indirect):
            kept[item.id] = item
    return list(kept.values())
