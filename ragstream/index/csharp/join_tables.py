"""The join table of a many-to-many navigation: what `post.Tags.Add(tag)` writes when saved.

Where the model says a collection property is one side of a many-to-many relation, adding to or
removing from it writes a row of the join table (`data_access` adds the WRITES). Found from
the `members` the mapping code records on its REFERENCES to the entity (`ef_configured`):
- the table the mapping names: FluentNHibernate's `HasManyToMany(x => x.Roles).Table("UserRoles")`,
  EF Core's `UsingEntity("PostTags", ...)` or `UsingEntity(j => j.ToTable("PostTags"))`
  (`how="mapping"`);
- the tables of an explicit join entity (`UsingEntity<PostTag>(...)`, `how="join_entity"`);
- EF Core's convention for a `HasMany(...).WithMany(...)` that names neither: the two entity
  names in order (`PostTag`, `CourseStudent`), when a table of that name exists
  (`how="by_convention"`, a guess).
A collection no mapping calls many-to-many has no join table here.
"""
from __future__ import annotations

import networkx as nx

from ragstream.index.symbols import SymbolTable


def join_tables(graph: nx.MultiDiGraph, symbols: SymbolTable, prop: str) -> list[tuple[str, str]]:
    """(table id, how) of the join table a navigation property stands for; empty for any other."""
    owner, name = str(graph.nodes[prop].get("parent")), graph.nodes[prop].get("name", "").rsplit(".", 1)[-1]
    if owner not in graph:
        return []
    found: list[tuple[str, str]] = []
    for _, _, key, data in graph.in_edges(owner, keys=True, data=True):
        said = (data.get("members") or {}).get(name) if key == "REFERENCES" else None
        if not said or not said.get("many_to_many"):
            continue
        if said.get("table"):
            found += [(table, "mapping") for table in _named_tables(symbols, str(said["table"]))]
        elif said.get("join_entity"):
            entity = symbols.short("csharp", str(said["join_entity"]).rsplit(".", 1)[-1], ("TYPE",))
            found += [(table, "join_entity") for node in entity[:1] for _, table, k in graph.out_edges(node.id, keys=True)
                      if k == "MAPS_TO" and graph.nodes[table].get("kind") in ("TABLE", "VIEW")]
        else:
            found += [(table, "by_convention") for table in _conventional(graph, symbols, owner, prop)]
    return sorted(set(found))


def _named_tables(symbols: SymbolTable, written: str) -> list[str]:
    """The TABLE nodes a name as written may be: `X` in any schema (`dbo.X`), `s.X` itself."""
    name = written.replace("[", "").replace("]", "")
    return [node.id for node in symbols.short("sql", name.rsplit(".", 1)[-1], ("TABLE",))
            if "." not in name or node.id == f"sql:{name}|TABLE"]


def _conventional(graph: nx.MultiDiGraph, symbols: SymbolTable, owner: str, prop: str) -> list[str]:
    """EF Core's join table for a skip navigation: the two entity types' names, in order."""
    generic = graph.nodes[prop].get("attrs", {}).get("generic") or {}
    held = symbols.first("csharp", (generic.get("entities") or [[]])[0], ("TYPE",))
    if held is None:
        return []
    names = sorted(graph.nodes[node]["name"].rsplit(".", 1)[-1] for node in (owner, held.id))
    return _named_tables(symbols, "".join(names))
