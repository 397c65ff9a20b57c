"""How the questions' routes (`graph.questions.question_shape`) agree with their writers' kinds.

    python benchmarks/route_agreement.py QUESTIONS.jsonl... [--scores OUTDIR...] [--quiet]

Prints a kind x shape table (rows: the writer's kind; columns: the shape the question is routed
to, `none` when it is routed to none) and, per kind, how many are routed to the shape answering
that kind (flow -> flow, list -> list, impact -> impact, mapping -> mapping). With `--scores`,
the eval outputs' sym@10 joins each cell (mean over the questions scored). `--quiet` prints the
table only, no question (for a held-out set whose texts are not to be read)."""
from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from ragstream.graph.questions import question_shape

SHAPES = ("flow", "list", "impact", "mapping", "none")


def scores_of(dirs: list[str]) -> dict[str, float]:
    found: dict[str, float] = {}
    for d in dirs:
        for row in json.loads((Path(d) / "scores.json").read_text())["rows"]:
            found[row["id"]] = row["sym@10"]
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("questions", nargs="+")
    parser.add_argument("--scores", nargs="*", default=[])
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    scores = scores_of(args.scores)
    cells: dict[tuple[str, str], list[str]] = defaultdict(list)
    for file in args.questions:
        for line in Path(file).read_text().splitlines():
            if line.strip():
                q = json.loads(line)
                cells[(q.get("kind", "-"), question_shape(q["query"]) or "none")].append(q["id"])
                if not args.quiet:
                    print(f"{q.get('kind', '-'):8} {question_shape(q['query']) or 'none':8} {q['id']:16} {q['query']}")
    kinds = sorted({k for k, _ in cells})
    print(f"\n{'kind':8} " + " ".join(f"{s:>12}" for s in SHAPES) + "   agree")
    for kind in kinds:
        row = []
        for shape in SHAPES:
            ids = cells.get((kind, shape), [])
            scored = [scores[i] for i in ids if i in scores]
            mean = f"({sum(scored) / len(scored):.2f})" if scored else ""
            row.append(f"{len(ids):>4}{mean:>8}" if ids else f"{'':>12}")
        total = sum(len(cells.get((kind, s), [])) for s in SHAPES)
        agree = f"{len(cells.get((kind, kind), []))}/{total}" if kind in SHAPES else ""
        print(f"{kind:8} " + " ".join(row) + f"   {agree}")


if __name__ == "__main__":
    main()
