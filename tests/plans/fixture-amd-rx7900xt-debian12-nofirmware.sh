#!/bin/sh
# rocmcheck plan for this machine on Debian 12 (the machine rocmcheck read).
# Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (system.os): Debian 12 is not a supported OS of ROCm 6.2 for the GPUs
# here (supported: Ubuntu 22.04 LTS, Ubuntu 24.04 LTS, Red Hat Enterprise
# Linux 8, Red Hat Enterprise Linux 9, SUSE Linux Enterprise Server 15). Use
# one of those, or ROCm 7.2, the newest release that supports Debian 12 for
# them. Unlisted OSes often work, but AMD does not test packages and DKMS
# builds there.

# Note (health.kernel_log): amdgpu could not load the firmware
# amdgpu/psp_13_0_0_sos.bin: the installed firmware-amd-graphics is older than
# this GPU or kernel. Install the newer firmware, rebuild the initramfs and
# reboot.
#   sudo apt-get update && sudo apt-get install --only-upgrade firmware-amd-graphics
#   sudo update-initramfs -u

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
plan_steps='amdgpu_firmware'
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

# Step 1 of 1 (amdgpu_firmware): Install the GPU firmware [reboot]
# Fixes: driver.amdgpu, device.present
# amdgpu could not load its firmware amdgpu/psp_13_0_0_sos.bin and gave up on
# the GPU. Install firmware-amd-graphics, rebuild the initramfs (it holds a
# copy of the firmware) and reboot.
plan_step=amdgpu_firmware
if ! dpkg-query -W -f='${Status}' firmware-amd-graphics 2>/dev/null | grep -q 'ok installed'; then
	as_root apt-get install -y firmware-amd-graphics
	as_root sh -c 'if command -v update-initramfs >/dev/null; then update-initramfs -u; else dracut -f; fi'
	reboot_needed=yes
fi
plan_done="$plan_done amdgpu_firmware"
