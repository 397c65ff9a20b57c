"""`render_context_blocks`: node texts as the evidence the model reads, flat or as a tree.

Every block names its node id and file:line span, so an answer can cite exactly what it saw.
The tree shows how each graph node hangs off its seed (at most 3 levels of indentation) and by
which edge.
"""
from __future__ import annotations

from collections.abc import Mapping

import networkx as nx

from ragstream.excerpt import quoted
from ragstream.errors import PipelineError

LAYOUTS = ("tree", "flat")
MAX_LEVEL = 3
FENCE = {"python": "python", "sql": "sql", "csharp": "csharp"}


def render_context_blocks(node_texts: list[dict], graph: nx.MultiDiGraph,
                          parent: Mapping[str, str | None] | None = None, layout: str = "tree") -> str:
    """Markdown evidence blocks. `parent` (from the expansion) lets a node whose own parent was
    cut by the budget hang off its nearest ancestor that made it in."""
    if layout not in LAYOUTS:
        raise PipelineError(f"unknown layout {layout!r}; choose one of {LAYOUTS}", where="layout")
    if layout == "flat":
        return "\n\n".join(_block(item, graph, 0, "") for item in node_texts)
    included = {item["id"]: item for item in node_texts}
    parents = {**{i["id"]: i.get("parent_id") for i in node_texts}, **(parent or {})}
    children: dict[str | None, list[dict]] = {}
    for item in node_texts:
        children.setdefault(_anchor(item["id"], parents, included), []).append(item)
    lines: list[str] = []

    def emit(node_id: str | None, level: int) -> None:
        for item in children.get(node_id, []):
            relation = _relation(graph, node_id, item["id"]) if node_id else ""
            lines.append(_block(item, graph, min(level, MAX_LEVEL - 1), relation))
            emit(item["id"], level + 1)

    emit(None, 0)
    return "\n\n".join(lines)


def _anchor(node_id: str, parents: Mapping[str, str | None], included: Mapping[str, dict]) -> str | None:
    """The nearest ancestor with a text in the context (None: a root of the tree)."""
    seen = {node_id}
    current = parents.get(node_id)
    while current is not None and current not in included and current not in seen:
        seen.add(current)
        current = parents.get(current)
    return current if current in included and current != node_id else None


def _relation(graph: nx.MultiDiGraph, parent: str, child: str) -> str:
    out = sorted(k for _, v, k in graph.out_edges(parent, keys=True) if v == child)
    back = sorted(k for _, v, k in graph.out_edges(child, keys=True) if v == parent)
    parts = [f"{parent} {k} this" for k in out] + [f"this {k} {parent}" for k in back]
    return "; ".join(parts)


def _block(item: dict, graph: nx.MultiDiGraph, level: int, relation: str) -> str:
    data = graph.nodes[item["id"]] if item["id"] in graph else {}
    where = item.get("where") or f"{data.get('path', '?')}:{data.get('start_line', '?')}-{data.get('end_line', '?')}"
    role = "seed" if item.get("is_seed") else f"depth {item.get('depth', '?')}"
    role += ", the parts the search found" if item.get("parts") else ", its declaration" if item.get("declaration") else ""
    via = f"; {relation}" if relation else ""
    indent = "  " * level
    body = quoted(item["text"], item.get("lines"), indent)  # each line with its number, gaps marked
    fence = FENCE.get(data.get("language", ""), "")
    return (f"{indent}- **{item['id']}** — `{where}` ({role}, {item.get('tokens', '?')} tokens{via})\n"
            f"{indent}```{fence}\n{body}\n{indent}```")
