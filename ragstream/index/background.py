"""Index work handed to a detached process: the semantic fill after keyword-ready, or a whole
build (`ragstream index --background`). The process outlives the command that started it; its
output goes to a log file in the index folder."""
from __future__ import annotations

import json
import os
import select
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path

from ragstream.config import Settings
from ragstream.index import store

LOG = "background.log"
NICE = 10  # background index work yields the CPU to searches and questions
PARENT_CHECK_SECONDS = 1.0  # how often a followed build looks whether the workbench is still there
STDIN = 0  # a followed build's: the pipe its parent holds open for as long as it lives


def lower_priority() -> None:
    """Run the calling thread (and the threads it starts, torch's among them) at `NICE`, so
    searches during a background build or fill stay near their idle latency. Linux gives
    each thread its own nice value; elsewhere the process's is lowered."""
    thread = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, thread, max(NICE, os.getpriority(os.PRIO_PROCESS, thread)))
    except OSError:
        pass  # not allowed here: the build only runs at the normal priority


def stop_with_parent() -> None:
    """End this process soon after the one that started it ends: a followed build
    (`ragstream index --events`) belongs to the workbench that follows it, however that stops
    (Ctrl-C, SIGTERM, a crash); it then gets SIGTERM, which a build survives as any stopped build
    does: the previous index stays, a fill resumes next time. A detached build (`--background`)
    does not call this.

    Its stdin is a pipe only the parent holds (`start_followed_build`): the parent's end closes
    with the parent, and the kernel signals the pipe's owner then (O_ASYNC). No thread is started,
    so the build still parses in forked workers (`workers.worker_count`). Not
    `prctl(PR_SET_PDEATHSIG)`: that follows the parent's *thread* that started the child, and the
    workbench starts it from a page run's thread, which ends with the run. Where the pipe cannot
    be armed (another stdin, no F_SETSIG), a thread polls the parent's pid instead."""
    if _signal_on_stdin_hangup():
        return
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="ragstream-parent-watch", daemon=True).start()


def _signal_on_stdin_hangup() -> bool:
    """Have the kernel send this process SIGTERM once every writer of its stdin pipe is gone;
    False where stdin is no pipe or the platform cannot (only Linux has F_SETSIG)."""
    try:
        import fcntl

        if not stat.S_ISFIFO(os.fstat(STDIN).st_mode) or not hasattr(fcntl, "F_SETSIG"):
            return False
        fcntl.fcntl(STDIN, fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(STDIN, fcntl.F_SETSIG, signal.SIGTERM)
        fcntl.fcntl(STDIN, fcntl.F_SETFL, fcntl.fcntl(STDIN, fcntl.F_GETFL) | os.O_ASYNC)
    except (ImportError, OSError):
        return False
    if select.select([STDIN], [], [], 0)[0]:  # nothing is ever written: readable is the end, met already
        os.kill(os.getpid(), signal.SIGTERM)
    return True


def spawn_index(location: store.IndexLocation, source: Path, options: list[str],
                config: str | None) -> tuple[int, Path]:
    """Run `ragstream index SOURCE OPTIONS` detached; (its pid, its log file)."""
    location.index_dir.mkdir(parents=True, exist_ok=True)
    log = location.index_dir / LOG
    command = [sys.executable, "-m", "ragstream", *(["--config", config] if config else []),
               "index", str(source), "--name", location.active_index, *options]
    with open(log, "ab") as out:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)  # a Ctrl-C in the terminal does not reach it
    return process.pid, log


def start_followed_build(settings: Settings, path: Path, name: str | None, rebuild: bool | None,
                         config: str | None = None, watch: bool = False) -> tuple[subprocess.Popen, Path]:
    """Run `ragstream index PATH --events` in a child process with these settings (from `config`,
    else written out for it), its events going to a file the caller follows
    (`catalog.BuildJob`); `rebuild` None: only if the index is stale (`--if-stale`); `watch`:
    `--watch` too, a child that stays and re-indexes each burst of file changes (`rebuild` is
    then not used), whose events go on in a new file beside the first as each grows past a
    limit (`build_events.rotate_events`; the follower deletes those it read). The child
    stays in this process group, so the Ctrl-C that stops the workbench stops it too (a killed
    build keeps the previous index; its fill resumes next time); a server stopped any other way
    stops it too: its stdin is a pipe whose end this process holds (`process.stdin`, kept open
    until this process ends; `stop_with_parent`). (the process, its events file)"""
    scratch = Path(tempfile.mkdtemp(prefix="ragstream-build-"))
    if config is None:
        config = str(scratch / "settings.json")
        Path(config).write_text(json.dumps(asdict(settings)), encoding="utf-8")
    events = scratch / "events.jsonl"
    when = ["--watch", "--events-file", str(events)] if watch else ["--if-stale"] if rebuild is None else ["--rebuild"] if rebuild else []
    command = [sys.executable, "-m", "ragstream", "--config", config, "index", str(path), "--events",
               *(["--name", name] if name else []), *when]
    with open(events, "wb") as out:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)
    return process, events
