#!/bin/sh
# rocmcheck plan for NVIDIA GeForce RTX 3090 (sm_86) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

reboot_needed=no

# Step 1 of 1 (nvidia_driver_upgrade): Upgrade the NVIDIA driver to 550.54.14
# or newer [reboot]
# Fixes: cuda.toolkit, framework.torch
# CUDA 12.4 needs NVIDIA driver 550.54.14 or newer: upgrade the driver (the
# command below installs the distribution's current one), then reboot, or use
# a CUDA build that this driver supports.
if ! { v=$( (sed -n 's/^NVRM version:.* \([0-9]\{3,\}\.[0-9][0-9.]*\) .*/\1/p' /proc/driver/nvidia/version; nvidia-smi --query-gpu=driver_version --format=csv,noheader) 2>/dev/null | sed -n '1s/$/.0.0/;1s/^\([0-9]*\)\.\([0-9]*\)\.\([0-9]*\).*/000\1.000\2.000\3./;1s/[0-9]*\([0-9]\{4\}\)\./\1/gp') && [ -n "$v" ] && [ "$v" -ge 055000540014 ]; }; then
	sudo apt-get update
	sudo apt-get install -y ubuntu-drivers-common
	sudo ubuntu-drivers install
	reboot_needed=yes
fi

if [ "$reboot_needed" = yes ]; then
	echo 'rocmcheck plan: reboot to finish (sudo reboot)' >&2
fi
