"""Object mapping between types (AutoMapper, Mapster): which types a method maps, and into what.

A profile's `CreateMap<Core.Cipher, Ef.Cipher>()` connects a domain model to a persistence model
or a DTO, and `_mapper.Map<OrderDto>(order)` / `query.ProjectTo<OrderDto>(config)` /
`order.Adapt<OrderDto>()` turn one into the other; none of it is a call the graph would follow.
Each becomes REFERENCES from the method to the types it names (attrs `via="object_mapping"`,
`mapping`: the method written), and a `CreateMap<A, B>` also REFERENCES from `A` to `B` (attrs
`mapped_by`: the method), so a question about either type reaches the other and the profile.
"""
from __future__ import annotations

import tree_sitter

from ragstream.index.csharp.calls import TypeScope
from ragstream.index.csharp.syntax import LANGUAGE, callee_of, descendants, line_of, type_arguments, type_name
from ragstream.index.model import Reference, node_id

# AutoMapper's and Mapster's generic mapping calls: (source, destination) or (destination).
MAPS_BETWEEN = frozenset({"CreateMap", "CreateProjection", "NewConfig", "ForType"})
MAPS_INTO = frozenset({"Map", "ProjectTo", "Adapt", "ProjectToType"})


def mapping_references(method: tree_sitter.Node, source: str, scope: TypeScope) -> list[Reference]:
    """REFERENCES from the method to each type its mapping calls name, and between mapped types."""
    found: list[Reference] = []
    for node in descendants(method):
        callee = callee_of(node)
        if callee is None or callee[1].type != "generic_name":
            continue
        name = type_name(callee[1]) or ""
        if name not in MAPS_BETWEEN and name not in MAPS_INTO:
            continue
        written = type_arguments(callee[1])
        line = line_of(node)
        found += [_reference(source, argument, scope, line, {"mapping": name}) for argument in written]
        if name in MAPS_BETWEEN and len(written) == 2:
            sources = [node_id(LANGUAGE, guess, "TYPE") for guess in scope.type_guesses(written[0])]
            found.append(_reference(sources[0], written[1], scope, line, {
                "mapping": name, "mapped_by": source, "source_candidates": sources, "source_in_repository": True}))
    return found


def _reference(source: str, written: str, scope: TypeScope, line: int, attrs: dict) -> Reference:
    return Reference(source=source, edge_type="REFERENCES", target=written, target_language=LANGUAGE,
                     candidates=scope.type_guesses(written), target_kinds=("TYPE",), by_name=True,
                     external=False, line=line, attrs={"via": "object_mapping", **attrs})
