"""How the command line prints results: a rich table on a terminal, plain tab-separated lines
when piped (so an id is never cut to fit 80 columns), or JSON for machines (`--json`)."""
from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

console = Console()
err_console = Console(stderr=True)
TABLE_WIDTH = 140  # the eval comparison is read in logs too, where rich would fold it into 80 columns


def print_table(console: Console, title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """`rows` under `headers`: on a terminal a table whose cells wrap but are never cut; piped,
    the title as a `# ` line, then the headers and rows tab-separated, one a line."""
    cells = [["" if value is None else str(value) for value in row] for row in rows]
    if not console.is_terminal:
        lines = [f"# {title}", "\t".join(headers), *("\t".join(row) for row in cells)]
        console.file.write("\n".join(lines) + "\n")
        return
    table = Table(title=title, title_justify="left")
    for header in headers:
        table.add_column(header, overflow="fold")  # folded onto the next line, never "…"
    for row in cells:
        table.add_row(*row)
    console.print(table)


def print_json(data: Any) -> None:
    """One JSON document on stdout (keys as given, non-ASCII kept)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n")
    sys.stdout.flush()
