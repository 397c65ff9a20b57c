"""Index work handed to a detached process: the semantic fill after keyword-ready, or a whole
build (`ragstream index --background`). The process outlives the command that started it; its
output goes to a log file in the index folder."""
from __future__ import annotations

import json
import os
import signal
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
    (Ctrl-C, SIGTERM, a crash). A thread polls the parent's pid; once the process is orphaned it
    sends itself SIGTERM, which a build survives as any stopped build does: the previous index
    stays, a fill resumes next time. A detached build (`--background`) does not call this."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="ragstream-parent-watch", daemon=True).start()


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
    then not used). The child
    stays in this process group, so the Ctrl-C that stops the workbench stops it too (a killed
    build keeps the previous index; its fill resumes next time); a server stopped any other way
    stops it too (`stop_with_parent`). (the process, its events file)"""
    scratch = Path(tempfile.mkdtemp(prefix="ragstream-build-"))
    if config is None:
        config = str(scratch / "settings.json")
        Path(config).write_text(json.dumps(asdict(settings)), encoding="utf-8")
    events = scratch / "events.jsonl"
    when = ["--watch"] if watch else ["--if-stale"] if rebuild is None else ["--rebuild"] if rebuild else []
    command = [sys.executable, "-m", "ragstream", "--config", config, "index", str(path), "--events",
               *(["--name", name] if name else []), *when]
    with open(events, "wb") as out:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    return process, events
