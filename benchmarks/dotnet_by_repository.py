"""The .NET + SQL figures per repository, side by side for several runs of `ragstream eval`.

Each run's `scores.json` holds the set's own scorer's rows (`score_dotnet.py`); this groups them
by the repository of each question (from the questions files) and prints symbol recall@10 and
flow chains@10 per repository and overall, one column per run, so a change is judged on every
repository it was not developed on.

    .venv/bin/python benchmarks/dotnet_by_repository.py QUESTIONS.jsonl [QUESTIONS.jsonl ...] \
        --run NAME=OUT_DIR [--run NAME=OUT_DIR ...]
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def repositories(questions: list[Path]) -> dict[str, str]:
    """Question id -> its repository."""
    found = {}
    for path in questions:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                question = json.loads(line)
                found[question["id"]] = question["repo"]
    return found


def by_repository(rows: list[dict], repo_of: dict[str, str]) -> dict[str, dict[str, float | None]]:
    """Micro averages per repository and over all: sym@10 and chain@10 (flow questions)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row["id"] in repo_of:
            groups[repo_of[row["id"]]].append(row)
            groups["all"].append(row)
    return {repo: _micro(group) for repo, group in groups.items()}


def _micro(rows: list[dict]) -> dict[str, float | None]:
    symbols = sum(r["sym_den@10"] for r in rows)
    flows = [r for r in rows if "chain_den" in r]
    chains = sum(r["chain_den"] for r in flows)
    return {"questions": len(rows),
            "sym@10": sum(r["sym_hits@10"] for r in rows) / symbols if symbols else None,
            "chain@10": sum(r["chain_hits"] for r in flows) / chains if chains else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("questions", nargs="+", type=Path)
    parser.add_argument("--run", action="append", required=True, help="NAME=OUT_DIR of a ragstream eval run")
    args = parser.parse_args()
    repo_of = repositories(args.questions)
    runs = {}
    for spec in args.run:
        name, _, folder = spec.partition("=")
        rows = json.loads((Path(folder) / "scores.json").read_text(encoding="utf-8"))["rows"]
        runs[name] = by_repository(rows, repo_of)
    names = list(runs)
    repos = sorted({repo for figures in runs.values() for repo in figures} - {"all"}) + ["all"]
    print("| repository | questions | " + " | ".join(f"sym@10 {n} | chain@10 {n}" for n in names) + " |")
    print("|---|---:|" + "---:|---:|" * len(names))
    for repo in repos:
        cells = []
        for name in names:
            figures = runs[name].get(repo, {})
            cells += [_number(figures.get("sym@10")), _number(figures.get("chain@10"))]
        count = next((runs[n][repo]["questions"] for n in names if repo in runs[n]), 0)
        print(f"| {repo} | {count} | " + " | ".join(cells) + " |")


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    main()
