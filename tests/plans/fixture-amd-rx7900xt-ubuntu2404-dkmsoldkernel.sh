#!/bin/sh
# rocmcheck plan for this machine on Ubuntu 24.04 LTS (the machine rocmcheck
# read). Target: ROCm 6.2. Profile database 2026.11.29.
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
plan_steps='amdgpu_dkms_kernel'
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
	exit "$plan_rc"
}
trap plan_finish EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Step 1 of 1 (amdgpu_dkms_kernel): Build the DKMS amdgpu for the running
# kernel
# Fixes: driver.amdgpu, device.present
# The DKMS amdgpu module is built for kernel 6.8.0-41-generic only, and the
# running kernel 6.8.0-45-generic has no amdgpu module of its own. Build it
# for this kernel (DKMS needs its headers) and load it.
plan_step=amdgpu_dkms_kernel
if ! lsmod | grep -q '^amdgpu '; then
	as_root apt-get install -y linux-headers-6.8.0-45-generic linux-modules-extra-6.8.0-45-generic
	as_root dkms autoinstall -k 6.8.0-45-generic
	as_root modprobe amdgpu
fi
plan_done="$plan_done amdgpu_dkms_kernel"
