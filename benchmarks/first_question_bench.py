"""Time to the first answer on a fresh machine: `ragstream ui --build-default` (what
`scripts/run.sh` runs once set-up is done) on an empty data folder, a real browser (Debian
chromium via Playwright) asking one question in Auto mode as soon as the workbench lets it.

    PYTHONPATH=$PWD:benchmarks .venv/bin/python benchmarks/first_question_bench.py [--runs 3]

Each run: a new data folder and a new server. Prints, per run, the seconds from the server's
launch to: the first paint, the question box accepting a question (the default index is
keyword-ready), the answer painted; and the index the answer came from (its citations'
paths must be ragstream's own files). Timings depend on the machine's load: say how busy it
was when you quote them (docs/BENCHMARKS.md).
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from ui_click_bench import ANSWERED, CHROMIUM, workbench_page

QUESTION = "How does the engine check the fields a step writes?"
CITATION = re.compile(r"ragstream/[\w/]+\.py")


def one_run() -> dict[str, float | str]:
    with tempfile.TemporaryDirectory(prefix="first_question_") as scratch:
        settings = Path(scratch) / "settings.yaml"
        settings.write_text(yaml.safe_dump({"index": {"data_dir": str(Path(scratch) / "data")}}), encoding="utf-8")
        figures: dict[str, float | str] = {}
        launched = time.perf_counter()
        with workbench_page(str(settings), 1280, 600_000, "--build-default") as page:
            page.get_by_role("radio", name="Auto").wait_for()
            figures["first paint s"] = time.perf_counter() - launched
            page.get_by_role("radio", name="Auto").click()
            chat = page.get_by_test_id("stChatInputTextArea")
            page.wait_for_function("""() => { const box = document.querySelector('[data-testid="stChatInputTextArea"]');
                                      return box && !box.disabled; }""", polling=100)
            figures["askable s"] = time.perf_counter() - launched
            chat.fill(QUESTION)
            chat.press("Enter")
            page.wait_for_function(ANSWERED, arg=[2], polling=100)
            figures["answered s"] = time.perf_counter() - launched
            answer = page.get_by_test_id("stChatMessage").nth(1).inner_text()
            cited = sorted(set(CITATION.findall(answer)))
            figures["cites"] = ", ".join(cited[:3]) or "(no ragstream file cited: " + " ".join(answer.split())[:300] + ")"
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: apt-get install chromium", file=sys.stderr)
        return 2
    runs = []
    for n in range(args.runs):
        figures = one_run()
        runs.append(figures)
        print(f"run {n + 1}: " + " · ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                                            for k, v in figures.items()), flush=True)
    for key in ("first paint s", "askable s", "answered s"):
        print(f"median {key}: {statistics.median(float(r[key]) for r in runs):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
