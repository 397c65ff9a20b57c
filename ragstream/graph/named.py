"""The database and code objects a question names, found in the graph by name.

"the HangFire Job table", "the ExpireAt column of the Hash table", "stored procedure
spMergeUserBasedOnEmail", `QueryController.Save`, `BackgroundJobClient`: a cue word (table,
column, procedure, view, function, class) says what kind of object the word next to it is; a
code-like identifier (dotted or CamelCase) is matched against qualified names by suffix. Only
nodes of the graph handed in are found, so a caller's filters (a filtered graph view) hide what
they hide here too. SQL names ignore case, C# and Python names do not.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterator
from itertools import takewhile
from dataclasses import dataclass

import networkx as nx

from ragstream.index.compact_graph import compact_root, short_name
from ragstream.index.symbols import without_template_copies
from ragstream.keyword_tokens import identifier_parts, keyword_tokens

SQL_OBJECT_KINDS = ("TABLE", "VIEW", "PROCEDURE", "FUNCTION", "TYPE", "TRIGGER")
NAMED_CODE_KINDS = ("TYPE", "CLASS", "METHOD", "FUNCTION", "PROPERTY")  # what a dotted identifier may name


def _name(group: str) -> str:
    return rf"\[?(?P<{group}>[A-Za-z_][\w$#]*)\]?"


_QUALIFIED = rf"(?:{_name('schema')}\s*\.\s*)?{_name('name')}"
# (cue, pattern with groups name [, schema] [, column], node kinds); a column's name is `column`
# and its table's is `name`.
_CUES: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = (
    # "the ListId column of the TodoItems table", "... column on TodoItems", "... column from the Department table",
    # "the DocumentTypeId foreign key column on Documents"
    ("column", re.compile(rf"{_name('column')}\s+(?:(?:foreign|primary|unique|alternate)\s+key\s+)?column\s+"
                          rf"(?:of|on|in|from)\s+(?:the\s+)?{_QUALIFIED}"
                          rf"(?:\s+(?:table|view)\b)?", re.IGNORECASE), ("COLUMN",)),
    ("column", re.compile(rf"\bcolumns?\s+{_QUALIFIED}\.{_name('column')}", re.IGNORECASE), ("COLUMN",)),
    ("table", re.compile(rf"{_QUALIFIED}\s+(?P<said>table|view)s?\b", re.IGNORECASE), ("TABLE", "VIEW")),
    # the first of two tables named together: "the Projects or ToDoItems tables"
    ("table", re.compile(rf"{_QUALIFIED}\s*(?:,|\bor\b|\band\b)\s*\[?[A-Za-z_][\w$#.]*\]?\s+(?:table|view)s\b",
                         re.IGNORECASE), ("TABLE", "VIEW")),
    ("table", re.compile(rf"\b(?:table|view)s?\s+{_QUALIFIED}", re.IGNORECASE), ("TABLE", "VIEW")),
    ("procedure", re.compile(rf"\b(?:stored\s+)?(?:procedure|proc|sproc)s?\s+{_QUALIFIED}", re.IGNORECASE),
     ("PROCEDURE",)),
    ("procedure", re.compile(rf"{_QUALIFIED}\s+(?:stored\s+)?(?:procedure|proc|sproc)\b", re.IGNORECASE),
     ("PROCEDURE",)),
    ("function", re.compile(rf"\bfunction\s+{_QUALIFIED}", re.IGNORECASE), ("FUNCTION",)),
    ("class", re.compile(rf"{_QUALIFIED}\s+(?:class|interface|entity)\b", re.IGNORECASE), ("TYPE", "CLASS")),
)
# Where a question asks for calls, the word in the caller's or callee's place is a code name even
# when it reads like a plain word ("who calls iteritems", "what does `balance` call"); a dotted
# name there is left to _DOTTED.
_CALL_NAME = r"`?(?P<name>[A-Za-z_]\w*)`?(?![\w.])"
_CALL_CUES = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    rf"\b(?:who|what|which\s+\w+)\s+(?:calls?|invokes?)\s+(?:the\s+)?{_CALL_NAME}",
    rf"\bcallers?\s+of\s+(?:the\s+)?{_CALL_NAME}",
    rf"\bwhat\s+(?:does|do|did)\s+{_CALL_NAME}\s+call\b",
    rf"\bwhere\s+(?:is|are)\s+{_CALL_NAME}\s+(?:called|used)\b",
))
_ROUTE_PARAMETER = re.compile(r"\{[^{}\s]*\}")
MAX_NAMED_BY_WORD = 3  # a name more objects share than this names none of them
_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CODE_WORD = re.compile(r"(?<![\w.])(?:[A-Za-z]*[a-z][A-Z]\w*|[a-z]+_\w+)(?![\w.])")
_NOT_NAMES = frozenset({"the", "a", "an", "this", "that", "which", "what", "each", "every", "sql", "server",
                        "database", "its", "their", "same", "new", "old", "it", "them", "they", "these",
                        "those"})


@dataclass(frozen=True)
class Named:
    """An object the question names: its node, and the words that named it."""

    id: str
    kind: str
    name: str
    cue: str  # table, column, procedure, function, class, call (the word a call question asks about), identifier
    table: str | None = None  # a column's table


class NameIndex:
    """Nodes of a graph by lower-cased short name, for the lookups below."""

    def __init__(self, graph: nx.MultiDiGraph):
        self.graph = graph
        self._compact = compact_root(graph)  # names it has indexed at build time: no scan of every node
        self.by_short: dict[str, list[str]] = defaultdict(list)
        if self._compact is None:
            for node, data in graph.nodes(data=True):
                if _name_indexed(data):
                    self.by_short[short_name(data["name"])].append(node)

    def _named(self, short: str) -> list[str]:
        """The nodes of the graph whose lower-cased short name is `short`, in node order."""
        if self._compact is None:
            return self.by_short.get(short, [])
        if short not in self.by_short:
            self.by_short[short] = [n for n in self._compact.named(short)
                                    if n in self.graph and _name_indexed(self.graph.nodes[n])]
        return self.by_short[short]

    def lookup(self, name: str, kinds: tuple[str, ...], schema: str | None = None) -> list[str]:
        """Nodes of `kinds` whose short name is `name` (case-insensitive), those in `schema`
        when it narrows them down."""
        found = without_template_copies([n for n in self._named(name.lower())
                                         if self.graph.nodes[n].get("kind") in kinds])
        if schema:
            narrowed = [n for n in found if _schema(self.graph.nodes[n]["name"]) == schema.lower()]
            return narrowed or found
        return found

    def suffix(self, dotted: str) -> list[str]:
        """Code nodes whose qualified name ends with `dotted` on a `.` boundary (case-sensitive)."""
        short = dotted.rsplit(".", 1)[-1]
        return [n for n in self._named(short.lower())
                if self.graph.nodes[n].get("kind") in NAMED_CODE_KINDS
                and _ends_with(self.graph.nodes[n]["name"], dotted)]


def _name_indexed(data: dict) -> bool:
    """Whether lookups by name find a node: code and database objects, not files, modules,
    namespaces or outside names."""
    return data.get("kind") not in ("EXTERNAL", "FILE", "NAMESPACE", "MODULE") and bool(data.get("name"))


def find_named(graph: nx.MultiDiGraph, question: str, index: NameIndex | None = None) -> list[Named]:
    """The objects `question` names, in the order it names them, each once."""
    index = index or NameIndex(graph)
    # `/Projects/{ProjectId}/ToDoItems`: a route's placeholder names a parameter, not a type
    question = _ROUTE_PARAMETER.sub(lambda m: " " * len(m.group()), question)
    found: list[tuple[int, Named]] = []
    for cue, pattern, kinds in _CUES:
        for match in pattern.finditer(question):
            for node in _cue_nodes(index, match.groupdict(), kinds):
                found.append((match.start(), named_node(graph, node, cue)))
    for pattern in _CALL_CUES:
        for match in pattern.finditer(question):
            nodes = _cue_nodes(index, match.groupdict(), NAMED_CODE_KINDS)
            if len(nodes) <= MAX_NAMED_BY_WORD:
                found.extend((match.start("name"), named_node(graph, node, "call")) for node in nodes)
    for match in _DOTTED.finditer(question):
        for node in index.suffix(match.group()):
            found.append((match.start(), named_node(graph, node, "identifier")))
    for match in _CODE_WORD.finditer(question):
        nodes = index.lookup(match.group(), (*SQL_OBJECT_KINDS, "TYPE", "CLASS"))
        if len(nodes) <= MAX_NAMED_BY_WORD:
            found.extend((match.start(), named_node(graph, node, "identifier")) for node in nodes)
    seen: set[str] = set()
    named = []
    for _, item in sorted(found, key=lambda pair: pair[0]):
        if item.id not in seen:
            seen.add(item.id)
            named.append(item)
    return named


def named_by_word(graph: nx.MultiDiGraph, word: str) -> list[Named]:
    """The code or database objects a bare name names (`record_payment`, `Invoices`), as a call
    question's word is read: none when more than MAX_NAMED_BY_WORD share it."""
    nodes = _cue_nodes(NameIndex(graph), {"name": word.strip("`[] ")}, (*NAMED_CODE_KINDS, *SQL_OBJECT_KINDS))
    return [named_node(graph, node, "identifier") for node in nodes] if len(nodes) <= MAX_NAMED_BY_WORD else []


