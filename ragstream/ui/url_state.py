"""What a person chose lives in the page's URL, so a reload (or a shared link) opens the same
workbench: mode, index, pipeline, security filters and (chat.py) the conversation.

On a session's first run the URL's values become the widgets' starting values; every run then
writes the current choices back. Restored filters fill the sidebar's filter boxes, where they
are seen and can be changed like typed ones.
"""
from __future__ import annotations

import streamlit as st

RESTORED = "url:restored"
FILTER_PREFIX = "filter."  # filter.acl_tags_any=a,b
# query parameter -> widget key
WIDGETS = {"mode": "mode", "index": "index_choice", "pipeline": "pipeline_choice"}


def restore(filter_keys: tuple[str, ...]) -> None:
    """Once per browser session: seed the widgets from the URL (before they are drawn)."""
    if st.session_state.get(RESTORED):
        return
    st.session_state[RESTORED] = True
    params = st.query_params
    for param, widget in WIDGETS.items():
        if param in params and widget not in st.session_state:
            st.session_state[widget] = params[param]
    for key in filter_keys:
        if FILTER_PREFIX + key in params:
            st.session_state.setdefault(f"filter:{key}", params[FILTER_PREFIX + key])


def save(filter_keys: tuple[str, ...]) -> None:
    """Write the current choices into the URL (unchanged values are not rewritten)."""
    params = st.query_params
    for param, widget in WIDGETS.items():
        _put(params, param, st.session_state.get(widget))
    for key in filter_keys:
        _put(params, FILTER_PREFIX + key, (st.session_state.get(f"filter:{key}") or "").strip() or None)


def _put(params, name: str, value: str | None) -> None:
    if value is None:
        if name in params:
            del params[name]
    elif params.get(name) != value:
        params[name] = value
