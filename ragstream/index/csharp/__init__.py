"""C#: the tree-sitter parser and the call resolver over the whole repository.

Modules, one job each: `parser` (a file's nodes and references), `syntax` (tree helpers),
`declarations` (namespaces, types, usings), `docs` (headers and doc comments), `properties`
(PROPERTY nodes), `methods` (METHOD nodes), `variables` and `calls` (call targets), `strings`,
`inline_sql` and `sql_builder` (SQL in string values), `table_refs` (table references), `ef`,
`ef_graph` and `ef_migrations` (Entity Framework), `file_names` (SQL files named in code),
`preprocessor` (one branch of each `#if`), `call_resolution` (calls through receiver types,
across files).
"""
