"""One panel per stage, showing exactly what the stage wrote into the state."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from ragstream.excerpt import quoted
from ragstream.super_prompt import SuperPrompt
from ragstream.graph.labels import short_labels
from ragstream.ui import changes
from ragstream.ui.tables import chunk_table, id_columns, id_rows

if TYPE_CHECKING:  # the controller module loads with the controller, not with the page
    from ragstream.controller import Controller

Panel = Callable[["Controller", SuperPrompt, str], None]


def normalize(controller: Controller, sp: SuperPrompt, key: str) -> None:
    info = sp.extras.get("normalize", {})
    left, right = st.columns(2)
    with left:
        st.markdown("**Parsed body**")
        st.dataframe([{"field": k, "value": v} for k, v in sp.body.items()], hide_index=True, width="stretch")
    with right:
        st.markdown("**Understanding**")
        st.markdown(f"intent **{sp.intent}** · domain **{sp.domain}**  \n"
                    f"concepts: {', '.join(f'`{c}`' for c in sp.concepts) or '—'}  \n"
                    f"synonyms: {', '.join(f'`{s}`' for s in sp.synonyms) or '—'}  \n"
                    f"translation: {info.get('translation', '—')}")
        if info.get("headers"):
            st.markdown("**Headers (mapping ladder)**")
            st.dataframe(info["headers"], hide_index=True, width="stretch")
        if info.get("unknown_headers"):
            st.caption(f"unknown headers (kept in extras): {info['unknown_headers']}")


def route(controller: Controller, sp: SuperPrompt, key: str) -> None:
    info = sp.extras.get("route", {})
    st.markdown(f"plan: mode **{sp.retrieval_mode}** · rerank **{sp.rerank}** · "
                f"query `{sp.retrieval_query or '—'}`")
    st.markdown("raw prefix line")
    st.code(info.get("line", ""), language=None)
    st.caption("why: " + "; ".join(info.get("reasons", [])))


def retrieve(controller: Controller, sp: SuperPrompt, key: str) -> None:
    attempts = sp.extras.get("retrieve", {}).get("attempts", [])
    if attempts:
        st.dataframe([{"attempt": a["attempt"], "mode": a["mode"], "pieces": " | ".join(a["pieces"]),
                       "domain searches": ", ".join(a["domain_searches"]), "hits": a["hits"],
                       "tests demoted": a["tests_demoted"], "exception types scaled": len(a["symptoms_scaled"]),
                       "from change history": len(a["from_change_history"]),
                       "problems": "; ".join(a["problems"]) or "none"} for a in attempts],
                     hide_index=True, width="stretch")
    where = controller.locations(sp, [h["id"] for h in sp.retrieval_hits])
    rows = [{"rank": h["rank"], "score": round(h["score"], 4), "path:lines": where.get(h["id"], ""),
             "sources": ", ".join(f"{s} #{r}" for s, r in h["sources"].items()), "id": h["id"]}
            for h in sp.retrieval_hits]
    seeds = len(sp.views_by_stage.get("retrieve", []))
    st.markdown(f"**{len(rows)} hits**, the first {seeds} the seeds rerank starts from "
                "(select a row to find it in the graph)")
    chunk_table(rows, key=f"{key}:retrieve")


def rerank(controller: Controller, sp: SuperPrompt, key: str) -> None:
    gate = sp.extras.get("gate", {})
    before = {h["id"]: h["rank"] for h in reversed(sp.retrieval_hits)}  # a repeated id: its best rank
    kept = sp.views_by_stage.get("rerank", [])
    where = controller.locations(sp, kept)
    rows = [{"rank": rank, "was": before.get(cid), "move": _movement(before.get(cid), rank),
             "score": gate.get("scores", {}).get(cid), "path:lines": where.get(cid, ""), "id": cid}
            for rank, cid in enumerate(kept, start=1)]
    st.markdown(f"**{len(rows)} kept** (rank movement against the search's ranks)")
    chunk_table(rows, key=f"{key}:rerank")
    dropped = gate.get("dropped", [])
    st.markdown(f"**{len(dropped)} not kept** (the gate's reasons, or past the seeds)")
    if dropped:
        chunk_table([{"reason": d["reason"], "id": d["id"]} for d in dropped], key=f"{key}:gate")


def expand(controller: Controller, sp: SuperPrompt, key: str) -> None:
    relations = sp.extras.get("relations", {})
    if relations.get("answer"):  # the relate step's answer from the graph, as the prompt gets it
        st.markdown(relations["answer"]["markdown"])
    elif relations.get("named"):
        st.markdown("named in the question: " + ", ".join(f"`{n['id']}`" for n in relations["named"]))
    debug = sp.graph_debug
    edge_types: dict[str, int] = {}
    for edge in sp.graph_edges:
        edge_types[edge["edge_type"]] = edge_types.get(edge["edge_type"], 0) + 1
    st.markdown(f"**{len(sp.graph_seed_nodes)} seeds → {len(sp.graph_expanded_nodes)} nodes**, "
                f"{len(sp.graph_edges)} edges ({', '.join(f'{t} {n}' for t, n in sorted(edge_types.items())) or 'none'})"
                f" · stopped because: {debug.get('reason', '—')}")
    accounting = sp.budget.get("node_texts")
    if accounting:
        st.markdown(f"node texts: **{len(sp.node_texts)}** fetched, {accounting['used']} of "
                    f"{accounting['budget']} {accounting['unit']} used, {len(accounting['cut'])} cut by the budget, "
                    f"{len(accounting.get('partial', []))} in part, {len(accounting['without_text'])} without text")
    where = controller.locations(sp, [item["id"] for item in sp.node_texts])
    if any(item.get("declaration") for item in sp.node_texts):  # no chunk of their own: the graph says where
        graph = controller.graph(sp)
        where |= {item["id"]: _declared_at(graph.nodes[item["id"]]) for item in sp.node_texts
                  if item.get("declaration") and item["id"] in graph}
    parents = short_labels([item["parent_id"] for item in sp.node_texts if item["parent_id"]])
    rows = [{"depth": item["depth"], "seed": item["is_seed"], "parent": parents.get(item["parent_id"], ""),
             "tokens": item["tokens"], "path:lines": item.get("where") or where.get(item["id"], ""),
             "id": item["id"]}
            for item in sp.node_texts]
    chunk_table(rows, key=f"{key}:texts")


def _declared_at(data: dict) -> str:
    return f"{data.get('path', '?')}:{data.get('start_line', '?')}-{data.get('end_line', '?')}"


def condense(controller: Controller, sp: SuperPrompt, key: str) -> None:
    context = sp.budget.get("context", {})
    st.markdown(f"`S_CTX_MD`: **{context.get('tokens', 0)}** of {context.get('limit', '?')} tokens · "
                f"{len(sp.final_selection_ids)} blocks selected · history turns kept "
                f"{context.get('history_turns_kept', 0)}")
    before, after = st.columns(2)
    with before:
        st.markdown("**What it replaced** (node texts as fetched)")
        # the id as a label (a heading made every id huge), the text as quoted: numbered, gaps marked
        fetched = "\n\n".join(f"**`{item['id']}`**\n```\n{quoted(item['text'], item.get('lines'))}\n```"
                                for item in sp.node_texts)
        st.container(height=420).markdown(fetched or "—")
    with after:
        st.markdown("**`S_CTX_MD`**")
        st.container(height=420).markdown(sp.S_CTX_MD or "—")
    st.caption("conversation: " + _history_line(sp.extras.get("history", {})))
    cuts = context.get("cuts", [])
    if cuts:
        st.markdown(f"**{len(cuts)} cut**")
        rows = id_rows(cuts)
        st.dataframe(rows, hide_index=True, width="stretch", column_config=id_columns(rows))


def build_prompt(controller: Controller, sp: SuperPrompt, key: str) -> None:
    prompt = sp.budget.get("prompt", {})
    st.markdown(f"**prompt_ready**: {prompt.get('total', 0)} tokens · "
                + " · ".join(f"{name} {tokens}" for name, tokens in prompt.get("blocks", {}).items()))
    st.download_button("Download prompt (.md)", sp.prompt_ready, file_name="prompt.md", mime="text/markdown",
                       key=f"{key}:download", icon=":material/download:")
    st.caption("The copy button is at the top right of the prompt.")
    st.code(sp.prompt_ready, language="markdown", height=420)


def follow_ups(sp: SuperPrompt) -> None:
    """What the answering model asked for before it answered, and what the loop decided."""
    loop = sp.extras.get("loop", {})
    for n, request in enumerate(loop.get("requests", []), start=1):
        st.caption(f"follow-up {n}: the model asked for data on “{request}”")
    if loop:
        st.caption(loop.get("decision", ""))


def answer(controller: Controller, sp: SuperPrompt, key: str) -> None:
    persist = sp.extras.get("persist", {})
    follow_ups(sp)
    if persist:
        st.caption(f"saved as turn {persist['turn_id']} of conversation {persist['session']}" if persist.get("turn_id")
                   else persist.get("note", ""))
    st.markdown(sp.answer or "—")
    if sp.answer:
        changes.notice(controller, sp)


PANELS: dict[str, Panel] = {"normalize": normalize, "route": route, "retrieve": retrieve, "rerank": rerank,
                            "expand": expand, "condense": condense, "build_prompt": build_prompt, "answer": answer}


def _history_line(history: dict) -> str:
    if "note" in history:
        return history["note"]
    summary = history.get("summary")
    return (f"{len(history.get('raw_turns', []))} recent turn(s) as written"
            + (f", summary v{summary['version']} up to turn {summary['last_turn_id']}" if summary else "")
            + (f" ({len(history['folded_turns'])} folded into it now)" if history.get("folded_turns") else "")
            + f"; {history.get('tokens', 0)} of {history.get('limit', '?')} tokens")


def _movement(was: int | None, now: int) -> str:
    if was is None:
        return "new"
    return "=" if was == now else f"▲{was - now}" if was > now else f"▼{now - was}"


def render(controller: Controller, sp: SuperPrompt, stage: str, key: str) -> None:
    PANELS[stage](controller, sp, key)
