#!/usr/bin/env bash
# The system packages a purpose needs, installed with apt-get when run as root (as CI does);
# otherwise says what to install.
#   tests (default): Debian's chromium (the browser tests drive it through Playwright's
#       executable_path: Playwright cannot download its own browser here), mosquitto (the MQTT
#       tests against a real broker) and openssl; those tests skip, with the same words, without them;
#       debootstrap and systemd-container (tests/deploy boots the shipped units in a Debian container,
#       scripts/boot_test.py; it skips where it cannot run).
#   venue: mosquitto, the broker a venue's hub is fastest with (README, bench/venue.py).
#   --missing PURPOSE: print what PURPOSE lacks (one line, empty when nothing) and change nothing.
# The demo needs none of them (scripts/setup.sh demo).
set -euo pipefail
report_only=0
if [ "${1:-}" = "--missing" ]; then
    report_only=1
    shift
fi
purpose=${1:-tests}
case "$purpose" in
    tests) wanted=(chromium mosquitto openssl debootstrap systemd-container)
           who="the browser, MQTT and booted-unit tests need" ;;
    venue) wanted=(mosquitto); who="a venue's hub is fastest with" ;;
    *) echo "usage: bash scripts/system-deps.sh [--missing] [tests|venue]" >&2; exit 2 ;;
esac
missing=()
for package in "${wanted[@]}"; do
    case "$package" in
        mosquitto) { command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ]; } || missing+=(mosquitto) ;;
        debootstrap) { command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ]; } \
                         || missing+=(debootstrap) ;;
        systemd-container) command -v systemd-nspawn >/dev/null 2>&1 || missing+=(systemd-container) ;;
        *) command -v "$package" >/dev/null 2>&1 || missing+=("$package") ;;
    esac
done
if [ "$report_only" -eq 1 ]; then
    echo "${missing[*]}"
    exit 0
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "scripts/system-deps.sh: installing ${missing[*]} with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # the Debian package starts a broker on port 1883 where systemd runs; the tests and the hub start their own
    if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
        systemctl disable --now mosquitto >/dev/null 2>&1 || true
    fi
else
    echo "scripts/system-deps.sh: $who: ${missing[*]}" >&2
    echo "  install them with: sudo apt-get install -y ${missing[*]}   (the tests that need them are skipped meanwhile)" >&2
fi
