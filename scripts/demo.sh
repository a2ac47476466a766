#!/usr/bin/env bash
# Sets up the table's Python packages (no browser, no broker: the demo needs neither), then plays
# the table's demo on the simulated table.
set -euo pipefail
from=$PWD
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
# the demo's closing hints name the command as it was started: from the repository, the README's
# .venv/bin/ecarte-table; from elsewhere, its whole path (the venv puts nothing on PATH)
if [ "$from" = "$PWD" ]; then
    exec .venv/bin/ecarte-table demo "$@"
fi
exec "$PWD/.venv/bin/ecarte-table" demo "$@"
