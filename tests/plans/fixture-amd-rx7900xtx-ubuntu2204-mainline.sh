#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 7.2. Profile database 2026.11.29.
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
plan_steps='rocm_install'
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

# Step 1 of 1 (rocm_install): Install ROCm 7.2 [reboot]
# Fixes: rocm.install
# No HIP runtime is installed. Install ROCm 7.2 for Ubuntu 22.04 LTS with the
# commands below. Reboot afterwards: the amdgpu driver it builds is loaded at
# the next boot.
plan_step=rocm_install
if ! dpkg-query -W -f='${Version}' rocm-core 2>/dev/null | grep -q '^7\.2\.'; then
	as_root apt-get update
	# 6.2.0-060200-generic is not a kernel from the distribution's archive (a mainline or self-built one): install its headers from where it came from (kernel.ubuntu.com ships linux-headers-6.2.0-060200-generic beside each mainline build), or boot a distribution kernel
	as_root apt-get install -y wget
	rocm_dl=$(mktemp -d)
	wget -O "$rocm_dl/amdgpu-install.deb" https://repo.radeon.com/amdgpu-install/7.2/ubuntu/jammy/amdgpu-install_7.2.70200-1_all.deb
	dpkg-deb --field "$rocm_dl/amdgpu-install.deb" Package | grep -qx amdgpu-install
	as_root apt-get install -y "$rocm_dl/amdgpu-install.deb"
	rm -rf "$rocm_dl"
	as_root amdgpu-install -y --usecase=rocm
	reboot_needed=yes
fi
plan_done="$plan_done rocm_install"
