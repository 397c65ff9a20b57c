"""Chunk tables whose rows click through to their node in the graph panel. An id is never cut:
each row reads by its short unique name, kind and `path:lines`, and the full id sits in the last
column, as wide as the longest id (scroll to it, or copy the cell); every other text column
(status, why, reason) is as wide as its longest value."""
from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st

from ragstream.index.model import node_of
from ragstream.graph.labels import kind_of, short_labels

FOCUS = "focus_node"  # session key of the node the graph panel centres on
CHAR_PX = 8  # a monospace-ish width per character of an id, with room to spare
CELL_PADDING_PX = 32


def id_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with `name` and `kind` first and the full `id` last (the other columns between)."""
    labels = short_labels(r["id"] for r in rows)
    return [{"name": labels[r["id"]], "kind": kind_of(r["id"]),
             **{k: v for k, v in r.items() if k not in ("id", "kind")}, "id": r["id"]} for r in rows]


def id_columns(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Column settings that never cut a name or an id: each as wide as its longest value."""
    def width(column: str) -> int:
        return CELL_PADDING_PX + CHAR_PX * max(len(str(r.get(column) or "")) for r in rows)

    name_help = "short unique name; the full id is the last column"
    config: dict[str, Any] = {"name": st.column_config.TextColumn("name", width=width("name"), pinned=True,
                                                                   help=name_help),
                              "id": st.column_config.TextColumn("id", width=width("id"), help="the full chunk id")}
    # every other text column (path:lines, status, why, reason) as wide as its longest value too
    texts = {k for r in rows for k, v in r.items() if isinstance(v, str)} - set(config)
    config |= {column: st.column_config.TextColumn(column, width=width(column)) for column in sorted(texts)}
    return config


def chunk_table(rows: list[dict[str, Any]], key: str) -> None:
    """A table with an `id` column; selecting a row makes its node the graph panel's focus."""
    if not rows:
        st.caption("no rows")
        return
    shown = id_rows(rows)
    st.dataframe(shown, hide_index=True, width="stretch", column_config=id_columns(shown),
                 on_select=partial(_focus_selected, shown, key), selection_mode="single-row", key=key)


def _focus_selected(rows: list[dict[str, Any]], key: str) -> None:
    """Runs when the selection changes, before the rerun the click starts: the graph drawn in
    that run (even one drawn above the table) already centres on the node. Clearing a
    selection leaves the focus where it is."""
    selected = st.session_state[key]["selection"]["rows"]
    if selected:
        st.session_state[FOCUS] = node_of(rows[selected[0]]["id"])
