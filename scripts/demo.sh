#!/usr/bin/env bash
# Sets up the table's Python packages (no browser, no broker: the demo needs neither), then plays
# the table's demo on the simulated table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
exec .venv/bin/ecarte-table demo "$@"
