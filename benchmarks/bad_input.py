"""Bad input, filter spellings and model faults through the real command line (issue 37).

    .venv/bin/python benchmarks/bad_input.py [--code CHECKOUT] [--timeout SECONDS] [--list]

Runs each case as `python -m ragstream ...` in a child process, with the code of CHECKOUT (this
checkout by default: give another one to measure it the same way), and sorts the outcome:
- held: what the case asks for (a clear `error (<layer>): ...` and a non-zero exit, or a
  success that keeps to the rule: a special file skipped, hidden text kept out, a model call
  cut at its deadline);
- traceback: a Python traceback reached the user;
- wrong success: exit 0 where an error was due, or hidden text in the output;
- hang: still running after --timeout seconds (killed).
Prints the counts, then each case that did not hold (every case with --list).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SAMPLE = HERE / "tests" / "fixtures" / "sample_repo"
NOT_UTF8 = b"pay\xff\xfement".decode("utf-8", "surrogateescape")
QUESTION = "How is a payment recorded on an invoice?"
HIDDEN_WORD = "qzhiddenledger"  # the name of a function only hidden/ holds (the questions ask for it)
HIDDEN_TEXT = ("qzhiddenbody", "hidden/ledger.py", "hidden.ledger")  # its body, path and module: never shown


@dataclass(frozen=True)
class Run:
    code: int | None  # None: killed after the timeout
    out: str
    err: str
    seconds: float


@dataclass(frozen=True)
class Case:
    group: str
    name: str
    argv: list[str]
    held: Callable[[Run], bool]  # the outcome the case asks for
    due_error: bool  # an exit 0 is a wrong success
    deadline: float | None = None  # seconds it must end within (else it counts as a hang)


def clear_error(*fragments: str) -> Callable[[Run], bool]:
    return lambda run: run.code not in (0, None) and run.err.startswith("error (") and all(f in run.err
                                                                                            for f in fragments)


def succeeds(*fragments: str, without: tuple[str, ...] = ()) -> Callable[[Run], bool]:
    def check(run: Run) -> bool:
        text = run.out + run.err
        return run.code == 0 and all(f in text for f in fragments) and not any(w in text for w in without)
    return check


def classify(case: Case, run: Run) -> str:
    if run.code is None or (case.deadline is not None and run.seconds > case.deadline):
        return "hang"
    if "Traceback (most recent call last)" in run.out + run.err:
        return "traceback"
    if case.held(run):
        return "held"
    return "wrong success" if run.code == 0 else "unclear error"


# --- the fixtures the cases use ------------------------------------------------------------------

def make_world(root: Path) -> dict[str, Path]:
    """Repositories, configs and files the cases point at (indexes built by the caller)."""
    paths = {"root": root}
    repo = root / "repo"
    shutil.copytree(SAMPLE, repo)
    (repo / "hidden").mkdir()
    (repo / "hidden" / "ledger.py").write_text(f'def {HIDDEN_WORD}(payment):\n    """record a payment: {HIDDEN_TEXT[0]}"""\n'
                                               '    return payment\n')
    paths["repo"] = repo
    for name in ("fifo", "socket"):  # one special file each: the first one met decides what happens
        paths[name] = root / name
        paths[name].mkdir()
        (paths[name] / "m.py").write_text("def f():\n    return 1\n")
    os.mkfifo(paths["fifo"] / "pipe.py")
    paths["data"] = root / "data"
    write = {
        "config": f"index:\n  data_dir: {paths['data']}\n",
        "deep_flow": "index:\n  ignore: " + "[" * 20_000 + "]" * 20_000 + "\n",
        "deep_block": "index:\n" + "".join("  " * (d + 1) + f"k{d}:\n" for d in range(20_000)),
        "acl_glob": f"index:\n  data_dir: {paths['data']}\nacl:\n  rules:\n    - paths: ['[z-a]']\n      acl_tags: [x]\n",
        "acl_string": f"index:\n  data_dir: {paths['data']}\nacl:\n  rules:\n    - paths: 'db/**'\n      acl_tags: [x]\n",
        "ignore_glob": f"index:\n  data_dir: {paths['data']}\n  ignore: ['[z-a]']\n",
        "data_file": f"index:\n  data_dir: {root / 'a_file'}\n",
        "data_under_file": f"index:\n  data_dir: {root / 'a_file' / 'data'}\n",
        "small_walk": f"index:\n  data_dir: {paths['data']}\n  max_files: 20\n",
        "special_config": f"index:\n  data_dir: {root / 'special_data'}\n",  # its own: one repository per data folder
    }
    (root / "a_file").write_text("not a folder")
    for name, text in write.items():
        paths[name] = root / f"{name}.yaml"
        paths[name].write_text(text)
    good = {"id": "q1", "repo": "o/n", "query": "q", "gold_files": ["a.py"]}
    paths["q_good"] = root / "q_good.jsonl"
    paths["q_good"].write_text(json.dumps(good) + "\n")
    for name, extra in (("gold_files", {"gold_files": "billing/service.py"}), ("gold_functions", {"gold_functions": "a.py::f"})):
        paths[f"q_{name}"] = root / f"q_{name}.jsonl"
        paths[f"q_{name}"].write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": "q2", **extra}) + "\n")
    return paths


class TrickleServer:
    """An OpenAI-compatible endpoint whose plain replies trickle (a byte every `gap` s) or never
    end, and whose streamed replies trickle a piece at a time."""

    def __init__(self, endless: bool, gap: float):
        body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": "[Answer:] late"},
                                        "finish_reason": "stop"}]}).encode()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # the stdlib's name
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(10 ** 12 if endless else len(body)))
                self.end_headers()
                try:
                    for index in range(10 ** 9 if endless else len(body)):
                        self.wfile.write(b" " if endless else body[index:index + 1])
                        self.wfile.flush()
                        time.sleep(gap)
                except OSError:  # the client gave up
                    pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"


def model_config(root: Path, name: str, server: TrickleServer, data: Path) -> Path:
    path = root / f"{name}.yaml"
    path.write_text(f"index:\n  data_dir: {data}\nllm:\n  provider: openai\n  base_url: {server.base_url}\n"
                    "  model: m\n  timeout_seconds: 3\n  first_token_seconds: 2\n  turn_seconds: 8\n  max_retries: 0\n")
    return path


# --- the cases -----------------------------------------------------------------------------------

def cases(p: dict[str, Path], model_configs: dict[str, Path]) -> list[Case]:
    c, r = str(p["config"]), str(p["repo"])
    out: list[Case] = []

    def add(group: str, name: str, argv: list[str], held: Callable[[Run], bool], due_error: bool = True,
            deadline: float | None = None) -> None:
        out.append(Case(group, name, argv, held, due_error, deadline))

    # settings, validated whole at load
    add("settings", "config nested 20,000 deep (flow)", ["--config", str(p["deep_flow"]), "search", "x"],
        clear_error("error (config)", "deep_flow.yaml"))
    add("settings", "config nested 20,000 deep (block)", ["--config", str(p["deep_block"]), "search", "x"],
        clear_error("error (config)", "deep_block.yaml"))
    for command in (["search", "payment"], ["index", r]):
        add("settings", f"acl.rules[].paths bad glob, {command[0]}", ["--config", str(p["acl_glob"]), *command],
            clear_error("error (config)", "acl.rules[0].paths"))
        add("settings", f"acl.rules[].paths a string, {command[0]}", ["--config", str(p["acl_string"]), *command],
            clear_error("error (config)", "acl.rules[0].paths"))
    add("settings", "index.ignore bad glob, search", ["--config", str(p["ignore_glob"]), "search", "payment"],
        clear_error("error (config)", "index.ignore"))
    for name in ("data_file", "data_under_file"):
        for command in (["index", r], ["search", "payment"], ["ask", QUESTION, "--llm", "none"]):
            add("settings", f"data_dir {name.replace('data_', '').replace('_', ' ')}, {command[0]}",
                ["--config", str(p[name]), *command], clear_error("index.data_dir"))
    # questions
    for command in (["ask", NOT_UTF8, "--llm", "none"], ["search", NOT_UTF8, "--json"], ["search", NOT_UTF8],
                    ["expand", NOT_UTF8]):
        add("questions", f"invalid UTF-8 bytes, {' '.join(a for a in command if a != NOT_UTF8)}",
            ["--config", c, *command], clear_error("not valid UTF-8"))
    # files a command writes
    root = p["root"]
    for option, command in (("--save-state", ["ask", QUESTION, "--llm", "none"]), ("--html", ["expand", QUESTION])):
        for name, target in (("a missing folder", root / "missing" / "f.out"), ("a folder", root),
                             ("under a file", root / "a_file" / "f.out"), ("an unwritable place", Path("/proc/f.out"))):
            add("outputs", f"{command[0]} {option} to {name}", ["--config", c, *command, option, str(target)],
                clear_error("error (output)", option))
    add("outputs", "eval --predictions to a missing folder",
        ["eval", str(p["q_good"]), "--repo", r, "--predictions", str(root / "missing" / "p.jsonl")],
        clear_error("--predictions"))
    add("outputs", "eval --out under a file", ["eval", str(p["q_good"]), "--repo", r, "--out",
                                               str(root / "a_file" / "out")], clear_error("--out"))
    # filter globs and eval questions
    for command in (["search", "payment"], ["expand", QUESTION], ["ask", QUESTION, "--llm", "none"]):
        for glob in ("paths_exclude=[z-a]", "paths_include=src/[9-0]*"):
            add("filters", f"invalid glob {glob}, {command[0]}", ["--config", c, *command, "--filter", glob],
                clear_error("error (retrieval): retrieval_filters.paths_"))
    for name in ("gold_files", "gold_functions"):
        add("eval", f"{name} given as a string", ["eval", str(p[f"q_{name}"]), "--repo", r, "--out",
                                                  str(root / f"out_{name}")],
            clear_error("error (config)", "question 'q2'", name))
    # the walk
    special = str(p["special_config"])
    for name in ("fifo", "socket"):
        add("walk", f"a {name} in the repository, index --dry-run",
            ["--config", special, "index", "--dry-run", str(p[name])], succeeds("special_file"), due_error=False)
        add("walk", f"a {name} in the repository, index", ["--config", special, "index", "--wait", str(p[name])],
            succeeds("1 files"), due_error=False)
    add("walk", "index / --dry-run", ["--config", c, "index", "--dry-run", "/"], clear_error("error (index)"))
    add("walk", "index / ", ["--config", c, "index", "/"], clear_error("error (index)"))
    add("walk", "a tree past index.max_files", ["--config", str(p["small_walk"]), "index", "--dry-run", r],
        clear_error("index.max_files"))
    # filter spellings: hidden/ is excluded however it is spelled, or the spelling is refused
    spellings = {"upper case": "HIDDEN/**", "fullwidth": "\uff48\uff49\uff44\uff44\uff45\uff4e/**",
                 "a zero-width space": "hid\u200bden/**", "a Cyrillic i": "h\u0456dden/**"}
    for name, glob in spellings.items():
        held = (clear_error("error (retrieval)", "retrieval_filters.paths_exclude") if name == "a Cyrillic i"
                else succeeds(without=HIDDEN_TEXT))
        for command in (["search", f"record a payment {HIDDEN_WORD}", "--mode", "bm25"],
                        ["ask", f"how is {HIDDEN_WORD} recorded?", "--llm", "none", "--show-prompt"],
                        ["expand", f"where is {HIDDEN_WORD}", "--show-context"]):
            add("filter spellings", f"paths_exclude {name}, {command[0]}",
                ["--config", c, *command, "--filter", f"paths_exclude={glob}"], held, due_error=name == "a Cyrillic i")
    # model faults: the answer falls back within the question's time (turn_seconds 8, plus start-up)
    for name, config in model_configs.items():
        add("model faults", name, ["--config", str(config), "ask", QUESTION],
            succeeds("The answering model failed"), due_error=False, deadline=25)
    return out


def run_case(case: Case, code: Path, timeout: float) -> Run:
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONIOENCODING": "utf-8:backslashreplace"}
    argv = [sys.executable, "-m", "ragstream", *case.argv]
    started = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=code,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        result: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        result = None
    decode = lambda data: data.decode("utf-8", "backslashreplace")  # noqa: E731
    return Run(result, decode(out), decode(err), time.monotonic() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=HERE, help="the checkout whose ragstream runs (default: this one)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds before a case counts as a hang")
    parser.add_argument("--list", action="store_true", help="print every case, not only those that did not hold")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bad-input-") as scratch:
        world = make_world(Path(scratch))
        servers = {"plain reply trickling a byte every 0.2 s": TrickleServer(endless=False, gap=0.2),
                   "plain reply whose body never ends": TrickleServer(endless=True, gap=0.01)}
        model_configs = {name: model_config(world["root"], f"model{i}", server, world["data"])
                         for i, (name, server) in enumerate(servers.items())}
        built = run_case(Case("setup", "index", ["--config", str(world["config"]), "index", "--wait", str(world["repo"])],
                              succeeds(), False), args.code, 600)
        if built.code != 0:
            print(built.err[-2000:], file=sys.stderr)
            return 1
        outcomes: Counter[str] = Counter()
        by_group: dict[str, Counter[str]] = {}
        socket_path = world["socket"] / "live.sql"  # a socket, made here: it lives while this process does
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(socket_path))
            for case in cases(world, model_configs):
                run = run_case(case, args.code, args.timeout)
                outcome = classify(case, run)
                outcomes[outcome] += 1
                by_group.setdefault(case.group, Counter())[outcome] += 1
                if args.list or outcome != "held":
                    detail = (run.err.strip().splitlines() or run.out.strip().splitlines() or [""])[-1][:160]
                    print(f"{outcome:<14} {case.group:<17} {case.name:<55} {run.seconds:5.1f} s  {detail}")
    total = sum(outcomes.values())
    print(f"\n{total} cases with {args.code}: " + ", ".join(f"{k} {outcomes.get(k, 0)}" for k in
                                                         ("held", "traceback", "wrong success", "hang", "unclear error")))
    for group, counts in by_group.items():
        print(f"  {group:<17} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
