#!/usr/bin/env bash
# Sets everything up, then plays the table's demo on the simulated table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/ecarte-table demo "$@"
