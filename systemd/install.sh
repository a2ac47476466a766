#!/usr/bin/env bash
# Install the Écarté table service on a Raspberry Pi (Raspberry Pi OS Bookworm).
#
#   sudo systemd/install.sh [--dry-run] [--start] [--configure-boot] [--prefix DIR] [--print-unit]
#
# Idempotent: run it again after pulling a new version. It
#   - installs the system packages the Python packages build with,
#   - creates the system user `ecarte` in the groups i2c, gpio and dialout,
#   - makes (or updates) a virtualenv under /opt/ecarte-table (--prefix) with `.[pi]`,
#   - copies the reference table to /etc/ecarte-table/table.toml if absent,
#   - installs the udev rules and the systemd unit, and enables the unit.
# --dry-run prints every command instead of running it (no root needed).
# --configure-boot turns on I2C and the UART and the serial console off
#   with raspi-config (a reboot is needed afterwards).
# --print-unit prints the unit as it would be installed (with --prefix's paths).
set -euo pipefail

PREFIX=/opt/ecarte-table
CONFIG_DIR=/etc/ecarte-table
STATE_DIR=/var/lib/ecarte-table
SERVICE_USER=ecarte
UNIT=ecarte-table.service
DRY_RUN=0
START=0
CONFIGURE_BOOT=0
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
    # the comment block at the top, without the code after it
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
}
PRINT_UNIT=0

while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --start) START=1 ;;
        --configure-boot) CONFIGURE_BOOT=1 ;;
        --print-unit) PRINT_UNIT=1 ;;
        --prefix)
            [[ $# -ge 2 ]] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }
            PREFIX="$2"
            shift
            ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done

VENV="$PREFIX/venv"

# The unit names the default prefix; installed elsewhere, it must name that place.
render_unit() {
    sed -e "s#/opt/ecarte-table#${PREFIX%/}#g" "$REPO/systemd/$UNIT"
}
if [[ $PRINT_UNIT -eq 1 ]]; then
    render_unit
    exit 0
fi

say() { printf '==> %s\n' "$*"; }
run() {
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '+'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

if [[ $DRY_RUN -eq 0 && $EUID -ne 0 ]]; then
    echo "install.sh: run it as root (sudo $0), or with --dry-run to see what it does" >&2
    exit 1
fi
for file in "$REPO/pyproject.toml" "$REPO/systemd/$UNIT" "$REPO/hardware/tables/reference.toml"; do
    [[ -f $file ]] || { echo "install.sh: $file is missing: run it from a checkout" >&2; exit 1; }
done

say "system packages"
if command -v apt-get >/dev/null 2>&1; then
    missing=()
    for package in python3-venv python3-dev gcc i2c-tools; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
        run apt-get update
        run apt-get install -y --no-install-recommends "${missing[@]}"
    fi
    # lgpio builds against liblgpio on a Pi 5; not every distribution has it.
    if ! dpkg -s liblgpio-dev >/dev/null 2>&1; then
        run apt-get install -y --no-install-recommends swig liblgpio-dev \
            || say "liblgpio-dev not available: pip uses a prebuilt lgpio wheel if there is one"
    fi
else
    say "no apt-get: install python3-venv, python3-dev, gcc and i2c-tools yourself"
fi

say "groups and the $SERVICE_USER user"
for group in i2c gpio dialout; do
    if ! getent group "$group" >/dev/null; then
        run groupadd --system "$group"
    fi
done
if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
    run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
        --shell /usr/sbin/nologin --comment "Ecarte table service" "$SERVICE_USER"
fi
run usermod --append --groups i2c,gpio,dialout "$SERVICE_USER"

say "virtualenv in $VENV"
if [[ ! -x $VENV/bin/python ]]; then
    run install -d -m 0755 "$PREFIX"
    run python3 -m venv "$VENV"
fi
run "$VENV/bin/pip" install --quiet --upgrade pip
run "$VENV/bin/pip" install --quiet --upgrade "$REPO[pi]"
run install -d -m 0755 "$PREFIX/docs"
for doc in "$REPO"/docs/*.md; do
    if [[ -e $doc ]]; then
        run install -m 0644 "$doc" "$PREFIX/docs/"
    fi
done

say "table file and state"
run install -d -m 0755 "$CONFIG_DIR"
if [[ -e $CONFIG_DIR/table.toml ]]; then
    say "keeping $CONFIG_DIR/table.toml"
else
    run install -m 0644 "$REPO/hardware/tables/reference.toml" "$CONFIG_DIR/table.toml"
fi
run install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0750 "$STATE_DIR"

say "udev rules"
RULES=/etc/udev/rules.d/99-ecarte-table.rules
if ! cmp -s "$REPO/systemd/99-ecarte-table.rules" "$RULES"; then
    run install -m 0644 "$REPO/systemd/99-ecarte-table.rules" "$RULES"
    if command -v udevadm >/dev/null 2>&1; then
        run udevadm control --reload-rules
        run udevadm trigger --subsystem-match=tty --subsystem-match=i2c-dev --subsystem-match=gpio
    fi
fi

if [[ $CONFIGURE_BOOT -eq 1 ]]; then
    say "boot configuration (reboot afterwards)"
    if command -v raspi-config >/dev/null 2>&1; then
        run raspi-config nonint do_i2c 0
        run raspi-config nonint do_serial_hw 0
        run raspi-config nonint do_serial_cons 1
    else
        say "no raspi-config: set dtparam=i2c_arm=on, dtparam=i2c_arm_baudrate=400000 and enable_uart=1 in /boot/firmware/config.txt and remove console=serial0,115200 from cmdline.txt"
    fi
fi

say "systemd unit"
if [[ $DRY_RUN -eq 1 ]]; then
    printf '+ %s > %q\n' "sed -e s#/opt/ecarte-table#${PREFIX%/}#g $REPO/systemd/$UNIT" "/etc/systemd/system/$UNIT"
else
    rendered="$(mktemp)"
    render_unit > "$rendered"
    install -m 0644 "$rendered" "/etc/systemd/system/$UNIT"
    rm -f "$rendered"
fi
run systemctl daemon-reload
run systemctl enable "$UNIT"
if [[ $START -eq 1 ]]; then
    run systemctl restart "$UNIT"
fi

say "done. Next: edit $CONFIG_DIR/table.toml, check it with"
say "  sudo -u $SERVICE_USER $VENV/bin/ecarte-table doctor $CONFIG_DIR/table.toml"
say "then: sudo systemctl start $UNIT; journalctl -u $UNIT -f"
