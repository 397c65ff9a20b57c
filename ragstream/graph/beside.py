"""What goes beside the code a where or how question's search found, when the graph has no answer.

The search finds one method of a class, a class without the methods the question names, a table
without the properties it asks about; the rest is one edge away and named by the question's
other words. Each rule works on the graph's shape and the question's words, never on names of a
particular code base:
- a class among the found code brings its methods whose names carry asked words its own name
  does not (`members_beside`): "run and record the upgrade scripts" -> the journal class's
  `GetExecutedScripts`, `StoreExecutedScript`;
- the best method brings the methods of its own class that call it (`own_chain`): the
  interceptor's `UpdateEntities` is run by its `SavingChangesAsync`;
- code run around a handler, a request or a save (a pipeline behaviour, an interceptor, a
  request filter) whose class is named for what the question says is done (`named_around`), with
  where it is registered: "how are requests validated" -> `ValidationBehaviour.Handle`;
- a table the question names brings its entity's properties named by two more asked words
  (`table_code`): "review count and average rating" -> `Product.ReviewsCount`,
  `Product.RatingAverage`.
What these bring goes after everything the search and the graph's other rules chose: it only
takes places weaker hits would have had. No model is involved; each rule is bounded.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence

import networkx as nx

from ragstream.graph.questions import QUESTION_WORDS
from ragstream.graph.relations import in_tests, wired_in
from ragstream.graph.stand_ins import declared_only, is_constructor
from ragstream.index.model import AROUND_VIAS, not_walked
from ragstream.keyword_tokens import keyword_tokens

# Words of how a question is put, not of what it asks about: they name nothing in code.
PHRASING = frozenset(keyword_tokens(" ".join(QUESTION_WORDS) + " did happen happens work works way up out back get app"))
MEMBERS_PER_TYPE = 2  # of a class the search found, the methods that go beside it
OWN_CHAIN = 2  # of the best method's own class, the methods that run it
NAMED_AROUND = 2  # behaviours and interceptors the question names
TABLE_CODE = 2  # of a named table's entity, the properties the question names
CODE_KINDS = ("METHOD", "FUNCTION")
TABLE_KINDS = ("TABLE", "VIEW")
MIN_NAMED_PROPERTY_WORDS = 2  # an entity's property goes with its table when it names this many other asked words


def content_words(words: Collection[str]) -> frozenset[str]:
    """The asked keyword tokens that may name code (the question's phrasing left out)."""
    return frozenset(words) - PHRASING


def own_words(graph: nx.MultiDiGraph, node: str) -> set[str]:
    """The keyword tokens of a node's own short name (`GetExecutedScripts` -> get, execut, script)."""
    name = str(graph.nodes[node].get("name", "")).split("(", 1)[0]
    return set(keyword_tokens(name.rsplit(".", 1)[-1]))


def _production(graph: nx.MultiDiGraph, node: str) -> bool:
    return not in_tests(graph, node) and not declared_only(graph, node) and not is_constructor(graph, node)


def _parent(graph: nx.MultiDiGraph, node: str) -> str | None:
    parent = graph.nodes[node].get("parent")
    return parent if isinstance(parent, str) and parent in graph else None


def _methods_of(graph: nx.MultiDiGraph, type_node: str) -> list[str]:
    return [m for _, m, key in graph.out_edges(type_node, keys=True)
            if key == "DEFINES" and graph.nodes[m].get("kind") in CODE_KINDS and _production(graph, m)]


def members_beside(graph: nx.MultiDiGraph, type_node: str, words: Collection[str],
                   limit: int = MEMBERS_PER_TYPE) -> list[str]:
    """Up to `limit` methods of the class `type_node` whose names carry asked `words` the class's
    own name does not: those with more such words first, then those called more from outside
    the class, then those not private (its working surface, not its helpers), then in source
    order. Its other methods stay out: the class's name matched the question, they did not."""
    beyond = content_words(words) - own_words(graph, type_node)

    def outside_callers(method: str) -> int:
        return len({s for s, _, key, data in graph.in_edges(method, keys=True, data=True)
                    if key == "CALLS" and _parent(graph, s) != type_node and not not_walked(data)})

    def order(method: str) -> tuple[int, int, bool, int]:
        private = "private" in (graph.nodes[method].get("attrs") or {}).get("modifiers", ())
        return (-len(own_words(graph, method) & beyond), -outside_callers(method), private,
                int(graph.nodes[method].get("start_line") or 0))

    return sorted((m for m in _methods_of(graph, type_node) if own_words(graph, m) & beyond), key=order)[:limit]


def own_chain(graph: nx.MultiDiGraph, method: str, limit: int = OWN_CHAIN) -> list[str]:
    """Up to `limit` methods of `method`'s own class that call it, in source order: a class's
    work is a chain of its methods, the search finds one link, and what starts it is asked too
    ("where are the audit columns filled in": `UpdateEntities` and the `SavingChangesAsync` that
    runs it). What it calls is left out: helpers, found by the walk if they matter."""
    owner = _parent(graph, method)
    if owner is None:
        return []
    mine = set(_methods_of(graph, owner)) - {method}

    def line(node: str) -> tuple[int, str]:  # the id breaks a tie (parts of a partial class)
        return int(graph.nodes[node].get("start_line") or 0), node

    callers = sorted({s for s, _, key, d in graph.in_edges(method, keys=True, data=True)
                      if key == "CALLS" and s in mine and not not_walked(d)}, key=line)
    return callers[:limit]


def named_around(graph: nx.MultiDiGraph, done: Collection[str], limit: int = NAMED_AROUND) -> list[str]:
    """Up to `limit` methods run around a handler, a request or a save (targets of edges
    `via` a pipeline, an interceptor or a request filter) whose class's name carries a word of
    what the question says is done (`done`, `questions.asked_done`: "validated" ->
    `ValidationBehaviour`, "cached" -> `CachingBehavior`): code nobody calls, that does it to
    every request. A domain noun the question shares with such a class ("page") is not enough.
    Those whose class carries more of the words first."""
    asked = content_words(done)
    found: dict[str, int] = {}
    for _, target, key, data in graph.edges(keys=True, data=True):
        if key != "CALLS" or data.get("via") not in AROUND_VIAS or target in found or not _production(graph, target):
            continue
        owner = _parent(graph, target)
        shared = len(own_words(graph, owner) & asked) if owner else 0
        if shared:
            found[target] = shared
    return sorted(found, key=lambda node: (-found[node], node))[:limit]


def table_code(graph: nx.MultiDiGraph, table: str, words: Collection[str], limit: int = TABLE_CODE) -> list[str]:
    """For a table whose name carries an asked word: up to `limit` properties of the entity types
    mapped to it whose names carry at least MIN_NAMED_PROPERTY_WORDS asked words the table's name
    does not (more of them first): the columns the question describes ("a product's review count
    and average rating" -> `ReviewsCount`, `RatingAverage`). A table the question does not name
    brings nothing."""
    asked = content_words(words)
    named = own_words(graph, table) & asked
    if not named:
        return []
    entities = sorted({s for s, _, key in graph.in_edges(table, keys=True)
                       if key == "MAPS_TO" and graph.nodes[s].get("kind") == "TYPE" and _production(graph, s)})
    other = asked - named
    props = [(len(own_words(graph, p) & other), p) for e in entities for _, p, key in graph.out_edges(e, keys=True)
             if key == "DEFINES" and graph.nodes[p].get("kind") == "PROPERTY"]
    named_props = [p for count, p in sorted(props, key=lambda item: (-item[0], item[1])) if count >= MIN_NAMED_PROPERTY_WORDS]
    return named_props[:limit]


def beside(graph: nx.MultiDiGraph, nodes: Sequence[str], words: Collection[str], done: Collection[str] = ()) -> list[str]:
    """What goes beside `nodes` (in their order, none of them and none twice): a class's methods
    (`members_beside`), the first method's callers in its class (`own_chain`) and the behaviours
    named for what is `done` (`named_around`, each with where it is registered), a table's named
    properties (`table_code`). `words` are the question's keyword tokens."""
    out: list[str] = []
    first_method = next((n for n in nodes if n in graph and graph.nodes[n].get("kind") in CODE_KINDS), None)
    for node in nodes:
        if node not in graph:
            continue
        kind = graph.nodes[node].get("kind")
        if kind == "TYPE" and graph.nodes[node].get("language") != "sql":
            out += members_beside(graph, node, words)
        elif node == first_method:
            out += [*own_chain(graph, node),
                    *(n for m in named_around(graph, done) for n in (m, *wired_in(graph, m)))]
        elif kind in TABLE_KINDS:
            out += table_code(graph, node, words)
    given = set(nodes)
    return [n for n in dict.fromkeys(out) if n not in given]
