"""A build killed mid-way leaves the previous index live and loadable."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ragstream.index import store
from ragstream.index.build import build_index, locate, repository_info
from tests.conftest import ctrl_c_as_in_a_terminal, make_settings


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_build_keeps_previous_index(tmp_path: Path, sig):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "first.py").write_text("def first():\n    return 1\n")
    settings = make_settings(tmp_path / "data")
    before = build_index(repo, settings)
    location = locate(repository_info(repo), settings)
    live = store.current_generation(location)

    # Enough new code that embedding takes seconds, so the kill lands mid-build.
    for i in range(40):
        functions = "\n\n".join(f"def handler_{i}_{j}(event):\n    return process_{j}(event, {i * j})"
                                for j in range(20))
        (repo / f"module_{i}.py").write_text(functions + "\n")
    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {tmp_path / 'data'}\n")
    existing = set(location.index_dir.glob("gen-*"))  # the live one, and the one a fill leaves to readers
    proc = subprocess.Popen([sys.executable, "-m", "ragstream.cli", "--config", str(config), "index", str(repo), "--wait"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=ctrl_c_as_in_a_terminal)
    staged = _wait_for_staged_generation(location, existing, proc)
    os.kill(proc.pid, sig)
    proc.wait(timeout=60)

    if store.current_generation(location) != live:
        # A progressive build publishes keyword-ready within a moment of writing its graph, and
        # then each fill batch: on a busy machine the signal can land after one of those
        # publishes. Then a new generation is live and whole (its vectors are filled in by the
        # next run), never a half-written one.
        stored = store.load_index(location)
        assert stored.manifest["vectors"]["stage"] in ("keyword", "heads", "complete")
        assert len(stored.chunks()) > before.chunks
    else:
        assert proc.returncode != 0  # stopped before it published (after it, Ctrl-C stops the fill cleanly)
        if sig == signal.SIGKILL:  # no chance to clean up: the half-written generation stays, never live
            assert staged.exists() and not (staged / store.MANIFEST).exists()
        else:  # Ctrl-C: the build removes what it staged
            assert not staged.exists()
        assert store.current_generation(location) == live
        stored = store.load_index(location)
        assert stored.manifest["counts"]["chunks"] == before.chunks
        assert [c.id for c in stored.chunks()] == ["py:first.first|FUNCTION"]

    after = build_index(repo, settings)  # the next build clears the debris and completes
    assert not staged.exists()
    assert store.load_index(location).manifest["counts"]["chunks"] == after.chunks > before.chunks


def _wait_for_staged_generation(location, existing: set[Path], proc: subprocess.Popen) -> Path:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for gen in location.index_dir.glob("gen-*"):
            if gen not in existing and (gen / store.GRAPH).exists():
                return gen
        if proc.poll() is not None:
            pytest.fail(f"build ended before it could be interrupted: {proc.stderr.read().decode()}")
        time.sleep(0.05)
    proc.kill()
    pytest.fail("no staged generation appeared")


def test_a_failed_fsync_publishes_nothing_and_keeps_the_live_generation(tmp_path: Path, monkeypatch):
    """The fsyncs of a staged generation's files run on threads (`store._Syncs`); if one fails (a
    disk error, injected here: no real disk fails on demand), `publish` raises it before `CURRENT`
    moves, the staged generation is removed, and the previous one is still live and whole."""
    location = store.IndexLocation(tmp_path / "data", "repo", "main")
    with store.staging(location) as first:
        store.write_bytes(first / "chunks.jsonl", b'{"id": "one"}\n')
        store.publish(location, first)
    real_fsync = os.fsync

    def failing(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").endswith("broken.bin"):
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(store.os, "fsync", failing)
    with pytest.raises(OSError, match="Input/output error"):
        with store.staging(location) as second:
            store.write_bytes(second / "chunks.jsonl", b'{"id": "two"}\n')
            store.write_bytes(second / "broken.bin", b"\x00" * 16)
            store.publish(location, second)
    assert store.current_generation(location) == first
    assert (first / "chunks.jsonl").read_bytes() == b'{"id": "one"}\n'
    assert not second.exists()
    assert not any(thread.name.startswith("ragstream-fsync") for thread in threading.enumerate())
