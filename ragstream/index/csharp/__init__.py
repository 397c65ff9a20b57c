"""C#: the tree-sitter parser and the call resolver over the whole repository.

Modules, one job each: `parser` (a file's nodes and references), `syntax` (tree helpers),
`declarations` (namespaces, types, usings), `docs` (headers and doc comments), `properties`
(PROPERTY nodes), `methods` (METHOD nodes), `variables` and `calls` (call targets), `strings`,
`argument_values` (what a type's calls pass its string parameters), `inline_sql` and
`sql_builder` (SQL in string values), `table_refs` (table references), `ef`,
`ef_graph` and `ef_migrations` (Entity Framework), `file_names` (SQL files named in code),
`preprocessor` (one branch of each `#if`), `entry_points` (HTTP actions and their verbs),
`object_mapping` (AutoMapper / Mapster); across files: `call_resolution` (calls through receiver
types), `data_access` (tables reached through type arguments), `messages` (requests and events
to their handlers), `type_bindings` (SQL names composed from a type parameter).
"""
