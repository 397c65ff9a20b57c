"""The ranked node ids a pipeline run stands for, as the gold-symbol scorer reads them.

Order: what the answer cites (`extras["answer"]["citations"]`: the graph's answer to a list,
impact or flow question, then the quoted evidence), then the rest of the final context (the
blocks whose texts went into the prompt: `final_selection_ids`, in priority order), then the
remaining retrieval hits (in rank order). Chunk ids become node ids (a part `#pN` of a long
node is that node); each node is named once, where it first appears.
"""
from __future__ import annotations

from ragstream.index.model import node_of
from ragstream.super_prompt import SuperPrompt


def ranked_nodes(sp: SuperPrompt) -> list[str]:
    """Cited nodes, then the other context nodes, then the other retrieval hits, de-duplicated."""
    cited = sp.extras.get("answer", {}).get("citations", [])
    hits = [hit["id"] for hit in sp.retrieval_hits]
    return list(dict.fromkeys(node_of(i) for i in [*cited, *sp.final_selection_ids, *hits]))
