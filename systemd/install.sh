#!/usr/bin/env bash
# Install the Écarté table service on a Raspberry Pi (Raspberry Pi OS Bookworm).
#
#   sudo systemd/install.sh [--dry-run] [--start] [--configure-boot] [--prefix DIR] [--print-unit]
#                           [--wheelhouse DIR] [--hub]
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
# --print-unit prints the unit as it would be installed (with --prefix's paths; with --hub, the hub's).
# --wheelhouse DIR installs the Python packages from DIR only (no package index: a Pi offline);
#   make DIR on a connected machine of the same architecture and Python (3.11 on Bookworm) with
#   pip wheel --wheel-dir DIR '.[pi]' pip wheel 'setuptools>=77' 'babel>=2.12,<3'
#   (the last two: pyproject.toml's [build-system] requires, which install.sh builds the copy with)
# --hub also installs the venue's hub (systemd/ecarte-hub.service, the user ecarte-hub, the venue
#   file /etc/ecarte-hub/venue.toml if absent) with Mosquitto, which the hub runs and supervises
#   itself (Debian's own mosquitto.service is disabled).
# What it cannot do where it runs (no udev in a container, no raspi-config off a Pi) it skips and says.
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
WHEELHOUSE=
HUB=0
HUB_UNIT=ecarte-hub.service
HUB_USER=ecarte-hub
HUB_CONFIG_DIR=/etc/ecarte-hub
HUB_STATE_DIR=/var/lib/ecarte-hub
SKIPPED=()

while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --start) START=1 ;;
        --configure-boot) CONFIGURE_BOOT=1 ;;
        --print-unit) PRINT_UNIT=1 ;;
        --hub) HUB=1 ;;
        --wheelhouse)
            [[ $# -ge 2 ]] || { echo "install.sh: --wheelhouse needs a directory" >&2; exit 2; }
            WHEELHOUSE="$(cd "$2" 2>/dev/null && pwd)" \
                || { echo "install.sh: --wheelhouse $2: no such directory" >&2; exit 2; }
            shift
            ;;
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
    sed -e "s#/opt/ecarte-table#${PREFIX%/}#g" "$REPO/systemd/${1:-$UNIT}"
}
if [[ $PRINT_UNIT -eq 1 ]]; then
    if [[ $HUB -eq 1 ]]; then render_unit "$HUB_UNIT"; else render_unit; fi
    exit 0
fi

say() { printf '==> %s\n' "$*"; }
skip() { say "skipped: $*"; SKIPPED+=("$*"); }
run() {
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '+'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}
# a file the admin edits: installed once, kept from then on
install_config() {
    if [[ -e $2 ]]; then
        say "keeping $2"
    else
        run install -m 0644 "$1" "$2"
    fi
}

if [[ $DRY_RUN -eq 0 && $EUID -ne 0 ]]; then
    echo "install.sh: run it as root (sudo $0), or with --dry-run to see what it does" >&2
    exit 1
fi
for file in "$REPO/pyproject.toml" "$REPO/systemd/$UNIT" "$REPO/systemd/$HUB_UNIT" "$REPO/systemd/venue.toml" \
        "$REPO/hardware/tables/reference.toml"; do
    [[ -f $file ]] || { echo "install.sh: $file is missing: run it from a checkout" >&2; exit 1; }
done

say "system packages"
if command -v apt-get >/dev/null 2>&1; then
    missing=()
    wanted=(python3-venv python3-dev gcc i2c-tools)
    [[ $HUB -eq 1 ]] && wanted+=(mosquitto)
    for package in "${wanted[@]}"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
        run apt-get update
        run apt-get install -y --no-install-recommends "${missing[@]}"
    fi
    # lgpio (a Pi 5's GPIO) builds against liblgpio; only ARM boards install it (pyproject.toml's markers).
    case "$(uname -m)" in
        aarch64|armv7l)
            if ! dpkg -s liblgpio-dev >/dev/null 2>&1; then
                run apt-get install -y --no-install-recommends swig liblgpio-dev \
                    || skip "liblgpio-dev is not available: pip uses a prebuilt lgpio wheel if there is one"
            fi
            ;;
        *) skip "liblgpio-dev: $(uname -m) is not a Pi, lgpio is not installed here" ;;
    esac
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
if [[ $HUB -eq 1 ]] && ! id -u "$HUB_USER" >/dev/null 2>&1; then
    run useradd --system --user-group --home-dir "$HUB_STATE_DIR" --no-create-home \
        --shell /usr/sbin/nologin --comment "Ecarte venue hub" "$HUB_USER"
fi

say "virtualenv in $VENV"
if [[ ! -x $VENV/bin/python ]]; then
    run install -d -m 0755 "$PREFIX"
    run python3 -m venv "$VENV"
