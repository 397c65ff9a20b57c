"""The names an evaluation is asked for by, in a module of their own: the CLI builds its parser
(every command's, `index` included) from them without loading the evaluation's machinery."""

BASIC = ("bm25", "semantic", "hybrid", "hybrid+rerank", "hybrid+graph")  # the configurations that are one search
DEFAULT_PIPELINE = "base"  # what `ragstream ask` runs unless told otherwise