def tables_in_words(graph: nx.MultiDiGraph, question: str) -> list[Named]:
    """The tables a question names in plain words ("which code writes todo items" ->
    `TodoItems`): those whose name's two or more words (split at case and `_`, stemmed; with or
    without a module prefix before the first `_`) the question says in a row, or whose one word
    it says before "table" ("the issues table" -> `BugNet_Issues`), the most words first; none
    when more than MAX_NAMED_BY_WORD tie. A question about several "tables" ("the system log and
    the customer activity log tables") names one in each place it says a name: the most words
    first, then fewer where no longer name was said (`ActivityLog`, not also `Log` in "activity log")."""
    found = _tables_at_places(graph, stems(question), several=says_several_tables(question), one_word=False)
    return [named_node(graph, node, "words") for node in found]


def link_tables_in_words(graph: nx.MultiDiGraph, question: str) -> list[Named]:
    """The table a question describes by two tables it links ("the table that assigns customers
    to customer roles" -> `CustomerRoleMapping`, whose foreign keys point at `Customer` and
    `CustomerRole`): in the clause after "the table that / which / where", each place a table's
    name is said (one word enough: "customers"); the tables, not among them, with a foreign key to
    two of those. None when more than MAX_NAMED_BY_WORD do."""
    found: list[str] = []
    for match in _DESCRIBED_TABLE.finditer(question):
        ends = set(_tables_at_places(graph, stems(match.group("clause")), several=True, one_word=True))
        if len(ends) < 2:
            continue
        links = [node for node, data in graph.nodes(data=True) if data.get("kind") == "TABLE" and node not in ends
                 and len({t for _, t, key in graph.out_edges(node, keys=True) if key == "FOREIGN_KEY"} & ends) >= 2]
        if len(links) <= MAX_NAMED_BY_WORD:
            found += [node for node in links if node not in found]
    return [named_node(graph, node, "words") for node in found]