fi
if [[ -n $WHEELHOUSE ]]; then
    say "from the wheelhouse $WHEELHOUSE (no package index)"
    pip_from=(--no-index --find-links "$WHEELHOUSE")
    if compgen -G "$WHEELHOUSE/pip-*.whl" >/dev/null; then
        run "$VENV/bin/pip" install --quiet --upgrade "${pip_from[@]}" pip
    else
        skip "upgrading pip: no pip wheel in $WHEELHOUSE"
    fi
else
    pip_from=()
    run "$VENV/bin/pip" install --quiet --upgrade pip
fi
run "$VENV/bin/pip" install --quiet --upgrade "${pip_from[@]}" "$REPO[pi]"
run install -d -m 0755 "$PREFIX/docs"
for doc in "$REPO"/docs/*.md; do
    if [[ -e $doc ]]; then
        run install -m 0644 "$doc" "$PREFIX/docs/"
    fi
done

say "table file and state"
run install -d -m 0755 "$CONFIG_DIR"
install_config "$REPO/hardware/tables/reference.toml" "$CONFIG_DIR/table.toml"
run install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0750 "$STATE_DIR"

say "udev rules"
RULES=/etc/udev/rules.d/99-ecarte-table.rules
if ! cmp -s "$REPO/systemd/99-ecarte-table.rules" "$RULES"; then
    run install -m 0644 "$REPO/systemd/99-ecarte-table.rules" "$RULES"
    # udevd runs on a Pi; not in a container (systemd-nspawn, docker) nor in a chroot being prepared
    if [[ -S /run/udev/control ]] && command -v udevadm >/dev/null 2>&1; then
        run udevadm control --reload-rules
        run udevadm trigger --subsystem-match=tty --subsystem-match=i2c-dev --subsystem-match=gpio
    else
        skip "udevadm: no udev running here (a container?): the rules take effect at the next boot with udev"
    fi
fi

if [[ $CONFIGURE_BOOT -eq 1 ]]; then
    say "boot configuration (reboot afterwards)"
    if command -v raspi-config >/dev/null 2>&1; then
        run raspi-config nonint do_i2c 0
        run raspi-config nonint do_serial_hw 0
        run raspi-config nonint do_serial_cons 1
    else
        skip "raspi-config: not a Raspberry Pi OS: set dtparam=i2c_arm=on, dtparam=i2c_arm_baudrate=400000 and enable_uart=1 in /boot/firmware/config.txt and remove console=serial0,115200 from cmdline.txt"
    fi
fi

install_unit() {
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '+ %s > %q\n' "sed -e s#/opt/ecarte-table#${PREFIX%/}#g $REPO/systemd/$1" "/etc/systemd/system/$1"
    else
        rendered="$(mktemp)"
        render_unit "$1" > "$rendered"
        install -m 0644 "$rendered" "/etc/systemd/system/$1"
        rm -f "$rendered"
    fi
}

if [[ $HUB -eq 1 ]]; then
    say "the venue's hub"
    run install -d -m 0755 "$HUB_CONFIG_DIR"
    install_config "$REPO/systemd/venue.toml" "$HUB_CONFIG_DIR/venue.toml"
    run install -d -o "$HUB_USER" -g "$HUB_USER" -m 0750 "$HUB_STATE_DIR"
    # the hub starts its own Mosquitto, with the venue's passwords and ACL, and restarts it if it dies
    if [[ -d /run/systemd/system ]] && systemctl is-enabled --quiet mosquitto.service 2>/dev/null; then
        run systemctl disable --now mosquitto.service
    fi
fi

say "systemd units"
install_unit "$UNIT"
[[ $HUB -eq 1 ]] && install_unit "$HUB_UNIT"
run systemctl daemon-reload
run systemctl enable "$UNIT"
[[ $HUB -eq 1 ]] && run systemctl enable "$HUB_UNIT"
if [[ $START -eq 1 ]]; then
    [[ $HUB -eq 1 ]] && run systemctl restart "$HUB_UNIT"
    run systemctl restart "$UNIT"
fi

say "done. Next: edit $CONFIG_DIR/table.toml, check it with"
say "  sudo -u $SERVICE_USER $VENV/bin/ecarte-table doctor $CONFIG_DIR/table.toml"
say "then: sudo systemctl start $UNIT; journalctl -u $UNIT -f"
if [[ $HUB -eq 1 ]]; then
    say "the hub: edit $HUB_CONFIG_DIR/venue.toml ([tables] names), sudo systemctl start $HUB_UNIT;"
    say "  each table's password is then in $HUB_STATE_DIR/secrets/<table>.pass"
fi
if [[ ${#SKIPPED[@]} -gt 0 ]]; then
    say "skipped ${#SKIPPED[@]} step(s) that do not apply here:"
    for step in "${SKIPPED[@]}"; do
        say "  - $step"
    done
fi
