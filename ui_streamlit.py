"""The ragstream workbench (`ragstream ui`): lays out the panels of `ragstream/ui/`.

Panels call the controller and draw the state. The controller (backend, indexes, models) is
built once per process; everything a person chooses or runs lives in their own session.
"""
from __future__ import annotations

import streamlit as st

# The page's frame and a spinner go to the browser before the panels and the controller load.
st.set_page_config(page_title="ragstream workbench", page_icon=":material/account_tree:", layout="wide")
# Button labels wrap instead of being cut ("7 Build pro…" at 1280 px).
st.markdown("<style>.block-container{padding-top:2.2rem;padding-bottom:1rem}"
            "[data-testid=stSidebarContent]{font-size:0.92rem}"
            ".stButton button{padding:0.25rem 0.3rem;gap:0.15rem;min-height:2.4rem}"
            ".stButton button p{white-space:normal;overflow:visible;text-overflow:clip;line-height:1.15;"
            "font-size:0.86rem;word-break:normal;overflow-wrap:normal}"
            "</style>", unsafe_allow_html=True)

from ragstream.ui import resources  # noqa: E402 - after the page config, on purpose
from ragstream.ui.common import show_error  # noqa: E402

try:
    with st.spinner("Starting: settings, history store and language-model client…"):
        from ragstream.ui import builds, chat, manual, sidebar, url_state

        controller = resources.controller()
except Exception as exc:  # noqa: BLE001 - a settings or loader error, shown in place
    show_error(exc)
    st.stop()
if resources.build_default_wanted():
    try:
        resources.refresh_default_index_once(resources.config_file())
    except Exception as exc:  # noqa: BLE001 - the workbench still opens on the indexes there are
        show_error(exc)

url_state.restore(sidebar.FILTER_KEYS)  # a reload opens what the URL says: mode, index, pipeline, filters
with st.sidebar:
    choices = sidebar.render(controller)

if st.session_state.get("mode") not in ("Manual", "Auto"):
    st.session_state["mode"] = "Manual"
mode = st.segmented_control("mode", ["Manual", "Auto"], required=True, key="mode", label_visibility="collapsed")
url_state.save(sidebar.FILTER_KEYS)
# Always drawn, empty once an index exists: the panels below keep their places when the first
# build ends, so a question typed meanwhile is not lost to a remounted text box.
first_build = st.container()
if choices.scope is None:
    with first_build:
        builds.render(controller)  # the first index being built (the default one), live
if mode == "Manual":
    manual.render(controller, choices)
else:
    chat.render(controller, choices)
