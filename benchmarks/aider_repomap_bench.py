"""aider's repository map over the files ragstream indexes, on a cold cache: the baseline a
keyword-ready ragstream index is compared with in docs/BENCHMARKS.md.

Runs in its own virtual environment, not the project's (aider pins other versions):

    python3 -m venv /work/aider-venv && /work/aider-venv/bin/pip install 'aider-chat==0.86.2'
    .venv/bin/ragstream index --dry-run PATH > FILES   # the files ragstream indexes
    /work/aider-venv/bin/python benchmarks/aider_repomap_bench.py PATH --files FILES [--map-tokens 1024]

Copies those files of PATH (`index  path  [language]` lines of the dry run; without --files,
every Python, SQL and C# file) to a scratch folder (so aider's tag cache starts empty),
then times `RepoMap.get_repo_map` over all of them with no chat files: tree-sitter tags for
every file, the PageRank of the reference graph, and the map fitted to the token budget. Token
counts use a 4-characters-a-token estimate (aider would ask litellm's tokenizer, which needs the
network here). Prints JSON: files, seconds, CPU seconds, peak RSS, the map's size.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path

from cold_vs_aider import cpu_seconds  # stdlib only: importable from aider's venv

SUFFIXES = (".py", ".sql", ".cs")


class _Model:
    """The two things RepoMap asks of a model: a token count and the name of its tokenizer family."""

    name = "estimate"

    def token_count(self, text: str) -> int:
        return len(text) // 4


def main() -> None:
    from aider.io import InputOutput
    from aider.repomap import RepoMap

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path")
    parser.add_argument("--files", help="`ragstream index --dry-run PATH` output: the files to map")
    parser.add_argument("--map-tokens", type=int, default=1024)
    args = parser.parse_args()
    source = Path(args.path).resolve()
    if args.files:
        # `index  PATH  [language]...`: a path may hold spaces
        chosen = [line[len("index "):].strip().rsplit("  [", 1)[0]
                  for line in Path(args.files).read_text().splitlines() if line.startswith("index ")]
    else:
        chosen = [p.relative_to(source).as_posix() for p in sorted(source.rglob("*"))
                  if p.is_file() and p.suffix in SUFFIXES and ".git" not in p.parts]
    with tempfile.TemporaryDirectory(prefix="aider-repomap-") as scratch:
        root = Path(scratch) / source.name
        files = []
        for relative in chosen:
            target = root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / relative, target)
            files.append(str(target))
        cpu, started = cpu_seconds(), time.perf_counter()
        repo_map = RepoMap(map_tokens=args.map_tokens, root=str(root), main_model=_Model(),
                           io=InputOutput(yes=True, pretty=False), verbose=False)
        text = repo_map.get_repo_map([], files) or ""
        seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    print(json.dumps({"repository": source.name, "files": len(files), "repo_map_s": round(seconds, 2),
                      "cpu_s": round(cpu, 2),
                      "map_chars": len(text), "map_tokens": args.map_tokens,
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))


if __name__ == "__main__":
    main()
