"""Scores of gold-symbol predictions, computed by the question set's own scorer (`score_dotnet.py`,
loaded from its path), so ragstream and the set never disagree on matching rules; here they
are only grouped per question kind and written as JSON and Markdown.
"""
from __future__ import annotations

import importlib.util
import io
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ragstream.errors import ConfigError

SCORER_NAME = "score_dotnet.py"  # looked for beside the questions file when no --scorer is given
SCORER_API = ("load_jsonl", "run", "aggregate", "print_report")
METRICS = ("sym@5", "sym@10", "file@5", "file@10", "chain@10")


@dataclass(frozen=True)
class ScoreTable:
    rows: list[dict[str, Any]]  # the scorer's row per question (metrics, missed gold items)
    micro: dict[str, Any]  # its micro averages over every question
    by_kind: dict[str, dict[str, Any]]  # its micro averages over each kind's questions
    report: str  # the table the scorer prints

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def scorer_path(given: str | None, questions: str | Path) -> Path:
    """The scorer named by --scorer, else the one beside the questions file."""
    return Path(given) if given else Path(questions).parent / SCORER_NAME


def load_scorer(path: Path) -> ModuleType:
    """The scorer module at `path`, checked to have the functions used here."""
    spec = importlib.util.spec_from_file_location("ragstream_eval_scorer", path) if path.is_file() else None
    if spec is None or spec.loader is None:
        raise ConfigError("no scorer there", where=str(path), hint=f"pass --scorer PATH/{SCORER_NAME}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # any failure of a foreign file is a bad setting, named
        raise ConfigError(f"the scorer does not load: {exc}", where=str(path)) from exc
    missing = [name for name in SCORER_API if not callable(getattr(module, name, None))]
    if missing:
        raise ConfigError(f"the scorer lacks {', '.join(missing)}", where=str(path))
    return module


def score_predictions(scorer: ModuleType, questions: str | Path, predictions: Sequence[dict[str, Any]]
                      ) -> ScoreTable:
    """The scorer's metrics of `predictions` (`{"id", "ranked_nodes"}`) against the gold of the
    questions predicted, overall and per kind."""
    ids = {p["id"] for p in predictions}
    gold = [q for q in scorer.load_jsonl(str(questions)) if q["id"] in ids]
    rows, micro = scorer.run(gold, {p["id"]: p["ranked_nodes"] for p in predictions})
    kinds = dict.fromkeys(r["kind"] for r in rows)
    by_kind = {kind: scorer.aggregate([r for r in rows if r["kind"] == kind]) for kind in kinds}
    printed = io.StringIO()
    scorer.print_report(rows, micro, out=printed)
    return ScoreTable(rows, micro, by_kind, printed.getvalue())


def scores_markdown(table: ScoreTable) -> str:
    """The table per kind and overall, then one line per question (with the gold it missed in the top 10)."""
    header = "| {} | n | " + " | ".join(METRICS) + " |\n|---|---:|" + "---:|" * len(METRICS)
    out = [header.format("kind"),
           *(_row(kind, agg["questions"], agg) for kind, agg in table.by_kind.items()),
           _row("**overall**", table.micro["questions"], table.micro), "",
           "| question | kind | sym@5 | sym@10 | file@10 | chain@10 | missed in the top 10 |",
           "|---|---|---:|---:|---:|---:|---|"]
    out += [f"| {r['id']} | {r['kind']} | {_fmt(r['sym@5'])} | {_fmt(r['sym@10'])} | {_fmt(r['file@10'])} | "
            f"{_fmt(r.get('chain@10'))} | {', '.join(_short(m) for m in r['missed'])} |" for r in table.rows]
    return "\n".join(out) + "\n"


def _row(name: str, n: int, agg: dict[str, Any]) -> str:
    return f"| {name} | {n} | " + " | ".join(_fmt(agg.get(m)) for m in METRICS) + " |"


def _short(gold: str) -> str:
    """`path::Ns.Type.Member` -> `Type.Member`; a SQL object as it is."""
    name = gold.partition("::")[2] or gold
    return ".".join(name.split(".")[-2:]) if "::" in gold else name


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
