"""Cold `ragstream search` and `ask` with and without a running `ragstream serve` (issue 40).

    .venv/bin/python benchmarks/cold_served.py --synthetic 100000 [--runs 7]
    .venv/bin/python benchmarks/cold_served.py --config SETTINGS.yaml [--runs 7]

A fresh `python -m ragstream --config SETTINGS search QUERY --json` and `... ask QUESTION --llm
none` per run, once in its own process (`--no-server`) and once while a `ragstream serve` of the
same settings runs (the CLI sends the command to it); the four interleaved within a run, so a
busy machine slows them alike. One untimed run of each first writes the bytecode and loads the
index into the page cache and the server. Printed per command and way: the medians of the wall
time and of the CPU seconds (user + system) of the client process, and for a served command the
server's CPU seconds for it too (from /proc), with every run's figures. The served and
in-process outputs are compared once (timings blanked): a served command that printed something
else fails the benchmark. `--synthetic N` writes the MCP benchmark's index
(`mcp_latency.synthetic_source`: N chunks, three calls each) to a scratch folder first.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp_latency import synthetic_source

ROOT = Path(__file__).resolve().parents[1]
SEARCH = "get_invoice get_payment"
ASK = "how is get_invoice used with get_payment?"
TICKS = os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="a settings file whose data folder holds the one index to ask")
    source.add_argument("--synthetic", type=int, metavar="N")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--search", default=SEARCH)
    parser.add_argument("--ask", default=ASK)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragstream-served-") as scratch:
        config = (Path(args.config) if args.config else synthetic_source(args.synthetic, 8, Path(scratch))[0]).resolve()
        commands = {"search": ["search", args.search, "--json"], "ask": ["ask", args.ask, "--llm", "none"]}
        began = time.perf_counter()
        server = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(config), "serve"], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env())
        try:
            assert server.stderr is not None
            line = server.stderr.readline()
            if "listening" not in line:
                raise SystemExit(f"the server did not start: {line}{server.stderr.read()}")
            print(f"server listening after {time.perf_counter() - began:.1f} s (index and model loaded)", flush=True)
            times = measure(config, commands, server.pid, args.runs)
        finally:
            server.terminate()
            server.wait()
    for (command, way), runs in times.items():
        walls, cpus, server_cpus = zip(*runs)
        extra = f"  server cpu median {statistics.median(server_cpus):5.3f} s" if way == "served" else ""
        print(f"{command:<7} {way:<10} wall median {statistics.median(walls):5.3f} s  client cpu median "
              f"{statistics.median(cpus):5.3f} s{extra}   runs (wall/cpu): "
              + ", ".join(f"{w:.2f}/{c:.2f}" for w, c, _ in runs))


def measure(config: Path, commands: dict[str, list[str]], server_pid: int,
            runs: int) -> dict[tuple[str, str], list[tuple[float, float, float]]]:
    """Every run's (wall, client CPU, server CPU) per (command, way), the ways interleaved."""
    ways = {"in-process": ["--no-server"], "served": []}
    for command, words in commands.items():  # untimed; the outputs compared
        outputs = {way: run(config, words + extra, server_pid)[3] for way, extra in ways.items()}
        if len({_untimed(text) for text in outputs.values()}) != 1:
            raise SystemExit(f"{command}: the served output differs from the in-process one")
    times: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for _ in range(runs):
        for command, words in commands.items():
            for way, extra in ways.items():
                times.setdefault((command, way), []).append(run(config, words + extra, server_pid)[:3])
    return times


def run(config: Path, words: list[str], server_pid: int) -> tuple[float, float, float, str]:
    """(wall seconds, client CPU seconds, server CPU seconds, stdout) of one fresh `python -m ragstream`."""
    command = [sys.executable, "-m", "ragstream", "--config", str(config), *words]
    server_before, client_before = _cpu_of(server_pid), _reaped_cpu()
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=_env(), capture_output=True, text=True)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    return wall, _reaped_cpu() - client_before, _cpu_of(server_pid) - server_before, done.stdout


def _reaped_cpu() -> float:
    """User + system CPU seconds of this process's reaped children (the server is reaped last)."""
    usage = os.times()
    return usage.children_user + usage.children_system


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds a running process has used (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _untimed(text: str) -> str:
    text = re.sub(r'"(ms|seconds)": [0-9.e-]+', r'"\1": 0', text)
    text = re.sub(r"seconds: [0-9.e-]+", "seconds: 0", text)
    return re.sub(r"^(\w+\t\w+\t\w+\t)\d+\t", r"\g<1>0\t", text, flags=re.M)


def _env() -> dict[str, str]:
    """This checkout's package, bytecode written and read as in a user's shell."""
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(ROOT)}


if __name__ == "__main__":
    main()
