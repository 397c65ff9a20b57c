"""The Python call graph: per-file flow facts solved together (`program`, `solver`,
`value_tables`), then drawn into the index graph (`link`)."""
