#!/usr/bin/env bash
# Set up, then index ragstream's own source (the bundled default) and print a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ragstream index . --name self "$@"
