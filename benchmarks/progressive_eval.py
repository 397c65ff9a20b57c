"""Does a progressive build, its fill killed and resumed, evaluate like a build that ran through?

Builds the index of every commit of the chosen questions twice, each into a data folder of its
own (caches included, so every vector is really embedded twice):
- *through*: `ragstream eval` builds as it always does (keyword-ready, then the fill in the same
  process, never stopped);
- *killed*: `ragstream index` returns at keyword-ready and starts the background fill, as on a
  user's machine; that fill is killed (SIGKILL) after KILL seconds, restarted with
  `ragstream index --fill`, killed again, until one run ends by itself.
Then `ragstream eval --existing-indexes` on the killed folder, and the two runs' ranked files and
functions are compared question by question and configuration by configuration.

PYTHONPATH=$PWD .venv/bin/python benchmarks/progressive_eval.py QUESTIONS --mirrors M --repos R[,R]
    --work DIR [--kill-after 8] [--configs hybrid,hybrid+graph,pipeline:base]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from ragstream.config import load_settings
from ragstream.eval.checkout import PYTHON_FILES, checkout_files, mirror_path, repo_folder
from ragstream.eval.commit_index import COMMIT_NAME_LENGTH, EVAL_BRANCH
from ragstream.eval.harness import eval_settings
from ragstream.eval.questions import load_questions

RAGSTREAM = [sys.executable, "-m", "ragstream"]
SPAWNED = re.compile(r"background \(pid (\d+),")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions")
    parser.add_argument("--mirrors", required=True, type=Path)
    parser.add_argument("--repos", required=True)
    parser.add_argument("--work", required=True, type=Path)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--kill-after", type=float, default=8.0)
    parser.add_argument("--configs", default="hybrid,hybrid+graph,pipeline:base")
    args = parser.parse_args()
    through, killed = args.work / "through", args.work / "killed"
    evaluation = [*RAGSTREAM, "eval", args.questions, "--mirrors", str(args.mirrors), "--split", args.split,
                  "--repos", args.repos, "--configs", args.configs]

    started = time.perf_counter()
    subprocess.run([*evaluation, "--data-dir", str(through), "--out", str(through / "out")], check=True,
                   stdout=subprocess.DEVNULL)
    print(f"through: built and evaluated in {time.perf_counter() - started:.0f} s")

    config = _config(killed)
    commits = dict.fromkeys((q.repo, q.base_commit) for q in load_questions(args.questions, args.split)
                            if q.repo in args.repos.split(","))
    for repo, commit in commits:
        root = checkout_files(mirror_path(args.mirrors, repo), commit, killed / "worktrees" / repo_folder(repo),
                              PYTHON_FILES)
        kills, seconds = _build_killing_the_fill(config, root, commit[:COMMIT_NAME_LENGTH], args.kill_after)
        print(f"killed: {repo}@{commit[:COMMIT_NAME_LENGTH]} complete after {kills} kills, {seconds:.0f} s")
    subprocess.run([*evaluation, "--data-dir", str(killed), "--existing-indexes", "--out", str(killed / "out")],
                   check=True, stdout=subprocess.DEVNULL)

    same, differ = _compare(through / "out" / "ranks.jsonl", killed / "out" / "ranks.jsonl")
    print(f"rows with the same ranked files and functions: {same} of {same + len(differ)}")
    for row in differ:
        print("differs:", row)
    for name, folder in (("through", through), ("killed", killed)):
        print(f"\n{name}:\n{(folder / 'out' / 'comparison.md').read_text()}")
    return 0 if not differ else 1


def _config(data_dir: Path) -> Path:
    """A settings file for `ragstream index` that indexes as the evaluation does (its data folder,
    test files left out)."""
    settings = eval_settings(load_settings(None), data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "settings.yaml"
    path.write_text(yaml.safe_dump({"index": {"data_dir": str(data_dir), "ignore": list(settings.index.ignore)}}))
    return path


def _build_killing_the_fill(config: Path, root: Path, name: str, kill_after: float) -> tuple[int, float]:
    """`ragstream index` to keyword-ready, then its fill killed every `kill_after` seconds and
    resumed until a fill ends by itself: (kills, seconds)."""
    started = time.perf_counter()
    index = [*RAGSTREAM, "--config", str(config), "index", str(root), "--name", name, "--branch", EVAL_BRANCH]
    out = subprocess.run(index, check=True, capture_output=True, text=True).stdout
    spawned = SPAWNED.search(out)
    kills = 0
    if spawned:  # the background fill: killed as it runs, then resumed by hand
        time.sleep(kill_after)
        kills += _kill(int(spawned.group(1)))
        while True:
            fill = subprocess.Popen([*index, "--fill"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                fill.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                kills += _kill(fill.pid)
                fill.wait()
                continue
            if fill.returncode != 0:
                raise SystemExit(f"the resumed fill of {root} failed: {fill.stderr.read().decode()}")
            break
    return kills, time.perf_counter() - started


def _kill(pid: int) -> int:
    """1 if the process was still running and is now killed, else 0."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return 0
    for _ in range(100):  # the spawned fill is not our child: wait until it is gone
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    return 1


def _compare(a: Path, b: Path) -> tuple[int, list[str]]:
    def rows(path: Path) -> dict[tuple[str, str], tuple]:
        return {(r["id"], r["config"]): (r["ranked_files"], r["ranked_functions"])
                for r in map(json.loads, path.read_text().splitlines())}
    first, second = rows(a), rows(b)
    differ = [f"{key[0]} {key[1]}" for key in sorted(first.keys() | second.keys()) if first.get(key) != second.get(key)]
    return len(first.keys() | second.keys()) - len(differ), differ


if __name__ == "__main__":
    raise SystemExit(main())
