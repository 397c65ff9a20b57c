"""SQL parser coverage on other people's SQL: every `.sql` file of each repository, as the index
walks and reads it, parsed; the tables it makes and the CREATE statements that made nothing, by
the reason sqlglot gave. Run it on the code of two commits (`PYTHONPATH`) to see what a parser
change does on real scripts.

    .venv/bin/python benchmarks/sql_census.py PATH [PATH ...] [--mirrors ROOT] [--json OUT]

PATH: a checked-out repository. `--mirrors ROOT`: every bare mirror under ROOT (`OWNER+NAME/repo`),
its `.sql` files at HEAD (`git archive`) read from a temporary folder.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from ragstream.config import load_settings
from ragstream.errors import RagstreamError
from ragstream.index.sql.parser import UNPARSED_SQL, parse_sql
from ragstream.index.walk import walk_repository


def census(path: str | Path, name: str) -> dict:
    """Files, tables, CREATEs that made nothing (by reason) and files no statement of parsed."""
    settings = load_settings()
    walked = walk_repository(path, settings.index)
    tables = files = unreadable = 0
    lost: Counter[str] = Counter()
    for source in (f for f in walked.files if f.language == "sql"):
        files += 1
        try:
            parsed = parse_sql(source.path, source.text, settings.index.sql_dialect)
        except RagstreamError:
            unreadable += 1
            continue
        tables += sum(1 for node in parsed.nodes if node.kind == "TABLE")
        lost.update(note["why"].split(". Line")[0] for note in parsed.nodes[0].attrs.get(UNPARSED_SQL, [])
                    if not note["kept"])
    return {"repository": name, "sql_files": files, "tables": tables, "creates_lost": sum(lost.values()),
            "files_unparsed": unreadable, "lost_by_reason": dict(lost.most_common())}


def mirror_sql(mirror: Path, into: Path) -> bool:
    """The `.sql` files of a bare mirror's HEAD under `into`; False when it has none."""
    archive = subprocess.run(["git", "--git-dir", str(mirror), "archive", "HEAD", "--", ":(glob,icase)**/*.sql"],
                             capture_output=True, check=False)
    if archive.returncode != 0 or not archive.stdout:
        return False
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--mirrors", help="a folder of bare mirrors, OWNER+NAME/repo")
    parser.add_argument("--json", help="write the rows here too")
    args = parser.parse_args()
    rows = [census(path, Path(path).name) for path in args.paths]
    for mirror in sorted(Path(args.mirrors).glob("*/repo")) if args.mirrors else []:
        with tempfile.TemporaryDirectory() as folder:
            if mirror_sql(mirror, Path(folder)):
                rows.append(census(folder, mirror.parent.name))
    for row in rows:
        print(f"{row['repository']:50} files {row['sql_files']:4}  tables {row['tables']:5}  "
              f"CREATEs lost {row['creates_lost']:4}  files unparsed {row['files_unparsed']:3}")
    reasons: Counter[str] = Counter()
    for row in rows:
        reasons.update(row["lost_by_reason"])
    print(f"all: {len(rows)} repositories, {sum(r['sql_files'] for r in rows)} files, "
          f"{sum(r['tables'] for r in rows)} tables, {sum(r['creates_lost'] for r in rows)} CREATEs lost, "
          f"{sum(r['files_unparsed'] for r in rows)} files unparsed")
    for reason, count in reasons.most_common(10):
        print(f"  {count:5}  {reason}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
