"""Do two ragstream trees redact the same? The check behind a speed change of the secret finders
(issue 40): every text's spans (`find_secrets`) and redacted text must be the same.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/same_redactions.py [TREE ...] --code main=/tmp/main \
        --code new=$PWD [--gitleaks MIRROR --detect-secrets MIRROR --credsweeper MIRROR]

The texts: the indexable files of each TREE, the scanners' labelled cases (`secret_corpora.py`,
from their bare mirrors; detect-secrets' cases need `detect_secrets` and `responses` importable)
and the planted corpus (`ragstream.redact.corpus`). Each `--code` redacts them in a process of
its own (its code imported from that tree) and reports a digest per text and its CPU seconds;
texts whose digests differ are listed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def texts_of(trees: list[str], mirrors: dict[str, str | None]) -> dict[str, tuple[str, str]]:
    """Name -> (text, language) of everything redacted."""
    import secret_corpora as corpora
    from redaction_bench import corpus_files

    from ragstream.config import load_settings
    from ragstream.index.walk import walk_repository

    texts: dict[str, tuple[str, str]] = {}
    for tree in map(Path, trees):
        for source in walk_repository(tree, load_settings().index, with_text=False).files:
            texts[f"{tree.name}/{source.path}"] = ((tree / source.path).read_text(encoding="utf-8", errors="replace"),
                                                   source.language)
    cases = [*(corpora.gitleaks_cases(Path(mirrors["gitleaks"]))[0] if mirrors["gitleaks"] else []),
             *(corpora.detect_secrets_cases(Path(mirrors["detect_secrets"])) if mirrors["detect_secrets"] else []),
             *(corpora.credsweeper_cases(Path(mirrors["credsweeper"])) if mirrors["credsweeper"] else [])]
    for case in cases:  # a case's text is its key: cases generated differently per run are left unpaired
        key = hashlib.sha256(f"{case.file}\0{case.text}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
        texts[f"{case.corpus}:{case.file}:{key}"] = (case.text, corpora.LANGUAGE.get(Path(case.file).suffix, "text"))
    planted, _ = corpus_files()
    for path, text in planted.items():
        texts[f"planted:{path}"] = (text, corpora.LANGUAGE.get(Path(path).suffix, "text"))
    return texts


def redactions_child(trees: list[str], mirrors: dict[str, str | None]) -> None:
    """Run in a child: each text's digest of its spans and redacted text, and the CPU seconds."""
    from ragstream.redact import find_secrets, redact

    texts = texts_of(trees, mirrors)
    started, digests = time.process_time(), {}
    for name, (text, language) in texts.items():
        found, (clean, rules) = find_secrets(text, language), redact(text, language)
        digests[name] = hashlib.sha256(json.dumps([found, clean, rules]).encode("utf-8", "surrogatepass")).hexdigest()
    print(json.dumps({"cpu_s": round(time.process_time() - started, 2), "digests": digests}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="*")
    parser.add_argument("--code", action="append", default=[], metavar="NAME=DIR", required=True)
    parser.add_argument("--gitleaks")
    parser.add_argument("--detect-secrets")
    parser.add_argument("--credsweeper")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    mirrors = {"gitleaks": args.gitleaks, "detect_secrets": args.detect_secrets, "credsweeper": args.credsweeper}
    if args.child:
        redactions_child(args.trees, mirrors)
        return 0
    results = {}
    for name, code in (item.split("=", 1) for item in args.code):
        env = {**os.environ, "PYTHONPATH": f"{Path(code).resolve()}:{HERE}:{os.environ.get('PYTHONPATH', '')}"}
        command = [sys.executable, __file__, *args.trees, "--child", "--code", "x=y",
                   *(f"--{key.replace('_', '-')}={value}" for key, value in mirrors.items() if value)]
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            raise SystemExit(f"{name} failed ({done.returncode}): {done.stderr[-2000:]}")
        results[name] = json.loads(lines[-1])
        print(f"{name}: {len(results[name]['digests'])} texts redacted in {results[name]['cpu_s']} CPU s", flush=True)
    (first, one), *others = results.items()
    for name, other in others:
        shared = one["digests"].keys() & other["digests"].keys()
        differ = sorted(k for k in shared if one["digests"][k] != other["digests"][k])
        print(f"{first} vs {name}: {len(shared)} texts in both, {len(differ)} redacted differently"
              + "".join(f"\n  {k}" for k in differ[:20]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
