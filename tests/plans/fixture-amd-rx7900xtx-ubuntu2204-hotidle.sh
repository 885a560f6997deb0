#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (health.thermal): GPU 0000:03:00.0 (AMD Radeon RX 7900 XTX) is at 106
# °C, close to its critical 110 °C: check its fans, the airflow through the
# chassis and the heatsink.

# Note (health.power): GPU 0000:03:00.0 (AMD Radeon RX 7900 XTX) is capped at
# 250 W, below its default 327 W: restore the default (it also resets at the
# next driver load).
#   echo 327000000 | sudo tee /sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon2/power1_cap

# Note (health.power): GPU 0000:03:00.0 (AMD Radeon RX 7900 XTX) has its
# performance level forced to low: clocks stay low under load. Let the driver
# choose again.
#   echo auto | sudo tee /sys/bus/pci/devices/0000:03:00.0/power_dpm_force_performance_level

# Note (health.bar): GPU 0000:03:00.0 (AMD Radeon RX 7900 XTX): the CPU sees
# only 256 MiB of its VRAM. In the firmware setup, enable "Above 4G Decoding"
# and "Re-Size BAR Support" (ROCm's Instinct guides list large BAR as
# required), then boot again.

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
