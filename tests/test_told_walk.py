"""A walk told which paths changed (`walk.walk_told`: what a watching process knows from its
watcher) finds what a whole walk finds, or says it cannot; and a build told so equals a full build."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from watchfiles import Change

from ragstream.index import store
from ragstream.index.build import build_index, locate, repository_info
from ragstream.index.walk import WalkResult, walk_repository, walk_told
from ragstream.index.watch import WalkedPaths
from tests.conftest import make_settings
from tests.test_warm_rebuild import _equals_a_full_build

SETTINGS = make_settings(Path("/nonexistent")).index


def whole(repo: Path) -> WalkResult:
    return walk_repository(repo, SETTINGS, with_text=False)


def assert_told_equals_whole(repo: Path, last: WalkResult, changed: list[str]) -> WalkResult:
    told = walk_told(last, SETTINGS, changed)
    assert told is not None
    now = whole(repo)
    assert told.files == now.files and told.skipped == now.skipped
    return told


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_edits_additions_and_deletions_told_are_walked_as_a_whole_walk_would(sample_repo: Path):
    write(sample_repo / ".gitignore", "out/\n*.tmp\n")
    write(sample_repo / "billing" / "out" / "gen.py", "x = 1\n")
    write(sample_repo / "billing" / "stubbed.pyi", "def f() -> int: ...\n")
    last = whole(sample_repo)
    util = sample_repo / "billing" / "util.py"
    util.write_text(util.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    (sample_repo / "billing" / "legacy.py").unlink()
    write(sample_repo / "billing" / "added.py", "def added():\n    return 1\n")
    write(sample_repo / "billing" / "notes.tmp", "gitignored\n")
    write(sample_repo / "billing" / "picture.png", "not indexed\n")
    write(sample_repo / "billing" / "out" / "gen2.py", "y = 2\n")  # in a folder the walk skips
    write(sample_repo / "billing" / "stubbed.py", "def f():\n    return 1\n")  # its stub is skipped now
    changed = ["billing/util.py", "billing/legacy.py", "billing/added.py", "billing/notes.tmp",
               "billing/picture.png", "billing/out/gen2.py", "billing/stubbed.py"]
    told = assert_told_equals_whole(sample_repo, last, changed)
    assert "billing/added.py" in {f.path for f in told.files}
    assert {s.path: s.reason for s in told.skipped}["billing/stubbed.pyi"] == "stub"
    (sample_repo / "billing" / "stubbed.py").unlink()  # and the stub is indexed again
    assert_told_equals_whole(sample_repo, told, ["billing/stubbed.py"])


@pytest.mark.parametrize("change", ["gitignore", "ragstreamignore", "folder", "gone folder", "virtualenv"])
def test_a_change_that_moves_what_a_walk_keeps_elsewhere_is_walked_whole(sample_repo: Path, change: str):
    last = whole(sample_repo)
    changed = {"gitignore": "billing/.gitignore", "ragstreamignore": ".ragstreamignore", "folder": "newpkg",
               "gone folder": "billing", "virtualenv": "billing/pyvenv.cfg"}[change]
    if change == "folder":
        write(sample_repo / "newpkg" / "mod.py", "z = 3\n")
    elif change == "gone folder":
        shutil.rmtree(sample_repo / "billing")
    else:
        write(sample_repo / changed, "*.py\n")
    assert walk_told(last, SETTINGS, [changed]) is None


def test_a_told_walk_past_the_file_limit_is_walked_whole(sample_repo: Path):
    last = whole(sample_repo)
    met = len(last.files) + sum(1 for s in last.skipped if not s.path.endswith("/"))
    write(sample_repo / "billing" / "one_more.py", "w = 4\n")
    limited = make_settings(Path("/nonexistent"), index={"max_files": met}).index
    assert walk_told(last, limited, ["billing/one_more.py"]) is None
    assert walk_told(last, SETTINGS, ["billing/one_more.py"]) is not None


def test_a_build_told_what_changed_walks_only_that_and_equals_a_full_build(sample_repo: Path, tmp_path: Path,
                                                                            monkeypatch):
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    service = sample_repo / "billing" / "service.py"
    service.write_text(service.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    (sample_repo / "billing" / "legacy.py").unlink()
    import ragstream.index.build as build

    def no_whole_walk(*args, **kwargs):
        raise AssertionError("walked everything")

    with monkeypatch.context() as patched:
        patched.setattr(build, "walk_repository", no_whole_walk)
        report = build_index(sample_repo, settings, fill=False, changed=["billing/legacy.py", "billing/service.py"])
        assert report.changes.changed == ["billing/service.py"] and report.changes.deleted == ["billing/legacy.py"]
        assert build_index(sample_repo, settings, fill=False, changed=["billing/service.py"]).unchanged
    _equals_a_full_build(sample_repo, settings, tmp_path, (store.PARSED, store.CHUNKS, store.GRAPH))
    full = store.load_index(locate(repository_info(sample_repo), make_settings(tmp_path / "full")))
    told = store.load_index(locate(repository_info(sample_repo), settings))
    assert told.manifest["counts"] == full.manifest["counts"] and told.manifest["files"] == full.manifest["files"]


def test_a_build_that_failed_leaves_no_walk_to_be_told_from(sample_repo: Path, tmp_path: Path, monkeypatch):
    """The paths a failed build was told of are not lost: the next build walks everything."""
    settings = make_settings(tmp_path / "data")
    build_index(sample_repo, settings, fill=False)
    util = sample_repo / "billing" / "util.py"
    util.write_text(util.read_text(encoding="utf-8") + "\n# one\n", encoding="utf-8")
    import ragstream.index.build as build

    def fails(*args, **kwargs):
        raise OSError("the disk")

    with monkeypatch.context() as patched:
        patched.setattr(build, "parsed_json", fails)
        with pytest.raises(OSError):
            build_index(sample_repo, settings, fill=False, changed=["billing/util.py"])
    report = build_index(sample_repo, settings, fill=False, changed=[])  # told nothing: walks all, finds util.py
    assert report.changes.changed == ["billing/util.py"]


def test_the_watcher_reports_every_path_a_walk_could_list(tmp_path: Path):
    root, data = tmp_path / "repo", tmp_path / "repo" / "data"
    paths = WalkedPaths(root, data, SETTINGS.vendored_dirs)
    reported = {p: paths(Change.modified, str(root / p)) for p in (
        "a.py", "a.py.swp", "flycheck_a.py", ".hypothesis/x.py", "node_modules", "node_modules/x.js", "data/gen-1/x",
        "pkg/.git/HEAD", "pkg/.git")}
    assert reported == {"a.py": True, "a.py.swp": True, "flycheck_a.py": True, ".hypothesis/x.py": True,
                        "node_modules": True, "node_modules/x.js": False, "data/gen-1/x": False,
                        "pkg/.git/HEAD": False, "pkg/.git": True}


def test_a_template_added_or_removed_beside_its_generated_code_is_walked_as_a_whole_walk_would(sample_repo: Path):
    # `Page.cshtml.cs` (generated) is indexed alone and skipped beside an indexed `Page.cshtml`
    write(sample_repo / "web" / "Page.cshtml.cs", "// <auto-generated />\nnamespace Web { public class Page { } }\n")
    last = whole(sample_repo)
    write(sample_repo / "web" / "Page.cshtml", "@page\n<h1>Hello</h1>\n")
    told = assert_told_equals_whole(sample_repo, last, ["web/Page.cshtml"])
    (sample_repo / "web" / "Page.cshtml").unlink()
    assert_told_equals_whole(sample_repo, told, ["web/Page.cshtml"])


def test_a_folder_the_told_walk_cannot_read_falls_back_to_the_whole_walk(sample_repo: Path, monkeypatch):
    last = whole(sample_repo)
    write(sample_repo / "billing" / "added.py", "x = 1\n")

    def unreadable(*args, **kwargs):
        raise PermissionError("no access")

    monkeypatch.setattr("ragstream.index.walk._directory_skip_reason", unreadable)
    assert walk_told(last, SETTINGS, ["billing/added.py"]) is None
