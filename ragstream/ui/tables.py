"""Chunk tables whose rows click through to their node in the graph panel."""
from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st

from ragstream.super_prompt import node_of

FOCUS = "focus_node"  # session key of the node the graph panel centres on


def chunk_table(rows: list[dict[str, Any]], key: str) -> None:
    """A table with an `id` column; selecting a row makes its node the graph panel's focus."""
    if not rows:
        st.caption("no rows")
        return
    st.dataframe(rows, hide_index=True, width="stretch", on_select=partial(_focus_selected, rows, key),
                 selection_mode="single-row", key=key)


def _focus_selected(rows: list[dict[str, Any]], key: str) -> None:
    """Runs when the selection changes, before the rerun the click starts: the graph drawn in
    that run (even one drawn above the table) already centres on the node. Clearing a
    selection leaves the focus where it is."""
    selected = st.session_state[key]["selection"]["rows"]
    if selected:
        st.session_state[FOCUS] = node_of(rows[selected[0]]["id"])
