#!/usr/bin/env bash
# Sets everything up, then runs the linters and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh tests
.venv/bin/ruff check .
.venv/bin/mypy
# both cores, a test file to a worker (its module fixtures set up once); the slowest tests named
exec .venv/bin/python -m pytest -q -n 2 --dist loadfile --durations=15 "$@"
