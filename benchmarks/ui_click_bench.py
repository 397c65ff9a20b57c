"""Click-to-panel-painted in the workbench, in a real browser (Debian chromium via Playwright).

Starts `ragstream ui` on the settings given (their data folder must hold an index; the default
`self` index, ragstream's own source, is chosen on first paint), then runs PASSES manual passes
of the eight stages. Each figure is the time from a stage button's click until that stage's
panel is painted and nothing on the page is stale any more: what a person waits for. Also one
auto-mode turn per pass (question sent -> answer painted).

    python benchmarks/ui_click_bench.py --config /tmp/wb_self/settings.yaml --passes 5

Prints per-stage and overall p50 / p95 in ms. Timings depend on the machine's load: say how
busy it was when you quote them (docs/BENCHMARKS.md).
"""
from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
LABELS = ["Normalize", "Route", "Retrieve", "Rerank", "Expand", "Condense", "Build prompt", "Answer"]
QUESTIONS = ["How does the engine check the fields a step writes?", "How are secrets redacted from indexed files?",
             "Where is the conversation history stored?", "How does hybrid search fuse its rankings?"]
PAINTED = """([label]) => {
  const fresh = [...document.querySelectorAll('[data-testid="stExpander"] summary')]
    .filter(s => !s.closest('[data-stale="true"]'));
  return fresh.some(s => s.innerText.includes(label)) && !document.querySelector('[data-stale="true"]');
}"""
# The answer is drawn when its turn's caption ("N steps · X s · ...") is: the message itself
# appears at once, its avatar alone, while the pipeline runs.
ANSWERED = """([count]) => { const messages = document.querySelectorAll('[data-testid="stChatMessage"]');
  return messages.length >= count && / steps · /.test(messages[count - 1].innerText)
    && !document.querySelector('[data-stale="true"]')
    && !document.querySelector('[data-testid="stStatusWidget"]'); }"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def settle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("!document.querySelector('[data-stale=\"true\"]')"
                           " && !document.querySelector('[data-testid=\"stStatusWidget\"]')")


@contextmanager
def workbench_page(config: str, width: int, timeout_ms: int, *ui_options: str) -> Iterator:
    """`ragstream --config CONFIG ui [ui_options]` on a free port and a chromium page open on it
    (retried until the server listens); both stopped on exit."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "ragstream", "--config", config, "ui", *ui_options,
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.set_default_timeout(timeout_ms)
            while True:
                try:
                    page.goto(f"http://127.0.0.1:{port}")
                    break
                except Exception:  # noqa: BLE001 - not listening yet
                    time.sleep(0.2)
            yield page
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=60)


def run(config: str, passes: int, width: int) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {label: [] for label in LABELS} | {"chat turn": []}
    with workbench_page(config, width, 180_000) as page:
        page.get_by_role("button", name="1 Normalize").wait_for()
        settle(page)
        for n in range(passes):
            page.get_by_role("textbox", name="Question").fill(f"{QUESTIONS[n % len(QUESTIONS)]} ({n})")
            page.get_by_role("textbox", name="Question").press("Control+Enter")
            settle(page)
            for number, label in enumerate(LABELS, start=1):
                button = page.get_by_role("button", name=f"{number} {label}")
                started = time.perf_counter()
                button.click()
                page.wait_for_function(PAINTED, arg=[f"{number} {label} · "])
                timings[label].append((time.perf_counter() - started) * 1000)
        page.get_by_role("radio", name="Auto").click()
        settle(page)
        for n in range(passes):
            chat = page.get_by_test_id("stChatInputTextArea")
            chat.fill(QUESTIONS[n % len(QUESTIONS)])
            started = time.perf_counter()
            chat.press("Enter")
            page.wait_for_function(ANSWERED, arg=[2 * (n + 1)])
            timings["chat turn"].append((time.perf_counter() - started) * 1000)
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", required=True, help="settings whose index.data_dir holds the index to use")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--width", type=int, default=1280, help="browser width in px (default 1280)")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: apt-get install chromium", file=sys.stderr)
        return 2
    timings = run(args.config, args.passes, args.width)
    clicks = [ms for label in LABELS for ms in timings[label]]
    print(f"{'stage':<14}{'n':>4}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
    for label, values in timings.items():
        print(f"{label:<14}{len(values):>4}{statistics.median(values):>10.0f}{percentile(values, 0.95):>10.0f}"
              f"{max(values):>10.0f}")
    print(f"{'all clicks':<14}{len(clicks):>4}{statistics.median(clicks):>10.0f}{percentile(clicks, 0.95):>10.0f}"
          f"{max(clicks):>10.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
