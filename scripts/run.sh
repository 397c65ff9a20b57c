#!/usr/bin/env bash
# Set up, then open the workbench (http://127.0.0.1:8501) on the bundled default index:
# ragstream's own source, index `self`. The server starts at once; the page shows the index
# being built (first run) or updated (changed files) live, in the background.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/ragstream ui --build-default "$@"