# "the table that assigns customers to customer roles", "a table which links posts and tags"
_DESCRIBED_TABLE = re.compile(r"\b(?:the|a)\s+table\s+(?:that|which|where)\s+(?P<clause>[^?.;:()]+)", re.IGNORECASE)


def _tables_at_places(graph: nx.MultiDiGraph, said: list[str], several: bool, one_word: bool) -> list[str]:
    """The tables whose name's words `said` holds in a row (one word: only before "table",
    unless `one_word`), the most words first; with `several`, one more in each place no longer
    name was said, else only the longest; a place more than MAX_NAMED_BY_WORD tables fit names none."""
    text = f" {' '.join(said)} "
    fits: dict[tuple[int, int], list[str]] = defaultdict(list)  # (start, length) in `said` -> tables
    for node, names in _table_names(graph):
        for words in names:
            # one plain word ("queries", "orders") is too common to name a table by, unless the
            # question calls it a table ("the issues table": `BugNet_Issues`, `be_Posts`)
            if not words or (len(words) == 1 and not one_word and f" {words[0]} {_TABLE_WORD} " not in text):
                continue
            starts = [i for i in range(len(said) - len(words) + 1) if said[i:i + len(words)] == words
                      and (len(words) > 1 or one_word or said[i + 1:i + 2] == [_TABLE_WORD])]
            for start in starts:
                fits[(start, len(words))].append(node)
            if starts:
                break
    places = sorted(fits, key=lambda place: (-place[1], place[0]))
    taken: set[int] = set()
    found: list[str] = []
    for start, length in places:
        span = set(range(start, start + length))
        if length < places[0][1] and not several or span & taken:
            continue
        taken |= span
        best = without_template_copies(fits[(start, length)])
        if len(best) <= MAX_NAMED_BY_WORD:
            found += [node for node in best if node not in found]
    return found


