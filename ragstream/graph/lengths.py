"""What else holds a column's length: the answer to "if I change the maximum length of a
contributor's name, what else has to change?" or "we want to shorten titles to 100 characters".

A text column's length is written more than once in an ORM application: in the mapping
(`builder.Property(c => c.Name).HasMaxLength(100)`), in the request validators that check the
same property before anything is saved (FluentValidation's `RuleFor(x => x.Name).MaximumLength(100)`
in an `AbstractValidator<CreateContributorCommand>`), and in the table. The property is the one
the question names: of the mapped entities it names in words (or of any mapped entity, when it
names none) the properties whose names share its words and that mapping code configures.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import networkx as nx

from ragstream.graph.mappings import asked_properties, configuring_code, entities_in_words
from ragstream.graph.named import Named, named_node
from ragstream.graph.questions import asked_words
from ragstream.graph.relations import STORED_IN, TABLE_KINDS, Related

VALIDATES = "validates length"
# `class CreateTodoItemCommandValidator : AbstractValidator<CreateTodoItemCommand>` (FastEndpoints: `Validator<T>`)
_VALIDATOR = re.compile(r":\s*(?:[\w.]+\.)?(?:Abstract)?Validator\s*<\s*(?:[\w.]+\.)?(\w+)\s*>")
_LENGTH_RULE = re.compile(r"\b(?:MaximumLength|MaxLength|Length)\s*\(")


def length_properties(graph: nx.MultiDiGraph, question: str) -> list[Named]:
    """The mapped properties whose length the question asks about: those of the entities it names
    in words sharing its words, else those of every mapped entity; only properties that mapping
    code configures (where a length is set)."""
    asked = set(asked_words(question))
    entities = [n.id for n in entities_in_words(graph, question)] or sorted(
        node for node, data in graph.nodes(data=True) if data.get("kind") == "TYPE" and _tables(graph, node))
    found = []
    for entity in entities:
        configured = {name for code in configuring_code(graph, entity) for name in code.members}
        found += [prop for prop in asked_properties(graph, entity, asked)
                  if graph.nodes[prop]["name"].rsplit(".", 1)[-1] in configured]
    return [named_node(graph, prop, "words") for prop in dict.fromkeys(found)]


def length_holders(graph: nx.MultiDiGraph, prop: str, text_of: Callable[[list[str]], dict[str, str]]) -> list[Related]:
    """Where the length of `prop` is written besides the property: the mapping code configuring
    it, the validators of requests about its entity whose rules limit a property of that name's
    length (by name, so a guess), and the tables its entity maps to."""
    entity = str(graph.nodes[prop].get("parent"))
    name = graph.nodes[prop]["name"].rsplit(".", 1)[-1]
    items: list[Related] = [code for code in configuring_code(graph, entity) if name in code.members
                            and graph.nodes[code.id].get("kind") == "METHOD"]
    items += _validators(graph, entity, name, prop, text_of)
    items += [Related(table, STORED_IN, prop, "inferred") for table in _tables(graph, entity)]
    return items


def _validators(graph: nx.MultiDiGraph, entity: str, name: str, prop: str,
                text_of: Callable[[list[str]], dict[str, str]]) -> list[Related]:
    """Validator classes of a request type named after the entity (`CreateTodoItemCommand` for
    `TodoItem`) whose rules select `name` (`RuleFor(v => v.Title)`) and limit a length."""
    short = graph.nodes[entity].get("name", "").rsplit(".", 1)[-1].lower()
    candidates = {}
    for node, data in graph.nodes(data=True):
        validated = _VALIDATOR.search(data.get("signature") or "") if data.get("kind") == "TYPE" else None
        if validated and short in validated.group(1).lower():
            candidates[node] = [m for _, m, k in graph.out_edges(node, keys=True)
                                if k == "DEFINES" and graph.nodes[m].get("kind") == "METHOD"]
    texts = text_of(sorted(m for methods in candidates.values() for m in methods))
    # the length limit in the same rule chain as the property it selects, not in another's
    rule = re.compile(rf"RuleFor\(\s*(\w+)\s*=>\s*\1\.{re.escape(name)}\s*\)[^;]*?(?:{_LENGTH_RULE.pattern})")
    return [Related(node, VALIDATES, prop, "by_name", via="validator") for node, methods in sorted(candidates.items())
            if any(rule.search(texts.get(m, "")) for m in methods)]


def _tables(graph: nx.MultiDiGraph, entity: str) -> list[str]:
    return sorted(t for _, t, k in graph.out_edges(entity, keys=True)
                  if k == "MAPS_TO" and graph.nodes[t].get("kind") in TABLE_KINDS)
