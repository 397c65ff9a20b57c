"""Cold `ragstream search` and `ask`: a fresh process per command, checkouts interleaved.

    .venv/bin/python benchmarks/cold_cli.py --config SETTINGS --checkout main=/work/main --checkout branch=. [--runs 5]
    .venv/bin/python benchmarks/cold_cli.py --synthetic 100000 --checkout main=/work/main --checkout branch=.

Each run starts `python -m ragstream --config SETTINGS search QUERY --json` and `... ask QUESTION
--llm none` in each checkout's folder (so that checkout's package answers; the interpreter is
this one's), the checkouts one after the other within a run, so that a busy machine slows them
alike; one untimed run of each first writes the bytecode and reads the index into the page cache. Printed per checkout and command: the wall time and the CPU time (user + system, of the
process and its children) of every run, and their medians. `--synthetic N` first writes the
index of the MCP benchmark (`mcp_latency.synthetic_source`: N chunks, three calls each) to a
scratch folder, with the compact forms this checkout writes.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp_latency import synthetic_source

SEARCH = "get_invoice get_payment"
ASK = "how is get_invoice used with get_payment?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="a settings file whose data folder holds the one index to ask")
    source.add_argument("--synthetic", type=int, metavar="N")
    parser.add_argument("--checkout", action="append", required=True, metavar="NAME=FOLDER")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--search", default=SEARCH)
    parser.add_argument("--ask", default=ASK)
    args = parser.parse_args()
    checkouts = dict(item.split("=", 1) for item in args.checkout)
    with tempfile.TemporaryDirectory(prefix="ragstream-cold-") as scratch:
        config = Path(args.config) if args.config else synthetic_source(args.synthetic, 8, Path(scratch))[0]
        commands = {"search": ["search", args.search, "--json"], "ask": ["ask", args.ask, "--llm", "none"]}
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for folder in checkouts.values():  # untimed: bytecode written, files in the page cache
            for words in commands.values():
                run(folder, config.resolve(), words)
        for _ in range(args.runs):
            for command, words in commands.items():
                for name, folder in checkouts.items():
                    times.setdefault((name, command), []).append(run(folder, config.resolve(), words))
    for (name, command), runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(f"{command:<7} {name:<10} wall median {statistics.median(walls):5.2f} s  cpu median "
              f"{statistics.median(cpus):5.2f} s   runs (wall/cpu): "
              + ", ".join(f"{w:.2f}/{c:.2f}" for w, c in runs))


def run(folder: str, config: Path, words: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh `python -m ragstream` in `folder`."""
    command = [sys.executable, "-m", "ragstream", "--config", str(config), *words]
    # Bytecode is written and read as in a user's shell (a sandbox may turn it off).
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "PYTHONPATH": str(Path(folder).resolve())}
    began = time.perf_counter()
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - began
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} in {folder} failed:\n{process.stderr.read().decode() if process.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
