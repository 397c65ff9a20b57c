"""The graph panel: the offline pyvis neighbourhood of a state, with its node list beside it.

Seeds are large, kind is the fill, language the border; nodes whose text reached the context
are boxes, the others (cut by the budget, or without text) dashed dots. The focused node (a row
selected in any chunk table or in the node list) is selected and centred in the drawing.
"""
from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import streamlit as st

from ragstream.super_prompt import SuperPrompt
from ragstream.ui.common import kind_of
from ragstream.ui.tables import FOCUS, chunk_table

if TYPE_CHECKING:  # the controller module loads with the controller, not with the page
    from ragstream.controller import Controller

HEIGHT = 520
_FOCUS_SCRIPT = """<script>
(function () {
  var id = %s;
  function focusNode() {
    if (typeof network === "undefined" || !network.body.data.nodes.get(id)) { return; }
    network.selectNodes([id]);
    network.focus(id, {scale: 1.1, animation: false});
  }
  window.addEventListener("load", function () { focusNode(); network.once("stabilized", focusNode); });
})();
</script></body>"""


@st.cache_data(max_entries=32, show_spinner=False)
def _html(key: str, _controller: Controller, _sp: SuperPrompt) -> str:
    return _controller.graph_html(_sp, height=f"{HEIGHT - 20}px")


def _state_key(controller: Controller, sp: SuperPrompt) -> str:
    """What the drawing depends on: the index as built now (its generation), seen through the
    filters, and the state's nodes and edges themselves."""
    edges = hashlib.sha256(json.dumps(sp.graph_edges, sort_keys=True).encode()).hexdigest()
    return json.dumps([sp.repository, sp.branch, sp.active_index, controller.index_generation(sp),
                       sp.retrieval_filters, sp.graph_expanded_nodes, sp.graph_seed_nodes,
                       [t["id"] for t in sp.node_texts], edges], sort_keys=True)


def render(controller: Controller, sp: SuperPrompt, key: str) -> None:
    if not sp.graph_expanded_nodes:
        st.caption("No graph yet: the expand stage draws the neighbourhood of the search hits.")
        return
    focus = st.session_state.get(FOCUS)
    html = _html(_state_key(controller, sp), controller, sp)
    if focus in sp.graph_expanded_nodes:
        html = html.replace("</body>", _FOCUS_SCRIPT % json.dumps(focus).replace("</", "<\\/"), 1)
    drawing, listing = st.columns([2, 1])
    with drawing:
        st.iframe(html, height=HEIGHT, alt="dependency graph around the question")
    with listing:
        _node_list(sp, key)
        _focus_details(sp, focus)


def _node_list(sp: SuperPrompt, key: str) -> None:
    in_context = {t["id"]: t["tokens"] for t in sp.node_texts}
    selected = set(sp.final_selection_ids)
    cut = {c["id"] for c in sp.budget.get("node_texts", {}).get("cut", [])}
    depth = sp.graph_debug.get("depth", {})
    rows = []
    for node in sp.graph_expanded_nodes:
        status = ("in the prompt" if node in selected else "in the context" if node in in_context
                  else "cut by the budget" if node in cut else "no text")
        rows.append({"name": node.split("|")[0].rsplit(".", 1)[-1], "kind": kind_of(node), "depth": depth.get(node),
                     "role": "seed" if node in sp.graph_seed_nodes else "expanded", "status": status,
                     "tokens": in_context.get(node), "id": node})
    st.markdown(f"**{len(rows)} nodes** · {len(sp.graph_edges)} edges (select a row to focus it)")
    chunk_table(rows, key=f"{key}:nodes")


def _focus_details(sp: SuperPrompt, focus: str | None) -> None:
    if not focus:
        return
    if focus not in sp.graph_expanded_nodes:
        st.caption(f"`{focus}` is not in this graph (it was dropped before expand).")
        return
    parent = sp.graph_debug.get("parent", {}).get(focus)
    st.markdown(f"**focus** `{focus}`  \n" + (f"reached from `{parent}`" if parent else "a search hit (seed)"))
    text = next((t["text"] for t in sp.node_texts if t["id"] == focus), None)
    if text:
        st.code(text, language=None, height=200)
