"""SQL names a generic base class composes from its type parameter, bound by each subclass.

A generic Dapper repository runs `$"[{Schema}].[{Table}_Create]"` with `Table` defaulting to
`typeof(T).Name`; the parser propagates the constants and leaves the type parameter as `{T}`
(`dbo.{T}_Create`). Which procedure runs depends on the subclass: `CipherRepository :
Repository<Cipher, Guid>` binds `T` to `Cipher`, so `dbo.Cipher_Create`. Each subclass in the
repository whose generic base binds the parameter gives one candidate name; the method reaches
every candidate the repository defines: one found is `inferred`, several are each a guess
listing the others (`candidates`), since one method of the base runs them all, one per subclass.
"""
from __future__ import annotations

import re

import networkx as nx

from ragstream.index.symbols import SymbolTable

_PARAMETER = re.compile(r"\{(\w+)\}")


def bound_names(graph: nx.MultiDiGraph, symbols: SymbolTable, method: str, template: str) -> list[tuple[str, str]]:
    """(name, subclass TYPE id) for each subclass of `method`'s declaring type that binds every
    `{T}` of `template`."""
    declaring = graph.nodes[method].get("parent") if method in graph else None
    node = symbols.nodes.get(declaring or "")
    parameters = node.attrs.get("type_parameters", []) if node is not None else []
    if node is None or not parameters:
        return []
    short = node.name.rsplit(".", 1)[-1]
    found = []
    for subclass, _, key in sorted(graph.in_edges(node.id, keys=True)):
        if key != "INHERITS" or subclass not in symbols.nodes:
            continue
        arguments = next((base["arguments"] for base in symbols.nodes[subclass].attrs.get("generic_bases", ())
                          if base["name"].rsplit(".", 1)[-1] == short), None)
        if arguments is None or len(arguments) != len(parameters):
            continue
        binding = {name: _type_name(symbols, guesses) for name, guesses in zip(parameters, arguments)}
        name = _bind(template, binding)
        if "{" not in name:
            found.append((name, subclass))
    return found


def _bind(template: str, binding: dict[str, str]) -> str:
    """`dbo.{T}_Create` with T bound; a parameter the binding lacks stays as written."""
    return _PARAMETER.sub(lambda match: binding.get(match.group(1), match.group(0)), template)


def _type_name(symbols: SymbolTable, guesses: list[str]) -> str:
    """The simple name of the type argument: the repository's type, else as written."""
    node = symbols.first("csharp", guesses, ("TYPE",))
    return (node.name if node is not None else guesses[-1]).rsplit(".", 1)[-1]
