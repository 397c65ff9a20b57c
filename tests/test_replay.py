"""Incremental equals full, commit after commit, on real histories (issue 40): each commit's
files are written into a git work tree (and committed there, so the change history follows),
re-indexed incrementally into one data folder and built from scratch into an empty one; graph
(nodes and edges with their attributes), chunks, BM25 files and change history must be the
same. After each commit an edit that moves lines but changes no flow fact (a comment line
inserted at the top of a Python file) is replayed too: the incremental build takes the previous
graph with that file's lines moved (and so the previous Python call solve) and must still equal
a full build, lines included.
Every other commit is re-indexed as a new process would (`warm_state.forget`: parse records,
chunks and keyword terms read back or made again); the rest, and every line shift, as `index
--watch` does, from what the process kept of its previous build (chunks taken as they were,
keyword terms, embedding texts, line pieces, token counts).
ragstream's own history runs wherever its checkout has one (CI does); a C# + SQL application's
when its mirror is on the machine. Each replays its last 6 commits (`RAGSTREAM_REPLAY_COMMITS`
replays more, for a longer check by hand)."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from dataclasses import asdict
from pathlib import Path

import orjson
import pytest

from ragstream.config import PROJECT_ROOT
from ragstream.index import store
from ragstream.index.build import build_index, locate, repository_info
from ragstream.index.warm_state import forget
from tests.conftest import make_settings

CONTOSO = Path("/work/.mirror/jbogard+ContosoUniversityDotNetCore-Pages/repo")
INDEXED = ["*.cs", "*.cshtml", "*.razor", "*.sql", "*.py"]
COMMITS = int(os.environ.get("RAGSTREAM_REPLAY_COMMITS", "6"))


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def commits_touching(git_dir: str, paths: list[str], n: int) -> list[str]:
    """The last `n` commits that changed `paths`, oldest first (merges left out)."""
    return git("--git-dir", git_dir, "log", "--no-merges", "--format=%H", "-n", str(n), "--", *paths).split()[::-1]


def check_out(git_dir: str, commit: str, subtree: list[str], work: Path) -> None:
    """Make `work` hold exactly the commit's files under `subtree` (everything when empty) and
    commit them there under the commit's message."""
    for entry in work.iterdir():
        if entry.name != ".git":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", commit, *subtree], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(work, filter="data")
    message = git("--git-dir", git_dir, "log", "-1", "--format=%B", commit)
    git("add", "-A", cwd=work)
    git("-c", "user.name=replay", "-c", "user.email=replay@example.invalid", "commit", "-q", "--allow-empty",
        "-m", message or commit, cwd=work)


def snapshot(settings, repo: Path) -> dict:
    """What an index answers from, in a form two builds can be compared by."""
    stored = store.load_index(locate(repository_info(repo), settings))
    graph = stored.graph()

    def dump(value) -> bytes:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)

    return {
        "nodes": sorted((node, dump(data)) for node, data in graph.nodes(data=True)),
        "edges": sorted((u, v, key, dump(data)) for u, v, key, data in graph.edges(keys=True, data=True)),
        "chunks": [dump(asdict(chunk)) for chunk in stored.chunks()],
        "bm25": {p.name: p.read_bytes() for p in sorted(stored.bm25_dir.iterdir())},
        "change_history": stored.change_history(),
        "counts": stored.manifest["counts"],
        "files": {path.relative_to(stored.generation).as_posix(): path.read_bytes() for folder in WRITTEN_AS_MADE
                  for path in sorted((stored.generation / folder).rglob("*")) if path.is_file()},
    }


# Files of a generation that a build writes from what it made (or kept) -- not from vectors or
# timestamps -- compared byte for byte: the graph's forms, the chunks' and the parse records.
WRITTEN_AS_MADE = (store.GRAPH, "graph_compact", "mentions", "chunk_table", store.CHUNKS, store.PARSED)


def shift_lines(work: Path) -> bool:
    """Insert a comment line at the top of the largest Python file and commit it: every line
    below moves, no flow fact changes. False when there is no Python file."""
    files = sorted(work.rglob("*.py"), key=lambda p: (-p.stat().st_size, p.as_posix()))
    if not files:
        return False
    files[0].write_text("# a line that moves every line below it\n" + files[0].read_text(encoding="utf-8"),
                        encoding="utf-8")
    git("-c", "user.name=replay", "-c", "user.email=replay@example.invalid", "commit", "-qam", "shift lines",
        cwd=work)
    return True


def build_both_and_compare(work: Path, incremental, full_dir: Path, step: str, new_process: bool = False):
    """The incremental re-index of `work` (`new_process`: with nothing kept in this process)
    and a full build must be the same index; returns the incremental build's report. The full
    build starts from an empty data folder: no parse, text, token or line-cost cache of an
    earlier build answers for it, nor anything this process kept."""
    if new_process:
        forget(locate(repository_info(work), incremental))
    report = build_index(work, incremental, fill=False)
    shutil.rmtree(full_dir, ignore_errors=True)
    full = make_settings(full_dir)
    build_index(work, full, rebuild=True, fill=False)
    left, right = snapshot(incremental, work), snapshot(full, work)
    assert left["edges"] and left["chunks"]
    for part in left:
        assert left[part] == right[part], f"{part} differs after {step}"
    return report


def replay_and_compare(git_dir: str, commits: list[str], subtree: list[str], tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    git("init", "-q", "-b", "main", cwd=work)
    incremental = make_settings(tmp_path / "incremental")
    incremental_builds, changed_files, reused_parses, reused_solves, reused_chunks, moved_graphs = 0, 0, 0, 0, 0, 0
    for number, commit in enumerate(commits):
        check_out(git_dir, commit, subtree, work)
        report = build_both_and_compare(work, incremental, tmp_path / "full", f"commit {commit[:10]}",
                                        new_process=number % 2 == 1)
        if report.incremental:
            incremental_builds += 1
            changed_files += report.changes.stale
            reused_parses += report.files - report.reparsed
        if shift_lines(work):
            shifted = build_both_and_compare(work, incremental, tmp_path / "full", f"lines shifted after {commit[:10]}")
            reused_solves += shifted.python_solve_reused
            reused_chunks += shifted.chunks_reused > 0
            moved_graphs += shifted.graph_moved
    # Every build after the first was incremental, with files to change and parses to reuse;
    # every line shift in a Python history reused the solve before it, the graph (its lines
    # moved: `graph_reuse`) and chunks the build before made.
    assert incremental_builds == len(commits) - 1 and changed_files and reused_parses
    if any(work.rglob("*.py")):
        assert reused_solves == reused_chunks == moved_graphs == len(commits)


@pytest.mark.slow
def test_ragstream_own_history_incremental_equals_full(tmp_path: Path):
    subtree = ["ragstream/retrieval", "ragstream/graph"]
    git_dir = git("rev-parse", "--absolute-git-dir", cwd=PROJECT_ROOT).strip()
    commits = commits_touching(git_dir, subtree, COMMITS)
    if len(commits) < 2:
        pytest.skip("this checkout has no history to replay (a shallow clone)")
    replay_and_compare(git_dir, commits, subtree, tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(not CONTOSO.is_dir(), reason="the ContosoUniversityDotNetCore-Pages mirror is not on this machine")
def test_a_csharp_and_sql_application_history_incremental_equals_full(tmp_path: Path):
    commits = commits_touching(str(CONTOSO), INDEXED, COMMITS)
    replay_and_compare(str(CONTOSO), commits, [], tmp_path)
