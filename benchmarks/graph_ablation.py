"""What a change to how the graph's edges are made does to retrieval by itself, the text held fixed.

A graph change moves the evaluation twice: through the edges the ranking and expansion walk,
and through the `calls` / `called by` rows it writes into every chunk's header, which are
embedded and keyword-indexed. The second moves near-ties among search scores and hides the
first. This benchmark holds the text: for every index a question set was ranked on
(`ragstream eval --data-dir DATA`), it builds that commit's graph with the code of another
ragstream commit (`--graphs-from`, run from a temporary git worktree), writes a copy of the index
into OUT whose chunks, vectors and BM25 are the same files (hard links) and whose graph.json is
the other code's, then ranks the questions on both with this checkout's code and prints the
micro averages side by side, and every question whose figures differ (from the other graph to
the index's own).

  PYTHONPATH=$PWD .venv/bin/python benchmarks/graph_ablation.py QUESTIONS --mirrors MIRRORS \
      --data-dir DATA --out OUT --graphs-from COMMIT [--repos a/b,c/d] [--configs ...] [--config YAML]

Python question sets only (each commit's `*.py` files are checked out, as `ragstream eval` does).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ragstream.config import load_settings
from ragstream.errors import ConfigError, IndexingError
from ragstream.eval.checkout import checkout_files, mirror_path, repo_folder
from ragstream.eval.commit_index import COMMIT_NAME_LENGTH, IndexSource, existing_index
from ragstream.eval.harness import eval_settings
from ragstream.eval.questions import load_questions
from ragstream.eval.report import summarize
from ragstream.index import store

ROOT = Path(__file__).resolve().parent.parent
METRICS = ("file_R@1", "file_R@5", "file_R@10", "file_MRR", "func_R@5", "func_R@10")

# Runs inside the other commit's worktree: its own build, keyword-ready (no embedding), of one checkout.
OTHER_BUILD = """
import sys
from pathlib import Path
from ragstream.config import load_settings
from ragstream.eval.harness import eval_settings
from ragstream.index.build import build_index
report = build_index(sys.argv[1], eval_settings(load_settings(), Path(sys.argv[2])), name=sys.argv[3], fill=False)
print(report.location.index_dir)
"""


def main() -> int:
    args = _arguments()
    questions = [q for q in load_questions(args.questions, "dev")
                 if not args.repos or q.repo in args.repos.split(",")]
    settings = eval_settings(load_settings(args.config), args.data_dir)
    commits = sorted({(q.repo, q.base_commit) for q in questions})
    with tempfile.TemporaryDirectory(prefix="graph-ablation-") as scratch, other_code(args.graphs_from, Path(scratch)) as code:
        for repo, commit in commits:
            location = _index(settings, args.mirrors, repo, commit)
            checkout = checkout_files(mirror_path(args.mirrors, repo), commit, Path(scratch) / "checkouts" / repo_folder(repo))
            graph = _other_graph(code, checkout, Path(scratch) / "data", location)
            _copy_with_graph(location, graph, args.out / "data")
            print(f"{repo}@{commit[:COMMIT_NAME_LENGTH]}: graph of {args.graphs_from}", file=sys.stderr, flush=True)
    ranked = {side: _rank(args, data, args.out / folder) for side, data, folder in (
        ("the index's own", args.data_dir, "own-graph"), (f"built by {args.graphs_from}", args.out / "data", "other-graph"))}
    _print(ranked, args.configs.split(","))
    return 0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, required=True, help="the indexes as `ragstream eval` built them")
    parser.add_argument("--out", type=Path, required=True, help="the copies with the other graph, and both runs")
    parser.add_argument("--graphs-from", required=True, help="the ragstream commit whose code builds the other graphs")
    parser.add_argument("--repos", default="")
    parser.add_argument("--configs", default="hybrid,hybrid+graph,pipeline:base,ask:base")
    parser.add_argument("--config", default=None, help="settings file for both runs (as `ragstream --config`)")
    return parser.parse_args()


@contextmanager
def other_code(commit: str, scratch: Path):
    """A worktree of this repository at `commit`, removed afterwards."""
    tree = scratch / "code"
    _run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit], f"checking out {commit}")
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)


def _index(settings, mirrors: Path, repo: str, commit: str) -> store.IndexLocation:
    """The evaluation's index of this commit, which must load as it is (as `--existing-indexes` finds it)."""
    location = existing_index(IndexSource(Path(settings.index.data_dir), mirrors=mirrors), repo, commit, settings)
    if location is None:
        raise ConfigError(f"no loadable index of {repo}@{commit[:COMMIT_NAME_LENGTH]}", where=settings.index.data_dir,
                          hint="run `ragstream eval` on this data folder first")
    return location


