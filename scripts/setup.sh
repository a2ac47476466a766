#!/usr/bin/env bash
# Creates .venv from the repo's own files and installs the table with its test tools
# (and, as root, the system packages the browser and MQTT tests need: scripts/system-deps.sh).
# Usage: bash scripts/setup.sh   (idempotent; quiet when nothing changed)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
stamp=.venv/.installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[dev]"
    touch "$stamp"
fi
bash scripts/system-deps.sh
