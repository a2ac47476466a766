#!/usr/bin/env bash
# The system packages a purpose needs, installed with apt-get when run as root (as CI does);
# otherwise says what to install.
#   tests (default): Debian's chromium (the browser tests drive it through Playwright's
#       executable_path: Playwright cannot download its own browser here), mosquitto (the MQTT
#       tests against a real broker) and openssl; those tests skip, with the same words, without them.
#       espeak-ng and alsa-utils too: the voice's tests speak (docs/players.md, "Listening to the table").
#       debootstrap and systemd-container: tests/deploy boots the shipped units in a Debian container
#       (scripts/boot_test.py; it skips where it cannot run).
#   vm: qemu-system-x86, qemu-utils and debootstrap: scripts/vm_test.py boots Debian trixie's own
#       kernel under qemu (TCG) with the table installed, ftdi_sio readers, gpio-sim buttons and an
#       i2c-dev OLED (tests/deploy/test_vm.py; it skips where it cannot run). qemu-system-arm too,
#       for its arm64 run (--arch arm64).
#   venue: mosquitto, the broker a venue's hub runs (or the venue's own Mosquitto: docs/web.md).
#   bench: valgrind, which bench/instructions.py runs (callgrind counts instructions, which do not
#       drift with the machine: the loop's figures and the start-up's, --startup). No test needs it.
#   TABLE-FILE (a .toml): espeak-ng and alsa-utils (aplay) when its [voice] is enabled, else nothing.
#   --missing PURPOSE: print what PURPOSE lacks (one line, empty when nothing) and change nothing.
# The demo needs none of them (scripts/setup.sh demo).
set -euo pipefail
report_only=0
if [ "${1:-}" = "--missing" ]; then
    report_only=1
    shift
fi
purpose=${1:-tests}
voice_wanted() {  # does the table file $1 enable [voice]? (Python 3.11's tomllib reads it)
    python3 -c 'import sys, tomllib
with open(sys.argv[1], "rb") as f:
    sys.exit(0 if tomllib.load(f).get("voice", {}).get("enabled") is True else 1)' "$1" 2>/dev/null
}
case "$purpose" in
    tests) wanted=(chromium mosquitto openssl espeak-ng alsa-utils debootstrap systemd-container)
           who="the browser, MQTT, voice and booted-unit tests need" ;;
    vm) wanted=(qemu-system-x86 qemu-utils debootstrap qemu-system-arm)
        who="the virtual-machine tests (scripts/vm_test.py) need" ;;
    venue) wanted=(mosquitto); who="a venue's hub runs (its own broker)" ;;
    bench) wanted=(valgrind); who="bench/instructions.py runs" ;;
    *.toml)
        [ -r "$purpose" ] || { echo "scripts/system-deps.sh: cannot read the table file $purpose" >&2; exit 2; }
        wanted=()
        if voice_wanted "$purpose"; then wanted=(espeak-ng alsa-utils); fi
        who="the table's voice ([voice] in $purpose) needs" ;;
    *) echo "usage: bash scripts/system-deps.sh [--missing] [tests|vm|venue|bench|TABLE-FILE.toml]" >&2; exit 2 ;;
esac
missing=()
for package in "${wanted[@]}"; do
    case "$package" in
        mosquitto) { command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ]; } || missing+=(mosquitto) ;;
        debootstrap) { command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ]; } \
                         || missing+=(debootstrap) ;;
        systemd-container) command -v systemd-nspawn >/dev/null 2>&1 || missing+=(systemd-container) ;;
        qemu-system-x86) command -v qemu-system-x86_64 >/dev/null 2>&1 || missing+=(qemu-system-x86) ;;
        qemu-system-arm) command -v qemu-system-aarch64 >/dev/null 2>&1 || missing+=(qemu-system-arm) ;;
        qemu-utils) command -v qemu-img >/dev/null 2>&1 || missing+=(qemu-utils) ;;
        alsa-utils) command -v aplay >/dev/null 2>&1 || missing+=(alsa-utils) ;;
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
    meanwhile="the tests that need them are skipped meanwhile"
    [ "$purpose" = venue ] && meanwhile="the hub cannot run its own broker meanwhile"
    [ "$purpose" = bench ] && meanwhile="bench/instructions.py cannot count meanwhile"
    echo "  install them with: sudo apt-get install -y ${missing[*]}   ($meanwhile)" >&2
fi
