"""The workbench's live index, through the controller it calls: an answer records what it was
made from, says which files changed since (its filters obeyed) and whether the index already
holds them; one watching builder child follows the index served (real index builds, real
edits, a real `ragstream index --watch --events` child and watcher), is stopped when the index
changes, and leaves no process behind."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from ragstream import catalog
from ragstream.answer_sources import BASIS, UNWATCHED_TREE_SECONDS
from ragstream.cli import main
from ragstream.controller import Controller
from ragstream.index.build import build_index
from ragstream.index.embeddings import Embedder
from tests.conftest import make_settings

QUESTION = "How is an invoice total computed?"
NEW_FUNCTION = "def quokka_ledger_refresh(entry):\n    return entry\n"
WAIT_SECONDS = 180  # a generous bound on a loaded machine, never a timing assertion


def eventually(what: Callable[[], object], seconds: float = WAIT_SECONDS, every: float = 0.2):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := what():
            return value
        time.sleep(every)
    raise AssertionError(f"not within {seconds} s: {what}")


def alive(pid: int) -> bool:
    """Running (a zombie awaiting its reaper counts as gone)."""
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def index_of(controller: Controller, repo: Path) -> catalog.IndexSummary:
    return next(s for s in controller.indexes() if Path(s.source_root) == repo.resolve())


def ask(controller: Controller, index: catalog.IndexSummary, filters: dict | None = None):
    sp, _ = controller.run(QUESTION, controller.scope_of(index, filters), controller.pipeline("base"))
    return sp


def test_an_answer_says_which_files_changed_since_and_whether_the_index_has_them(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    with Controller(settings) as controller:
        index = index_of(controller, sample_repo)
        sp = ask(controller, index)
        basis = sp.extras[BASIS]
        assert basis["generation"] == Path(str(catalog.store.current_generation(
            catalog.store.IndexLocation(tmp_path.joinpath("data").resolve(), index.repository, index.index)))).name
        assert (tmp_path / "data" / "answer_sources" / f"{basis['files']}.json").is_file()
        assert controller.changes_since(sp).count == 0

        (sample_repo / "billing" / "util.py").write_text(NEW_FUNCTION)
        (sample_repo / "billing" / "ledger.py").write_text(NEW_FUNCTION)
        (sample_repo / "db" / "reporting_pg.sql").unlink()
        changes = eventually(lambda: (c := controller.changes_since(sp)).count and c)  # past the unwatched reuse
        assert (changes.added, changes.modified, changes.deleted) == \
            (("billing/ledger.py",), ("billing/util.py",), ("db/reporting_pg.sql",))
        assert not changes.refreshed and not changes.in_index  # the index has not been refreshed yet
        shown, more = changes.listed(2)
        assert [(kind, path) for kind, path, _ in shown] == [("added", "billing/ledger.py"),
                                                               ("modified", "billing/util.py")] and more == 1

        hidden = ask(controller, index, {"paths_exclude": ["billing/**"]})
        (sample_repo / "billing" / "util.py").write_text(NEW_FUNCTION + "\n# again\n")
        time.sleep(UNWATCHED_TREE_SECONDS + 0.1)  # past the unwatched source folder's reuse
        # the filters hide billing/: its files are never named, nor counted
        assert controller.changes_since(hidden).entries() == [("deleted", "db/reporting_pg.sql")]

        build_index(sample_repo, settings, fill=False)  # the refresh
        refreshed = controller.changes_since(sp)
        assert refreshed.refreshed and refreshed.count == 3 and refreshed.generation != basis["generation"]
        assert controller.changes_since(ask(controller, index)).count == 0  # a new answer: made from the refresh


def test_the_cli_says_what_changed_since_a_saved_answer(sample_repo: Path, tmp_path: Path, capsys):
    config = tmp_path / "settings.yaml"
    config.write_text(yaml.safe_dump({"index": {"data_dir": str(tmp_path / "data")}}), encoding="utf-8")
    build_index(sample_repo, make_settings(tmp_path / "data"), fill=False)
    state = tmp_path / "answer.json"
    assert main(["--config", str(config), "ask", QUESTION, "--save-state", str(state)]) == 0
    capsys.readouterr()
    assert main(["--config", str(config), "changed", str(state)]) == 0
    assert "no file of the index changed since this answer" in capsys.readouterr().out

    (sample_repo / "billing" / "util.py").write_text(NEW_FUNCTION)
    assert main(["--config", str(config), "changed", str(state)]) == 0
    out = capsys.readouterr().out
    assert "1 file(s) changed since this answer" in out and "modified" in out
    assert "billing/util.py  (not in the index yet)" in out
    assert main(["--config", str(config), "changed", str(state), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["modified"] == ["billing/util.py"]
    assert main(["--config", str(config), "changed", str(tmp_path / "missing.json")]) == 2
    assert "cannot read the state" in capsys.readouterr().err


def test_one_watching_child_follows_the_index_served_and_stops_when_it_changes(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data", index={"watch_debounce_ms": 200})
    build_index(sample_repo, settings, embedder=Embedder())  # complete: the child's first build has nothing to do
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.py").write_text(NEW_FUNCTION)
    build_index(other, settings, fill=False)
    with Controller(settings) as controller:
        index = index_of(controller, sample_repo)
        sp = ask(controller, index)
        job = controller.follow(index)
        assert job is not None and controller.follow(index) is job  # one per index, kept across page runs
        eventually(lambda: job.watcher_up and not job.refreshing)
        assert job.error is None and job.report is not None and job.report.unchanged

        util = sample_repo / "billing" / "util.py"
        util.write_text(util.read_text() + "\n\n" + NEW_FUNCTION)
        eventually(lambda: job.refreshes >= 2 and not job.refreshing)
        assert job.error is None and job.seen == ["billing/util.py"] and not job.report.unchanged
        _, response, _ = controller.search(controller.scope_of(index), "bm25", "quokka_ledger_refresh", 3)
        assert response.hits[0].id == "py:billing.util.quokka_ledger_refresh|FUNCTION"
        changes = controller.changes_since(sp)
        assert changes.modified == ("billing/util.py",) and changes.refreshed

        first = job.pid
        assert first is not None and alive(first)
        below = descendants(first)
        switched = controller.follow(index_of(controller, other))
        assert switched is not None and switched is not job and controller.following() is switched
        assert not alive(first) and not any(alive(pid) for pid in below)
        assert job.error is None  # stopped on purpose: not an error
        second = switched.pid
        assert second is not None
        controller.follow(None)
        assert not alive(second) and controller.following() is None


PARENT = """
import sys, time
from ragstream.config import load_settings
from ragstream.controller import Controller
controller = Controller(load_settings(sys.argv[1]))
index = next(s for s in controller.indexes() if s.problem is None)
job = controller.follow(index)
while not job.watcher_up:
    time.sleep(0.1)
print(job.pid, flush=True)
time.sleep(600)
"""


def test_the_watching_child_ends_with_the_workbench_however_it_ends(sample_repo: Path, tmp_path: Path):
    config = tmp_path / "settings.yaml"
    config.write_text(yaml.safe_dump({"index": {"data_dir": str(tmp_path / "data")}}), encoding="utf-8")
    build_index(sample_repo, make_settings(tmp_path / "data"), embedder=Embedder())
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(config)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    try:
        child = int(parent.stdout.readline())
        assert alive(child)
        os.kill(parent.pid, signal.SIGKILL)  # nothing runs on its way out
        parent.wait(timeout=30)
        eventually(lambda: not alive(child), seconds=15)
    finally:
        parent.kill()
        parent.wait(timeout=30)
