"""Beside an answer: which files of the index's source changed since it was made, and whether
the index already holds them (`Controller.changes_since`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from ragstream.super_prompt import SuperPrompt

if TYPE_CHECKING:
    from ragstream.controller import Controller

LISTED = 8  # changed files named beside an answer; the rest are counted


def notice(controller: Controller, sp: SuperPrompt) -> None:
    changes = controller.changes_since(sp)
    if changes.unknown:
        st.caption(f":material/help: Files changed since this answer: not known ({changes.unknown}).")
        return
    if not changes.count:
        st.caption(":material/check: No file of the index changed since this answer.")
        return
    shown, more = changes.listed(LISTED)
    lines = [f"- {kind} `{path}`" + ("" if held else " — *not in the index yet*") for kind, path, held in shown]
    if more:
        lines.append(f"- … and {more} more")
    state = ("The index has been refreshed to include them: asking again answers from them." if changes.refreshed
             else "The index does not hold every change yet (a refresh follows the edits when the workbench "
                  "follows file changes).")
    st.warning(f"**{changes.count} file(s) changed since this answer.** {state}\n\n" + "\n".join(lines),
               icon=":material/difference:")
