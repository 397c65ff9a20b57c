"""A build the workbench follows (`ragstream index --events`) ends with the workbench, however
that stops: here its parent is killed outright (SIGKILL, nothing runs on its way out), and the
build, mid-way through ragstream's own source, must be gone within seconds."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from tests.test_live_index import descendants

PARENT = """
import sys, time
from ragstream.config import PROJECT_ROOT, load_settings
from ragstream.index.background import start_followed_build
process, events = start_followed_build(load_settings(sys.argv[1]), PROJECT_ROOT, "lifetime", True, sys.argv[1])
print(process.pid, events, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """Running (a zombie awaiting its reaper counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.slow
def test_a_followed_build_stops_when_the_workbench_that_started_it_is_killed(tmp_path):
    settings = tmp_path / "settings.yaml"
    settings.write_text(yaml.safe_dump({"index": {"data_dir": str(tmp_path / "data")}}), encoding="utf-8")
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(settings)], stdout=subprocess.PIPE, text=True)
    try:
        pid_text, events_path = parent.stdout.readline().split()
        child, events = int(pid_text), Path(events_path)
        deadline = time.time() + 120
        while time.time() < deadline and not (events.exists() and events.stat().st_size):
            time.sleep(0.2)  # the build has begun: it reports its first phase
        assert _alive(child), "the build ended before the test could stop its parent"
        workers = descendants(child)  # its parse workers, while it parses
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.time() + 15
        while time.time() < deadline and any(map(_alive, {child, *workers})):
            time.sleep(0.2)
        assert not _alive(child), "the followed build outlived the process that started it"
        assert not any(map(_alive, workers)), "a parse worker outlived the build that forked it"
    finally:
        parent.kill()
        parent.wait(timeout=30)


CHILD = """
import threading, time
from ragstream.index.background import stop_with_parent
from ragstream.index.workers import worker_count
stop_with_parent()
print(threading.active_count(), worker_count(1000, 1), flush=True)
time.sleep(600)
"""


def test_a_followed_child_ends_with_its_parents_pipe_and_starts_no_thread():
    """`stop_with_parent` arms the stdin pipe its parent holds (`start_followed_build`): no
    thread runs, so the build's parse may fork workers; the child outlives the parent's thread
    that started it (the workbench starts it from a page run's, which ends with the run), and
    closing the pipe, as the parent's end does, ends it (SIGTERM)."""
    started: list[subprocess.Popen] = []
    starter = threading.Thread(target=lambda: started.append(subprocess.Popen(
        [sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})))
    starter.start()
    starter.join()
    child = started[0]
    try:
        threads, workers = map(int, child.stdout.readline().split())
        assert threads == 1 and workers == len(os.sched_getaffinity(0))
        time.sleep(0.5)
        assert _alive(child.pid)
        child.stdin.close()
        assert child.wait(timeout=15) == -signal.SIGTERM
    finally:
        child.kill()
        child.wait(timeout=30)
