"""No planted secret reaches anything: a real index of a git repository holding the planted
corpus (files and commit messages), then every byte under the data folder (SQLite files, parse
caches, also of parses cached under earlier rules, graph, BM25 and FAISS files, history) and
every output of `index`, `search`, `expand` (with its graph HTML) and
`ask --show-prompt --save-state --session new`."""
from __future__ import annotations

import base64
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ragstream.cli import main
from ragstream.index.blob_cache import BlobCache
from ragstream.index.change_history import MESSAGE_CHARS
from ragstream.redact.corpus import COMMIT, write_repository


def needles(secrets: list[str]) -> set[bytes]:
    """Each secret as written, lower-cased (BM25 vocabularies) and as its long alphanumeric runs
    (a tokenizer or an escaper may cut it at punctuation)."""
    found = set()
    for secret in secrets:
        found |= {secret.encode(), secret.lower().encode()}
        found |= {run.lower().encode() for run in re.findall(r"[A-Za-z0-9]{10,}", secret)}
    return found


def _cli(tmp_path: Path, data: Path, capsys) -> tuple[Callable[..., None], list[str]]:
    """`ragstream` commands on a data folder of their own, each required to succeed; what each
    printed (stdout and stderr) goes into the list, in order."""
    config = tmp_path / "config.yaml"
    config.write_text(f"index:\n  data_dir: {data}\n", encoding="utf-8")
    outputs: list[str] = []

    def run(*args: str) -> None:
        assert main(["--config", str(config), *args]) == 0
        captured = capsys.readouterr()
        outputs.append(captured.out + captured.err)

    return run, outputs


@pytest.mark.slow
def test_no_planted_secret_reaches_the_index_or_any_output(tmp_path: Path, capsys):
    repo, data, out = tmp_path / "repo", tmp_path / "data", tmp_path / "out"
    out.mkdir()
    chosen = write_repository(repo)
    secrets = [s for plant in chosen for s in plant.secrets]
    pasted = "Qv" + "73kzp!Wd9x"  # a secret pasted into a question
    run, outputs = _cli(tmp_path, data, capsys)

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


def _shapes_repository(root: Path) -> list[str]:
    """A small repository holding the shapes of issue 37 in code, configuration, docs, SQL, git
    history and a file name; returns the secret values planted."""
    pw = "Zq8" + "vR2mLp0xT"
    ghp = "gh" + "p_" + "Kx7dW2" * 6
    b64 = base64.b64encode(b"tok-" + b"3f9a1c77").decode()
    pem_body = ("MIIEo" + "wIBAAKCAQEA" + "x7RtQ9" * 10)[:64]
    docker = base64.b64encode(json.dumps({"auths": {"r.example.com": {"password": pw + "d"}}}).encode()).decode()
    name_token = "gh" + "p_" + "Nf4qZ8" * 6
    files = {
        "app/db.py": f'import psycopg2\n\n\ndef connect():\n    return psycopg2.connect("host=db dbname=app user=app '
                     f'password={pw}a")\n\n\nTOKEN = "{ghp[:12]}" + "{ghp[12:]}"\nBODY = "{{\\"password\\":\\"{pw}b\\"}}"\n',
        "deploy/values.yaml": f"db:\n  password: |\n    {pw}c\nsecret:\n  data:\n    api-token: {b64}\n"
                              f"    .dockerconfigjson: {docker}\ntls:\n  key: |\n    -----BEGIN RSA " + "PRIVATE KEY-----\n"
                              f"    {pem_body}\n\nnext: 1\n",
        "docs/setup.md": f"# Setup\n\nThe staging credentials are `admin` / `{pw}e`.\n\nDas Passwort lautet {pw}f.\n\n"
                         f"    mysql -u root -p{pw}g app\n    redis-server --requirepass {pw}h\n",
        "sql/links.sql": f"EXEC sp_addlinkedsrvlogin 'REMOTE', 'false', NULL, 'sa', '{pw}i';\n",
        f"keys/{name_token}.txt": "a file whose name holds a token\n",
    }
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    root.mkdir(parents=True)
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "layout"], check=True)
    straddling = "gh" + "p_" + "Lm2wQ7" * 6  # a token across the 2,000-character cut of a message
    (root / "app/db.py").write_text(files["app/db.py"] + "\n\ndef close():\n    return None\n", encoding="utf-8")
    message = "add close\n\n" + "x" * (MESSAGE_CHARS - 20 - len("add close\n\n")) + " " + straddling + " done"
    subprocess.run([*git, "commit", "-q", "-a", "-m", message], check=True)
    values = [pw + s for s in "abcefghi"] + [ghp, b64, pem_body, docker, name_token, straddling]
    return values


@pytest.mark.slow
def test_no_shape_of_issue_37_reaches_the_index_or_any_output(tmp_path: Path, capsys):
    repo, data, out = tmp_path / "repo", tmp_path / "data", tmp_path / "out"
    out.mkdir()
    secrets = _shapes_repository(repo)
    run, outputs = _cli(tmp_path, data, capsys)

    run("index", str(repo))
    run("index", str(repo), "--dry-run")
    run("search", "database password connect token credentials", "--top-k", "30")
    run("search", "password token key credentials", "--mode", "bm25", "--top-k", "30")
    run("ask", "how does connect get its password?", "--show-prompt", "--save-state", str(out / "state.json"),
        "--session", "new")

    everything = b"".join(p.read_bytes() for p in [*data.rglob("*"), *out.rglob("*")] if p.is_file())
    everything += "".join(outputs).encode()
    assert re.search(rb"keys/\[REDACTED~[0-9a-f]{6}\]\.txt", everything)  # indexed, under its redacted name
    assert b"app/db.py" in everything and b"links.sql" in everything and b"values.yaml" in everything
    assert b"add close" in everything  # the commit message was indexed (redacted, then cut)
    folded = everything.lower()
    leaked = sorted(n.decode() for n in needles(secrets) if n.lower() in folded)
    assert not leaked, f"{len(leaked)} secret fragment(s) found, e.g. {leaked[:3]}"
