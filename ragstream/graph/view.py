"""The neighbourhood as self-contained pyvis HTML: every script inline, nothing fetched.

Readable at a glance: short unique labels (`Class.method`, a file's basename; the full id on
hover), seeds drawn as gold-ringed stars-in-name, kinds as fill colours, edge types as colours
with their names on hover only, a legend above the picture, a fixed layout computed here (no
physics in the browser) fitted to the frame, and the path from its seed to a selected node
highlighted.
"""
from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import networkx as nx

from ragstream.super_prompt import SuperPrompt
from ragstream.graph.grouping import GROUP_FROM, Group, GroupedView, grouped, provenance
from ragstream.graph.guesses import is_guess
from ragstream.graph.labels import short_labels
from ragstream.index.graph_mark import graph_note_of

KIND_COLOURS = {"MODULE": "#8da0cb", "FILE": "#b3b3b3", "CLASS": "#66c2a5", "TYPE": "#66c2a5",
                "FUNCTION": "#fc8d62", "METHOD": "#e78ac3", "TABLE": "#a6d854", "VIEW": "#ffd92f",
                "PROCEDURE": "#e5c494", "COLUMN": "#d9d9d9", "NAMESPACE": "#cccccc"}
EDGE_COLOURS = {"CALLS": "#e41a1c", "IMPORTS": "#377eb8", "INHERITS": "#4daf4a", "IMPLEMENTS": "#4daf4a",
                "DEFINES": "#999999", "REFERENCES": "#984ea3", "FOREIGN_KEY": "#ff7f00", "READS": "#a65628",
                "WRITES": "#f781bf", "MAPS_TO": "#17becf"}
SEED_BORDER = "#d4a000"
PATH_COLOUR = "#1565c0"
OTHER_COLOUR = "#dddddd"
GROUP_TITLE_NAMES = 10  # members named in a group node's tooltip
# Any script or stylesheet loaded from elsewhere (CDN or a relative node_modules path).
_EXTERNAL = re.compile(r"<script\b[^>]*\bsrc=[^>]*>\s*</script>|<link\b[^>]*\bhref=[^>]*>", re.I)
# Positions are computed here, once per neighbourhood (the same nodes and edges give the same
# picture): a browser running a physics simulation on every redraw of the panel made each
# workbench click wait for the layout to settle.
_OPTIONS = {
    "physics": {"enabled": False},
    "edges": {"smooth": False, "arrows": {"to": {"enabled": True, "scaleFactor": 0.6}}, "width": 1.5},
    "nodes": {"font": {"size": 15, "face": "sans-serif"}},
    "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False},
}
# The frame as a column: the legend on top, the drawing in the rest of the height.
_FRAME = ("<style>html,body{height:100%;margin:0}body{display:flex;flex-direction:column}"
          ".card{flex:1 1 auto;min-height:0;border:none}#mynetwork{height:100%!important}</style>")
_SCRIPT = """<script>
(function () {
  var parents = %(parents)s, baseEdges = {}, baseNodes = {};
  window.ragstreamGroupOf = %(groups)s;  // a grouped node -> its group node: what focusing it selects
  function ready(f) { if (typeof network !== "undefined") { f(); } else { window.addEventListener("load", f); } }
  ready(function () {
    // fitted on the first draw, and again whenever the frame changes size (a tab shown, the
    // legend folded, full screen), with a margin so that no label is cut at an edge
    function fitted() { network.redraw(); network.fit(); network.moveTo({scale: network.getScale() * 0.92}); }
    fitted();
    new ResizeObserver(fitted).observe(document.getElementById("mynetwork"));
    network.body.data.edges.get().forEach(function (e) { baseEdges[e.id] = {color: e.color, width: e.width}; });
    network.on("selectNode", function (p) { highlight(p.nodes[0]); });
    network.on("deselectNode", function () { highlight(null); });
  });
  function highlight(node) {
    var onPath = {}, edges = network.body.data.edges, updates = [];
    for (var n = node; n; n = parents[n]) { onPath[n] = true; if (parents[n] === n) { break; } }
    edges.get().forEach(function (e) {
      var hit = node && onPath[e.from] && onPath[e.to] && (parents[e.to] === e.from || parents[e.from] === e.to);
      updates.push(hit ? {id: e.id, color: "%(path)s", width: 5} : {id: e.id, color: baseEdges[e.id].color,
                                                                   width: baseEdges[e.id].width});
    });
    edges.update(updates);
  }
  window.ragstreamHighlight = highlight;
})();
</script>"""


