"""Chunk tables whose rows click through to their node in the graph panel."""
from __future__ import annotations

from typing import Any

import streamlit as st

FOCUS = "focus_node"  # session key of the node the graph panel centres on


def chunk_table(rows: list[dict[str, Any]], key: str) -> None:
    """A table with an `id` column; selecting a row makes its node the graph panel's focus."""
    if not rows:
        st.caption("no rows")
        return
    event = st.dataframe(rows, hide_index=True, width="stretch", on_select="rerun",
                         selection_mode="single-row", key=key)
    selected = [rows[i]["id"].split("#p")[0] for i in event.selection.rows]
    # Only a new selection moves the focus: an old one must not undo a choice made since.
    if selected and st.session_state.get(f"{key}:last") != selected[0]:
        st.session_state[FOCUS] = selected[0]
    st.session_state[f"{key}:last"] = selected[0] if selected else None
