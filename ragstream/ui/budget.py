"""The budget panel: tokens per prompt block against each limit, and what every chunk cost and
whether it was kept, condensed, dropped or cut (and why)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from ragstream.super_prompt import SuperPrompt
from ragstream.ui.tables import id_columns, id_rows

if TYPE_CHECKING:  # imported where a chart is drawn: the first paint does not need it
    import pandas as pd

BLOCKS = ("system", "prompt", "context", "attachments", "history")


def render(sp: SuperPrompt, key: str) -> None:
    prompt, context, texts = (sp.budget.get(name, {}) for name in ("prompt", "context", "node_texts"))
    if not (prompt or context or texts):
        st.caption("No budget yet: expand fetches node texts into a budget, condense fits the context, "
                   "build prompt counts every block.")
        return
    prompt_total = prompt.get("total")
    st.markdown(f"**prompt** {prompt_total if prompt_total is not None else '—'} tokens in all")
    for name, used, limit in _cards(context, texts):
        _gauge(name, used, limit, texts.get("unit", "tokens") if name == "node texts" else "tokens")
    frame = _block_rows(prompt, context, texts)
    st.vega_lite_chart(frame, _chart(len(frame)), width="stretch")
    st.caption("Bars: tokens a block uses (red: over its limit). Black tick: the block's limit. "
               "Gauges: used / limit.")
    rows = id_rows(_chunk_rows(sp))
    st.markdown(f"**Per chunk** ({len(rows)})")
    st.dataframe(rows, hide_index=True, width="stretch", key=f"{key}:chunks",
                 column_config=id_columns(rows) if rows else None)


def _cards(context: dict[str, Any], texts: dict[str, Any]) -> list[tuple[str, int, int]]:
    """(name, used, limit) of each budget measured so far."""
    cards = [("node texts", texts["used"], texts["budget"])] if texts else []
    if context:
        cards += [("context", context["tokens"], context["limit"]),
                  ("history", context["history_tokens"], context["history_limit"])]
    return cards


def _gauge(name: str, used: int, limit: int, unit: str) -> None:
    """One budget as a bar with its figures written out in full (never cut to fit a card)."""
    share = used / limit if limit else 0.0
    over = " — **over the limit**" if limit and used > limit else ""
    st.progress(min(share, 1.0), text=f"**{name}**: {used} / {limit} {unit} ({share:.0%}){over}")


def _block_rows(prompt: dict[str, Any], context: dict[str, Any], texts: dict[str, Any]) -> pd.DataFrame:
    """Tokens per block with its limit; before build prompt, what condense and expand measured."""
    import pandas as pd

    if prompt:
        rows = [(name, prompt["blocks"].get(name, 0), prompt["limits"].get(name)) for name in BLOCKS]
    else:
        rows = []
        if texts:
            rows.append(("node texts", texts["used"], texts["budget"]))
        if context:
            rows += [("context", context["tokens"], context["limit"]),
                     ("history", context["history_tokens"], context["history_limit"])]
    return pd.DataFrame(rows, columns=["block", "tokens", "limit"])


def _chart(blocks: int) -> dict[str, Any]:
    """Vega-Lite: a bar of tokens per block (red over its limit) and a tick at its limit. A spec
    written out, not built with altair: importing altair cost the first answer half a second."""
    block = {"field": "block", "type": "nominal", "sort": None, "title": None}
    tokens = {"field": "tokens", "type": "quantitative", "title": "tokens"}
    limit = {"field": "limit", "type": "quantitative"}
    over = "datum.limit > 0 && datum.tokens > datum.limit"
    # padding keeps the longest block name ("attachments") and the last tick label whole
    return {"height": 34 * max(blocks, 1) + 30, "padding": {"left": 16, "top": 5, "right": 16, "bottom": 5}, "layer": [
        {"mark": {"type": "bar", "height": 16},
         "encoding": {"y": block, "x": tokens, "color": {"condition": {"test": over, "value": "#d62728"},
                                                         "value": "#4c78a8"},
                      "tooltip": [block, tokens, limit]}},
        {"transform": [{"filter": "datum.limit > 0"}], "mark": {"type": "tick", "color": "#333", "thickness": 2,
                                                               "size": 24},
         "encoding": {"y": block, "x": limit, "tooltip": [block, limit]}},
    ]}


def _chunk_rows(sp: SuperPrompt) -> list[dict[str, Any]]:
    context = sp.budget.get("context", {})
    texts = sp.budget.get("node_texts", {})
    reasons = {c["id"]: c["reason"] for c in context.get("cuts", [])}
    after = context.get("per_block", {})
    rows = []
    for item in sp.node_texts:
        node = item["id"]
        if node in reasons:
            status, why = reasons[node].split(":", 1)[0], reasons[node]
        else:
            status, why = ("in the prompt" if node in after else "fetched"), ""
        if item.get("parts"):  # too long whole: the parts the search hit went in
            why = "; ".join(filter(None, [why, f"in part: {', '.join(item['parts'])} ({item['where']})"]))
        rows.append({"id": node, "tokens fetched": item["tokens"], "tokens in prompt": after.get(node),
                     "status": status, "why": why})
    rows += [{"id": c["id"], "tokens fetched": None, "tokens in prompt": None, "status": "cut by the budget",
              "why": f"costs {c['cost']} {texts['unit']}: over the node-text budget"} for c in texts.get("cut", [])]
    rows += [{"id": node, "tokens fetched": None, "tokens in prompt": None, "status": "no text",
              "why": "the backend returned no text"} for node in texts.get("without_text", [])]
    rows += [{"id": c["id"], "tokens fetched": None, "tokens in prompt": None, "status": "dropped", "why": c["reason"]}
             for c in context.get("cuts", []) if c["id"].startswith("history turn")]
    return rows
