"""What lives once per process (the controller: its backend, loaded indexes and models) and
where the workbench finds its settings."""
from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from ragstream.config import load_settings
from ragstream.ui import BUILD_DEFAULT_ENV, CONFIG_ENV, DEFAULT_BUILD_ENV


@st.cache_resource(show_spinner=False)
def _controller(config: str | None):
    from ragstream.controller import Controller  # on first use: the page config and spinner are drawn first

    return Controller(load_settings(config))


def controller():
    """The process's controller for the configured settings; raises the loader's error."""
    return _controller(config_file())


def config_file() -> str | None:
    return os.environ.get(CONFIG_ENV) or None


def build_default_wanted() -> bool:
    return os.environ.get(BUILD_DEFAULT_ENV) == "1"


@st.cache_resource(show_spinner=False)
def refresh_default_index_once(config: str | None) -> bool:
    """Start building (or updating) the bundled default index, or follow the build the launcher
    started, once per process; the build runs in the background and the builds panel draws it."""
    pid, _, events = os.environ.get(DEFAULT_BUILD_ENV, "").partition(":")
    started = (int(pid), Path(events)) if pid.isdigit() and events else None
    return controller().refresh_default_index(started) is not None
