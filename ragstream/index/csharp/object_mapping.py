"""Object mapping between types (AutoMapper, Mapster): which types a method maps, and into what.

A profile's `CreateMap<Core.Cipher, Ef.Cipher>()` connects a domain model to a persistence model
or a DTO, and `_mapper.Map<OrderDto>(order)` / `query.ProjectTo<OrderDto>(config)` /
`order.Adapt<OrderDto>()` turn one into the other; none of it is a call the graph would follow.
Each becomes REFERENCES from the method to the types it names (attrs `via="object_mapping"`,
`mapping`: the method written), and a `CreateMap<A, B>` also REFERENCES from `A` to `B` (attrs
`mapped_by`: the method), so a question about either type reaches the other and the profile.

The member expressions chained onto a `CreateMap<A, B>` / `CreateProjection<A, B>` are uses of
the properties they name: `.ForMember(d => d.CategoryName, o => o.MapFrom(s => s.Category.CategoryName))`
REFERENCES `B.CategoryName` (`side="destination"`) and `A.Category` (`side="source"`,
`member_paths` [["Category", "CategoryName"]]: `mapping_members` follows them through the
properties' types once the graph is built); `ForPath`, `ForSourceMember` likewise. Renaming a
property then finds the mappings that read or fill it.
"""
from __future__ import annotations

import tree_sitter

from ragstream.index.csharp.calls import TypeScope
from ragstream.index.csharp.syntax import (
    LANGUAGE, call_arguments, called_name, callee_of, descendants, fluent_chain, lambda_parameter, line_of, node_text,
    type_arguments, type_name,
)
from ragstream.index.model import Reference, node_id

# AutoMapper's and Mapster's generic mapping calls: (source, destination) or (destination).
MAPS_BETWEEN = frozenset({"CreateMap", "CreateProjection", "NewConfig", "ForType"})
MAPS_INTO = frozenset({"Map", "ProjectTo", "Adapt", "ProjectToType"})
# Member configurations chained onto a map: the first lambda names a member of the destination
# (of the source for `ForSourceMember`); `MapFrom(s => ...)` inside the options reads the source.
MEMBER_OPTIONS = frozenset({"ForMember", "ForPath", "ForSourceMember"})


def mapping_references(method: tree_sitter.Node, source: str, scope: TypeScope) -> list[Reference]:
    """REFERENCES from the method to each type its mapping calls name, and between mapped types."""
    found: list[Reference] = []
    members: dict[tuple[str, str, str], tuple[int, str, list[list[str]]]] = {}  # across the method's maps
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
            _member_paths_of(node, written[0], written[1], members)
    return found + _member_references(source, members, scope)


def _member_paths_of(create_map: tree_sitter.Node, mapped_from: str, mapped_to: str,
                     grouped: dict[tuple[str, str, str], tuple[int, str, list[list[str]]]]) -> None:
    """The member paths the map's member options name (see above), added to `grouped` by
    (side, type, first member): one edge per property for the whole method, whichever of its maps
    named it first, with every longer path through it (two maps through one navigation)."""
    for option in fluent_chain(create_map):
        called = called_name(option)
        if called not in MEMBER_OPTIONS:
            continue
        arguments = option.child_by_field_name("arguments")
        values = [value for _, value in call_arguments(arguments)] if arguments else []
        named_side = ("source", mapped_from) if called == "ForSourceMember" else ("destination", mapped_to)
        paths = [(named_side, path) for path in _member_paths(values[0])] if values else []
        for value in values[1:]:  # `o => o.MapFrom(s => s.Nav.Y)`
            paths += [(("source", mapped_from), path) for call in descendants(value)
                      if call.type == "invocation_expression" and called_name(call) == "MapFrom"
                      for argument in _arguments(call) for path in _member_paths(argument)]
        for (side, written), path in paths:
            grouped.setdefault((side, written, path[0]), (line_of(option), str(called), []))[2].append(path)


def _member_references(source: str, grouped: dict[tuple[str, str, str], tuple[int, str, list[list[str]]]],
                       scope: TypeScope) -> list[Reference]:
    """REFERENCES from the method to each property its maps' member options name, with the
    longer paths through it (`member_paths`)."""
    found: list[Reference] = []
    for (side, written, member), (line, called, paths_of) in grouped.items():
        longer = [path for path in paths_of if len(path) > 1]
        found.append(Reference(
            source=source, edge_type="REFERENCES", target=f"{written}.{member}", target_language=LANGUAGE,
            candidates=tuple(f"{guess}.{member}" for guess in scope.type_guesses(written)),
            target_kinds=("PROPERTY",), external=False, line=line,
            attrs={"via": "object_mapping", "mapping": called, "side": side,
                   **({"member_paths": longer} if longer else {})}))
    return found


def _arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    arguments = call.child_by_field_name("arguments")
    return [value for _, value in call_arguments(arguments)] if arguments else []


def _member_paths(value: tree_sitter.Node) -> list[list[str]]:
    """The member paths a lambda reads from its parameter: `s => s.Supplier != null ?
    s.Supplier.CompanyName : ""` -> [["Supplier"], ["Supplier", "CompanyName"]] (each once, the
    longest chain of each access)."""
    parameter = lambda_parameter(value)
    if parameter is None:
        return []
    found: dict[tuple[str, ...], None] = {}
    for node in descendants(value.child_by_field_name("body")):
        if node.type != "member_access_expression" or _continued(node) or _called(node):
            continue
        path: list[str] = []
        root: tree_sitter.Node | None = node
        while root is not None and root.type == "member_access_expression":
            path.insert(0, node_text(root.child_by_field_name("name")))
            root = root.child_by_field_name("expression")
        if root is not None and root.type == "identifier" and node_text(root) == parameter:
            found[tuple(path)] = None
    return [list(path) for path in found]


def _continued(access: tree_sitter.Node) -> bool:
    """The access goes on to a member (`s.Supplier` in `s.Supplier.CompanyName`), not to a call
    (`s.Name` in `s.Name.Trim()` is the longest member read)."""
    parent = access.parent
    return parent is not None and parent.type == "member_access_expression" \
        and parent.child_by_field_name("expression") == access and not _called(parent)


def _called(access: tree_sitter.Node) -> bool:
    """`x.M` is the function of a call `x.M()`: a method, no property."""
    parent = access.parent
    return parent is not None and parent.type == "invocation_expression" and parent.child_by_field_name("function") == access


def _reference(source: str, written: str, scope: TypeScope, line: int, attrs: dict) -> Reference:
    return Reference(source=source, edge_type="REFERENCES", target=written, target_language=LANGUAGE,
                     candidates=scope.type_guesses(written), target_kinds=("TYPE",), by_name=True,
                     external=False, line=line, attrs={"via": "object_mapping", **attrs})
