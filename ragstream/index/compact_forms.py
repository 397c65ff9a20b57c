"""The forms of a generation that a cold process reads instead of the whole index: the graph as
arrays read lazily (`compact_graph`), the chunks by row with their access columns
(`chunk_table`), and the symbols the mentions search looks up (`mention_table`). Written at build
time beside the files they stand for; an index built before them is read from those files."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import networkx as nx

from ragstream.index import compact_graph, mention_table
from ragstream.index.chunk_table import write_chunk_table
from ragstream.index.graph_text import GraphText
from ragstream.index.model import Chunk


def write_compact_forms(generation: Path, graph: nx.MultiDiGraph, chunks: Sequence[Chunk],
                        text: GraphText | None = None) -> None:
    """The compact forms of `graph` and `chunks`, into `generation` (its chunks.jsonl written
    already); `text`: the graph's texts when made already (`graph_text`)."""
    compact_graph.write_compact_graph(generation / compact_graph.FOLDER, graph, text)
    write_chunk_table(generation, chunks)
    mention_table.MentionTable.build(chunks).write(generation / mention_table.FOLDER)
