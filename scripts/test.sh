#!/usr/bin/env bash
# Set up, check the code, then run the whole test suite (slow tests included). The checks come
# first and fail fast: ruff (a second) and mypy (a minute from cold, seconds with its cache), both
# as pyproject.toml configures them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