def graph_html(graph: nx.MultiDiGraph, sp: SuperPrompt, height: str = "640px") -> str:
    """HTML of the state's neighbourhood with its legend (see the module docstring); alike
    neighbours beyond a count are one group node (`graph/grouping.py`)."""
    from pyvis.network import Network

    net = Network(height=height, width="100%", directed=True, cdn_resources="in_line")
    net.templateEnv = _templates(net.template_dir)
    view = view_of(graph, sp)
    seeds = set(sp.graph_seed_nodes)
    in_context = {t["id"] for t in sp.node_texts}
    depth = sp.graph_debug.get("depth", {})
    labels = short_labels(sp.graph_expanded_nodes)
    for node in view.nodes:
        data = graph.nodes[node] if node in graph else {}
        status = "in context" if node in in_context else "cut by the budget or without text"
        seed = node in seeds
        role = "seed (search hit)" if seed else f"reached at depth {depth.get(node)}"
        fill = KIND_COLOURS.get(data.get("kind", ""), OTHER_COLOUR)
        net.add_node(
            node, label=("★ " if seed else "") + labels[node],
            title=(f"{node}\n{data.get('path', '')}:{data.get('start_line', '')}-{data.get('end_line', '')}\n"
                   f"{data.get('signature', '')}\n{role}; {status}"),
            color={"background": fill, "border": SEED_BORDER if seed else "#555555",
                   "highlight": {"background": fill, "border": PATH_COLOUR}},
            borderWidth=5 if seed else 1, size=26 if seed else 14,
            font={"size": 17 if seed else 14, "bold": seed},
            shape="box" if node in in_context else "dot",
            shapeProperties={"borderDashes": [] if node in in_context else [4, 3]},
        )
    for group in view.groups:
        fill = KIND_COLOURS.get(group.kind, OTHER_COLOUR)
        net.add_node(group.id, label=group.label, title=_group_title(group, labels), shape="box",
                     color={"background": fill, "border": SEED_BORDER if group.seeds else "#333333",
                            "highlight": {"background": fill, "border": PATH_COLOUR}},
                     borderWidth=3, font={"size": 15, "bold": True}, shapeProperties={"borderDashes": [8, 3]})
    for edge in view.edges:
        if edge.get("group"):
            guess, width = edge["guesses"] == edge["count"], 4.0 if edge["count"] > 1 else 1.5
            title = _group_edge_title(edge)
        else:
            guess, width = _guessed(graph, edge), 1.5
            title = f"{edge['edge_type']}{_how(graph, edge)}{' — a guess' if guess else ''}"
        net.add_edge(edge["from_id"], edge["to_id"], title=title, width=width,
                     color=EDGE_COLOURS.get(edge["edge_type"], "#666666"), dashes=guess)
    drawn = view.nodes + tuple(g.id for g in view.groups)
    for node, (x, y) in layout(drawn, view.edges).items():
        net.get_node(node).update(x=x, y=y)
    net.set_options(json.dumps(_OPTIONS))
    group_of = view.group_of()
    parents = {group_of.get(k, k): group_of.get(v, v) for k, v in sp.graph_debug.get("parent", {}).items()
               if v and k not in group_of}
    parents |= {g.id: g.anchor for g in view.groups}
    script = _SCRIPT % {"parents": json.dumps(parents).replace("</", "<\\/"), "path": PATH_COLOUR,
                        "groups": json.dumps(group_of).replace("</", "<\\/")}
    legend = legend_html(sp, graph, view)
    # pyvis' template still links bootstrap from a CDN and vis from node_modules in in_line
    # mode; the page works without them (vis-network is inline), and nothing may leave the machine.
    page = _EXTERNAL.sub("", net.generate_html())
    page = re.sub(r"<body[^>]*>", lambda body: f"{body[0]}{_FRAME}{legend}", page, count=1)
    return page.replace("</body>", f"{script}</body>", 1)


def view_of(graph: nx.MultiDiGraph, sp: SuperPrompt) -> GroupedView:
    """The state's neighbourhood as drawn: alike leaf neighbours grouped."""
    return grouped(graph, sp.graph_expanded_nodes, sp.graph_edges, sp.graph_seed_nodes)


def _how(graph: nx.MultiDiGraph, edge: dict) -> str:
    """How a drawn edge was found, when not plainly (static): " (by_name via ...)"."""
    source, target, key = edge["from_id"], edge["to_id"], edge["edge_type"]
    how = provenance(graph.edges[source, target, key] if graph.has_edge(source, target, key) else {})
    return "" if how == "static" else f" ({how})"


def _group_title(group: Group, labels: Mapping[str, str]) -> str:
    names = [m.name for m in group.members]
    more = len(names) - GROUP_TITLE_NAMES
    anchor = labels.get(group.anchor, group.anchor)
    relations = "; ".join(f"each {t} {anchor}" if out else f"{anchor} {t} each" for t, out in group.relations)
    return (f"{group.label}: {relations}\n" + ", ".join(names[:GROUP_TITLE_NAMES]) + (f", … (+{more})" if more > 0 else "")
            + "\nthe full list, with how each edge was found, is in the table under the drawing")