def _other_graph(code: Path, checkout: Path, data: Path, location: store.IndexLocation) -> Path:
    """graph.json as the other commit's code builds it; the file set must be the index's."""
    built = _run([sys.executable, "-c", OTHER_BUILD, str(checkout), str(data), location.active_index],
                 f"the other code's build of {location.repository}@{location.active_index}",
                 cwd=code, env={**os.environ, "PYTHONPATH": str(code)})
    other = Path(built.strip().splitlines()[-1])
    other_generation = other / (other / store.CURRENT).read_text().strip()
    mine, theirs = (json.loads((g / store.MANIFEST).read_text())["files"]
                    for g in (store.current_generation(location), other_generation))
    if set(mine) != set(theirs):
        raise ConfigError(f"the other code indexed {len(theirs)} files, the index {len(mine)}",
                          where=str(location.index_dir), hint="both sides must index the same files")
    return other_generation / store.GRAPH


def _copy_with_graph(location: store.IndexLocation, graph: Path, data: Path) -> None:
    """A copy of the index under `data` sharing every file by hard link but graph.json and the
    manifest (written anew, never through a link), whose sizes then match its files."""
    source = location.index_dir
    target = data / "indexes" / location.repository / location.active_index
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, copy_function=os.link)
    generation = target / (target / store.CURRENT).read_text().strip()
    for name in (store.GRAPH, store.MANIFEST):
        (generation / name).unlink()
    shutil.copyfile(graph, generation / store.GRAPH)
    manifest = json.loads((store.current_generation(location) / store.MANIFEST).read_text())
    manifest["artifacts"] = store.artifact_sizes(generation)
    (generation / store.MANIFEST).write_text(json.dumps(manifest))


def _rank(args: argparse.Namespace, data: Path, out: Path) -> list[dict]:
    """`ragstream eval --existing-indexes` on `data` with this checkout's code; its rows."""
    command = [sys.executable, "-m", "ragstream.cli", *(["--config", args.config] if args.config else []),
               "eval", str(args.questions), "--mirrors", str(args.mirrors), "--split", "dev",
               "--data-dir", str(data), "--existing-indexes", "--configs", args.configs, "--out", str(out)]
    if args.repos:
        command += ["--repos", args.repos]
    _run(command, f"ranking on {data}", cwd=ROOT)
    if (out / "builds.jsonl").read_text().strip():
        raise ConfigError("the evaluation built an index instead of using the one given",
                          where=str(out / "builds.jsonl"))
    return [json.loads(line) for line in (out / "ranks.jsonl").read_text().splitlines()]


def _run(command: list[str], what: str, **where) -> str:
    """A child process's output, or an error naming what failed and the end of what it said."""
    done = subprocess.run(command, capture_output=True, text=True, **where)
    if done.returncode != 0:
        raise IndexingError(f"{what} failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}",
                            where=str(where.get("cwd", ROOT)))
    return done.stdout


def _print(ranked: dict[str, list[dict]], configs: list[str]) -> None:
    (this, these), (other, others) = ranked.items()
    summaries = {side: summarize(rows, configs) for side, rows in ranked.items()}
    print(f"| config, micro ({len(these) // len(configs)} questions) | graph | " + " | ".join(METRICS) + " |")
    print("|---|---|" + "---:|" * len(METRICS))
    for config in configs:
        for side in (other, this):
            micro = summaries[side][config]["micro"]
            print(f"| {config} | {side} | " + " | ".join(f"{micro[m]:.3f}" for m in METRICS) + " |")
    before = {(r["config"], r["id"]): r["metrics"] for r in others}
    for row in these:
        old = before[(row["config"], row["id"])]
        moved = [f"{m} {old[m]:.2f} -> {row['metrics'][m]:.2f}" for m in METRICS
                 if old.get(m) is not None and old[m] != row["metrics"][m]]
        if moved:
            print(f"  {row['config']:<14} {row['id']}: " + ", ".join(moved))


if __name__ == "__main__":
    sys.exit(main())
