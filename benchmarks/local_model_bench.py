"""The local model server: start time, generation speed and peak memory.

    .venv/bin/python benchmarks/local_model_bench.py [--gguf PATH] [--threads 1] [--tokens 100] [--runs 3]

Starts `LocalServer` (the bundled SmolLM2-135M demo unless --gguf), times start to first
healthy answer, then asks `--runs` times for exactly `--tokens` tokens (ignore_eos) through the
openai client and reports wall-clock and llama.cpp's own prompt/generation rates, then the
server process's peak RSS (VmHWM). Needs the `local` extra (scripts/setup_local_model.sh).
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import openai

from ragstream.llm.local_server import LocalServer, LocalServerOptions

PROMPT = "Explain in detail how a database index speeds up a query."


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", default="")
    parser.add_argument("--threads", type=int, default=LocalServerOptions().threads)
    parser.add_argument("--tokens", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    started = time.perf_counter()
    with LocalServer(args.gguf, options=LocalServerOptions(threads=args.threads)) as server:
        start_seconds = time.perf_counter() - started
        client = openai.OpenAI(base_url=server.base_url, api_key="none", max_retries=0)
        walls, generation, prompt = [], [], []
        for _ in range(args.runs):
            began = time.perf_counter()
            response = client.chat.completions.create(
                model=server.model, messages=[{"role": "user", "content": PROMPT}], temperature=0,
                max_tokens=args.tokens, extra_body={"ignore_eos": True, "cache_prompt": False})
            walls.append(time.perf_counter() - began)
            assert response.usage.completion_tokens == args.tokens, response.usage
            timings = response.model_extra["timings"]
            generation.append(timings["predicted_per_second"])
            prompt.append(timings["prompt_per_second"])
        rss = peak_rss_mb(server.pid)
    print(f"model {server.gguf.name}, {args.threads} thread(s), {args.tokens}-token completions, {args.runs} runs")
    print(f"server start (spawn + load + healthy): {start_seconds:.2f} s")
    print(f"completion wall-clock: median {statistics.median(walls):.2f} s "
          f"({args.tokens / statistics.median(walls):.1f} tokens/s end to end)")
    print(f"generation: median {statistics.median(generation):.1f} tokens/s (llama.cpp timings; "
          f"min {min(generation):.1f}, max {max(generation):.1f})")
    print(f"prompt processing: median {statistics.median(prompt):.1f} tokens/s")
    print(f"server peak RSS: {rss:.0f} MB")


if __name__ == "__main__":
    main()
