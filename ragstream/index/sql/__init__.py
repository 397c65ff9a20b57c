"""SQL (sqlglot; T-SQL, PostgreSQL, generic): `parser` per file, with statement splitting
(`split`), tables and columns (`tables`), routines (`routines`), reads and writes (`access`),
references (`refs`), SQLCMD template schemas (`templates`) and the schema as renames and drops
leave it across files (`schema_evolution`)."""
