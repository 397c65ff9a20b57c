"""`ragstream changed STATE`: which files of the index's source changed since the answer of a
state saved by `ragstream ask --save-state`, and whether the index already holds them
(`Controller.changes_since`, as the workbench says it beside an answer)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ragstream.cli.output import console, print_json
from ragstream.config import load_settings
from ragstream.errors import PipelineError

LISTED = 50  # changed files printed; the rest are counted


def changed_command(args: argparse.Namespace) -> int:
    from ragstream.answer_sources import BASIS, Basis
    from ragstream.controller import Controller
    from ragstream.super_prompt import SuperPrompt

    where = f"ragstream changed {args.state}"
    try:
        sp = SuperPrompt.from_json(Path(args.state).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PipelineError(f"cannot read the state: {exc.strerror or exc}", where=where) from exc
    except (ValueError, TypeError) as exc:
        raise PipelineError(f"not a state saved by `ragstream ask --save-state`: {exc}", where=where) from exc
    Basis.of(sp.extras, where=f"{args.state}: extras.{BASIS}")  # checked here, to name the file
    with Controller(load_settings(args.config)) as controller:
        changes = controller.changes_since(sp)
    if args.json:
        print_json(changes.to_json())
        return 0
    if changes.unknown:
        console.print(f"files changed since this answer: not known ({changes.unknown})", highlight=False)
        return 0
    if not changes.count:
        console.print("no file of the index changed since this answer", highlight=False)
        return 0
    console.print(f"{changes.count} file(s) changed since this answer:", highlight=False)
    shown, more = changes.listed(LISTED)
    for kind, path, held in shown:
        console.print(f"  {kind:8} {path}" + ("" if held else "  (not in the index yet)"), highlight=False)
    if more:
        console.print(f"  ... and {more} more", highlight=False)
    console.print("the index holds every change: asking again answers from them" if changes.refreshed
                  else "the index does not hold every change yet: `ragstream index PATH` (or --watch) refreshes it",
                  highlight=False)
    return 0
