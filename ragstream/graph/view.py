"""The neighbourhood as self-contained pyvis HTML: every script inline, nothing fetched."""
from __future__ import annotations

import re

import networkx as nx

from ragstream.super_prompt import SuperPrompt

KIND_COLOURS = {"MODULE": "#8da0cb", "FILE": "#b3b3b3", "CLASS": "#66c2a5", "TYPE": "#66c2a5",
                "FUNCTION": "#fc8d62", "METHOD": "#e78ac3", "TABLE": "#a6d854", "VIEW": "#ffd92f",
                "PROCEDURE": "#e5c494", "COLUMN": "#d9d9d9", "NAMESPACE": "#cccccc"}
EDGE_COLOURS = {"CALLS": "#e41a1c", "IMPORTS": "#377eb8", "INHERITS": "#4daf4a", "IMPLEMENTS": "#4daf4a",
                "DEFINES": "#999999", "REFERENCES": "#984ea3", "FOREIGN_KEY": "#ff7f00", "READS": "#a65628",
                "WRITES": "#f781bf", "MAPS_TO": "#17becf"}
LANGUAGE_BORDERS = {"python": "#1f4e79", "sql": "#7f6000", "csharp": "#5b2c6f", "text": "#555555"}
# Any script or stylesheet loaded from elsewhere (CDN or a relative node_modules path).
_EXTERNAL = re.compile(r"<script\b[^>]*\bsrc=[^>]*>\s*</script>|<link\b[^>]*\bhref=[^>]*>", re.I)


def graph_html(graph: nx.MultiDiGraph, sp: SuperPrompt, height: str = "640px") -> str:
    """HTML of the state's neighbourhood: seeds large, kind as fill, language as border, edges
    coloured and labelled by type; nodes whose text reached the context are boxes, the others
    (cut by the budget, or without text) dashed dots."""
    from pyvis.network import Network

    net = Network(height=height, width="100%", directed=True, cdn_resources="in_line")
    seeds = set(sp.graph_seed_nodes)
    in_context = {t["id"] for t in sp.node_texts}
    depth = sp.graph_debug.get("depth", {})
    for node in sp.graph_expanded_nodes:
        data = graph.nodes[node]
        status = "in context" if node in in_context else "cut by the budget or without text"
        net.add_node(
            node, label=data.get("name", node).rsplit(".", 1)[-1],
            title=(f"{node}\n{data.get('path', '')}:{data.get('start_line', '')}-{data.get('end_line', '')}\n"
                   f"{data.get('signature', '')}\n{'seed' if node in seeds else 'depth ' + str(depth.get(node))}"
                   f"; {status}"),
            color={"background": KIND_COLOURS.get(data.get("kind"), "#dddddd"),
                   "border": LANGUAGE_BORDERS.get(data.get("language"), "#333333")},
            size=28 if node in seeds else 16, borderWidth=4 if node in seeds else 2,
            shape="box" if node in in_context else "dot",
            shapeProperties={"borderDashes": node not in in_context},
        )
    for edge in sp.graph_edges:
        net.add_edge(edge["from_id"], edge["to_id"], label=edge["edge_type"], title=edge["edge_type"],
                     color=EDGE_COLOURS.get(edge["edge_type"], "#666666"))
    # pyvis' template still links bootstrap from a CDN and vis from node_modules in in_line
    # mode; the page works without them (vis-network is inline), and nothing may leave the machine.
    return _EXTERNAL.sub("", net.generate_html())
