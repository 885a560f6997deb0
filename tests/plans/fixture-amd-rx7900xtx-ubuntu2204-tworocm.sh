#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 7.1. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (rocm.version): The amdgpu kernel driver 6.8.5 is outside the support
# window of ROCm 7.1: install the amdgpu-dkms of the same ROCm release, or a
# ROCm release that matches the driver.

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
plan_steps='rocm_switch'
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

# Step 1 of 1 (rocm_switch): Point /opt/rocm at /opt/rocm-6.2.0
# Fixes: rocm.install
# Several ROCm installs are present (/opt/rocm-7.1.1, /opt/rocm-6.2.0) and
# /opt/rocm points at /opt/rocm-7.1.1, not at /opt/rocm-6.2.0, the install the
# rest of the machine fits (its GPUs, the loaded amdgpu driver's window, the
# OS). Switch the rocm alternative to it (--set, which a script can run:
# --config asks at a prompt), then remove the installs you do not use.
plan_step=rocm_switch
if ! [ "$(readlink -f /opt/rocm)" = "$(readlink -f /opt/rocm-6.2.0)" ]; then
	as_root update-alternatives --set rocm /opt/rocm-6.2.0
fi
plan_done="$plan_done rocm_switch"
