#!/usr/bin/env bash
# Creates .venv from the repo's own files and installs what one purpose needs:
#   bash scripts/setup.sh [tests]  the table with its test tools, and, as root, the system packages
#                                  the browser and MQTT tests need (scripts/system-deps.sh tests)
#   bash scripts/setup.sh demo     the table's Python packages only (what scripts/demo.sh runs)
#   bash scripts/setup.sh venue    the table's Python packages and, as root, Mosquitto for the hub
# Idempotent; quiet when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
purpose=${1:-tests}
case "$purpose" in
    tests) extras="[dev]"; want=dev ;;
    demo | venue) extras=""; want=base ;;
    *) echo "usage: bash scripts/setup.sh [tests|demo|venue]" >&2; exit 2 ;;
esac
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
# the stamp says what the last install held: "dev" (the test tools too) or "base"
stamp=.venv/.installed
have=$(cat "$stamp" 2>/dev/null || true)
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || { [ "$want" = dev ] && [ "$have" != dev ]; }; then
    if [ "$want" = dev ]; then
        .venv/bin/python -m pip install --quiet --upgrade pip
    fi
    .venv/bin/python -m pip install --quiet -e ".$extras"
    echo "$want" > "$stamp"
fi
# the checkout's own bytecode, as pip writes a wheel's at install: an editable install compiles nothing, and
# where bytecode is never written (PYTHONDONTWRITEBYTECODE) every start compiled the command line, the
# catalogue and every module a command imports again (`ecarte-table --version`: 180 M instructions, 130 M
# cached; bench/instructions.py --startup). Checked by the source's hash, not its time: a copy of the
# checkout keeps it, and an edited module is compiled again as before.
.venv/bin/python -m compileall -q --invalidation-mode checked-hash cli catalogue coach drivers engine firmware_host \
    hardware venue
case "$purpose" in
    tests | venue) bash scripts/system-deps.sh "$purpose" ;;
    demo)
        missing=$(bash scripts/system-deps.sh --missing tests)
        if [ -n "$missing" ]; then
            echo "scripts/setup.sh: the demo needs no system package; skipped: $missing (the browser, MQTT, voice and booted-unit" \
                 "tests, a venue's broker): bash scripts/setup.sh tests (as root) installs them" >&2
        fi
        ;;
esac
