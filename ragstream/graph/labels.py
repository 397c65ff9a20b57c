"""Short, unique names for node and chunk ids, for tables and the graph: `Class.method`, a
file's basename, `dbo.Invoice`; qualified further only where two would read the same. The
full id always goes beside them (a column, a tooltip)."""
from __future__ import annotations

from collections.abc import Iterable

from ragstream.index.model import PART_MARK


def kind_of(chunk_id: str) -> str:
    """The node kind a readable id ends with: `py:pkg.mod.f|FUNCTION#p2` -> FUNCTION."""
    return chunk_id.rsplit("|", 1)[-1].split(PART_MARK, 1)[0] if "|" in chunk_id else ""


def _parts(chunk_id: str) -> list[str]:
    """The name's pieces, outermost first: a file's path segments, else its dotted name."""
    name = chunk_id.split(":", 1)[-1].split("|", 1)[0]
    return [p for p in name.split("/") if p] if kind_of(chunk_id) == "FILE" or "/" in name else name.split(".")


def _label(chunk_id: str, depth: int) -> str:
    parts = _parts(chunk_id)
    is_path = kind_of(chunk_id) == "FILE" or "/" in chunk_id.split("|", 1)[0]
    # a method reads as Class.method and a table with its schema; a Python function in a
    # module reads as module.function only when it needs to
    base = 2 if kind_of(chunk_id) in ("METHOD", "PROPERTY", "COLUMN") and not is_path else 1
    taken = parts[-min(len(parts), base + depth):]
    part = chunk_id.split(PART_MARK, 1)[1] if PART_MARK in chunk_id else ""
    return ("/" if is_path else ".").join(taken) + (f" #p{part}" if part else "")


def short_labels(ids: Iterable[str]) -> dict[str, str]:
    """id -> the shortest label that no other id of `ids` shares."""
    ids = list(dict.fromkeys(ids))
    depth = {i: 0 for i in ids}
    labels = {i: _label(i, 0) for i in ids}
    for _ in range(12):  # each round qualifies the clashing labels by one more piece
        seen: dict[str, list[str]] = {}
        for i in ids:
            seen.setdefault(labels[i], []).append(i)
        clashes = [i for group in seen.values() if len(group) > 1 for i in group
                   if depth[i] + 1 <= len(_parts(i))]
        if not clashes:
            break
        for i in clashes:
            depth[i] += 1
            labels[i] = _label(i, depth[i])
    for group in _groups(labels).values():  # still equal (same name, other kind): say the kind
        if len(group) > 1:
            for i in group:
                labels[i] = f"{labels[i]} ({kind_of(i).lower()})"
    return labels


def _groups(labels: dict[str, str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for node, label in labels.items():
        grouped.setdefault(label, []).append(node)
    return grouped
