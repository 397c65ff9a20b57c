"""The graph panel: the offline pyvis neighbourhood of a state, as wide as its panel (or the
whole page, full screen), with its legend, the relations that matter in words, and the node
list below it.

Seeds are gold-ringed and starred, kind is the fill; nodes whose text reached the context are
boxes, the others (cut by the budget, or without text) dashed dots. The focused node (a row
selected in any chunk table or in the node list) is selected, centred and its path from its
seed highlighted in the drawing.
"""
from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import streamlit as st

from ragstream.excerpt import quoted
from ragstream.graph.labels import short_labels
from ragstream.super_prompt import SuperPrompt
from ragstream.ui.tables import FOCUS, chunk_table

if TYPE_CHECKING:  # the controller module loads with the controller, not with the page
    from ragstream.controller import Controller

HEIGHT = 620
FULL_HEIGHT = 900
ALT = "dependency graph around the question"
# Relations worth reading in words: what reads and writes data, calls, maps and inherits.
WORDED = ("WRITES", "READS", "CALLS", "MAPS_TO", "FOREIGN_KEY", "INHERITS", "IMPLEMENTS", "REFERENCES")
MAX_WORDED = 12  # per edge type
_FOCUS_SCRIPT = """<script>
(function () {
  var id = %s;
  function focusNode() {
    if (window.ragstreamGroupOf && window.ragstreamGroupOf[id]) { id = window.ragstreamGroupOf[id]; }
    if (typeof network === "undefined" || !network.body.data.nodes.get(id)) { return; }
    network.selectNodes([id]);
    if (window.ragstreamHighlight) { window.ragstreamHighlight(id); }
    network.focus(id, {scale: 1.0, animation: false});
  }
  window.addEventListener("load", function () { focusNode(); network.once("stabilized", focusNode); });
})();
</script></body>"""


@st.cache_data(max_entries=32, show_spinner=False)
def _html(key: str, height: int, _controller: Controller, _sp: SuperPrompt) -> str:
    return _controller.graph_html(_sp, height=f"{height - 20}px")


def _state_key(controller: Controller, sp: SuperPrompt) -> str:
    """What the drawing depends on: the index as built now (its generation), seen through the
    filters, and the state's nodes and edges themselves."""
    edges = hashlib.sha256(json.dumps(sp.graph_edges, sort_keys=True).encode()).hexdigest()
    return json.dumps([sp.repository, sp.branch, sp.active_index, controller.index_generation(sp),
                       sp.retrieval_filters, sp.graph_expanded_nodes, sp.graph_seed_nodes,
                       [t["id"] for t in sp.node_texts], edges], sort_keys=True)


def full_screen_key(key: str) -> str:
    return f"{key}:full"


def render(controller: Controller, sp: SuperPrompt, key: str) -> None:
    if not sp.graph_expanded_nodes:
        st.caption("No graph yet: the expand stage draws the neighbourhood of the search hits.")
        return
    full = st.toggle("Full screen", key=full_screen_key(key), help="the drawing over the whole page width and height")
    focus = st.session_state.get(FOCUS)
    html = _html(_state_key(controller, sp), FULL_HEIGHT if full else HEIGHT, controller, sp)
    if focus in sp.graph_expanded_nodes:
        html = html.replace("</body>", _FOCUS_SCRIPT % json.dumps(focus).replace("</", "<\\/"), 1)
    st.iframe(html, height=FULL_HEIGHT if full else HEIGHT, alt=ALT)
    st.caption("Drag to move, scroll to zoom, hover a node for its full id and an edge for its type; "
               "select a node (here or in any table) to highlight its path from the seed.")
    _grouped_table(controller, sp, key)
    words, listing = st.columns([2, 3]) if full else (st.container(), st.container())
    with words:
        relations_in_words(sp)
    with listing:
        _node_list(sp, key)
        _focus_details(sp, focus)


def _grouped_table(controller: Controller, sp: SuperPrompt, key: str) -> None:
    """Every neighbour a group node stands for: production code first, with how each edge was found."""
    view = controller.graph_view(sp)
    if not view.groups:
        return
    st.markdown("**grouped in the drawing**: " + " · ".join(f"{g.label}" for g in view.groups)
                + " (code first, then tests; select a row to focus its group)")
    chunk_table(view.rows(), key=f"{key}:grouped")


def relations_in_words(sp: SuperPrompt) -> None:
    """The edges that matter, one line each: `writes: Invoice_Create → dbo.Invoice`."""
    labels = short_labels(sp.graph_expanded_nodes)
    lines: dict[str, list[str]] = {}
    for edge in sp.graph_edges:
        if edge["edge_type"] in WORDED:
            lines.setdefault(edge["edge_type"], []).append(
                f"`{labels.get(edge['from_id'], edge['from_id'])}` → `{labels.get(edge['to_id'], edge['to_id'])}`")
    if not lines:
        return
    with st.expander("relations in words", expanded=True):
        for edge_type in WORDED:
            found = list(dict.fromkeys(lines.get(edge_type, [])))
            if found:
                more = f" (+{len(found) - MAX_WORDED} more)" if len(found) > MAX_WORDED else ""
                st.markdown(f"**{edge_type.lower().replace('_', ' ')}**: " + " · ".join(found[:MAX_WORDED]) + more)


def _node_list(sp: SuperPrompt, key: str) -> None:
    in_context = {t["id"]: t["tokens"] for t in sp.node_texts}
    selected = set(sp.final_selection_ids)
    cut = {c["id"] for c in sp.budget.get("node_texts", {}).get("cut", [])}
    depth = sp.graph_debug.get("depth", {})
    rows = []
    for node in sp.graph_expanded_nodes:
        status = ("in the prompt" if node in selected else "in the context" if node in in_context
                  else "cut by the budget" if node in cut else "no text")
        rows.append({"role": "seed" if node in sp.graph_seed_nodes else "reached", "depth": depth.get(node),
                     "status": status, "tokens": in_context.get(node), "id": node})
    st.markdown(f"**{len(rows)} nodes** · {len(sp.graph_edges)} edges (select a row to focus it)")
    chunk_table(rows, key=f"{key}:nodes")


def _focus_details(sp: SuperPrompt, focus: str | None) -> None:
    if not focus:
        return
    if focus not in sp.graph_expanded_nodes:
        st.caption(f"`{focus}` is not in this graph (it was dropped before expand).")
        return
    path, parent = [focus], sp.graph_debug.get("parent", {})
    while parent.get(path[-1]) and parent[path[-1]] not in path:
        path.append(parent[path[-1]])
    labels = short_labels(path)
    where = ("path from its seed: " + " → ".join(f"`{labels[n]}`" for n in reversed(path)) if len(path) > 1
             else "a search hit (seed)")
    st.markdown(f"**focus** `{focus}`  \n{where}")
    item = next((t for t in sp.node_texts if t["id"] == focus), None)
    if item:
        st.code(quoted(item["text"], item.get("lines")), language=None, height=200)