def says_several_tables(question: str) -> bool:
    """Whether the question speaks of "tables": it may name more than one."""
    return bool(_SEVERAL_TABLES.search(question))


_SEVERAL_TABLES = re.compile(r"\btables\b", re.IGNORECASE)


def procedures_in_words(graph: nx.MultiDiGraph, question: str) -> list[Named]:
    """The procedures a question that says "procedure" names by what they do ("the stored
    procedure that deletes a project" -> `Project_DeleteProject`): those whose name's last part
    after `_` (or whole name) has two or more words the question says in a row, the most words
    first; none when more than MAX_NAMED_BY_WORD tie."""
    said = f" {' '.join(stems(question))} "
    if f" {_PROCEDURE_WORD} " not in said:
        return []
    fits: dict[int, list[str]] = defaultdict(list)
    for node, data in graph.nodes(data=True):
        if data.get("kind") != "PROCEDURE" or not data.get("name"):
            continue
        short = data["name"].rsplit(".", 1)[-1]
        for name in dict.fromkeys((short, short.rsplit("_", 1)[-1])):
            words = stems(" ".join(identifier_parts(name)))
            if len(words) > 1 and f" {' '.join(words)} " in said:
                fits[len(words)].append(node)
                break
    best = without_template_copies(fits[max(fits)]) if fits else []
    return [named_node(graph, node, "words") for node in best] if len(best) <= MAX_NAMED_BY_WORD else []


def columns_in_words(graph: nx.MultiDiGraph, tables: list[Named], question: str) -> list[Named]:
    """The columns a question names in plain words: said right before "column" ("the due date
    column of the issues table" -> `IssueDueDate` of `BugNet_Issues`), or said in the clause that
    follows it ("the column that stores the client IP address in the system log table" ->
    `ClientIP` of `SystemLogs`, "the column holding a repository's logo image" -> `Logo`); a
    column's table's own words in front of it (`Issue`DueDate) need not be said. Columns of
    `tables`, or where the question names none, of the tables whose name's words it says
    ("system log", "repository"). The most words first, none when more than MAX_NAMED_BY_WORD tie."""
    said = f" {' '.join(stems(question))} "
    clauses = [f" {' '.join(stems(m.group(1)))} " for m in _COLUMN_CLAUSE.finditer(question)]
    fits: dict[int, list[str]] = defaultdict(list)
    wanted = {t.id for t in tables if t.kind in ("TABLE", "VIEW")} or _tables_said(graph, said)
    for column, table in _columns(graph, wanted):
        table_words = set(stems(" ".join(identifier_parts(graph.nodes[table]["name"].rsplit(".", 1)[-1]))))
        words = stems(" ".join(identifier_parts(graph.nodes[column]["name"].rsplit(".", 1)[-1])))
        own = len(list(takewhile(table_words.__contains__, words)))
        said_words = next((words[start:] for start in range(own + 1)
                           if words[start:] and (f" {' '.join(words[start:])} {_COLUMN_WORD} " in said
                                                 or any(f" {' '.join(words[start:])} " in c for c in clauses))), None)
        if said_words:
            fits[len(said_words)].append(column)
    best = fits[max(fits)] if fits else []
    return [named_node(graph, node, "words") for node in best] if len(best) <= MAX_NAMED_BY_WORD else []


