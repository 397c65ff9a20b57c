"""What an evaluation writes: per-configuration summaries, the comparison table (Markdown and
rich), predictions in the format `shared/eval/score.py` reads, and recall@k curves as a PNG."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from rich.table import Table

from ragstream.errors import ConfigError
from ragstream.eval.metrics import (COLUMNS, RANKED_MAX, aggregate, dedup, first_ranks, norm_function, norm_path,
                                    recall_at)


def summarize(rows: Sequence[dict[str, Any]], configs: Sequence[str]) -> dict[str, dict[str, dict]]:
    """config -> group (each repository, micro, macro) -> mean metrics."""
    return {c: aggregate([(r["repo"], r["metrics"]) for r in rows if r["config"] == c])
            for c in configs if any(r["config"] == c for r in rows)}


def comparison_markdown(summary: dict[str, dict[str, dict]], title: str, command: str) -> str:
    """Micro and macro rows per configuration, then each configuration's per-repository rows."""
    out = [f"# {title}", "", f"Command: `{command}`", ""]
    for average in ("micro", "macro"):
        out += [f"## {average} average", "", _md_header("config"),
                *(_md_row(config, groups[average]) for config, groups in summary.items()), ""]
    for config, groups in summary.items():
        out += [f"## {config}: per repository", "", _md_header("repository"),
                *(_md_row(name, row) for name, row in groups.items()), ""]
    return "\n".join(out)


def comparison_table(summary: dict[str, dict[str, dict]], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for header in ("config", "avg", "n", *COLUMNS):
        table.add_column(header, min_width=len(header), no_wrap=True)
    for config, groups in summary.items():
        for average in ("micro", "macro"):
            row = groups[average]
            table.add_row(config, average, str(row["n"]), *(_fmt(row[c]) for c in COLUMNS))
    return table


def prediction_lines(rows: Sequence[dict[str, Any]]) -> bytes:
    """One `{"id", "config", "ranked_files", "ranked_functions"}` line per ranks row."""
    return b"".join(orjson.dumps({k: r[k] for k in ("id", "config", "ranked_files", "ranked_functions")}) + b"\n"
                    for r in rows)


def recall_curves(rows: Sequence[dict[str, Any]], gold: dict[str, tuple[list[str], list[str]]],
                  config: str, kind: str) -> list[float]:
    """Mean recall@k for k = 1..RANKED_MAX of `kind` (files | functions) over the config's
    questions (questions without gold functions are left out of the function curve)."""
    index = 0 if kind == "files" else 1
    norm = norm_path if kind == "files" else norm_function
    curves = []
    for row in rows:
        wanted = dedup(norm(g) for g in gold[row["id"]][index])
        if row["config"] != config or not wanted:
            continue
        ranks = first_ranks(wanted, [norm(x) for x in row[f"ranked_{kind}"]])
        curves.append([recall_at(ranks, k) for k in range(1, RANKED_MAX + 1)])
    return [sum(c[k] for c in curves) / len(curves) for k in range(RANKED_MAX)] if curves else []


def plot_recall(rows: Sequence[dict[str, Any]], gold: dict[str, tuple[list[str], list[str]]],
                configs: Sequence[str], path: Path, title: str) -> None:
    """File and function recall@k curves, one line per configuration."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, never a window
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ConfigError("the recall plot needs matplotlib", where="eval --out",
                          hint="pip install 'ragstream[eval]'") from exc
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ks = list(range(1, RANKED_MAX + 1))
    for axis, kind in zip(axes, ("files", "functions")):
        for config in configs:
            curve = recall_curves(rows, gold, config, kind)
            if curve:
                axis.plot(ks, curve, label=config)
        axis.set(title=f"{kind}: recall@k", xlabel="k", ylabel="recall", ylim=(0, 1), xscale="log")
        axis.grid(True, alpha=0.3)
        axis.legend(fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _md_header(first: str) -> str:
    return f"| {first} | n | n_fn | " + " | ".join(COLUMNS) + " |\n|---|---:|---:|" + "---:|" * len(COLUMNS)


def _md_row(name: str, row: dict) -> str:
    return f"| {name} | {row['n']} | {row['n_fn']} | " + " | ".join(_fmt(row[c]) for c in COLUMNS) + " |"


def _fmt(value: float) -> str:
    return "-" if value != value else f"{value:.3f}"
