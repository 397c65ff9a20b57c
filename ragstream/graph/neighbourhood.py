"""The graph neighbourhood of a shapeless question's best hits, and where it goes among the hits.

"Where is X done", "how does X work": the search finds the method that does X (its best hit is
usually right), and then its lexical siblings (the class's other methods with similar names, a
DTO, the file). What the question also wants is a step away in the graph: what runs it (the page,
the controller, the job, the service whose method calls it), the same operation in the layer above
or below it (`Page.PerformQuery` -> `IssueManager.PerformQuery` -> `SqlDataProvider.PerformQuery`:
a call through an interface goes to the implementations too), the helpers it calls that the
question names, and the other code that reads or writes its tables under the question's words.
Each neighbour of the first HITS_AROUND method hits needs reasons of its own, summed:
- its name carries asked words the hit's own name and its class's do not (`content_words`), each
  weighing by how rare it is among the code base's names (`word_weights`: `Post` in a forum's
  code names half its methods, `PageView` a few);
- it does the same operation as the hit (their names share a word that is not the hit class's,
  weighed the same way: `IssueManager.PerformQuery` calls `SqlDataProvider.PerformQuery`);
- it is one of at most MAX_TRIGGERS callers of the hit: what makes the code run (1;
  `PageService.SaveAsync`, the only caller of `PageRepository.CreateRevision`).
The sum is divided by 1 + the hit's rank and multiplied by the neighbour's share of the call (1/k
for a call site that may run any of k callees, an interface's implementations), or by
THROUGH_TABLE for code sharing a table; below MIN_SCORE it is not shown. `interleaved` puts the
best NEIGHBOURS between the hits that follow the best one: the best hit keeps its place with what
goes with it (its tables), each later method hit goes one place down for each neighbour before it.
No model is involved; each step is bounded by the hits' degrees.
"""
from __future__ import annotations

import math
import weakref
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import networkx as nx

from ragstream.graph.beside import content_words, own_words
from ragstream.graph.guesses import is_guess
from ragstream.graph.questions import asked_words, question_shape
from ragstream.graph.stand_ins import declared_only, is_constructor
from ragstream.index.model import not_walked
from ragstream.test_paths import in_tests

CODE_KINDS = ("METHOD", "FUNCTION")
NAMED_KINDS = ("METHOD", "FUNCTION", "TYPE", "CLASS", "PROPERTY")  # whose names a word's weight is counted in
HITS_AROUND = 2  # the best method hits whose calls are followed
MAX_TRIGGERS = 2  # a hit with more callers than this: none of them alone says what runs it
NEIGHBOURS = 3  # neighbours placed among the hits
# The least score shown: a whole reason beside the best hit (being one of its few callers, the
# same operation, a rare asked word or a few common ones), or two beside the second hit. On the
# development sets the weaker ones were right one time in three, no better than the lexical hits
# they push out of the first ten (a call that may run any of many implementations names none).
MIN_SCORE = 1.0
THROUGH_TABLE = 0.5  # a neighbour through a table the hit reads or writes is a step further than a call
DATA_EDGES = ("READS", "WRITES")
TABLE_KINDS = ("TABLE", "VIEW")


@dataclass(frozen=True)
class Neighbour:
    node: str
    hit: int  # the rank, among the hits followed, of the hit it neighbours
    score: float  # its reasons (see the module's text) over 1 + `hit`, times its share of the call
    fan: int  # how many methods call it (a callee) or it calls (a caller): lower is more specific


def _code(graph: nx.MultiDiGraph, node: str) -> bool:
    """The repository's own code with a body: not a test, an interface's member, a constructor."""
    data = graph.nodes[node]
    return data.get("kind") in CODE_KINDS and bool(data.get("path")) and not in_tests(graph, node) \
        and not declared_only(graph, node) and not is_constructor(graph, node)


def _calls(graph: nx.MultiDiGraph, node: str, callers: bool) -> set[str]:
    """The code that calls `node` (`callers`) or that it calls, along the calls the code makes; not
    along a guessed call (linked by name only): a neighbour is placed among the hits unmarked."""
    edges = graph.in_edges(node, keys=True, data=True) if callers else graph.out_edges(node, keys=True, data=True)
    return {other for source, target, key, data in edges
            for other in [source if callers else target]
            if key == "CALLS" and not not_walked(data) and not is_guess(data) and other != node and _code(graph, other)}


_WEIGHTS: weakref.WeakKeyDictionary[nx.MultiDiGraph, dict[str, float]] = weakref.WeakKeyDictionary()


def word_weights(graph: nx.MultiDiGraph) -> dict[str, float]:
    """How much a name's word says, 0..1: log(N / (1 + n)) / log(N) for a word in the names of n
    of the graph's N code objects (inverse document frequency): `Post` in a forum's code names
    half its methods, `PageView` a few. Read once per graph (a graph is frozen once loaded)."""
    if graph not in _WEIGHTS:
        counts: Counter[str] = Counter()
        named = [n for n, data in graph.nodes(data=True) if data.get("kind") in NAMED_KINDS and data.get("path")]
        for node in named:
            counts.update(own_words(graph, node))
        scale = math.log(max(len(named), 2))
        _WEIGHTS[graph] = {word: max(math.log(len(named) / (1 + n)), 0.0) / scale for word, n in counts.items()}
    return _WEIGHTS[graph]


def _owner_words(graph: nx.MultiDiGraph, node: str) -> set[str]:
    """The words of the short name of the class that declares `node` (none without one)."""
    parent = graph.nodes[node].get("parent")
    return own_words(graph, parent) if isinstance(parent, str) and parent in graph else set()


