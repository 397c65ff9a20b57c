"""The mark of a generation whose graph is not linked yet, kept in the manifest and in the graph's
own attributes, and the note every reader of the graph gives while it is there -- search and the
answer's warnings, the index list and `index --status`, the graph page, the MCP tools. Two kinds:
the interim graph of an edit (`graph_interim`: the files changed since the graph was linked), and
the unlinked graph a build without a previous index publishes its keyword index with
(`graph_build.unlinked_graph`: nothing resolved across files yet). (Light: read by every front end.)"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragstream.super_prompt import SuperPrompt

GRAPH_UPDATE = "graph_update"  # the key of the mark, in a manifest and in a graph's attributes
NAMED_FILES = 3  # files named in a note; the rest are counted
# the key of the note in a state's `graph_debug`: the expand step's, of the very graph it walked, so
# that what is drawn or returned from the state says so even once the linked graph is live
STATE_NOTE = "graph_note"


def graph_update(changed: list[str]) -> dict:
    """The manifest's mark of an interim graph: the files changed since the graph was linked."""
    return {"files": changed}


def graph_unlinked() -> dict:
    """The manifest's mark of an unlinked graph: no file changed since a link, none made yet."""
    return {"files": [], "unlinked": True}


def graph_marks(manifest: Mapping) -> dict:
    """The mark of a manifest, alone (empty when its graph is linked): what an index list keeps."""
    return {GRAPH_UPDATE: manifest[GRAPH_UPDATE]} if manifest.get(GRAPH_UPDATE) else {}


def graph_note(marks: Mapping, filtered: bool = False) -> str | None:
    """What a reader of the graph is told while it is the interim one (`marks`: a manifest, or
    the graph's own attributes, which carry the same mark); None when it is linked. Under
    retrieval filters (`filtered`) no file is named or counted: the changed ones may be hidden."""
    update = marks.get(GRAPH_UPDATE)
    if not update:
        return None
    if update.get("unlinked"):
        return ("graph: linking, the keyword index is ready: its definitions are in, but calls, "
                "inheritance and references are not until the build publishes the linked graph (in seconds)")
    files = update["files"]
    if filtered:
        changed = "files changed since it was linked"
    else:
        named = ", ".join(files[:NAMED_FILES]) + (f" and {len(files) - NAMED_FILES} more"
                                                  if len(files) > NAMED_FILES else "")
        changed = f"{len(files)} file(s) changed since it was linked ({named})"
    return (f"graph: updating, {changed}: their definitions are current, but calls and references into "
            "and out of them are the previous build's until the re-index publishes the linked graph")


def graph_note_of(sp: SuperPrompt) -> str | None:
    """The note of the graph the state's expand step walked, while that was the interim one:
    what the state's drawing, export and tool results say, whatever graph is live by then."""
    return sp.graph_debug.get(STATE_NOTE)
