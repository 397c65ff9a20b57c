"""Inline SQL in C# whose names are built at run time: a schema interpolated into a name."""
from __future__ import annotations

from ragstream.index.parsers.csharp import parse_csharp

SOURCE = '''namespace N { class Store { void Write(IDbConnection c, string schema, int id) {
  c.Execute($@"insert into [{schema}].Job (A) values ({id})");
  c.Execute($"select * from {schema}.[State] where Id = {id}");
} } }'''


def test_an_interpolated_schema_leaves_the_table_name_unqualified():
    parsed = parse_csharp("Store.cs", SOURCE)
    [method] = [n for n in parsed.nodes if n.kind == "METHOD"]
    assert method.attrs["inline_sql"] == ["insert into Job (A) values (@p0)", "select * from [State] where Id = @p0"]
    tables = {(r.edge_type, r.target) for r in parsed.references if r.target_language == "sql"}
    assert tables == {("WRITES", "Job"), ("READS", "State")}
    # the hole that is a value stays a parameter: no table is named after it
    assert not any("@p" in r.target or "schema" in r.target for r in parsed.references)
