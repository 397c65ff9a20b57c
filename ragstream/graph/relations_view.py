"""A graph answer as Markdown (for the prompt and the deterministic answer) and as plain data
(for the trace and the workbench)."""
from __future__ import annotations

from typing import Any

import networkx as nx

from ragstream.graph.relations import GraphAnswer, Path, Related, in_tests

_END = ("", "")  # in a tree of flow paths: where a path ends (another may go on from there)


def render_graph_answer(answer: GraphAnswer, graph: nx.MultiDiGraph) -> str:
    """Counts first, then every item with where it is and how its edge was made; the code of
    tests after the production code, in a group of its own."""
    subjects = _subjects(answer)
    if answer.shape == "flow":
        entries = ", ".join(f"`{_short(graph, e)}`" for e in dict.fromkeys(p.nodes[0] for p in answer.paths))
        lines = [f"**From the graph:** {len(answer.paths)} path(s) from {entries} down to the tables "
                 f"({len({p.nodes[-1] for p in answer.paths})} table(s)):"]
        lines += _path_tree(answer.paths, graph)
        if answer.carriers:  # the context members the accesses go through
            lines += ["", "The tables are reached through:"]
            lines += [f"- `{_short(graph, c.id)}` for `{_short(graph, c.subject)}`" for c in answer.carriers]
        if answer.changes:  # what the paths change on the entities they read or write
            lines += ["", "Changes made to the entities it reads or writes:"]
            lines += [f"- {_item_line(call, graph)} (from `{_short(graph, call.subject)}`)" for call in answer.changes]
        if answer.around:  # interceptors a save runs, handlers of the events raised, filters around the request
            lines += ["", "Around the save and the request (what they run, and the handlers of the events raised):"]
            lines += [f"- {_item_line(step, graph)} (from `{_short(graph, step.subject)}`)" for step in answer.around]
        if answer.calls:  # what the first path runs besides it, touching no table
            lines += ["", "On the way, the first path also calls:"]
            lines += [f"- {_item_line(call, graph)} (from `{_short(graph, call.subject)}`)" for call in answer.calls]
        if any(path.guess for path in answer.paths):
            lines += ["", "(An edge marked `by_name` or `guess` rests on a link made by name only.)"]
        return "\n".join(lines)
    tests = [i for i in answer.items if in_tests(graph, i.id)]
    direct = [i for i in answer.items if not i.indirect and i not in tests]
    indirect = [i for i in answer.items if i.indirect and i not in tests]
    asked = {"list": " / ".join(answer.relations), "mapping": "how it is stored"}.get(answer.shape, "what breaks")
    lines = [f"**From the graph** ({asked}) for {subjects or 'the code running SQL of its own'}: {len(direct)} direct"
             + (f", {len(indirect)} through one more hop" if indirect else "")
             + (f"; {len(tests)} in tests" if tests else "") + "."]
    for title, group in (("Direct", direct), ("Through one more hop", indirect), ("In tests", tests)):
        if group:
            lines.append(f"{title} ({len(group)}):")
            lines += [f"- {_item_line(item, graph)}" for item in group]
    if not answer.items:
        lines.append("The graph holds no such relation (nothing hidden by your filters is counted).")
    return "\n".join(lines)


