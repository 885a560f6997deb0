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
reboot_needed=no
plan_steps='mok_enroll'
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

# Step 1 of 1 (mok_enroll): Enroll the DKMS module signing key (Secure Boot)
# [reboot]
# Fixes: driver.amdgpu, device.present
# Secure Boot rejects the DKMS-built amdgpu module ("Key was rejected by
# service"). Enroll the key DKMS signs with
# (/var/lib/shim-signed/mok/MOK.der), then confirm it in the MOK manager at
# the next boot (or turn Secure Boot off in the firmware).
plan_step=mok_enroll
if ! mokutil --test-key /var/lib/shim-signed/mok/MOK.der 2>/dev/null | grep -q -e 'already enrolled' -e 'enrollment request'; then
	as_root sh -c 'test -f /var/lib/shim-signed/mok/MOK.der || { echo "no DKMS signing key /var/lib/shim-signed/mok/MOK.der: rebuild the module (dkms autoinstall) first" >&2; exit 1; }'
	as_root mokutil --import /var/lib/shim-signed/mok/MOK.der
	reboot_needed=yes
fi
plan_done="$plan_done mok_enroll"
