"""No planted secret reaches anything: a real index of a git repository holding the planted
corpus (files and commit messages), then every byte under the data folder (SQLite files, parse
caches, also of parses cached under earlier rules, graph, BM25 and FAISS files, history) and
every output of `index`, `search`, `expand` (with its graph HTML) and
`ask --show-prompt --save-state --session new`."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragstream.cli import main
from ragstream.index.blob_cache import BlobCache
from ragstream.redact.corpus import COMMIT, write_repository


def needles(secrets: list[str]) -> set[bytes]:
    """Each secret as written, lower-cased (BM25 vocabularies) and as its long alphanumeric runs
    (a tokenizer or an escaper may cut it at punctuation)."""
    found = set()
    for secret in secrets:
        found |= {secret.encode(), secret.lower().encode()}
        found |= {run.lower().encode() for run in re.findall(r"[A-Za-z0-9]{10,}", secret)}
    return found


@pytest.mark.slow
def test_no_planted_secret_reaches_the_index_or_any_output(tmp_path: Path, capsys):
    repo, data, out = tmp_path / "repo", tmp_path / "data", tmp_path / "out"
    out.mkdir()
    chosen = write_repository(repo)
    secrets = [s for plant in chosen for s in plant.secrets]
    pasted = "Qv" + "73kzp!Wd9x"  # a secret pasted into a question
    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {data}\n", encoding="utf-8")
    outputs = []

    def run(*args: str) -> None:
        assert main(["--config", str(config), *args]) == 0
        captured = capsys.readouterr()
        outputs.append(captured.out + captured.err)

    run("index", str(repo))
    assert "secrets redacted:" in outputs[-1]
    # A parse cached by an earlier ragstream, under rules that missed a secret: the next build wipes it.
    stale = "Lp" + "40xcq!Tr7m"
    (parse_cache,) = data.rglob("parse_cache.sqlite")
    cache = BlobCache(parse_cache, "parsed", "record")
    cache.put_many({f"1:0123456789ab:{'0' * 64}:python::auto": f'{{"text": "pwd = {stale}"}}'.encode()})
    cache.close()
    (repo / "app" / "settings.py").write_text((repo / "app" / "settings.py").read_text() + "\nx = 1\n")
    run("index", str(repo))
    question = f"how does login use the password, is it password={pasted} or the api key?"
    run("search", question, "--top-k", "30")
    run("search", "AWS_SECRET_ACCESS_KEY connection string AccountKey webhook", "--mode", "bm25", "--top-k", "30")
    run("expand", question, "--html", str(out / "graph.html"), "--show-context")
    run("ask", question, "--show-prompt", "--save-state", str(out / "state.json"), "--session", "new")

    # The test is not vacuous: the planted files and commit messages were indexed and printed.
    everything = b"".join(p.read_bytes() for p in [*data.rglob("*"), *out.rglob("*")] if p.is_file())
    everything += "".join(outputs).encode()
    assert b"settings.py" in everything and b"admin.sql" in everything and b"Secrets.cs" in everything
    assert b"remove password=[REDACTED] from config" in everything  # a commit message, stored redacted
    assert b"password=[REDACTED]" in (out / "state.json").read_bytes()  # the question, redacted
    assert len(chosen) >= 150 and sum(p.path == COMMIT for p in chosen) >= 15

    folded = everything.lower()
    leaked = sorted(n.decode() for n in needles([*secrets, pasted, stale]) if n.lower() in folded)
    assert not leaked, f"{len(leaked)} secret fragment(s) found, e.g. {leaked[:3]}"