# "the column that stores the client IP address", "the column holding ...": what it holds, in its clause
_COLUMN_CLAUSE = re.compile(r"\bcolumns?\s+(?:that|which|where|holding|storing|keeping|recording|with|for)\b"
                            r"((?:\s+[\w'-]+){1,10})", re.IGNORECASE)


def _columns(graph: nx.MultiDiGraph, tables: Collection[str]) -> list[tuple[str, str]]:
    """(column, table) of each table: its declared COLUMNs, else (a table only a model maps, no
    script declares) the properties of the entities mapped to it, which are its columns."""
    found = []
    for table in sorted(tables):
        columns = [t for _, t, k in graph.out_edges(table, keys=True)
                   if k == "DEFINES" and graph.nodes[t].get("kind") == "COLUMN"]
        if not columns:
            columns = [p for entity, _, k in graph.in_edges(table, keys=True)
                       if k == "MAPS_TO" and graph.nodes[entity].get("kind") == "TYPE"
                       for _, p, k2 in graph.out_edges(entity, keys=True)
                       if k2 == "DEFINES" and graph.nodes[p].get("kind") == "PROPERTY"]
        found += [(column, table) for column in columns]
    return found


def _tables_said(graph: nx.MultiDiGraph, said: str) -> set[str]:
    """The tables whose name's words (or those after a module prefix) the question says in a row."""
    return {node for node, names in _table_names(graph) if any(words and f" {' '.join(words)} " in said for words in names)}


def _table_names(graph: nx.MultiDiGraph) -> Iterator[tuple[str, list[list[str]]]]:
    """Each table or view with its name's stemmed words: the name, then the name after a module
    prefix (`Orders_OrderHistory`: "order history")."""
    for node, data in graph.nodes(data=True):
        if data.get("kind") in ("TABLE", "VIEW") and data.get("name"):
            short = data["name"].rsplit(".", 1)[-1]
            yield node, [stems(" ".join(identifier_parts(name))) for name in dict.fromkeys((short, short.split("_", 1)[-1]))]


def stems(text: str) -> list[str]:
    """The text's words, lower-cased and stemmed, in order."""
    return [token for word in re.findall(r"[A-Za-z0-9]+", text) for token in keyword_tokens(word.lower())[:1]]


_TABLE_WORD = stems("table")[0]  # "table", "tables" as `stems` says them
_COLUMN_WORD = stems("column")[0]
_PROCEDURE_WORD = stems("procedure")[0]


def _cue_nodes(index: NameIndex, groups: dict[str, str | None], kinds: tuple[str, ...]) -> list[str]:
    """The nodes a cue's match names: a table, procedure, ... by name (in its schema when one is
    written), or a column of the table named with it."""
    schema, name, column = groups.get("schema"), groups.get("name"), groups.get("column")
    if not name or name.lower() in _NOT_NAMES:
        return []
    if column:
        tables = _tables_named(index, name, ("TABLE", "VIEW"), schema)
        return [n for n in index.lookup(column, kinds) if index.graph.nodes[n].get("parent") in tables] \
            or _mapped_properties_named(index, tables, column)
    if (groups.get("said") or "").lower() == "view":  # "the draft order view": `OrdersViewV3` before `Orders`
        views = _named_views(index, name)
        if views:
            return views
    return _tables_named(index, name, kinds, schema) if "TABLE" in kinds else index.lookup(name, kinds, schema)