def _group_edge_title(edge: Mapping[str, Any]) -> str:
    """A grouped edge keeps its provenance: the count of each resolution and of guesses."""
    how = ", ".join(f"{r} ×{n}" for r, n in edge["resolutions"].items())
    guesses = edge["guesses"]
    said = f" — {guesses} a guess" if guesses == 1 else f" — {guesses} guesses" if guesses else ""
    return f"{edge['edge_type']} ×{edge['count']} ({how}){said}"


@functools.cache
def _templates(folder: str):
    """One jinja environment for pyvis' page template: each `Network` makes its own, and so
    compiles the template again for every drawing (tens of ms on a quiet machine, more while a
    build runs beside the page)."""
    from jinja2 import Environment, FileSystemLoader

    return Environment(loader=FileSystemLoader(folder))


def layout(nodes: Sequence[str], edges: Iterable[Mapping[str, Any]],
           spread: float = 110.0) -> dict[str, tuple[float, float]]:
    """Pixel positions of the drawn nodes: a seeded force-directed layout of the nodes and
    edges (deterministic), scaled so that nodes sit about `spread` px apart."""
    shape: nx.Graph = nx.Graph()
    shape.add_nodes_from(nodes)
    shape.add_edges_from((e["from_id"], e["to_id"]) for e in edges if e["from_id"] in shape and e["to_id"] in shape)
    if not shape:
        return {}
    scale = spread * max(1.0, len(shape) ** 0.5)
    positions = nx.spring_layout(shape, seed=7, scale=scale)
    return {node: (round(float(x), 1), round(float(y), 1)) for node, (x, y) in positions.items()}


def _guessed(graph: nx.MultiDiGraph, edge: dict) -> bool:
    """Whether the drawn edge is a guess in the graph (by its type, between its two ends)."""
    source, target, key = edge["from_id"], edge["to_id"], edge["edge_type"]
    return any(graph.has_edge(u, v, key) and is_guess(graph.edges[u, v, key])
               for u, v in ((source, target), (target, source)))


def legend_html(sp: SuperPrompt, graph: nx.MultiDiGraph, view: GroupedView) -> str:
    """A small legend above the drawing (never over a node): seed vs reached, the kinds and edge
    types present, what a box, a dashed dot and a blue path mean; first, while the graph walked
    was the interim one, its note (`graph_mark`), which a saved page keeps."""
    kinds = sorted({graph.nodes[n].get("kind", "") for n in sp.graph_expanded_nodes if n in graph})
    edges = sorted({e["edge_type"] for e in sp.graph_edges})

    def swatch(colour: str, text: str, round_: bool = True) -> str:
        shape = "border-radius:50%;" if round_ else ""
        return (f'<span style="display:inline-block;width:11px;height:11px;{shape}background:{colour};'
                f'margin:0 4px 0 8px;vertical-align:middle"></span>{html.escape(text)}')

    rows = [
        f'<span style="border:3px solid {SEED_BORDER};padding:0 4px">★ seed</span> search hit '
        '&nbsp; <span style="border:1px solid #555;padding:0 4px">reached</span> through the graph',
        "box: text in the context · dashed dot: cut by the budget or no text · "
        f'<span style="color:{PATH_COLOUR};font-weight:bold">blue</span>: path from the seed to the selected node',
        "kinds:" + "".join(swatch(KIND_COLOURS.get(k, OTHER_COLOUR), k.lower()) for k in kinds),
        "edges:" + "".join(swatch(EDGE_COLOURS.get(e, "#666666"), e, round_=False) for e in edges)
        + " &nbsp;(hover an edge for its type and how it was found)",
    ]
    if note := graph_note_of(sp):  # drawn from an interim graph: an edit's calls not linked yet
        rows.insert(0, f'<b style="color:#b45309">{html.escape(note)}</b>')
    if view.groups:
        rows.append("dashed box with a count: alike neighbours grouped (over "
                    f"{GROUP_FROM} of one kind, one relation); each is listed in the table under the drawing")
    if any(_guessed(graph, e) for e in sp.graph_edges):
        rows.append("dashed edge: a guess (linked by name only, or inferred from a convention; "
                    "pipeline setting graph_guesses: hide leaves them out)")
    return ('<details open class="ragstream-legend" style="flex:none;margin:0 0 4px;'
            'background:#fff;border:1px solid #ccc;border-radius:4px;padding:2px 8px;'
            'font:12px sans-serif;line-height:1.7"><summary style="cursor:pointer">legend</summary>'
            + "<br>".join(rows) + "</details>")