def _operation_words(graph: nx.MultiDiGraph, node: str) -> set[str]:
    """A method's own name's words that its class's name does not carry: what it does, not to what."""
    return own_words(graph, node) - _owner_words(graph, node)


def neighbours(graph: nx.MultiDiGraph, hits: Sequence[str], words: Collection[str],
               exclude: Collection[str] = ()) -> list[Neighbour]:
    """The callers and callees of the first HITS_AROUND method `hits` that have a reason to be
    shown (see the module's text), best first, none in `exclude` or among the hits followed."""
    asked = content_words(words)
    followed = [h for h in hits if h in graph and graph.nodes[h].get("kind") in CODE_KINDS][:HITS_AROUND]
    skip = {*exclude, *followed}  # a later hit the graph joins to a better one is a neighbour too
    found: dict[str, Neighbour] = {}
    weights = word_weights(graph)

    def weigh(shared: set[str]) -> float:
        return sum(weights.get(word, 1.0) for word in shared)

    for rank, hit in enumerate(followed):
        callers = _calls(graph, hit, callers=True)
        operation = _operation_words(graph, hit)
        beyond = asked - own_words(graph, hit) - _owner_words(graph, hit)  # what the hit does not say
        for node, is_caller in [*((c, True) for c in sorted(callers)),
                                *((c, False) for c in sorted(_calls(graph, hit, callers=False)))]:
            if node in skip or node in found:
                continue
            name = own_words(graph, node)
            reasons = weigh(name & beyond) + weigh(name & operation) + (is_caller and len(callers) <= MAX_TRIGGERS)
            if reasons:
                fan = len(_calls(graph, node, callers=not is_caller))
                share = _site_share(graph, node, hit) if is_caller else _site_share(graph, hit, node)
                found[node] = Neighbour(node, rank, reasons * share / (1 + rank), fan)
        for node, table in _sharing_tables(graph, hit):
            reasons = weigh(own_words(graph, node) & beyond)
            if node not in skip and node not in found and reasons:
                found[node] = Neighbour(node, rank, reasons * THROUGH_TABLE / (1 + rank),
                                        _touching(graph, table))
    return sorted((n for n in found.values() if n.score >= MIN_SCORE), key=lambda n: (-n.score, n.fan, n.node))


def _tables_of(graph: nx.MultiDiGraph, node: str) -> set[str]:
    return {t for _, t, key, data in graph.out_edges(node, keys=True, data=True)
            if key in DATA_EDGES and graph.nodes[t].get("kind") in TABLE_KINDS and not not_walked(data)}


def _touching(graph: nx.MultiDiGraph, table: str) -> int:
    return sum(1 for s, _, key, data in graph.in_edges(table, keys=True, data=True)
               if key in DATA_EDGES and not not_walked(data))


def _sharing_tables(graph: nx.MultiDiGraph, hit: str) -> list[tuple[str, str]]:
    """The other code that reads or writes a table `hit` reads or writes, with that table."""
    return sorted({(source, table) for table in _tables_of(graph, hit)
                   for source, _, key, data in graph.in_edges(table, keys=True, data=True)
                   if key in DATA_EDGES and not not_walked(data) and source != hit and _code(graph, source)})


def _site_share(graph: nx.MultiDiGraph, caller: str, callee: str) -> float:
    """The share of one run of the call that goes to `callee`: 1/k for a call site (the caller's
    line) with k possible callees (an interface's implementations, ambiguous overloads), the
    largest over the caller's calls to it."""
    best = 0.0
    for key, data in (graph.get_edge_data(caller, callee) or {}).items():
        if key != "CALLS" or not_walked(data) or is_guess(data):
            continue
        if data.get("line") is None:
            return 1.0
        site = sum(1 for _, _, k, d in graph.out_edges(caller, keys=True, data=True)
                   if k == "CALLS" and d.get("line") == data["line"] and not not_walked(d))
        best = max(best, 1.0 / max(site, 1))
    return best


def interleaved(first: Sequence[str], later: Sequence[Sequence[str]], placed: Sequence[str]) -> list[str]:
    """`first` (the best hit's block: it and what goes with it), then a neighbour from `placed`
    before each block of `later` (a later hit and what goes with it), the neighbours left over
    after them; each node once, where it first comes."""
    out = list(first)
    rest = list(placed)
    for block in later:
        if rest:
            out.append(rest.pop(0))
        out += block
    return list(dict.fromkeys([*out, *rest]))


def blocks(nodes: Sequence[str], starts: Sequence[str]) -> list[list[str]]:
    """`nodes` cut before each of `starts` it holds (a hit, then what goes with it): the first
    block is everything before the second start."""
    cuts = sorted({nodes.index(s) for s in starts if s in nodes} - {0})
    edges = [0, *cuts, len(nodes)]
    return [list(nodes[a:b]) for a, b in zip(edges, edges[1:]) if b > a]


def among_hits(graph: nx.MultiDiGraph, question: str, hits: Sequence[str], placed: Sequence[str],
               listed: Sequence[str], exclude: Collection[str] = ()) -> list[str]:
    """`listed` (the `placed` hits, each followed by what goes with it) with, for a question of no
    shape (`question_shape` is None: not a flow, list, impact or mapping question, which have
    answers of their own), up to NEIGHBOURS of the `hits`' neighbours placed among them
    (`interleaved`), none of those in `exclude` (already chosen) again."""
    if question_shape(question) is not None:
        return list(listed)
    near = [n.node for n in neighbours(graph, hits, asked_words(question), {*exclude, *listed})][:NEIGHBOURS]
    # a later hit that is a table stays where the search put it: most often the one the best reads
    lead, *later = blocks(listed, [h for h in placed if h in graph and graph.nodes[h].get("kind") in CODE_KINDS]) \
        or [[]]
    return interleaved(lead, later, near)
