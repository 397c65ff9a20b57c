"""Python: the `ast` parser (`parser`, with `syntax` helpers and per-file flow facts in `flow`)
and the whole-program call resolver over those facts (`calls`)."""
