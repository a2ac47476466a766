#!/bin/sh
# gpio-sim's chip through configfs (Documentation/admin-guide/gpio/gpio-sim.rst): one bank of 58
# lines, as a Pi 4's GPIO chip, named as Raspberry Pi OS names it.
set -e
modprobe gpio-sim
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
chip=/sys/kernel/config/gpio-sim/pi
[ -d "$chip" ] && exit 0
mkdir -p "$chip/bank0"
echo 58 > "$chip/bank0/num_lines"
echo pinctrl-bcm2711 > "$chip/bank0/label"
echo 1 > "$chip/live"
