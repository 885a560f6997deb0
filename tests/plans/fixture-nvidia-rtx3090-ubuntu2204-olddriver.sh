#!/bin/sh
# rocmcheck plan for NVIDIA GeForce RTX 3090 (sm_86) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# as_root COMMAND...: COMMAND as root: directly when the script runs as root
# (minimal images and containers have no sudo), else through sudo.
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "rocmcheck plan: $1 needs root, and sudo is not installed: run the script as root" >&2
		return 1
	fi
}

# Which steps are done, and which are left: said when the script ends,
# however it ends (a failed command stops it, under set -e).
reboot_needed=no
plan_steps='nvidia_driver_upgrade'
plan_step='' plan_done='' plan_skipped=''
plan_finish() {
	plan_rc=$?
	trap - EXIT
	if [ "$plan_rc" != 0 ]; then
		plan_left=
		for plan_s in $plan_steps; do
			case " $plan_done $plan_skipped $plan_step " in
			*" $plan_s "*) ;;
			*) plan_left="$plan_left $plan_s" ;;
			esac
		done
		echo "rocmcheck plan: step ${plan_step:-?} failed (exit status $plan_rc). Done:${plan_done:- none}. Skipped:${plan_skipped:- none}. Not run:${plan_left:- none}." >&2
	else
		echo "rocmcheck plan: done:${plan_done:- none}${plan_skipped:+; skipped (cannot run here):$plan_skipped}" >&2
	fi
	if [ "$reboot_needed" = yes ]; then
		echo 'rocmcheck plan: reboot to finish (as root: reboot)' >&2
	fi
	exit "$plan_rc"
}
trap plan_finish EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Step 1 of 1 (nvidia_driver_upgrade): Upgrade the NVIDIA driver to 550.54.14
# or newer [reboot]
# Fixes: cuda.toolkit, framework.torch
# CUDA 12.4 needs NVIDIA driver 550.54.14 or newer: upgrade the driver (the
# command below installs the distribution's current one), then reboot, or use
# a CUDA build that this driver supports.
plan_step=nvidia_driver_upgrade
if ! { v=$( (sed -n 's/^NVRM version:.* \([0-9]\{3,\}\.[0-9][0-9.]*\) .*/\1/p' /proc/driver/nvidia/version; nvidia-smi --query-gpu=driver_version --format=csv,noheader) 2>/dev/null | sed -n '1s/$/.0.0/;1s/^\([0-9]*\)\.\([0-9]*\)\.\([0-9]*\).*/000\1.000\2.000\3./;1s/[0-9]*\([0-9]\{4\}\)\./\1/gp') && [ -n "$v" ] && [ "$v" -ge 055000540014 ]; }; then
	as_root apt-get update
	as_root apt-get install -y ubuntu-drivers-common
	as_root ubuntu-drivers install
	reboot_needed=yes
fi
plan_done="$plan_done nvidia_driver_upgrade"
