#!/usr/bin/env bash
# Install the Écarté table service on a Raspberry Pi (Raspberry Pi OS trixie, Python 3.13; or bookworm, 3.11).
#
#   sudo systemd/install.sh [--dry-run] [--start] [--configure-boot] [--prefix DIR] [--print-unit]
#                           [--wheelhouse DIR] [--hub]
#
# Idempotent: run it again after pulling a new version. It
#   - installs the system packages the Python packages build with,
#   - creates the system user `ecarte` in the groups i2c, gpio and dialout,
#   - makes (or updates) a virtualenv under /opt/ecarte-table (--prefix) with `.[pi]`,
#   - copies the reference table to /etc/ecarte-table/table.toml if absent,
#   - installs the udev rules (checked with `udevadm verify` where udev has it), the USB-serial drivers
#     to load at boot (/etc/modules-load.d/ecarte-table.conf) and the systemd unit, and enables the unit.
# --dry-run prints every command instead of running it (no root needed).
# --configure-boot turns on I2C and the UART and the serial console off
#   with raspi-config, and sets I2C to 400 kHz in config.txt (the OLED's frame: ~24 ms instead of
#   ~100 ms at the default 100 kHz); a reboot is needed afterwards. ECARTE_BOOT_CONFIG names another
#   config.txt than /boot/firmware/config.txt (or /boot/config.txt before bookworm).
# --print-unit prints the unit as it would be installed (with --prefix's paths; with --hub, the hub's).
# --wheelhouse DIR installs the Python packages from DIR only (no package index: a Pi offline);
#   make DIR on a connected machine of the same architecture and Python (3.13 on trixie, 3.11 on
#   bookworm) with
#   PYPI=1 pip wheel --wheel-dir DIR '.[pi]' pip wheel 'setuptools>=77' 'babel>=2.12,<3'
#   (the last two: pyproject.toml's [build-system] requires, which install.sh builds the copy with;
#   PYPI=1: lgpio has no wheel for Python 3.13, and its sdist builds with swig and gcc, statically
#   linked to its C library, which Debian does not package)
# --hub also installs the venue's hub (systemd/ecarte-hub.service, the user ecarte-hub, the venue
#   file /etc/ecarte-hub/venue.toml if absent) with Mosquitto, which the hub runs and supervises
#   itself (Debian's own mosquitto.service is disabled, in an image made offline too).
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
    # lgpio (the buttons, every Pi) has wheels for CPython 3.11 and 3.12 only: on 3.13 (trixie) pip
    # builds it from its sdist, which needs swig (and gcc, python3-dev)
    if [[ -z $WHEELHOUSE ]] && ! python3 -c 'import sys; sys.exit(sys.version_info >= (3, 13))' 2>/dev/null; then
        wanted+=(swig)
    fi
    for package in "${wanted[@]}"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
        run apt-get update
        run apt-get install -y --no-install-recommends "${missing[@]}"
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
# rpi-lgpio takes the place of RPi.GPIO (the same RPi package): a table upgraded from a venv that holds
# the original must lose it first, as rpi-lgpio's documentation says; pip would otherwise leave one's
# files over the other's. Its removal also takes the files they share: rpi-lgpio goes in again after.
old_rpi_gpio=0
shopt -s nocaseglob nullglob
for info in "$VENV"/lib/python3*/site-packages/rpi[._]gpio-*.dist-info "$VENV"/lib/python3*/site-packages/rpi[._]gpio-*.egg-info; do
    old_rpi_gpio=1
done
shopt -u nocaseglob nullglob
if [[ $old_rpi_gpio -eq 1 ]]; then
    say "RPi.GPIO out, rpi-lgpio in its place"
    run "$VENV/bin/pip" uninstall --yes --quiet RPi.GPIO
fi
# PYPI=1: where pip builds lgpio from its sdist (Python 3.13), its C library is linked in statically
# (without it, lgpio wants liblgpio-dev, which Debian does not package)
run env PYPI=1 "$VENV/bin/pip" install --quiet --upgrade "${pip_from[@]}" "$REPO[pi]"
if [[ $old_rpi_gpio -eq 1 ]]; then
    run "$VENV/bin/pip" install --quiet --force-reinstall --no-deps "${pip_from[@]}" "rpi-lgpio>=0.6"
