"""The budget panel: tokens per prompt block against each limit, and what every chunk cost and
whether it was kept, condensed, dropped or cut (and why)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from ragstream.super_prompt import SuperPrompt
from ragstream.ui.tables import id_columns, id_rows

if TYPE_CHECKING:  # imported where a chart is drawn: the first paint needs neither
    import altair as alt
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
    st.altair_chart(_chart(_block_rows(prompt, context, texts)), width="stretch")
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


def _chart(frame: pd.DataFrame) -> alt.LayerChart:
    import altair as alt

    over = alt.condition((alt.datum.limit > 0) & (alt.datum.tokens > alt.datum.limit), alt.value("#d62728"),
                         alt.value("#4c78a8"))
    base = alt.Chart(frame).encode(y=alt.Y("block:N", sort=None, title=None))
    bars = base.mark_bar(height=16).encode(x=alt.X("tokens:Q", title="tokens"), color=over,
                                           tooltip=["block", "tokens", "limit"])
    limits = base.transform_filter(alt.datum.limit > 0).mark_tick(color="#333", thickness=2, size=24).encode(
        x="limit:Q", tooltip=["block", "limit"])
    return (bars + limits).properties(height=34 * max(len(frame), 1) + 30)


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