def _subjects(answer: GraphAnswer) -> str:
    """The subjects, each name once: the overloads of a method as one, with their parameter types."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for subject in answer.subjects:
        written = subject.id.split(":", 1)[-1].rsplit("|", 1)[0]
        grouped.setdefault((subject.name, subject.kind), []).append(written[len(subject.name):])
    return ", ".join(
        f"`{name}` ({kind.lower()})" if len(signatures) == 1
        else f"`{name}` ({kind.lower()}, {len(signatures)} overloads: {', '.join(sig or '()' for sig in signatures)})"
        for (name, kind), signatures in grouped.items())


def graph_answer_data(answer: GraphAnswer, graph: nx.MultiDiGraph) -> dict[str, Any]:
    """The answer as JSON-ready data: shape, subjects, items and paths with their edges."""
    return {
        "shape": answer.shape,
        "subjects": [{"id": s.id, "kind": s.kind, "cue": s.cue, **({"table": s.table} if s.table else {})}
                     for s in answer.subjects],
        "relations": list(answer.relations),
        "items": [{"id": i.id, "relation": i.relation, "resolution": i.resolution, "indirect": i.indirect,
                   "guess": i.guess, "where": _where(graph, i.id), **({"via": i.via} if i.via else {})}
                  for i in answer.items],
        "paths": [{"nodes": list(p.nodes), "edges": list(p.edges), "guess": p.guess} for p in answer.paths],
        **{key: [{"id": c.id, "caller": c.subject, "resolution": c.resolution, "guess": c.guess,
                  "where": _where(graph, c.id)} for c in calls]
           for key, calls in (("calls", answer.calls), ("changes", answer.changes), ("around", answer.around))},
        "carriers": [{"id": c.id, "table": c.subject, "where": _where(graph, c.id)} for c in answer.carriers],
        "node_ids": answer.node_ids(graph),
        "markdown": render_graph_answer(answer, graph),
    }


def neighbourhood_data(graph: nx.MultiDiGraph, node: str) -> dict[str, Any]:
    """A node (kind, name, where, language) and every edge in and out of it, each with how it was
    made (resolution, via, guess, line): its neighbourhood as JSON-ready data."""
    data = graph.nodes[node]

    def edge(source: str, target: str, edge_type: str, attrs: dict[str, Any]) -> dict[str, Any]:
        return {"from_id": source, "to_id": target, "edge_type": edge_type,
                "resolution": attrs.get("resolution", "static"), "guess": bool(attrs.get("guess")),
                **{key: attrs[key] for key in ("via", "line") if attrs.get(key) is not None}}

    return {"id": node, "kind": data.get("kind"), "name": data.get("name"), "language": data.get("language"),
            "where": _where(graph, node),
            "out": [edge(node, t, k, d) for _, t, k, d in sorted(graph.out_edges(node, keys=True, data=True),
                                                              key=lambda e: (e[1], e[2]))],
            "in": [edge(s, node, k, d) for s, _, k, d in sorted(graph.in_edges(node, keys=True, data=True),
                                                             key=lambda e: (e[0], e[2]))]}


def _item_line(item: Related, graph: nx.MultiDiGraph) -> str:
    where = _where(graph, item.id)
    how = "" if item.resolution in ("static", "inferred", "text", "external") else f", {item.resolution}"
    guess = "" if not item.guess else " — a guess (linked by name only)" if item.resolution == "by_name" \
        else " — a guess (see how the edge was made)"
    return (f"`{item.id}` {item.relation.lower().replace('_', ' ')}{how} — "
            f"{f'`{where}`' if where else 'not defined in the repository'}{guess}")


def _path_tree(paths: list[Path], graph: nx.MultiDiGraph) -> list[str]:
    """The paths as nested list lines: steps several paths share are written once, and each line
    below goes on from the last step of the line above it. Branches keep the paths' order."""
    tree: dict = {}
    for path in paths:
        level = tree
        for step in [("", path.nodes[0]), *zip(path.edges, path.nodes[1:])]:
            level = level.setdefault(step, {})
        level[_END] = {}
    lines: list[str] = []

    def write(level: dict, depth: int) -> None:
        for step, below in level.items():
            if step == _END:
                continue
            chain = [step]
            while len(below) == 1 and _END not in below:  # one way on: the same line
                (step, below), = below.items()
                chain.append(step)
            lines.append(f"{'  ' * depth}- " + " ".join(
                f"—{edge}→ `{_short(graph, node)}`" if edge else f"`{_short(graph, node)}`" for edge, node in chain))
            write(below, depth + 1)

    write(tree, 0)
    return lines


def _short(graph: nx.MultiDiGraph, node: str) -> str:
    """The node's name; an overload's with its parameter types (`Create(Job,IState)`), so a path
    through two overloads of one method reads as two steps."""
    if node not in graph:
        return node
    name = graph.nodes[node].get("name", node)
    written = node.split(":", 1)[-1].rsplit("|", 1)[0]
    return written if written.startswith(name + "(") else name


def _where(graph: nx.MultiDiGraph, node: str) -> str:
    """`path:start-end`, or "" for what is not defined in the repository (a library's function,
    a table no script creates)."""
    data = graph.nodes[node] if node in graph else {}
    if not data.get("path"):
        return ""
    return f"{data['path']}:{data.get('start_line', 0)}-{data.get('end_line', 0)}"