def _named_views(index: NameIndex, name: str) -> list[str]:
    """The tables and views whose name is `name` (in either number) with "View" after it, and
    perhaps a version (`OrdersViewV3`, `Order_View`): a read model's table, which the words "the
    order view" say as much as they say a view named `Order`."""
    heads = {word.lower() for word in (name, *_other_numbers(name))}
    found = []
    for node, data in index.graph.nodes(data=True):
        if data.get("kind") in ("TABLE", "VIEW") and data.get("name"):
            short = data["name"].rsplit(".", 1)[-1].lower().replace("_", "")
            if any(_VIEW_NAME.fullmatch(short[len(head):]) for head in heads if short.startswith(head)):
                found.append(node)
    return found if len(found) <= MAX_NAMED_BY_WORD else []


_VIEW_NAME = re.compile(r"views?(?:v?\d+)?")  # what follows the head noun: `View`, `ViewV3`, `Views2`


def _tables_named(index: NameIndex, name: str, kinds: tuple[str, ...], schema: str | None) -> list[str]:
    """The objects of `kinds` `name` names: by that name, else the tables and views its other
    English number names ("the topics table" is `Topic` where a schema names its tables in the
    singular, EF6 without its pluralizing convention; "the order table" is `Orders`). Code names
    keep their number: `GetUsers` is not `GetUser`."""
    found = index.lookup(name, kinds, schema)
    tables = tuple(kind for kind in kinds if kind in ("TABLE", "VIEW"))
    for other in ([] if found or not tables else _other_numbers(name)):
        found = index.lookup(other, tables, schema)
        if found:
            break
    return found


def _other_numbers(word: str) -> list[str]:
    """A noun's singular forms if it reads as a plural (`categories` -> `category`, `boxes` ->
    `box`, `topics` -> `topic`), else its plural forms."""
    lowered = word.lower()
    if lowered.endswith("ies") and len(word) > 4:
        return [word[:-3] + "y"]
    if lowered.endswith("es") and len(word) > 3:
        return [word[:-1], word[:-2]]
    if lowered.endswith("s") and not lowered.endswith("ss") and len(word) > 2:
        return [word[:-1]]
    if lowered.endswith("y") and len(word) > 2 and lowered[-2] not in "aeiou":
        return [word[:-1] + "ies"]
    return [word + "s", word + "es"]


def undeclared_columns(graph: nx.MultiDiGraph, question: str) -> list[tuple[str, str]]:
    """(table, column name) of each column the question names ("the ProjectId column of the
    ToDoItems table") on a table the graph has, where neither a script nor a property declares
    the column (EF's shadow foreign key): what the question is about is still that column."""
    index = NameIndex(graph)
    found = []
    for cue, pattern, _ in _CUES:
        for match in pattern.finditer(question) if cue == "column" else ():
            groups = match.groupdict()
            if groups.get("column") and not _cue_nodes(index, groups, ("COLUMN",)):
                found += [(table, str(groups["column"]))
                          for table in _cue_nodes(index, {**groups, "column": None}, ("TABLE", "VIEW"))]
    return list(dict.fromkeys(found))


def _mapped_properties_named(index: NameIndex, tables: list[str], column: str) -> list[str]:
    """A column no script declares (a table made from an EF model) named by the property that
    holds it: the properties called `column` of the types mapped to `tables`."""
    graph = index.graph
    types = {source for table in tables for source, _, key in graph.in_edges(table, keys=True) if key == "MAPS_TO"}
    return [n for n in index.lookup(column, ("PROPERTY",)) if graph.nodes[n].get("parent") in types]


def named_node(graph: nx.MultiDiGraph, node: str, cue: str) -> Named:
    """The node as an object named by `cue` (a column with its table, when the caller sees it)."""
    data = graph.nodes[node]
    table = data.get("parent") if data["kind"] == "COLUMN" and data.get("parent") in graph else None
    return Named(node, data["kind"], data["name"], cue, table)


def _schema(name: str) -> str:
    return name.rsplit(".", 1)[0].lower() if "." in name else ""


def _ends_with(qualified: str, dotted: str) -> bool:
    return qualified == dotted or qualified.endswith("." + dotted)
