"""Secret redaction: catch rate on the planted corpus, speed, and what it redacts in real trees.

    .venv/bin/python benchmarks/redaction_bench.py [TREE ...] [--list] [--detect-secrets]

Prints, for ragstream's redactor (and detect-secrets 1.5 as a library with its default plugins
and filters, when `--detect-secrets` is given and it is importable):
- the planted corpus (`ragstream.redact.corpus`): shapes whose every value is gone after
  redaction, for the shapes claimed and for the documented misses;
- MB/s over the indexable files of each TREE (default: this repository);
- per TREE, redactions by rule and per 1,000 lines (false-positive review: `--list` prints each
  one, value masked).

detect-secrets reports values, not spans; used as a redactor, every reported value is replaced
wherever it occurs in the file, and a planted secret is caught when none of it is left.
"""
from __future__ import annotations

import argparse
import collections
import tempfile
import time
from pathlib import Path

from ragstream.config import load_settings
from ragstream.index.walk import walk_repository
from ragstream.redact import find_secrets, redact
from ragstream.redact.corpus import COMMIT, plants

LANGUAGE = {".py": "python", ".cs": "csharp", ".sql": "sql"}


def _language(path: str) -> str:
    return LANGUAGE.get(Path(path).suffix, "text")


def corpus_files(seed: int = 19) -> tuple[dict[str, str], list]:
    """The corpus as file texts (commit messages as one text file) and its plants."""
    chosen = plants(seed)
    files: dict[str, list[str]] = collections.defaultdict(list)
    for plant in chosen:
        files["COMMIT_MESSAGES.txt" if plant.path == COMMIT else plant.path].append(plant.text)
    return {path: "\n\n".join(texts) + "\n" for path, texts in files.items()}, chosen


def _caught(plant, cleaned: dict[str, str]) -> bool:
    text = cleaned["COMMIT_MESSAGES.txt" if plant.path == COMMIT else plant.path]
    return not any(secret in text for secret in plant.secrets)


def ours(files: dict[str, str]) -> tuple[dict[str, str], int]:
    """Each file redacted, and the number of redactions."""
    done = {path: redact(text, _language(path)) for path, text in files.items()}
    return {path: text for path, (text, _) in done.items()}, sum(len(fired) for _, fired in done.values())


def detect_secrets_values(path: Path) -> list[str]:
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with default_settings():
        collection = SecretsCollection()
        collection.scan_file(str(path))
    return [s.secret_value for found in collection.data.values() for s in found if s.secret_value]


def theirs(files: dict[str, str]) -> tuple[dict[str, str], int]:
    """Each file with every value detect-secrets reports replaced, and the number of reports."""
    cleaned, reported = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in files.items():
            target = Path(tmp) / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            values = detect_secrets_values(target)
            reported += len(values)
            for value in sorted(set(values), key=len, reverse=True):
                text = text.replace(value, "[REDACTED]")
            cleaned[path] = text
    return cleaned, reported


def tree_texts(root: Path) -> dict[str, str]:
    walked = walk_repository(root, load_settings(None).index)
    return {f.path: _raw(root / f.path) for f in walked.files}


def _raw(path: Path) -> str:
    return path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="*", type=Path, default=[Path(".")])
    parser.add_argument("--list", action="store_true", help="print every redaction in the trees (value masked)")
    parser.add_argument("--detect-secrets", action="store_true", help="also measure detect-secrets 1.5")
    args = parser.parse_args()
    tools = {"ragstream": ours}
    if args.detect_secrets:
        tools["detect-secrets"] = theirs

    files, chosen = corpus_files()
    claimed = [p for p in chosen if p.caught]
    misses = [p for p in chosen if not p.caught]
    print(f"corpus: {len(claimed)} claimed shapes + {len(misses)} documented misses, "
          f"{sum(len(p.secrets) for p in chosen)} values")
    for name, tool in tools.items():
        cleaned, _ = tool(files)
        lost = [p.shape for p in claimed if not _caught(p, cleaned)]
        print(f"  {name:15s} claimed {len(claimed) - len(lost)}/{len(claimed)}   "
              f"misses caught {sum(_caught(p, cleaned) for p in misses)}/{len(misses)}")
        for shape in lost:
            print(f"      missed: {shape}")

    for root in args.trees:
        texts = tree_texts(root)
        megabytes = sum(len(t.encode()) for t in texts.values()) / 1e6
        print(f"\n{root.resolve().name}: {len(texts)} files, {megabytes:.2f} MB")
        for name, tool in tools.items():
            seconds = float("inf")
            for _ in range(3 if name == "ragstream" else 1):  # best of 3: the machine is shared
                started = time.perf_counter()
                cleaned, found = tool(texts)
                seconds = min(seconds, time.perf_counter() - started)
            changed = sum(cleaned[p] != texts[p] for p in texts)
            print(f"  {name:15s} {megabytes / seconds:7.2f} MB/s   findings {found:3d} in {changed} files")
        by_rule: collections.Counter[str] = collections.Counter()
        for path, text in sorted(texts.items()):
            for start, end, rule in find_secrets(text, _language(path)):
                by_rule[rule] += 1
                if args.list:
                    line = text.count("\n", 0, start) + 1
                    value = text[start:end]
                    print(f"    {path}:{line}  {rule}  {value[:3]}***({len(value)})  "
                          f"{text[max(0, start - 40):start].splitlines()[-1:]}")
        lines = sum(t.count("\n") + (not t.endswith("\n")) for t in texts.values())
        total = sum(by_rule.values())
        print(f"  redactions by rule: {dict(by_rule.most_common())} (total {total}, "
              f"{total / lines * 1000:.2f} per 1,000 of {lines} lines)")


if __name__ == "__main__":
    main()