fi
# the methods @dataclass writes, compiled once beside the bytecode pip wrote, where the service cannot
# write: every start of the table reads them instead of compiling them (cli/compiled_methods.py). -P: the
# installed package's, not the clone's cli/ in the folder install.sh is run from (python -m puts it first)
run "$VENV/bin/python" -P -m cli.compiled_methods
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
# udevadm verify (systemd 254 and later: trixie) checks the rules' syntax, with udev running or not
if command -v udevadm >/dev/null 2>&1 && udevadm verify --help >/dev/null 2>&1; then
    run udevadm verify "$REPO/systemd/99-ecarte-table.rules"
elif command -v udevadm >/dev/null 2>&1; then
    skip "udevadm verify: this udev ($(udevadm --version)) is older than systemd 254 and cannot check the rules"
fi
if ! cmp -s "$REPO/systemd/99-ecarte-table.rules" "$RULES"; then
    run install -m 0644 "$REPO/systemd/99-ecarte-table.rules" "$RULES"
    # udevd runs on a Pi; not in a container (systemd-nspawn, docker) nor in a chroot being prepared
    if [[ -S /run/udev/control ]] && command -v udevadm >/dev/null 2>&1; then
        run udevadm control --reload-rules
        # --action=add: the FTDI rule (the latency timer) is ACTION=="add", and trigger's default is
        # "change", so adapters already plugged in kept their timer until a reboot or a replug
        run udevadm trigger --action=add --subsystem-match=tty --subsystem-match=i2c-dev --subsystem-match=gpio \
            --subsystem-match=usb-serial
    else
        skip "udevadm: no udev running here (a container?): the rules take effect at the next boot with udev"
    fi
fi

say "USB-serial drivers at boot"
# the unit's DeviceAllow=char-ttyUSB is resolved when it starts: the drivers must be loaded before it
MODULES=/etc/modules-load.d/ecarte-table.conf
if ! cmp -s "$REPO/systemd/ecarte-table-modules.conf" "$MODULES"; then
    run install -D -m 0644 "$REPO/systemd/ecarte-table-modules.conf" "$MODULES"
fi
if [[ -d /run/systemd/system ]] && ! systemd-detect-virt --quiet --container 2>/dev/null \
        && command -v modprobe >/dev/null 2>&1; then
    run systemctl restart systemd-modules-load.service
else
    skip "loading cp210x, ftdi_sio, ch341 and cdc_acm now: no kernel modules here (a container?): they load at the next boot"
fi

# dtparam=i2c_arm_baudrate=400000 in config.txt's [all] section (the OLED's frames at 400 kHz)
i2c_at_400k() {
    local config=${ECARTE_BOOT_CONFIG:-}
    if [[ -z $config ]]; then
        for candidate in /boot/firmware/config.txt /boot/config.txt; do
            if [[ -f $candidate ]]; then config=$candidate; break; fi
        done
    fi
    if [[ -z $config || ! -f $config ]]; then
        skip "I2C at 400 kHz: no config.txt here (not a Pi): set dtparam=i2c_arm_baudrate=400000 in it"
    elif grep -qx 'dtparam=i2c_arm_baudrate=400000' "$config"; then
        say "I2C is at 400 kHz already ($config)"
    elif grep -q '^dtparam=i2c_arm_baudrate=' "$config"; then
        run sed -i 's/^dtparam=i2c_arm_baudrate=.*/dtparam=i2c_arm_baudrate=400000/' "$config"
    else
        run sed -i '$a [all]\ndtparam=i2c_arm_baudrate=400000' "$config"
    fi
}

if [[ $CONFIGURE_BOOT -eq 1 ]]; then
    say "boot configuration (reboot afterwards)"
    if command -v raspi-config >/dev/null 2>&1; then
        run raspi-config nonint do_i2c 0
        run raspi-config nonint do_serial_hw 0
        run raspi-config nonint do_serial_cons 1
    else
        skip "raspi-config: not a Raspberry Pi OS: set dtparam=i2c_arm=on and enable_uart=1 in /boot/firmware/config.txt and remove console=serial0,115200 from cmdline.txt"
    fi
    i2c_at_400k
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
    # the hub starts its own Mosquitto, with the venue's passwords and ACL, and restarts it if it dies;
    # Debian's package enabled its own mosquitto.service, where systemd runs and where it does not (an
    # image made in a chroot: there it would start at the image's first boot, on the hub's port), so it
    # is disabled either way, and stopped where systemd runs
    if command -v systemctl >/dev/null 2>&1 && systemctl is-enabled --quiet mosquitto.service 2>/dev/null; then
        if [[ -d /run/systemd/system ]]; then
            run systemctl disable --now mosquitto.service
        else
            run systemctl disable mosquitto.service
        fi
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
