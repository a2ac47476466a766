#!/usr/bin/env bash
# The system packages the venue needs: Debian's chromium (the browser tests drive it through
# Playwright's executable_path: Playwright cannot download its own browser here) and mosquitto
# (the hub's default broker, which it runs itself; and the MQTT tests against a real broker). Installed with apt-get when run as root
# (as CI does); otherwise says what to install, and those tests skip with the same words.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
{ command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ]; } || missing+=(mosquitto)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "scripts/system-deps.sh: installing ${missing[*]} with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # the Debian package starts a broker on port 1883 where systemd runs; the hub and the tests
    # start their own
    if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
        systemctl disable --now mosquitto >/dev/null 2>&1 || true
    fi
else
    echo "scripts/system-deps.sh: the browser and MQTT tests need: ${missing[*]}" >&2
    echo "  install them with: sudo apt-get install -y ${missing[*]}   (they are skipped meanwhile)" >&2
fi
