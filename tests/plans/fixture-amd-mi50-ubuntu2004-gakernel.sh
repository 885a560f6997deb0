#!/bin/sh
# rocmcheck plan for AMD Instinct MI50 (gfx906) on Ubuntu 20.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.1. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (device.arch): Nothing to change now (no downgrade): ROCm 6.1 supports
# the AMD Instinct MI50. Upgrade no further than ROCm 6.3: from 6.4 on, ROCm
# and its rocBLAS no longer support gfx906.

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
plan_steps='kernel_hwe'
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

# Step 1 of 1 (kernel_hwe): Install a kernel series ROCm supports here
# [reboot]
# Fixes: system.kernel
# Kernel 5.4.0-216-generic is older than every series ROCm 6.1 supports on
# Ubuntu 20.04 LTS (5.15): the amdgpu DKMS module does not build for it, and
# its own amdgpu driver is too old for ROCm. Install Ubuntu 20.04 LTS's
# hardware-enablement kernel (series 5.15) from the archive and reboot into
# it: DKMS builds amdgpu for it, and its headers come with it.
plan_step=kernel_hwe
if ! dpkg-query -W -f='${Status}' linux-generic-hwe-20.04 2>/dev/null | grep -q 'ok installed'; then
	as_root apt-get install -y linux-generic-hwe-20.04
	reboot_needed=yes
fi
plan_done="$plan_done kernel_hwe"
