"""`ragstream index --watch` as a user runs it: a real child process, a real file edit, the
refresh line, a search that finds the new text, then Ctrl-C and a clean exit."""
from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ragstream.cli import main
from tests.conftest import ctrl_c_as_in_a_terminal


class Lines:
    """A child's output lines, read on a thread so that waiting for one can time out."""

    def __init__(self, stream) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream) -> None:
        for line in stream:
            self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, text: str, seconds: float) -> str:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} in {seconds} s; output so far:\n{''.join(self.seen)}")


@pytest.mark.slow
def test_watch_follows_an_edit_and_stops_on_ctrl_c(sample_repo: Path, tmp_path: Path, capsys):
    config = tmp_path / "settings.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n  watch_debounce_ms: 200\n")
    child = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", str(config), "index", str(sample_repo),
                              "--watch", "--wait"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env={**os.environ, "COLUMNS": "400"}, preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        lines = Lines(child.stdout)
        first = lines.wait_for("refreshed:", 180)
        assert "full build" in first and "stage: complete" in first
        lines.wait_for("watching", 30)

        util = sample_repo / "billing" / "util.py"
        util.write_text(util.read_text() + "\n\ndef quokka_ledger_refresh(entry):\n    return entry\n")
        line = lines.wait_for("refreshed:", 120)
        assert "0 added, 1 changed, 0 deleted" in line and "billing/util.py" in line
        # a Python edit: askable first with the graph marked as updating, then linked (`graph_interim`);
        # said once both are published, so in the past tense with both times (not "not linked yet")
        assert re.search(r"askable in [0-9.]+ s \(graph updating\), linked and keyword-ready in [0-9.]+ s", line)
        assert "not linked yet" not in line

        capsys.readouterr()
        assert main(["--config", str(config), "search", "quokka_ledger_refresh", "--mode", "bm25", "--json"]) == 0
        assert "py:billing.util.quokka_ledger_refresh|FUNCTION" in capsys.readouterr().out

        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=30) == 0
        lines.wait_for("stopped watching", 5)
        assert not any("Traceback" in seen for seen in lines.seen)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_watch_refuses_modes_it_cannot_follow(sample_repo: Path, tmp_path: Path, capsys):
    config = tmp_path / "settings.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    assert main(["--config", str(config), "index", str(sample_repo), "--watch", "--background"]) == 2
    assert "--watch stays in the foreground" in capsys.readouterr().err
