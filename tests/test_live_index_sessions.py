"""The live index with several workbench sessions, through the controller they call: each
session's watcher follows its own index and is left alone by the others' choices (no switching
back and forth), a watcher names only the changed paths a session may see, answer file tables
are bounded, and a state whose basis is malformed is refused with a typed error (real index
builds, real `ragstream index --watch --events` children)."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from ragstream import answer_sources, controller as controller_module
from ragstream.answer_sources import BASIS
from ragstream.catalog import WatchJob
from ragstream.cli import main
from ragstream.controller import Controller
from ragstream.index.build import build_index
from ragstream.index.embeddings import Embedder
from tests.conftest import make_settings
from tests.test_live_index import NEW_FUNCTION, alive, ask, eventually, index_of


def scratch_of(pid: int) -> Path:
    """The scratch folder of a watching child (its settings file is written there)."""
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    return Path(argv[argv.index(b"--config") + 1].decode()).parent


def test_sessions_following_different_indexes_keep_their_own_watchers(sample_repo: Path, tmp_path: Path,
                                                                      monkeypatch):
    settings = make_settings(tmp_path / "data", index={"watch_debounce_ms": 200})
    build_index(sample_repo, settings, embedder=Embedder())
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.py").write_text(NEW_FUNCTION)
    build_index(other, settings, embedder=Embedder())
    with Controller(settings) as controller:
        first, second = index_of(controller, sample_repo), index_of(controller, other)
        a = controller.follow(first, "one")
        b = controller.follow(second, "two")
        assert a is not None and b is not None and a is not b
        pids = (a.pid, b.pid)
        for _ in range(3):  # each page run of each session asks again: nothing is switched or restarted
            assert controller.follow(first, "one") is a and controller.follow(second, "two") is b
        assert (a.pid, b.pid) == pids and alive(a.pid) and alive(b.pid)
        assert controller.following("one") is a and controller.following("two") is b
        scratch = scratch_of(a.pid)
        assert (scratch / "events.jsonl").is_file()

        assert controller.follow(None, "three") is None  # a session with follow off stops nobody's
        assert controller.follow(first, "four") is a  # a second session on the same index shares it
        controller.follow(None, "one")
        assert alive(a.pid) and controller.following("four") is a
        controller.follow(None, "four")  # the last session following it lets go: it stops
        assert not alive(pids[0]) and alive(b.pid) and controller.following("two") is b
        assert not scratch.exists()  # its events and settings go with it

        moved = controller.follow(first, "two")  # a session switching stops only what nobody follows now
        assert moved is not None and moved is not a and not alive(pids[1]) and alive(moved.pid)

        monkeypatch.setattr(controller_module, "FOLLOW_LEASE_SECONDS", 0.5)
        time.sleep(0.6)  # session "two" is not seen again (its tab was closed)
        controller.follow(None, "five")
        assert not alive(moved.pid) and controller.following("two") is None

        monkeypatch.setattr(controller_module, "FOLLOW_LEASE_SECONDS", 120.0)
        old = controller.follow(first, "six")
        assert old is not None
        eventually(lambda: old.watcher_up and not old.refreshing)
        letting_go = threading.Thread(target=controller.follow, args=(None, "six"))
        letting_go.start()  # while its child ends, another session follows that index again
        again = controller.follow(first, "seven")
        letting_go.join()
        assert again is not None and (again is old or not alive(old.pid))
        eventually(lambda: again.watcher_up and not again.refreshing)
        assert again.error is None and again.running and controller.following("seven") is again


def test_a_watcher_names_only_the_paths_the_session_may_see(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.py").write_text(NEW_FUNCTION)
    build_index(other, settings, fill=False)
    (sample_repo / ".env").write_text("PAYROLL_DB_PASSWORD=hunter2\n")  # never indexed
    (sample_repo / "db" / "payroll_secrets.sql").write_text("SELECT 1;\n")
    util = sample_repo / "billing" / "util.py"
    util.write_text(util.read_text() + "\n" + NEW_FUNCTION)
    with Controller(settings) as controller:
        own, theirs = index_of(controller, sample_repo), index_of(controller, other)
        job = WatchJob(sample_repo.resolve(), own.index, settings)  # fed the burst its child would report
        job.changed([".env", "billing/util.py", "db/payroll_secrets.sql"])
        assert controller.watch_paths(job, own, {"paths_exclude": ["db/**"]}) == (("billing/util.py",), 0)
        assert controller.watch_paths(job, own, {"paths_include": ["docs/**"]}) == ((), 0)  # not even counted
        assert controller.watch_paths(job, own, {}) == (("billing/util.py", "db/payroll_secrets.sql"), 0)
        assert controller.watch_paths(job, own, {"paths_include": ["!"]}) == ((), 0)  # unreadable: nothing named
        assert controller.watch_paths(job, theirs, {}) == ((), 3)  # another index's watcher: a count alone
        assert controller.watch_paths(job, None, {}) == ((), 3)


def test_a_state_with_a_malformed_basis_is_refused_naming_it(sample_repo: Path, tmp_path: Path, capsys):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    with Controller(settings) as controller:
        state = json.loads(ask(controller, index_of(controller, sample_repo)).to_json())
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"index": {"data_dir": str(tmp_path / "data")}}))
    for bad in ({"files": "ab" * 32, "repository": "sample_repo"}, "zzz", {**state["extras"][BASIS], "files": 7},
                {**state["extras"][BASIS], "files": "../../etc/passwd"}):
        path = tmp_path / "bad.json"
        path.write_text(json.dumps({**state, "extras": {BASIS: bad}}))
        assert main(["--config", str(config), "changed", str(path)]) == 2
        err = capsys.readouterr().err
        assert f"{path}: extras.basis:" in err and "Traceback" not in err


def test_answer_tables_are_bounded_on_disk_and_in_memory(sample_repo: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setattr(answer_sources, "TABLES_KEPT", 2)
    monkeypatch.setattr(answer_sources, "TABLES_CACHED", 1)
    settings = make_settings(tmp_path / "data")
    tables = tmp_path / "data" / answer_sources.SOURCES_DIR
    with Controller(settings) as controller:
        answers = []
        for n in range(3):  # three generations, three file tables
            (sample_repo / "billing" / f"extra_{n}.py").write_text(NEW_FUNCTION)
            build_index(sample_repo, settings, fill=False)
            answers.append(ask(controller, index_of(controller, sample_repo)))
        digests = [sp.extras[BASIS]["files"] for sp in answers]
        assert sorted(path.stem for path in tables.glob("*.json")) == sorted(digests[1:])  # the oldest pruned
        assert "pruned" in controller.changes_since(answers[0]).unknown

        assert controller.changes_since(answers[1]).count == 1  # read, and held
        (tables / f"{digests[1]}.json").unlink()
        assert controller.changes_since(answers[1]).count == 1  # still held: the one read last
        assert controller.changes_since(answers[2]).count == 0  # read: the other is let go
        assert "gone" in controller.changes_since(answers[1]).unknown
